/* What a host's file system does to paths, as data: the aliases a
 * platform gives paths (on macOS /etc, /tmp and /var are symlinks into
 * /private, and the data volume's firmlinks show /Users and the rest under
 * /System/Volumes/Data too), and whether other symlinks are read from this
 * machine's file system.  The evaluator resolves requests, context values
 * and the literal paths of rules through one host, and rewrites the rules
 * written under an alias to the place the alias names, so a rule is
 * canonicalised as the requests it decides are; the lowerings read the
 * same host through the evaluator.
 *
 * The facts of a platform other than this machine's are the standard ones
 * built in (no file system is read for them): `cordon compile --host
 * macos` lowers for a Mac from any machine. */
#ifndef CORDON_HOST_FACTS_H
#define CORDON_HOST_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "canon.h"

enum host_alias_kind {
	HOST_SYMLINK,  /* a symlink the system keeps: ".." below it leaves the target */
	HOST_FIRMLINK, /* a second name of a directory: the kernel reports `target` */
};

struct host_alias {
	const char *path;   /* as a program may name it: "/etc" */
	const char *target; /* as the kernel reports it: "/private/etc" */
	enum host_alias_kind kind;
};

struct host_facts {
	const char *name;    /* "linux", "macos" */
	const char *sandbox; /* what `cordon run` runs a restricted preset under there */
	bool live;           /* this machine: other symlinks are read from its file system */
	const struct host_alias *aliases;
	size_t naliases;
};

/* This machine's facts. */
const struct host_facts *host_facts_native(void);
/* The facts of a platform by name, or NULL. */
const struct host_facts *host_facts_find(const char *name);
/* h's twin that reads nothing from this machine's file system (live
 * false, the same aliases). */
const struct host_facts *host_facts_fixed(const struct host_facts *h);
/* Whether a and b are the same platform, live or fixed. */
bool host_facts_same(const struct host_facts *a, const struct host_facts *b);
/* "linux, macos", for messages. */
const char *host_facts_names(void);

/* A path resolved as the host's kernel would: canon_path_memo on this
 * machine's file system (live), or lexically with the host's symlinks
 * followed (built-in facts); then a firmlink's second name is replaced by
 * the name the kernel reports.  NULL with *err (malloc'd) as canon_path. */
char *host_resolve(const struct host_facts *h, const char *path, size_t len, const char *cwd,
		   struct canon_memo *memo, char **err);
/* host_resolve of an absolute path, on a live host answered from the
 * directories read in ls where they tell (canon_path_listed). */
struct canon_listing;
char *host_resolve_listed(const struct host_facts *h, const struct canon_listing *ls,
			  size_t nls, const char *path, size_t len, char **err);

/* The alias that an absolute path s[0..n) starts with (its path a whole
 * number of components of s), the longest; NULL when none. */
const struct host_alias *host_alias_of(const struct host_facts *h, const char *s, size_t n);

/* path with a leading alias replaced by its target, malloc'd (a copy when
 * none applies). */
char *host_alias_apply(const struct host_facts *h, const char *path);

/* A regex anchored at an alias (^/etc/..., ^\/tmp$) rewritten to anchor at
 * its target instead, malloc'd; NULL when the regex does not start with a
 * whole alias followed by '/' or the end.  A regex is matched on the
 * canonical path, where the alias never appears. */
char *host_alias_regex(const struct host_facts *h, const char *re, const struct host_alias **used);

#endif
