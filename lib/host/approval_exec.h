/* Approvals of a shell command or an argv: a single-use record that binds
 * the request, the preset and its digest, the context, the preview's ask
 * operations and the content of the files the command runs, and grants
 * exactly those operations for one call (docs/approvals.md).  Kept beside
 * the file approvals (approval.h), in the same store. */
#ifndef CORDON_APPROVAL_EXEC_H
#define CORDON_APPROVAL_EXEC_H

#include "approval.h"
#include "decide/eval.h"

/* What approving one ask operation does to the call. */
enum exec_grant {
	EXEC_GRANT_NONE,    /* not an ask: nothing to approve */
	EXEC_GRANT_FILE,    /* exactly this file becomes writable */
	EXEC_GRANT_TREE,    /* this directory and everything below it becomes writable */
	EXEC_GRANT_RULE,    /* an exec rule that asks is satisfied; the sandbox is unchanged */
	EXEC_GRANT_SANDBOX, /* nothing widens: it runs in the same sandbox */
	EXEC_GRANT_HOST,    /* the call's egress proxy lets this host (and port) through */
};

/* The grant for operation i of decision d, and why (a static string). */
enum exec_grant exec_grant_of(const cordon_decision *d, size_t i, const char **why);
const char *exec_grant_name(enum exec_grant g);

/* The host and port a host grant's target names ("h:p", "[v6]:p", or a
 * host alone: *port -1, any port), into host (lowercased).  false when it
 * names none exactly (a glob, a bad port): such a target opens nothing. */
bool exec_grant_host(const char *target, char *host, size_t size, int *port);

struct exec_approval_op {
	enum ir_op op;
	char *target;
	char *rule; /* or NULL */
	enum exec_grant grant;
};

struct exec_approval_file {
	char *path;                      /* absolute */
	char digest[DIGEST_HEX_LEN + 1]; /* SHA-256 of the content; "" when absent */
};

struct exec_approval {
	char id[APPROVAL_ID_LEN + 1];
	char *shell;   /* the shell string, or NULL for an argv */
	char **argv;   /* NULL-terminated, or NULL for a shell string */
	size_t argc;
	char *preset;
	char preset_digest[DIGEST_HEX_LEN + 1];
	char *ctx[CTX_COUNT]; /* every variable but tmp (made per call) */
	struct exec_approval_op *ops;
	size_t nops;
	struct exec_approval_file *files;
	size_t nfiles;
	int64_t expires;
	char *actor;
};
void exec_approval_clear(struct exec_approval *a);

/* The digest of the evaluator's preset compiled with its context. */
void approval_preset_digest(const cordon_evaluator *ev, char out[DIGEST_HEX_LEN + 1]);

/* What an approval of request req, decided d by ev, binds now (no id, no
 * expiry).  NULL, or why it cannot be bound (a script whose name or
 * directory is known only when the command runs); a is filled either way. */
char *exec_approval_describe(const cordon_evaluator *ev, const struct cordon_request *req,
			     const cordon_decision *d, struct exec_approval *a);

int exec_approval_store(const char *session_dir, struct exec_approval *a, char **err);
/* Take (and so consume) approval id: 0, or -1 with *err. */
int exec_approval_take(const char *session_dir, const char *id, struct exec_approval *a,
		       char **err);
/* The first bound thing that differs between the approval and now, as a
 * message naming it; NULL when they agree and the approval has not
 * expired. */
char *exec_approval_mismatch(const struct exec_approval *ap, const struct exec_approval *now,
			     int64_t now_seconds);

/* The preview of decision d: every operation with its decision and rule,
 * what an approval would do for each ask, and the denies no approval
 * lifts.  Appended to sb, each line indented by two spaces. */
void exec_preview(const cordon_decision *d, struct strbuf *sb);

#endif
