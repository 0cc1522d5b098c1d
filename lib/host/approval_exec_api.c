/* The exec approval as a runner redeems it (cordon/approval.h): one handle
 * around struct exec_approval, each function approval_exec.c's own. */
#include "config.h"

#include "approval_exec.h"
#include "base/canon.h"
#include "cordon/approval.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(CORDON_APPROVAL_ID_LEN == APPROVAL_ID_LEN, "one length of an approval id");
_Static_assert((int)CORDON_GRANT_NONE == (int)EXEC_GRANT_NONE &&
		       (int)CORDON_GRANT_FILE == (int)EXEC_GRANT_FILE &&
		       (int)CORDON_GRANT_TREE == (int)EXEC_GRANT_TREE &&
		       (int)CORDON_GRANT_RULE == (int)EXEC_GRANT_RULE &&
		       (int)CORDON_GRANT_SANDBOX == (int)EXEC_GRANT_SANDBOX &&
		       (int)CORDON_GRANT_HOST == (int)EXEC_GRANT_HOST,
	       "enum cordon_grant is enum exec_grant");

struct cordon_exec_approval {
	struct exec_approval a;
	struct cordon_exec_approval_op *ops; /* a.ops as the public header has them */
};

/* The operations of x->a in their public form; the strings stay a's. */
static cordon_exec_approval *publish(cordon_exec_approval *x)
{
	x->ops = xcalloc(x->a.nops ? x->a.nops : 1, sizeof(*x->ops));
	for (size_t i = 0; i < x->a.nops; i++) {
		const struct exec_approval_op *o = &x->a.ops[i];
		x->ops[i] = (struct cordon_exec_approval_op){ (enum cordon_op)o->op, o->target,
							      o->rule, (enum cordon_grant)o->grant };
	}
	return x;
}

char *cordon_exec_approval_describe(const cordon_evaluator *ev, const struct cordon_request *req,
				    const cordon_decision *d, cordon_exec_approval **now)
{
	cordon_exec_approval *x = xcalloc(1, sizeof(*x));
	char *why = exec_approval_describe(ev, req, d, &x->a);
	*now = publish(x);
	return why;
}

int cordon_exec_approval_take(const cordon_evaluator *ev, const char *id,
			      cordon_exec_approval **ap, char **err)
{
	cordon_exec_approval *x = xcalloc(1, sizeof(*x));
	*ap = NULL;
	if (exec_approval_take(ev->values[CTX_SESSION_DIR], id, &x->a, err) != 0) {
		exec_approval_clear(&x->a);
		free(x);
		return -1;
	}
	*ap = publish(x);
	return 0;
}

char *cordon_exec_approval_mismatch(const cordon_exec_approval *ap,
				    const cordon_exec_approval *now, int64_t now_seconds)
{
	return exec_approval_mismatch(&ap->a, &now->a, now_seconds);
}

int cordon_exec_approval_new_id(cordon_exec_approval *ap, char **err)
{
	return approval_new_id(ap->a.id, err);
}

const char *cordon_exec_approval_id(const cordon_exec_approval *ap)
{
	return ap->a.id;
}

size_t cordon_exec_approval_op_count(const cordon_exec_approval *ap)
{
	return ap->a.nops;
}

const struct cordon_exec_approval_op *cordon_exec_approval_op(const cordon_exec_approval *ap,
							      size_t i)
{
	return i < ap->a.nops ? &ap->ops[i] : NULL;
}

void cordon_exec_approval_clear(cordon_exec_approval **ap)
{
	if (!*ap)
		return;
	exec_approval_clear(&(*ap)->a);
	free((*ap)->ops);
	free(*ap);
	*ap = NULL;
}

char *cordon_exec_preview(const cordon_decision *d)
{
	struct strbuf sb;
	sb_init(&sb);
	exec_preview(d, &sb);
	char *text = sb_steal(&sb);
	return text ? text : xstrdup("");
}

char *cordon_path_resolve(const char *path, char **why)
{
	return canon_path(path, strlen(path), NULL, why);
}

bool cordon_exec_approval_host(const char *target, char *host, size_t size, int *port)
{
	return exec_grant_host(target, host, size, port);
}
