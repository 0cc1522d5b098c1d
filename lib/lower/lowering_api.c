/* The lowering as a runner sees it (cordon/lowering.h): one handle around
 * the lowering input, each function the lowering's own. */
#include "config.h"

#include "lower.h"

#include <stdlib.h>
#include <sys/stat.h>

static struct cordon_lowering *lowering_alloc(void)
{
	return xcalloc(1, sizeof(struct cordon_lowering));
}

cordon_lowering *cordon_lowering_new(const cordon_evaluator *ev,
				     const struct cordon_path_grant *grants, size_t ngrants,
				     char **err)
{
	struct cordon_lowering *l = lowering_alloc();
	if (lower_input_build_granted(ev, grants, ngrants, &l->in, err) != 0) {
		free(l);
		return NULL;
	}
	return l;
}

cordon_lowering *cordon_lowering_limits_new(const cordon_evaluator *ev)
{
	struct cordon_lowering *l = lowering_alloc();
	lower_limits_build(ev, &l->in);
	return l;
}

void cordon_lowering_free(cordon_lowering *l)
{
	if (!l)
		return;
	/* One of cordon_lowering_limits_new holds its limits alone. */
	if (l->in.ev)
		lower_input_free(&l->in);
	else
		lower_limits_free(&l->in);
	free(l);
}

void cordon_lowering_read_host(cordon_lowering *l)
{
	lower_host_read(&l->in);
}

void cordon_lowering_note_host(cordon_lowering *l, const char *path)
{
	lower_host_note(&l->in, path);
}

bool cordon_lowering_egress_for_approval(cordon_lowering *l, const char *origin)
{
	return lower_input_egress_for_approval(&l->in, origin);
}

int cordon_lowering_protect_hooks_path(cordon_lowering *l, char **err)
{
	return lower_protect_hooks_path(&l->in, err);
}

int cordon_lowering_expand_masks(cordon_lowering *l, char **err)
{
	return lower_expand_masks(&l->in, &lower_mask_default_bounds, err);
}

int cordon_lowering_mask_root_secrets(cordon_lowering *l, char **err)
{
	return lower_mask_root_secrets(&l->in, &lower_mask_default_bounds, err);
}

const char *cordon_lowering_cwd(const cordon_lowering *l)
{
	return l->in.cwd;
}

const char *cordon_lowering_tmp(const cordon_lowering *l)
{
	return l->in.tmp;
}

const char *cordon_lowering_mask_file(const cordon_lowering *l)
{
	return l->in.mask_file;
}

const int *cordon_lowering_relay_ports(const cordon_lowering *l, size_t *n)
{
	*n = l->in.nrelay_ports;
	return l->in.relay_ports;
}

int cordon_lowering_plan(const cordon_lowering *l, struct cordon_plan *plan, char **err)
{
	return lower_bwrap_plan(&l->in, plan, err);
}

char *cordon_lowering_seccomp_bpf(const cordon_lowering *l, size_t *len, char **err)
{
	return lower_seccomp_bpf(&l->in, len, err);
}

char *cordon_lowering_sbpl(const cordon_lowering *l, size_t *len, char **err)
{
	return lower_sbpl(&l->in, len, err);
}

const char **cordon_lowering_landlock_roots(const cordon_lowering *l, size_t *n)
{
	return lower_landlock_roots(&l->in, n);
}

unsigned cordon_lowering_landlock_flags(const cordon_lowering *l)
{
	return lower_landlock_flags(&l->in);
}

unsigned cordon_lowering_source_kind(const cordon_lowering *l, const struct cordon_plan_op *op)
{
	if (op->kind == CORDON_PLAN_MASK_FILE)
		return S_IFREG;
	const struct lower_fact *f = lower_fact(&l->in, op->source);
	return f->path && f->lstat_errno == 0 ? f->mode & S_IFMT : S_IFDIR;
}

bool cordon_lowering_shows(const cordon_lowering *l, const char *path)
{
	return lower_bwrap_shows(&l->in, path);
}

struct cordon_fence *cordon_lowering_fences(const cordon_lowering *l, size_t *n)
{
	return lower_bwrap_fences(&l->in, n);
}

const struct cordon_limit *cordon_lowering_limit(const cordon_lowering *l, size_t i)
{
	return i < l->in.nlimits ? &l->in.limits[i] : NULL;
}

const struct cordon_limit *cordon_lowering_limit_find(const cordon_lowering *l,
						      enum cordon_limit_kind which)
{
	return lower_limit_find(&l->in, (enum ir_limit)which);
}

char **cordon_lowering_environ(const cordon_lowering *l)
{
	const struct lower_input *in = &l->in;
	char **v = NULL;
	size_t n = 0, cap = 0;
	/* The snapshot holds exactly the host's variables that pass. */
	for (size_t i = 0; i < in->host.nenv; i++)
		VEC_PUSH(v, n, cap, xstrdup(in->host.env[i]));
	for (size_t i = 0; i < in->nset; i++)
		VEC_PUSH(v, n, cap, xasprintf("%s=%s", in->set[i].name, in->set[i].value));
	VEC_PUSH(v, n, cap, NULL);
	return v;
}
