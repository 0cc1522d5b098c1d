/* An approval of one exec request as the runner redeems it: taken from the
 * store (`cordon run --approval ID`, which consumes it) or made for this
 * call (`cordon run --approved`), checked against what the call would be
 * granted now, and read for the operations it grants.  cordon.h's
 * cordon_approve_exec issues them; docs/approvals.md says what they bind.
 *
 * Ownership as in cordon.h: an approval is the caller's, released with
 * cordon_exec_approval_clear; the strings it hands out are its own. */
#ifndef CORDON_EXEC_APPROVAL_H
#define CORDON_EXEC_APPROVAL_H

#include <stddef.h>
#include <stdint.h>

#include "cordon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The length of an approval id (hex digits). */
#define CORDON_APPROVAL_ID_LEN 32

typedef struct cordon_exec_approval cordon_exec_approval;

/* What approving one ask operation does to the call
 * (cordon_decision_operation_grant names them). */
enum cordon_grant {
	CORDON_GRANT_NONE,    /* not an ask: nothing to approve */
	CORDON_GRANT_FILE,    /* exactly this file becomes writable */
	CORDON_GRANT_TREE,    /* this directory and everything below it becomes writable */
	CORDON_GRANT_RULE,    /* an exec rule that asks is satisfied; the sandbox is unchanged */
	CORDON_GRANT_SANDBOX, /* nothing widens: it runs in the same sandbox */
	CORDON_GRANT_HOST,    /* the call's egress proxy lets this host (and port) through */
};

/* One ask operation an approval binds. */
struct cordon_exec_approval_op {
	enum cordon_op op;
	const char *target;
	const char *rule; /* "file:line:col", or NULL */
	enum cordon_grant grant;
};

/* What an approval of request req, decided d by ev, binds now (no id, no
 * expiry): *now is set either way.  NULL, or why it cannot be bound
 * (malloc'd: a script whose name or directory is known only when the
 * command runs). */
char *cordon_exec_approval_describe(const cordon_evaluator *ev, const struct cordon_request *req,
				    const cordon_decision *d, cordon_exec_approval **now);
/* Take (and so consume) approval id from the store of ev's session_dir:
 * 0 with *ap, or -1 with *err and *ap NULL. */
int cordon_exec_approval_take(const cordon_evaluator *ev, const char *id,
			      cordon_exec_approval **ap, char **err);
/* The first bound thing that differs between the approval and now, as a
 * message naming it (malloc'd); NULL when they agree and the approval has
 * not expired at now_seconds. */
char *cordon_exec_approval_mismatch(const cordon_exec_approval *ap,
				    const cordon_exec_approval *now, int64_t now_seconds);
/* Give an approval made for this call (by describe) an id of its own:
 * 0, or -1 with *err. */
int cordon_exec_approval_new_id(cordon_exec_approval *ap, char **err);

/* Its id: CORDON_APPROVAL_ID_LEN hex digits, or "" before it has one. */
const char *cordon_exec_approval_id(const cordon_exec_approval *ap);
size_t cordon_exec_approval_op_count(const cordon_exec_approval *ap);
const struct cordon_exec_approval_op *cordon_exec_approval_op(const cordon_exec_approval *ap,
							      size_t i);
/* The host and port of a CORDON_GRANT_HOST operation's target, the host
 * lowercased into host (size bytes), *port -1 when the target names no
 * port (any port of the host).  false when it names no host exactly: the
 * contact is then refused. */
bool cordon_exec_approval_host(const char *target, char *host, size_t size, int *port);
/* Release *ap and set it to NULL; NULL does nothing. */
void cordon_exec_approval_clear(cordon_exec_approval **ap);

/* The preview of decision d (malloc'd): every operation with its decision
 * and rule, what an approval would do for each ask, and the denies no
 * approval lifts, each line indented by two spaces. */
char *cordon_exec_preview(const cordon_decision *d);

/* What path is on the host now, every symlink along it resolved, as the
 * evaluator resolves a path it decides (malloc'd); NULL with *why
 * (malloc'd) when it does not resolve.  An approved path that no longer
 * resolves to itself has moved since the preview. */
char *cordon_path_resolve(const char *path, char **why);

#ifdef __cplusplus
}
#endif

#endif
