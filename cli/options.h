/* The command line of every verb from one option table: the table builds
 * getopt_long's tables, the parser fills one struct of the options the verbs
 * share and hands each verb its own, and `cordon VERB --help` prints the
 * options from the same rows, so the three cannot drift apart. */
#ifndef CORDON_CLI_OPTIONS_H
#define CORDON_CLI_OPTIONS_H

#include "cordon.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* The verbs, for the table's verb masks. */
enum cli_verb {
	VERB_CHECK,
	VERB_LINT,
	VERB_FMT,
	VERB_COMPILE,
	VERB_EVAL,
	VERB_EXPLAIN,
	VERB_TEST,
	VERB_DIFF,
	VERB_RUN,
	VERB_PROBE,
	VERB_HOOK,
	VERB_WRITE,
	VERB_EDIT,
	VERB_APPROVE,
	VERB_AUDIT,
	VERB_REVOKE,
	VERB_BUNDLE,
	VERB_PROXY,
	VERB_SERVE,
	VERB_GRANTS,
	VERB_COUNT
};

/* What an option is about; --help prints each family under its heading. */
enum cli_family {
	CLI_OWN,    /* the verb's own */
	CLI_POLICY, /* which policy, preset and context decide */
	CLI_AUDIT,  /* the audit record */
	CLI_OUTPUT, /* what the output looks like */
	CLI_FAMILY_COUNT
};

/* Every option meaning.  The shared families are handled by the parser;
 * the verb's own are handed to the verb. */
enum cli_opt {
	OPT_NONE,
	/* every verb */
	OPT_HELP,
	/* policy */
	OPT_POLICY,
	OPT_PRESET,
	OPT_CONTEXT,
	OPT_HOST,
	OPT_WORKSPACE,
	OPT_CWD,
	/* audit */
	OPT_AUDIT,
	OPT_SYSLOG,
	OPT_ACTOR,
	/* output */
	OPT_JSON,
	OPT_FORMAT,
	/* the verbs' own */
	OPT_WERROR,
	OPT_DISABLE,
	OPT_ENABLE,
	OPT_INCLUDE_SHIPPED,
	OPT_LIST_CHECKS,
	OPT_CHECK,
	OPT_DIFF,
	OPT_WRITE,
	OPT_ALL,
	OPT_EMIT,
	OPT_NO_ORIGINS,
	OPT_STDIN,
	OPT_ESCALATE,
	OPT_SANDBOXED,
	OPT_ARGV,
	OPT_COVERAGE,
	OPT_THRESHOLD,
	OPT_FAIL_ON_WIDEN,
	OPT_TIMEOUT,
	OPT_MAX_OUTPUT,
	OPT_OUTPUT_FILE,
	OPT_SHELL,
	OPT_APPROVED,
	OPT_APPROVAL,
	OPT_PREVIEW,
	OPT_REDACT,
	OPT_CHECK_LINKS,
	OPT_EGRESS_HOSTS,
	OPT_STATUS_FD,
	OPT_QUIET_REFUSALS,
	OPT_NO_WATCH_WRITES,
	OPT_NO_REWRITE,
	OPT_NO_ASK,
	OPT_SCOPE,
	OPT_DIR,
	OPT_DRY_RUN,
	OPT_OLD,
	OPT_NEW,
	OPT_TTL,
	OPT_SESSION,
	OPT_SINCE,
	OPT_DECISION,
	OPT_OUTPUT,
	OPT_BUNDLE_VERSION,
	OPT_EXPIRES,
	OPT_KEYS,
	OPT_LISTEN,
	OPT_COUNT
};

/* Flags of a row. */
enum {
	CLI_REST = 1, /* the rest of the command line are operands (after one "--") */
};

/* One row of the table: an option of the verbs in its mask. */
struct cli_option {
	unsigned verbs;         /* 1u << VERB_x for each verb that takes it */
	const char *name;       /* the long name, without "--" */
	char letter;            /* the short letter, or 0 */
	const char *arg;        /* the argument's name in --help; NULL: a flag */
	enum cli_family family;
	enum cli_opt id;
	const char *help;       /* lines of help; '\n' starts an indented line */
	const char *forms;      /* the forms of the verb it belongs to ("edit"), or NULL: all */
	const char *values;     /* the values it takes ("text json"), or NULL: any */
	unsigned flags;
};

extern const struct cli_option cli_options[];
extern const unsigned cli_noptions;

/* A verb: its name, and the text of its --help around the option list. */
struct verb {
	enum cli_verb id;
	const char *name;
	const char *summary;
	const char *usage;    /* the usage lines, then the description */
	const char *epilogue; /* after the options, or NULL */
	bool command_operand; /* the first operand starts a command: the options
				 * end there, as for env(1) */
	int (*run)(int argc, char **argv);
};

const struct verb *cli_verb_find(const char *name);
const struct verb *cli_verb_by_id(enum cli_verb id);

/* The options of one command line, parsed. */
struct cli_args {
	const struct verb *verb;
	/* policy */
	const char *policy_path, *preset, *host;
	cordon_context *ctx;
	/* audit */
	const char *audit_path, *syslog, *actor;
	/* output */
	bool json;
	const char *format;
	/* the operands, in order (argv's own strings) */
	char **operands;
	int noperands;
	/* the words of a CLI_REST option start at this operand; -1: none */
	int rest;
	/* the rows given, by meaning */
	const struct cli_option *seen[OPT_COUNT];
	/* the exit status once cli_args_next returned -1: EXIT_OK after --help */
	int status;
	/* keep a usage error the parser finds in message, unprinted */
	bool quiet;
	char message[512];
	/* private */
	int argc;
	char **argv;
	struct option *longopts;
	char *shortopts;
	const struct cli_option **rows;
	int nrows;
	bool done;
};

/* Start parsing argv (argv[0] is the verb). */
void cli_args_init(struct cli_args *a, const char *verb, int argc, char **argv);
/* The next option of the verb's own, with its argument in *arg; 0 at the
 * end of the options; -1 when the parse stops: after --help (status 0), or
 * after a usage error (status 2, the message printed, or kept in
 * a->message when a->quiet). */
int cli_args_next(struct cli_args *a, const char **arg);
/* Refuse an option of another form of the verb (`approve edit` with
 * --session).  EXIT_OK, or EXIT_USAGE after a message. */
int cli_args_form(struct cli_args *a, const char *form);
/* Frees what the parse allocated (the context too). */
void cli_args_free(struct cli_args *a);

/* Print the --help of a verb from its text and its options. */
void cli_print_help(const struct verb *v, FILE *out);

#endif
