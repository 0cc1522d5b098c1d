/* Compiled patterns: one IR pattern with the context applied, ready to
 * match a request target.  Globs become anchored pcre2 programs; regexes
 * are compiled as written; literals compare as strings.  A program is
 * JIT compiled once it has been matched often enough to repay it
 * (struct re_jit).  Matching needs only caller-owned pcre2 match data and
 * changes nothing but atomics, so threads can share a matcher. */
#ifndef CORDON_MATCH_H
#define CORDON_MATCH_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "contain.h"
#include "ir.h"

struct host_facts;
struct host_alias;

/* A program's JIT-compiled copy, made by the match that brings its uses
 * to RE_JIT_AFTER.  Compiling to machine code costs as much as some
 * hundred interpreted matches of a short path, and a hook or a one-shot
 * `eval` matches each program once or twice; a stream or a host's
 * evaluator matches the hot ones thousands of times.  The copy is
 * published once complete, so threads matching the original meanwhile
 * are never disturbed. */
struct re_jit {
	_Atomic(pcre2_code *) code; /* NULL until made (or when JIT cannot be) */
	atomic_uint uses;
};
#define RE_JIT_AFTER 32

struct matcher {
	enum ir_pat_kind kind;
	char *text;           /* the resolved pattern as shown; NULL for a bare regex */
	char *regex;          /* the regex as written, or NULL */
	char *anchor;         /* literal index key (directory, first word, host, name) */
	bool floating;        /* no anchor: tried for every request of its kind */
	pcre2_code *re;       /* glob program, path/host/tool regex, or exec regex */
	struct re_jit re_jit;
	/* A path glob's program is compiled the first time the glob is
	 * matched (re_src until then): an evaluator builds a matcher for every
	 * rule and a decision reaches few of them, so compiling them all made
	 * loading a policy of 10,000 globs cost seconds. */
	char *re_src;
	atomic_bool re_built;
	/* a path glob: the literal text every match ends with (after its
	 * last wildcard), checked before the program runs; NULL for none */
	char *tail;
	size_t tail_len;
	/* exec: the command prefix, one entry per word; word_re[i] is NULL
	 * for a literal word */
	char **words;
	pcre2_code **word_re;
	struct re_jit *word_jit;
	size_t nwords;
	int port;             /* net: -1 for any port */
	const struct host_alias *alias; /* the host's alias a path was written under, or NULL */
	struct ir_specificity spec;
	/* the pattern as an automaton, for containment (contain.h); NULL
	 * where it is not modelled; exec: one per word */
	struct gprog *prog;
	struct gprog **word_prog;
};

enum match_status { MATCH_OK, MATCH_INACTIVE, MATCH_ERROR };

/* Env name patterns (an ir_env's `secret` or `code` list: names, globs,
 * regexes) with their regexes compiled once, to match many names.
 * Immutable once built. */
struct name_set {
	const struct ir_pattern *pats; /* borrowed */
	pcre2_code **re;               /* per pattern: its regex compiled, or NULL */
	size_t n;
};

void name_set_init(struct name_set *s, const struct ir_pattern *pats, size_t n);
/* md: caller-owned match data of any size. */
bool name_set_match(const struct name_set *s, const char *name, pcre2_match_data *md);
void name_set_free(struct name_set *s);

/* Build a matcher.  MATCH_INACTIVE (with the variable in *missing) when the
 * pattern uses a context variable that has no value. */
enum match_status matcher_build(struct matcher *m, enum ir_op op, const struct ir_pattern *pat,
				const struct ir_context *ctx, int *missing, char **err);
/* matcher_build on a host: a path pattern under one of the host's
 * aliases (host_facts.h) is built for the alias's target.  host NULL:
 * none. */
enum match_status matcher_build_host(struct matcher *m, enum ir_op op,
				     const struct ir_pattern *pat, const struct ir_context *ctx,
				     const struct host_facts *facts, int *missing, char **err);
/* A literal path matcher for path, taken as it is (no wildcard, no
 * variable): the path and everything below it. */
void matcher_build_path(struct matcher *m, const char *path);
void matcher_free(struct matcher *m);

/* A request target, prepared once for all the rules it is matched against. */
struct target {
	enum ir_op op;
	const char *text;     /* canonical path, command, host[:port] or tool name */
	size_t len;
	/* exec: the command's words */
	char **words;
	size_t *word_len;
	size_t nwords;
	/* net */
	char *host;
	int port;             /* -1 when the request names none */
	bool opaque;          /* exec: a part that cannot be analysed statically */
};

/* Returns 0, or -1 with *err for a malformed target (net host:port). */
int target_prepare(struct target *t, enum ir_op op, const char *text, size_t len, char **err);
void target_free(struct target *t);

bool matcher_match(const struct matcher *m, const struct target *t, pcre2_match_data *md);

/* Compare specificity: > 0 when a is more specific than b. */
int spec_cmp(struct ir_specificity a, struct ir_specificity b);

#endif
