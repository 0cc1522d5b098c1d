/* The approval a call of `cordon run` uses: --approval ID (consumed), or
 * --approved (this call's preview approved now, by the host that asked
 * the person).  Verified against the call, audited, and turned into the
 * write roots the call's plan adds. */
#ifndef CORDON_RUN_APPROVAL_H
#define CORDON_RUN_APPROVAL_H

#include "cordon/approval.h"
#include "cordon/lowering.h"
#include "run.h"

struct run_approval {
	bool active;
	cordon_exec_approval *ap;
	struct cordon_path_grant *grants;
	size_t ngrants;
	int *fds; /* each grant opened and checked (run_approval_prepare), or -1 */
	struct run_approval_host {
		char host[256]; /* lowercased, as the egress proxy reads a contact */
		int port;       /* -1: any port */
	} *hosts;               /* what the call's egress proxy lets through */
	size_t nhosts;
	char origin[CORDON_APPROVAL_ID_LEN + 16]; /* "approval ID", the grants' origin */
};

/* Does the call use an approval, given its first decision? */
bool run_approval_wanted(const struct run_opts *o, enum cordon_effect e);

/* Take or make the approval and check that it binds this call (ev and d:
 * the call decided before its temp dir exists).  0 with ra active, or -1
 * having said why on stderr and in the audit log. */
int run_approval_begin(const struct run_opts *o, const cordon_evaluator *ev,
		       const cordon_decision *d, struct run_approval *ra);

/* Make each approved file or directory that is missing (so that the plan
 * can bind it), open it without following any symlink on the way, and
 * check on what is open that it is what was approved: no link, not moved,
 * the kind approved, a file with no other hard link.  The descriptors stay
 * open for the plan to bind (run_approval_fd).  0, or -1 with *err. */
int run_approval_prepare(struct run_approval *ra, char **err);
/* The checked descriptor of the approved path, or -1 when none is. */
int run_approval_fd(const struct run_approval *ra, const char *path);

/* Does the approval open host:port?  A proxy_approve_fn (proxy.h), asked
 * only for a contact the policy asks for: arg is the struct run_approval. */
bool run_approval_host(void *arg, const char *host, int port);

void run_approval_end(struct run_approval *ra);

/* Say on stderr the command that approves exactly this call. */
void run_approval_hint(const struct run_opts *o);
/* The two commands, one a line: the one that approves exactly this call,
 * and the call again with the id it prints (malloc'd). */
char *run_approval_commands(const struct run_opts *o);

#endif
