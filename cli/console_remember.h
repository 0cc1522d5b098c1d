/* "Remember for the project" (console_remember.c), for console_http.c. */
#ifndef CORDON_CLI_CONSOLE_REMEMBER_H
#define CORDON_CLI_CONSOLE_REMEMBER_H

#include <jansson.h>
#include <sys/types.h>

#define CONSOLE_CHANGE_LEN 64 /* a SHA-256 in hex */

/* The change remembering a pending ask makes. */
struct console_remember {
	char *file;             /* the policy file written, a real path */
	char *old_text;         /* as it is now */
	char *new_text;         /* as it would be: laid out by cordon fmt */
	char *diff;             /* the unified diff of the two, as shown */
	json_t *rules;          /* the rules added, an array of strings */
	char *session_dir;      /* the ask's session dir, or NULL */
	mode_t mode;            /* the file's mode, kept */
	char change[CONSOLE_CHANGE_LEN + 1]; /* the digest a confirm names */
};

/* The change for pending ask id, which the person saw with digest: 0, or
 * -1 with *err and *code (404, 409, 410, 412 as for an answer; 403 the
 * administrator's file; 409 no file to write; 422 a check that fails). */
int console_remember_plan(const char *agent_dir, const char *id, const char *digest,
			  struct console_remember *r, int *code, char **err);
void console_remember_free(struct console_remember *r);
/* Compute the change again; when its digest is change, write it, note it
 * in the session's grants and answer the ask "project" as actor.  0 with
 * *file (malloc'd), or -1 with *err and *code; nothing is written unless
 * every check passes and the digests agree. */
int console_remember_write(const char *agent_dir, const char *id, const char *digest,
			   const char *change, const char *actor, char **file, int *code,
			   char **err);

#endif
