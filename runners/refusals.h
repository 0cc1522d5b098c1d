/* What the egress proxy refused during a call, told to the person after
 * the command ends (docs/sandbox.md, "Refusals").
 *
 * The proxy writes one struct proxy_refusal a refusal on a pipe that only
 * it and the runner hold (proxy.h); the runner reads them while the call
 * runs and once more after it ends, keeps each distinct refusal once, in
 * order, with a count, and works out for each the change that would allow
 * it: the approval that opens the host for one call, or the rule a preset
 * extending the one in force would add, checked against the policy.  The
 * report is cordon's alone: written by the runner after the command's
 * output ended, every byte of what the command sent escaped. */
#ifndef CORDON_REFUSALS_H
#define CORDON_REFUSALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cordon.h"
#include "proxy.h"
#include "run.h"
#include "refusal_watch.h"

/* Distinct refusals kept; those beyond are counted, not listed. */
#define REFUSALS_MAX 64

enum refusal_fix {
	REFUSAL_FIX_NONE,     /* no change of policy lets it through */
	REFUSAL_FIX_RULE,     /* the rule to add to a preset that extends the one in force */
	REFUSAL_FIX_APPROVE,  /* a person's approval of the call, then the call with it */
};

struct refusal {
	struct proxy_refusal r;
	/* A write the kernel refused (refusal_watch.h): "read-only" (a
	 * read-only mount) or "outside" (no write root covers it); NULL for
	 * a contact the proxy refused.  path: absolute, escaped; call: the
	 * first call refused on it. */
	const char *fs_kind;
	char *path, *call;
	unsigned long count;
	/* Escaped for a terminal and for JSON (printable ASCII, no '"'). */
	char *target, *rule, *reason;
	enum refusal_fix fix;
	char *change; /* the rule line or the commands; NULL for none */
	char *why;    /* why there is no change, or what a rule change needs; or NULL */
};

struct refusals {
	struct refusal *items;
	size_t n, cap;
	unsigned long more; /* refusals not kept (beyond REFUSALS_MAX distinct ones) */
	unsigned long fs_more; /* refused writes to paths not kept */
	struct refusal_watch fs; /* the writes the kernel refused, watched as the call runs */
	char part[sizeof(struct proxy_refusal)];
	size_t part_len;
};

/* A proxy_widens_fn (proxy.h), arg the call's struct run_opts: the
 * policy is loaded again, from the file the call's came from (the embedded
 * default by name), with a preset that extends the one in force by
 * `net "target" allow;` alone, and target decided there. */
int refusals_widens(void *arg, const char *target, const char *host, bool address);

/* Would `write "pattern" allow;` in a preset that extends the one in
 * force allow a write of path?  1, 0, or -1 unknown. */
int refusals_widens_write(const struct run_opts *o, const char *pattern, const char *path);

/* s escaped for a terminal and for JSON, as every string of a refusal
 * (malloc'd). */
char *refusals_escape(const char *s);

/* Read what the pipe fd holds now (it is non-blocking): false once it
 * ended (the proxy is gone). */
bool refusals_read(struct refusals *rs, int fd);
/* Work out each refusal's change: o the call, d its exec decision (the
 * preview an approval would bind), or NULL. */
void refusals_explain(struct refusals *rs, const struct run_opts *o, const cordon_decision *d);
/* The report, "cordon: "-prefixed lines, to f; nothing when none. */
void refusals_print(const struct refusals *rs, const struct run_opts *o, FILE *f);
/* A JSON array of the refusals (malloc'd, "[]" when none). */
char *refusals_json(const struct refusals *rs, const struct run_opts *o);
/* Once the command's output has ended: explain, print to stderr (unless
 * o->quiet_refusals) and hand o->refusals the JSON; nothing when none. */
void refusals_end(struct refusals *rs, const struct run_opts *o, const cordon_decision *d);
void refusals_free(struct refusals *rs);

#endif
