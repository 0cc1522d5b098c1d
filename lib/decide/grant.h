/* Session grants for named tools (grant.c): the evaluator's look-up.  The
 * public API (cordon_grant_tool, cordon_revoke_*) is in cordon.h. */
#ifndef CORDON_GRANT_H
#define CORDON_GRANT_H

#include <stdbool.h>
#include <stddef.h>

struct grant_info {
	char *actor; /* who granted it */
	char *time;  /* when, RFC 3339 */
};

/* True when session_dir holds a sound grant for exactly this tool name:
 * a regular file, not a symlink, owned by this user and writable by no
 * one else, whose recorded name equals tool byte for byte.  Anything
 * else is no grant.  Fill *info (free with grant_info_free). */
bool grant_lookup(const char *session_dir, const char *tool, size_t len, struct grant_info *info);
void grant_info_free(struct grant_info *info);

/* SESSION_DIR/grants, opened without following a symlink and checked to be
 * a private directory of this user; with create, made 0700 (the session
 * dir too).  -1 with *err (err may be NULL) and errno. */
int grant_dir_open(const char *session_dir, bool create, char **err);

#endif
