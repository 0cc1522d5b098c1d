/* Glob and regex read denies, made masks at launch.  A mount plan holds
 * paths, not patterns, so the paths a pattern matches are looked up on the
 * host when a call starts: the readable and writable roots are walked
 * (symlinks never followed), and each path a glob or regex read deny or ask
 * matches, and that the evaluator does not allow reading, is masked like a
 * literal one.  A path created during the call is not; docs/sandbox.md says
 * so.  The walk is bounded; a bound that is hit stops the call rather than
 * enforce the rule in part. */
#include "config.h"

#include "lower.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const struct lower_mask_bounds lower_mask_default_bounds = {
	.entries = 1000000,
	.depth = 64,
	.masks = 4096,
	.seconds = 5.0,
};

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool kernel_fs(const char *path)
{
	return under(path, "/dev") || under(path, "/proc");
}

/* The directory below which every match of the rule lies: the literal
 * components before the first wildcard; "/" for a regex. */
static char *literal_dir(const struct ev_rule *r)
{
	if (!r->m.text || r->m.regex || r->m.text[0] != '/')
		return xstrdup("/");
	size_t n = strcspn(r->m.text, "*?[");
	char *dir = xstrndup(r->m.text, n);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	return dir;
}

static bool is_root(const struct lower_path *p)
{
	return (p->why == LOWER_READ_ROOT || p->why == LOWER_WRITE_ROOT) && !kernel_fs(p->path);
}

char **lower_mask_roots(const struct lower_input *in, const struct lower_advisory *a, size_t *n,
			bool *complete)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	*complete = false;
	if (a->op != IR_READ || a->effect == IR_ALLOW || !a->rule)
		return NULL;
	char *prefix = literal_dir(a->rule);
	*complete = true;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		const char *walk = NULL;
		if (!is_root(p))
			continue;
		if (strcmp(p->path, "/") == 0 && strcmp(prefix, "/") == 0)
			*complete = false; /* matches anywhere on a readable host */
		if (under(prefix, p->path))
			walk = prefix; /* all its matches are readable through this root */
		else if (under(p->path, prefix) && strcmp(p->path, "/") != 0)
			walk = p->path; /* its matches inside this root */
		if (!walk || kernel_fs(walk))
			continue;
		/* "/" itself is never walked: the whole host is no bounded walk. */
		if (strcmp(walk, "/") == 0)
			continue;
		bool have = false;
		for (size_t k = 0; k < *n && !have; k++)
			have = under(walk, v[k]);
		if (have)
			continue;
		/* A root that covers ones taken before replaces them. */
		size_t keep = 0;
		for (size_t k = 0; k < *n; k++) {
			if (under(v[k], walk))
				free(v[k]);
			else
				v[keep++] = v[k];
		}
		*n = keep;
		VEC_PUSH(v, *n, cap, xstrdup(walk));
	}
	free(prefix);
	return v;
}

/* ---- the walk ------------------------------------------------------------------ */

struct candidate {
	const struct lower_advisory *a;
};

struct walk {
	struct lower_input *in;
	const struct lower_mask_bounds *b;
	const struct candidate *cand;
	size_t ncand;
	pcre2_match_data *md;
	size_t entries;
	double deadline;
	struct lower_path *found;
	size_t nfound, cap;
	char *err;
	const char *root; /* being walked, for messages */
	const struct lower_advisory *rule; /* whose walk this is, for messages */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bound_hit(struct walk *w, const char *what)
{
	if (!w->err)
		w->err = xasprintf("%s: the sandbox cannot enforce read %s %s: looking for what it "
				   "matches under %s, %s; narrow the pattern or name the paths "
				   "literally",
				   w->rule->origin, w->rule->pattern, ir_effect_names[w->rule->effect],
				   w->root, what);
	return -1;
}

/* The first candidate that matches path and whose read the evaluator does
 * not allow, or NULL. */
static const struct lower_advisory *denied_by(struct walk *w, const char *path, size_t len)
{
	struct target t;
	char *terr = NULL;
	const struct lower_advisory *hit = NULL;
	if (target_prepare(&t, IR_READ, path, len, &terr) != 0) {
		free(terr);
		return NULL;
	}
	for (size_t i = 0; i < w->ncand && !hit; i++)
		if (matcher_match(&w->cand[i].a->rule->m, &t, w->md))
			hit = w->cand[i].a;
	target_free(&t);
	if (!hit)
		return NULL;
	struct cordon_request req = { .op = CORDON_READ, .target = path, .canonical = true };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(w->in->ev, &req, &err);
	bool allowed = d && cordon_decision_effect(d) == CORDON_ALLOW;
	cordon_decision_free(d);
	free(err);
	return allowed ? NULL : hit;
}

static bool masked_already(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->in->npaths; i++)
		if (w->in->paths[i].why == LOWER_MASK && under(path, w->in->paths[i].path))
			return true;
	for (size_t i = 0; i < w->nfound; i++)
		if (under(path, w->found[i].path))
			return true;
	return false;
}

static int add_mask(struct walk *w, const char *path, const struct lower_advisory *by)
{
	if (masked_already(w, path))
		return 0;
	if (w->nfound >= w->b->masks) {
		char *what = xasprintf("more than %zu paths match", w->b->masks);
		int r = bound_hit(w, what);
		free(what);
		return r;
	}
	struct lower_path p = { xstrdup(path), LOWER_MASK, by->origin, false, true };
	VEC_PUSH(w->found, w->nfound, w->cap, p);
	return 0;
}

/* Walk the directory open at fd, spelled path (a canonical path, in a
 * buffer of PATH_MAX bytes that the walk extends and restores). */
static int walk_dir(struct walk *w, int fd, char *path, size_t len, size_t depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;
	if (!d) {
		close(fd);
		return 0;
	}
	while (rc == 0 && (errno = 0, e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (++w->entries > w->b->entries) {
			char *what = xasprintf("more than %zu directory entries", w->b->entries);
			rc = bound_hit(w, what);
			free(what);
			break;
		}
		if ((w->entries & 1023) == 0 && now() > w->deadline) {
			char *what = xasprintf("more than %g s", w->b->seconds);
			rc = bound_hit(w, what);
			free(what);
			break;
		}
		size_t nlen = strlen(name);
		if (len + 1 + nlen >= PATH_MAX)
			continue; /* no process can name it either */
		size_t at = len;
		if (!(len == 1 && path[0] == '/'))
			path[at++] = '/';
		memcpy(path + at, name, nlen + 1);
		size_t plen = at + nlen;
		unsigned char type = e->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				type = DT_LNK; /* gone: nothing to mask */
			else
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		/* A symlink is read as its target, which is judged where it lies. */
		if (type != DT_LNK) {
			const struct lower_advisory *by = denied_by(w, path, plen);
			if (by) {
				rc = add_mask(w, path, by);
			} else if (type == DT_DIR && !masked_already(w, path)) {
				if (depth + 1 > w->b->depth) {
					char *what = xasprintf("a directory deeper than %zu levels (%s)",
							       w->b->depth, path);
					rc = bound_hit(w, what);
					free(what);
				} else {
					int sub = openat(dirfd(d), name,
							 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
					if (sub >= 0)
						rc = walk_dir(w, sub, path, plen, depth + 1);
					else if (errno == EACCES || errno == EPERM)
						/* Not listable here, so not by the command either;
						 * a name it knows could still be reached: hidden
						 * whole. */
						rc = add_mask(w, path, w->rule);
				}
			}
		}
		path[len] = '\0';
	}
	closedir(d);
	return rc;
}

int lower_expand_masks(struct lower_input *in, const struct lower_mask_bounds *b, char **err)
{
	struct walk w = { .in = in, .b = b };
	struct candidate *cand = NULL;
	size_t ncand = 0, cap = 0;
	int rc = 0;
	if (!in->restricted)
		return 0;
	for (size_t i = 0; i < in->nadvisories; i++) {
		const struct lower_advisory *a = &in->advisories[i];
		if (a->op == IR_READ && a->effect != IR_ALLOW && a->rule) {
			struct candidate c = { a };
			VEC_PUSH(cand, ncand, cap, c);
		}
	}
	if (!ncand)
		return 0;
	w.cand = cand;
	w.ncand = ncand;
	w.md = pcre2_match_data_create(32, NULL);
	w.deadline = now() + b->seconds;
	char *path = xmalloc(PATH_MAX);
	/* One walk of each root serves every rule; the roots are gathered per
	 * rule, so that the message names the rule a bound stops. */
	char **done = NULL;
	size_t ndone = 0, done_cap = 0;
	for (size_t c = 0; c < ncand && rc == 0; c++) {
		size_t nroots = 0;
		bool complete;
		char **roots = lower_mask_roots(in, cand[c].a, &nroots, &complete);
		for (size_t r = 0; r < nroots; r++) {
			bool seen = false;
			for (size_t k = 0; k < ndone && !seen; k++)
				seen = under(roots[r], done[k]);
			if (seen || rc != 0) {
				free(roots[r]);
				continue;
			}
			w.root = roots[r];
			w.rule = cand[c].a;
			size_t len = strlen(roots[r]);
			if (len < PATH_MAX && !masked_already(&w, roots[r])) {
				memcpy(path, roots[r], len + 1);
				int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (fd >= 0)
					rc = walk_dir(&w, fd, path, len, 0);
			}
			VEC_PUSH(done, ndone, done_cap, roots[r]);
		}
		free(roots);
	}
	for (size_t k = 0; k < ndone; k++)
		free(done[k]);
	free(done);
	free(path);
	pcre2_match_data_free(w.md);
	free(cand);
	if (rc != 0) {
		*err = w.err;
		for (size_t i = 0; i < w.nfound; i++)
			free(w.found[i].path);
		free(w.found);
		return -1;
	}
	lower_input_add_masks(in, w.found, w.nfound);
	free(w.found);
	return 0;
}
