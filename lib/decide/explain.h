/* The record of how a decision was made, for `cordon explain`: the
 * evaluator fills it as it decides (eval.c, eval_rank.c, eval_command.c)
 * and explain.c prints it.  Rules are borrowed from the evaluator, which
 * outlives the record; every text is the record's own. */
#ifndef CORDON_EXPLAIN_H
#define CORDON_EXPLAIN_H

#include "ir/ir.h"

#include <stdbool.h>
#include <stddef.h>

struct ev_rule;
struct shell_script;
struct cmd_ops;

/* A rule or protection looked at for a target, and whether it matched. */
struct xp_rule {
	const struct ev_rule *r;
	bool matched;
	bool by_name; /* matched the program's name, the command runs it by a path */
};

struct xp_rules {
	struct xp_rule *v;
	size_t n, cap;
};

/* Why the winner won. */
enum xp_why {
	XP_ONLY_MATCH,    /* the only match */
	XP_MOST_SPECIFIC, /* the most specific match */
	XP_MOST_SEVERE,   /* the most severe of the most specific matches */
	XP_NO_RULE,       /* no rule matches: deny */
	XP_PROTECTED,     /* a protection holds the path */
};

/* How the winner relates to another match (eval_rank.c). */
enum xp_rel {
	XP_REL_MORE_SPECIFIC,     /* the winner is more specific than it */
	XP_REL_SAME_OWN,          /* the same targets: the preset's own beats an inherited one */
	XP_REL_SAME_PRESET,       /* the same targets: a preset's rule beats a top-level one */
	XP_REL_SAME_SEVERE,       /* the same targets: the more severe wins */
	XP_REL_SAME_EFFECT,       /* the same targets, and it decides the same */
	XP_REL_BEATEN,            /* beaten by another match (by), or a more specific rule */
	XP_REL_INCOMPARABLE,      /* incomparable, the same effect */
	XP_REL_INCOMPARABLE_SEVERE, /* incomparable, the more severe wins */
};

struct xp_rank {
	enum xp_rel rel;
	const struct ev_rule *other;
	const struct ev_rule *by; /* XP_REL_BEATEN: the match that beats other, or NULL */
};

/* One target judged by the rules. */
struct xp_judgment {
	enum ir_op op;
	char *target;     /* as judged; a region's child: its directory */
	bool child;       /* the target is an ordinary child of the directory */
	bool protections; /* the protections were looked at (a write, and some exist) */
	struct xp_rules prot, cand;
	enum xp_why why;
	const struct ev_rule *winner; /* the deciding rule or protection, NULL for no rule */
	enum ir_effect effect;
	struct xp_rank *ranks;
	size_t nranks, ranks_cap;
	char *grant_actor, *grant_time; /* a session grant turned ask into allow */
};

/* A rule a region reaches beyond its ordinary child. */
struct xp_reach {
	bool sure;
	char *what;
	enum ir_effect effect;
	const char *origin;
};

/* One command of the parsed line, and the operations read from it. */
struct xp_cmd_op {
	enum ir_op op;
	char *target, *detail;
};

struct xp_cmd {
	char *text;
	char **wrappers;
	size_t nwrappers;
	char *cwd;    /* NULL: unknown */
	char *opaque; /* why it is opaque, or NULL */
	struct xp_cmd_op *ops;
	size_t nops, ops_cap;
};

enum xp_kind {
	XP_OP,            /* an operation judged: a target, or a region */
	XP_UNRESOLVED,    /* a path that cannot be resolved: deny */
	XP_NOT_CANONICAL, /* a path marked canonical that is not spelled as one: deny */
	XP_PARSE,         /* the parse summary of a shell command */
	XP_PARSE_ERROR,   /* a command line that cannot be parsed: at least ask */
	XP_ARGV,          /* an argv request, as the line exec rules match */
	XP_ARGV_ERROR,    /* an argv that cannot be analysed: deny */
};

struct xp_step {
	enum xp_kind kind;
	/* XP_OP: a region says what it is first (shown, root, pattern), and
	 * its reached rules after its judgment. */
	bool region;
	char *shown, *root, *pattern;
	struct xp_judgment j;
	struct xp_reach *reached;
	size_t nreached, reached_cap;
	/* XP_UNRESOLVED, XP_NOT_CANONICAL: j.op and j.target, and why */
	char *why;
	/* XP_PARSE */
	struct xp_cmd *cmds;
	size_t ncmds;
	/* XP_PARSE_ERROR: offset and why; XP_ARGV: count and why (the line) */
	size_t offset;
};

struct explain {
	const char *preset;
	const char *layer; /* under a managed layer: the deciding layer's name */
	bool approval_never;
	const char *sandbox;
	struct xp_step *steps;
	size_t nsteps, steps_cap;
	bool escalated;
	bool decided; /* the request came to a decision by the rules or its analysis */
	enum ir_effect effect; /* the decision's */
	const char *reason, *rule;
};

/* A new step of kind, or NULL when x is (nothing is explained). */
struct xp_step *xp_step_add(struct explain *x, enum xp_kind kind);
/* The judgment of a new operation step, or NULL when x is. */
struct xp_judgment *xp_judgment_add(struct explain *x);
/* A request refused before the rules are asked (XP_UNRESOLVED,
 * XP_NOT_CANONICAL), why it is. */
void xp_refused(struct explain *x, enum xp_kind kind, enum ir_op op, const char *target,
		const char *why);
void xp_rule_push(struct xp_rules *l, const struct ev_rule *r, bool matched, bool by_name);
void xp_rank_push(struct xp_judgment *j, enum xp_rel rel, const struct ev_rule *other,
		  const struct ev_rule *by);
/* The parse summary of a script and the operations read from it. */
void xp_parse(struct explain *x, const struct shell_script *sc, const char *text,
	      const struct cmd_ops *ops);
/* The text of `cordon explain`: one printer for every step. */
char *xp_render(const struct explain *x);
void xp_free(struct explain *x);

#endif
