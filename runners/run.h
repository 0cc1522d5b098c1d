/* cordon run: one command under a preset's sandbox, failing closed. */
#ifndef CORDON_RUN_H
#define CORDON_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cordon.h"

/* Exit statuses of `cordon run` besides the command's own (like timeout(1)
 * and env(1)). */
enum {
	RUN_TIMEOUT = 124,
	RUN_UNAVAILABLE = 125, /* the sandbox cannot start, or the runner failed */
	RUN_DENIED = CORDON_RUN_DENIED, /* the policy denies the command */
	RUN_ASK = CORDON_RUN_ASK,       /* it needs an approval it was not given */
};

struct run_opts {
	const cordon_policy *policy;
	const char *preset;
	cordon_context *ctx;     /* workspace, cwd, ... (tmp is made per call) */
	char **argv;             /* the command */
	bool shell;              /* argv[0] is a string for sh -c */
	bool approved;           /* the host obtained approval for this call's preview */
	const char *approval;    /* an exec approval id to consume, or NULL */
	const char *preview;     /* with approved: the digest of the preview the person saw */
	const char *policy_path; /* as given with -p, for the messages; NULL: the default */
	double timeout;          /* seconds; 0 for none */
	size_t max_output;       /* bytes of stdout+stderr passed through; 0: all */
	const char *output_file; /* where the whole output is kept */
	const char *exec_helper; /* the in-sandbox helper (cordon-exec) */
	bool redact;             /* scrub secrets from the output passed through */
	bool check_links;        /* refuse a call where a file to write has a name outside */
	cordon_audit *audit;     /* one record for the call, or NULL */
	const char *actor;       /* for the audit record; NULL: $USER */
	const char *egress_hosts; /* hosts(5) file the egress proxy resolves from alone */
	bool quiet_refusals;     /* no report of the egress proxy's refusals on stderr */
	bool no_watch_writes;    /* no seccomp watch of the file-system writes the kernel
				  * refuses (refusal_watch.h): none reported */
	char **refusals;         /* where the refusals go as a JSON array (malloc'd; see
				  * refusals.h), or NULL */
	char *outcome;           /* RUN_OUTCOME_SIZE bytes, or NULL: how the call ended, as
				  * its audit record says ("exit:N" when the command ran
				  * and N is its own status) */
};

#define RUN_OUTCOME_SIZE 32

int run_command(const struct run_opts *o);

/* `cordon proxy`: the egress proxy of a call, served alone on a listener
 * of its own (proxy_listen.c), for containers and Pods that reach the
 * network only through it. */
struct run_proxy_opts {
	const cordon_evaluator *ev;
	const char *listen;       /* "ADDR:PORT" or "[V6]:PORT"; port 0: any free one */
	const char *egress_hosts; /* hosts(5) file the proxy resolves from alone, or NULL */
	cordon_audit *audit;      /* a record a contact, or NULL */
	const char *actor;
};
/* Serve until killed; 125 when it cannot listen or its proxy ends, 2 for
 * a listen address it cannot read. */
int run_proxy(const struct run_proxy_opts *o);

/* The exec request for o's command: its shell string (o->shell), or its
 * argv as it is. */
struct cordon_request run_exec_request(const struct run_opts *o);
/* The status of a call refused on a decision of effect e: RUN_DENIED for
 * a deny, which nothing can approve; RUN_ASK otherwise (an ask, or an
 * approval that is void), which a person's approval may turn into a run. */
int run_refusal_status(enum cordon_effect e);
/* Say on stderr why the command does not run: denied, or needs approval. */
void run_refuse(const struct run_opts *o, const cordon_decision *d, enum cordon_effect e,
		const char *err);

/* Free a malloc'd NULL-terminated vector of malloc'd strings (an argv, or
 * cordon_lowering_environ's). */
void run_free_argv(char **v);
/* Run argv[0] with envp (NULL: this process's environment), its stdout and
 * stderr into one pipe: its exit status (-1 when it could not be run or
 * was killed) and the first line it wrote (malloc'd, or NULL). */
int run_capture(char *const argv[], char *const envp[], char **line);

/* The helper that applies Landlock and no_new_privs inside the sandbox:
 * next to the running cordon binary, else in libexecdir. */
char *run_find_helper(void);

/* Whether the helper at path is of this build of cordon (it carries the
 * same build identity); one of another build is refused, never run. */
bool run_helper_matches(const char *path);

/* What a sandbox needs on this machine, layer by layer. */
struct probe_result {
	bool seatbelt;        /* macOS: bwrap_path is sandbox-exec's, userns whether a
			       * deny-default profile applies (userns_error: why not) */
	char *bwrap_path;     /* NULL when none is usable */
	char *bwrap_version;
	bool userns;          /* bwrap could create a user namespace */
	char *userns_error;
	int landlock_abi;     /* 0: none */
	bool seccomp;
	char *helper_path;
	bool helper_same_build; /* the helper is of this build (run_helper_matches) */
	/* Linux, run by root (launch): the uid root's commands run as, 65534
	 * where idmapped mounts work, else 0 with root_why (run_idmap_probe) */
	bool root;
	unsigned root_uid;
	char *root_why;
};
void run_probe(struct probe_result *r, bool launch);
void run_probe_free(struct probe_result *r);
/* Linux: what this machine gives a call for memory and processes, in words
 * for `cordon probe` (a cgroup is made and removed to find out;
 * run_limits.c). */
const char *run_limits_probe(void);

#endif
