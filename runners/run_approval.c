/* The approval of one call of `cordon run` (run_approval.h). */
#include "config.h"

#include "run_approval.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool run_approval_wanted(const struct run_opts *o, enum cordon_effect e)
{
	return o->approval || (o->approved && e == CORDON_ASK);
}

static void audit(const struct run_opts *o, const char *op, const char *target,
		  const char *decision, const char *rule, const char *reason, const char *id,
		  const char *outcome)
{
	struct cordon_audit_record rec = { .preset = o->preset, .op = op, .target = target,
					   .decision = decision, .rule = rule, .reason = reason,
					   .approval = id, .actor = o->actor, .outcome = outcome };
	char *err = NULL;
	if (o->audit && cordon_audit_append(o->audit, &rec, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
	}
}

static const char *request_text(const struct run_opts *o)
{
	return o->argv[0];
}

static int void_approval(const struct run_opts *o, const char *id, char *why)
{
	fprintf(stderr, "cordon: APPROVAL VOID: %s; the command does not run (preset '%s')\n", why,
		o->preset);
	audit(o, "exec", request_text(o), NULL, NULL, why, id, "approval-void");
	free(why);
	return -1;
}

int run_approval_begin(const struct run_opts *o, const cordon_evaluator *ev,
		       const cordon_decision *d, struct run_approval *ra)
{
	struct cordon_request req = run_exec_request(o);
	cordon_exec_approval *now = NULL;
	char *err = NULL, *why;
	size_t cap = 0, hcap = 0;

	memset(ra, 0, sizeof(*ra));
	req.sandboxed = true;
	why = cordon_exec_approval_describe(ev, &req, d, &now);
	if (o->approval) {
		if (cordon_exec_approval_take(ev, o->approval, &ra->ap, &err) != 0) {
			cordon_exec_approval_clear(&now);
			free(why);
			return void_approval(o, o->approval, err);
		}
		char *diff = why ? xasprintf("approval %s is void: %s", o->approval, why)
				 : cordon_exec_approval_mismatch(ra->ap, now, (int64_t)time(NULL));
		if (diff) {
			cordon_exec_approval_clear(&now);
			cordon_exec_approval_clear(&ra->ap);
			free(why);
			return void_approval(o, o->approval, diff);
		}
		cordon_exec_approval_clear(&now);
	} else {
		/* --approved: the host asked the person about this very
		 * preview, so it is approved now, bound as an approval is. */
		if (why) {
			cordon_exec_approval_clear(&now);
			char *msg = xasprintf("cannot approve the command: %s", why);
			free(why);
			return void_approval(o, NULL, msg);
		}
		char *seen = o->preview ? cordon_decision_preview_digest(d) : NULL;
		if (seen && strcmp(seen, o->preview) != 0) {
			free(seen);
			cordon_exec_approval_clear(&now);
			return void_approval(o, NULL,
					     xstrdup("the preview changed since it was shown (its "
						     "digest differs from --preview): what was "
						     "approved is not what would be granted now"));
		}
		free(seen);
		ra->ap = now;
		if (cordon_exec_approval_new_id(ra->ap, &err) != 0) {
			cordon_exec_approval_clear(&ra->ap);
			return void_approval(o, NULL, err);
		}
		audit(o, "exec", request_text(o), "ask", cordon_decision_rule(d),
		      cordon_decision_reason(d), cordon_exec_approval_id(ra->ap), "approval-issued");
	}
	free(why);
	ra->active = true;
	snprintf(ra->origin, sizeof(ra->origin), "approval %s", cordon_exec_approval_id(ra->ap));
	audit(o, "exec", request_text(o), "ask", cordon_decision_rule(d), NULL,
	      cordon_exec_approval_id(ra->ap), "approval-consumed");
	for (size_t i = 0; i < cordon_exec_approval_op_count(ra->ap); i++) {
		const struct cordon_exec_approval_op *op = cordon_exec_approval_op(ra->ap, i);
		static const char *const outcomes[] = {
			[CORDON_GRANT_NONE] = "none",
			[CORDON_GRANT_FILE] = "granted-file",
			[CORDON_GRANT_TREE] = "granted-tree",
			[CORDON_GRANT_RULE] = "rule-satisfied",
			[CORDON_GRANT_SANDBOX] = "same-sandbox",
			[CORDON_GRANT_HOST] = "granted-host",
		};
		audit(o, cordon_op_name(op->op), op->target, "ask", op->rule, NULL,
		      cordon_exec_approval_id(ra->ap), outcomes[op->grant]);
		if (op->grant == CORDON_GRANT_HOST) {
			struct run_approval_host h;
			/* A target that names no host exactly opens nothing. */
			if (!cordon_exec_approval_host(op->target, h.host, sizeof(h.host), &h.port)) {
				fprintf(stderr, "cordon: approval %s: '%s' names no host exactly; it "
						"stays refused\n",
					cordon_exec_approval_id(ra->ap), op->target);
				continue;
			}
			VEC_PUSH(ra->hosts, ra->nhosts, hcap, h);
			fprintf(stderr, "cordon: approval %s: %s is reachable for this call through "
					"its egress proxy\n",
				cordon_exec_approval_id(ra->ap), op->target);
			continue;
		}
		if (op->grant != CORDON_GRANT_FILE && op->grant != CORDON_GRANT_TREE)
			continue;
		struct cordon_path_grant g = { op->target, op->grant == CORDON_GRANT_TREE, ra->origin };
		VEC_PUSH(ra->grants, ra->ngrants, cap, g);
		fprintf(stderr, "cordon: approval %s: %s%s is writable for this call\n",
			cordon_exec_approval_id(ra->ap), op->target,
			g.tree ? " and everything below it" : "");
	}
	return 0;
}

/* Make the missing approved path g in its parent, opened without
 * following a symlink, and open what was made: an O_PATH fd, or -1. */
static int make_approved(const struct cordon_path_grant *g)
{
	const char *slash = strrchr(g->path, '/');
	char *parent = slash == g->path ? xstrdup("/") : xstrndup(g->path, (size_t)(slash - g->path));
	int dir = cordon_open_dir_nofollow(parent), fd = -1, err;
	free(parent);
	if (dir < 0)
		return -1;
	/* Made here so that the plan can bind it: a mount needs something to
	 * mount on. */
	int made = g->tree ? mkdirat(dir, slash + 1, 0777)
			   : openat(dir, slash + 1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    0666);
	if (made >= 0 && (g->tree || close(made) == 0))
		fd = openat(dir, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	err = errno;
	close(dir);
	errno = err;
	return fd;
}

/* The path the open fd names now, or NULL. */
static char *fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

int run_approval_prepare(struct run_approval *ra, char **err)
{
	ra->fds = xmalloc((ra->ngrants ? ra->ngrants : 1) * sizeof(*ra->fds));
	for (size_t i = 0; i < ra->ngrants; i++)
		ra->fds[i] = -1;
	for (size_t i = 0; i < ra->ngrants; i++) {
		const struct cordon_path_grant *g = &ra->grants[i];
		struct stat st;
		/* The check is made on what is opened, and bwrap mounts that
		 * (--bind-fd): a component swapped for a symlink afterwards
		 * changes neither. */
		int fd = cordon_open_nofollow(g->path);
		if (fd < 0 && errno == ENOENT)
			fd = make_approved(g);
		if (fd < 0 && errno != ELOOP && errno != ENOTDIR) {
			*err = xasprintf("%s: cannot open the approved %s '%s': %s", g->origin,
					 g->tree ? "directory" : "file", g->path, strerror(errno));
			return -1;
		}
		ra->fds[i] = fd;
		char *now = fd >= 0 ? fd_path(fd) : NULL;
		bool link = fd < 0, moved = !link && (!now || strcmp(now, g->path) != 0);
		free(now);
		if (!link && fstat(fd, &st) != 0) {
			*err = xasprintf("%s: cannot inspect '%s': %s", g->origin, g->path,
					 strerror(errno));
			return -1;
		}
		if (link || moved || (g->tree && !S_ISDIR(st.st_mode)) ||
		    (!g->tree && (!S_ISREG(st.st_mode) || st.st_nlink != 1))) {
			*err = xasprintf("%s is void: '%s' changed since the preview (%s)", g->origin,
					 g->path,
					 link		     ? "it or a directory on its way is a symbolic link now"
					 : moved	     ? "it resolves elsewhere now"
					 : g->tree	     ? "it is not a directory"
					 : !S_ISREG(st.st_mode) ? "it is not a regular file"
								: "it has other hard links now");
			return -1;
		}
	}
	return 0;
}

int run_approval_fd(const struct run_approval *ra, const char *path)
{
	for (size_t i = 0; ra->active && ra->fds && i < ra->ngrants; i++)
		if (strcmp(ra->grants[i].path, path) == 0)
			return ra->fds[i];
	return -1;
}

bool run_approval_host(void *arg, const char *host, int port)
{
	const struct run_approval *ra = arg;
	for (size_t i = 0; ra && ra->active && i < ra->nhosts; i++)
		if (strcmp(ra->hosts[i].host, host) == 0 &&
		    (ra->hosts[i].port < 0 || ra->hosts[i].port == port))
			return true;
	return false;
}

void run_approval_end(struct run_approval *ra)
{
	for (size_t i = 0; ra->fds && i < ra->ngrants; i++)
		if (ra->fds[i] >= 0)
			close(ra->fds[i]);
	free(ra->fds);
	free(ra->grants);
	free(ra->hosts);
	cordon_exec_approval_clear(&ra->ap);
	memset(ra, 0, sizeof(*ra));
}

static void add_word(struct strbuf *sb, const char *w)
{
	sb_addc(sb, ' ');
	sb_add_shell_word(sb, w);
}

/* The options that give the call its policy, preset and context. */
static void call_options(const struct run_opts *o, struct strbuf *sb)
{
	if (o->policy_path) {
		sb_adds(sb, " -p");
		add_word(sb, o->policy_path);
	}
	sb_adds(sb, " --preset");
	add_word(sb, o->preset);
	for (size_t v = 0; cordon_context_name(v); v++) {
		const char *name = cordon_context_name(v), *value = cordon_context_get(o->ctx, name);
		if (strcmp(name, "tmp") == 0 || !value)
			continue;
		char *kv = xasprintf("%s=%s", name, value);
		sb_adds(sb, " --context");
		add_word(sb, kv);
		free(kv);
	}
}

static void command_words(const struct run_opts *o, struct strbuf *sb, bool approve)
{
	if (o->shell) {
		sb_adds(sb, approve ? " --" : " --shell");
		add_word(sb, o->argv[0]);
		return;
	}
	sb_adds(sb, approve ? " --argv --" : " --");
	for (char **a = o->argv; *a; a++)
		add_word(sb, *a);
}

char *run_approval_commands(const struct run_opts *o)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "cordon approve exec");
	call_options(o, &sb);
	command_words(o, &sb, true);
	sb_adds(&sb, "\ncordon run --approval ID");
	call_options(o, &sb);
	command_words(o, &sb, false);
	return sb_steal(&sb);
}

void run_approval_hint(const struct run_opts *o)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "cordon: to approve exactly this preview for one call:\n  cordon approve exec");
	call_options(o, &sb);
	command_words(o, &sb, true);
	sb_adds(&sb, "\ncordon: then run it with the id that prints:\n  cordon run --approval ID");
	call_options(o, &sb);
	command_words(o, &sb, false);
	fprintf(stderr, "%s\n", sb.buf);
	sb_free(&sb);
}
