#include "config.h"

#include "base/host_facts.h"
#include "lower.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum ir_effect lower_decide(const cordon_evaluator *ev, enum ir_op op, const char *path)
{
	struct cordon_request req = { .op = (enum cordon_op)op, .target = path };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	enum ir_effect e = d ? (enum ir_effect)cordon_decision_effect(d) : IR_DENY;
	free(err);
	cordon_decision_free(d);
	return e;
}

bool lower_env_dropped(const struct lower_input *in, const char *name)
{
	for (size_t i = 0; i < in->ndrop; i++) {
		const struct ir_pattern *d = &in->drop[i];
		if (d->regex) {
			pcre2_code *re;
			int code;
			PCRE2_SIZE off;
			re = pcre2_compile((PCRE2_SPTR)d->regex, PCRE2_ZERO_TERMINATED, 0, &code, &off,
					   NULL);
			if (!re)
				return true; /* cannot tell: keep it out */
			pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
			int rc = pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
			pcre2_match_data_free(md);
			pcre2_code_free(re);
			if (rc >= 0)
				return true;
		} else if (fnmatch(d->text, name, 0) == 0) {
			return true;
		}
	}
	return false;
}

bool lower_env_passes(const struct lower_input *in, const char *name)
{
	for (size_t i = 0; i < in->nset; i++)
		if (strcmp(in->set[i].name, name) == 0)
			return false;
	return lower_env_kept(in, name) && !lower_env_dropped(in, name);
}

bool lower_env_kept(const struct lower_input *in, const char *name)
{
	for (size_t i = 0; i < in->nkeep; i++)
		if (fnmatch(in->keep[i], name, 0) == 0)
			return true;
	return false;
}

/* What a rule's literal path resolves to now: a mount follows symlinks, so
 * the plan names the place itself (a deny of a symlinked ~/.ssh hides the
 * directory it points to; the evaluator denies both names).  A path that
 * cannot be resolved is kept as written: bwrap then refuses it. */
char *lower_resolved(const struct lower_input *in, const char *path)
{
	/* /dev and /proc are the sandbox's own: /dev/stdout resolves per process. */
	if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0)
		return xstrdup(path);
	/* The evaluator's snapshot, taken with the host facts its decisions use. */
	const struct ev_link *l = ev_link_find(in->ev, path);
	if (l)
		return xstrdup(l->real ? l->real : path);
	char *why = NULL, *real = host_resolve(in->ev->host, path, strlen(path), NULL, NULL, &why);
	free(why);
	return real ? real : xstrdup(path);
}

static void add_path(struct lower_input *in, const char *path, enum lower_why why,
		     const char *origin, bool protect)
{
	/* Only this machine's file system has links to read; bwrap runs here. */
	if ((why == LOWER_READ_ROOT || why == LOWER_WRITE_ROOT) && in->ev->host->live) {
		struct lower_link_source l = { path, origin };
		VEC_PUSH(in->link_sources, in->nlink_sources, in->link_sources_cap, l);
	}
	char *real = lower_resolved(in, path);
	for (size_t i = 0; i < in->npaths; i++) {
		if (in->paths[i].why == why && strcmp(in->paths[i].path, real) == 0) {
			in->paths[i].protect = in->paths[i].protect || protect;
			free(real);
			return;
		}
	}
	struct lower_path p = { real, why, origin, protect, false, false, false };
	VEC_PUSH(in->paths, in->npaths, in->paths_cap, p);
}

static bool under_any(const struct lower_input *in, const char *path, enum lower_why why)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == why && path_under(path, in->paths[i].path))
			return true;
	return false;
}

static void add_advisory(struct lower_input *in, const struct ev_rule *r)
{
	struct strbuf sb;
	sb_init(&sb);
	if (r->m.text)
		sb_add_quoted(&sb, r->m.text);
	if (r->m.regex)
		sb_addf(&sb, "%s/%s/", r->m.text ? " " : "", r->m.regex);
	struct lower_advisory a = { r->op, sb_steal(&sb), r->effect, r->origin, r };
	VEC_PUSH(in->advisories, in->nadvisories, in->adv_cap, a);
}

int lower_path_cmp(const void *pa, const void *pb)
{
	const struct lower_path *a = pa, *b = pb;
	int r = strcmp(a->path, b->path);
	return r ? r : (int)a->why - (int)b->why;
}

static bool bad_path(const char *s)
{
	return strpbrk(s, "\n\r") != NULL;
}

/* Is path exactly an approved one?  The ask rule on it is what the
 * approval answered. */
static bool granted_exactly(const struct cordon_path_grant *g, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].path, path) == 0)
			return true;
	return false;
}

int lower_input_build(const cordon_evaluator *ev, struct lower_input *in, char **err)
{
	return lower_input_build_granted(ev, NULL, 0, in, err);
}

/* The port a net rule's pattern names ("host:8080", "[v6]:8080"), or 0. */
static int rule_port(const char *text)
{
	const char *colon = text ? strrchr(text, ':') : NULL;
	if (!colon || !colon[1] || (strchr(text, '[') && !strstr(text, "]:")))
		return 0;
	long port = 0;
	for (const char *p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9' || (port = port * 10 + (*p - '0')) > 65535)
			return 0;
	}
	return (int)port;
}

/* Where cordon-exec's transparent relay listens (lower_input.relay_ports):
 * 80 and 443, and every port a rule that may let a host through names,
 * as many as fit. */
static void relay_ports(const cordon_evaluator *ev, struct lower_input *in)
{
	in->nrelay_ports = 0;
	in->relay_ports[in->nrelay_ports++] = 80;
	in->relay_ports[in->nrelay_ports++] = 443;
	for (size_t i = 0; i < ev->nrules && in->nrelay_ports < LOWER_RELAY_PORTS_MAX; i++) {
		const struct ev_rule *r = &ev->rules[i];
		int port = r->op == IR_NET && r->effect != IR_DENY ? rule_port(r->m.text) : 0;
		bool seen = port == 0;
		for (size_t k = 0; k < in->nrelay_ports && !seen; k++)
			seen = in->relay_ports[k] == port;
		if (!seen)
			in->relay_ports[in->nrelay_ports++] = port;
	}
}

/* The roots: literal read and write allows that the evaluator confirms,
 * and the paths the caller grants.  The first step of the paths, apart so
 * that lower_input_build_granted reads as its steps. */
static void add_roots(const cordon_evaluator *ev, const struct cordon_path_grant *grants,
		      size_t ngrants, struct lower_input *in)
{
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if ((r->op != IR_READ && r->op != IR_WRITE) || r->effect != IR_ALLOW)
			continue;
		if (r->m.kind != IR_PAT_LITERAL) {
			/* The everything-glob is the root itself; other globs grant
			 * nothing here, and neither does an exact path: a root is a
			 * mount or a path-beneath rule, which would grant what lies
			 * below it too.  The sandbox refuses it where nothing wider
			 * allows it (docs/language.md, "Exact paths"). */
			if (r->m.text && strcmp(r->m.text, "/**") == 0 &&
			    lower_decide(ev, r->op, "/") == IR_ALLOW)
				add_path(in, "/", r->op == IR_READ ? LOWER_READ_ROOT : LOWER_WRITE_ROOT,
					 r->origin, false);
			continue;
		}
		/* /dev and /proc are the sandbox's own: their links (/dev/stdout)
		 * resolve per process, so no decision about them is stable. */
		bool kernel = strncmp(r->m.text, "/dev/", 5) == 0 || strncmp(r->m.text, "/proc/", 6) == 0;
		if (kernel || lower_decide(ev, r->op, r->m.text) == IR_ALLOW)
			add_path(in, r->m.text, r->op == IR_READ ? LOWER_READ_ROOT : LOWER_WRITE_ROOT,
				 r->origin, false);
	}
	for (size_t i = 0; i < ngrants; i++)
		add_path(in, grants[i].path, LOWER_WRITE_ROOT, grants[i].origin, false);
}

/* The protections taken back inside the write roots: read-only where a
 * literal one lies under a root, advisory where it is a glob. */
static void take_back_protections(const cordon_evaluator *ev, struct lower_input *in)
{
	for (size_t i = 0; i < ev->nprotect; i++) {
		const struct ev_rule *r = &ev->protect[i];
		if (r->m.kind != IR_PAT_LITERAL) {
			add_advisory(in, r);
			continue;
		}
		char *real = lower_resolved(in, r->m.text);
		if (under_any(in, real, LOWER_WRITE_ROOT))
			add_path(in, real, LOWER_READ_ONLY, r->origin, true);
		free(real);
	}
}

/* The read and write denies and asks taken back inside the roots: masked
 * or read-only at their path, advisory where they are globs; an ask on a
 * write the caller granted at that very path stays open. */
static void take_back_denies(const cordon_evaluator *ev, const struct cordon_path_grant *grants,
			     size_t ngrants, struct lower_input *in)
{
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if ((r->op != IR_READ && r->op != IR_WRITE) || r->effect == IR_ALLOW)
			continue;
		enum lower_why root = r->op == IR_READ ? LOWER_READ_ROOT : LOWER_WRITE_ROOT;
		/* An exact deny or ask is taken back at its path like a literal
		 * one: a mount of a directory hides what is below it too, which
		 * is stricter than the rule, never wider. */
		if (r->m.kind != IR_PAT_LITERAL && r->m.kind != IR_PAT_EXACT) {
			if (r->m.text && strcmp(r->m.text, "/**") == 0)
				continue; /* the fallback: it is what lies outside every root */
			add_advisory(in, r);
			continue;
		}
		/* A write root is readable too (a mount cannot be write-only):
		 * what may not be read below it is masked like under a read root. */
		char *real = lower_resolved(in, r->m.text);
		bool covered = under_any(in, real, root) ||
			       (r->op == IR_READ && under_any(in, real, LOWER_WRITE_ROOT));
		free(real);
		if (!covered || lower_decide(ev, r->op, r->m.text) == IR_ALLOW)
			continue;
		if (r->op == IR_WRITE && r->effect == IR_ASK) {
			char *at = lower_resolved(in, r->m.text);
			bool answered = granted_exactly(grants, ngrants, at);
			free(at);
			if (answered)
				continue;
		}
		add_path(in, r->m.text, r->op == IR_READ ? LOWER_MASK : LOWER_READ_ONLY, r->origin,
			 false);
	}
}

/* Refuses (-1, in freed) a path no profile or argument vector can carry:
 * checked once every path is in, whichever step added it. */
static int refuse_bad_paths(struct lower_input *in, char **err)
{
	for (size_t i = 0; i < in->npaths; i++) {
		if (bad_path(in->paths[i].path)) {
			*err = xasprintf("%s: path '%s' contains a line break, which no sandbox profile "
					 "or argument vector can carry",
					 in->paths[i].origin, in->paths[i].path);
			lower_input_free(in);
			return -1;
		}
	}
	return 0;
}

/* The network: shared when any host may be contacted, the relay's ports,
 * and whether local sockets may be opened. */
static void network_build(const cordon_evaluator *ev, struct lower_input *in, char **err)
{
	relay_ports(ev, in);
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		/* "unix" names local sockets, not a host: it opens no network. */
		bool unix_only = r->m.anchor && strcmp(r->m.anchor, "unix") == 0;
		if (r->op == IR_NET && r->effect == IR_ALLOW && !unix_only && !in->net_allowed) {
			in->net_allowed = true;
			in->net_origin = r->origin;
		}
	}
	struct cordon_request unix_req = { .op = CORDON_NET, .target = "unix" };
	cordon_decision *d = cordon_evaluate(ev, &unix_req, err);
	in->unix_allowed = d && cordon_decision_effect(d) == CORDON_ALLOW;
	cordon_decision_free(d);
}

/* The environment: what is kept and dropped, and each value set with its
 * context variables substituted; -1 (in freed) when one has no value. */
static int env_build(const cordon_evaluator *ev, struct lower_input *in, char **err)
{
	const struct ir_preset *p = ev->preset;
	in->keep = p->env.keep;
	in->nkeep = p->env.nkeep;
	in->drop = p->env.drop;
	in->ndrop = p->env.ndrop;
	for (size_t i = 0; i < p->env.nset; i++) {
		int missing = -1;
		char *value = ir_text_subst(p->env.set[i].value, &ev->ctx, true, &missing);
		if (!value) {
			*err = xasprintf("environment variable %s needs context variable '%s', which has "
					 "no value (give it with --context %s=VALUE)",
					 p->env.set[i].name, ir_ctx_var_names[missing],
					 ir_ctx_var_names[missing]);
			lower_input_free(in);
			return -1;
		}
		char where[512];
		srcmgr_format_loc(&ev->policy->sm, p->env.set[i].origin, where, sizeof(where));
		struct lower_env_var v = { p->env.set[i].name, value, xstrdup(where) };
		VEC_PUSH(in->set, in->nset, in->set_cap, v);
	}
	return 0;
}

int lower_input_build_granted(const cordon_evaluator *ev, const struct cordon_path_grant *grants,
			      size_t ngrants, struct lower_input *in, char **err)
{
	const struct ir_preset *p = ev->preset;
	memset(in, 0, sizeof(*in));
	in->ev = ev;
	in->preset = p->name;
	in->restricted = p->sandbox == IR_SANDBOX_REQUIRED;
	in->workspace = ev->ctx.value[CTX_WORKSPACE];
	in->cwd = ev->ctx.value[CTX_CWD];
	in->tmp = ev->ctx.value[CTX_TMP];
	for (int v = 0; v < CTX_COUNT; v++) {
		if (ev->ctx.value[v] && bad_path(ev->ctx.value[v])) {
			*err = xasprintf("context variable '%s' contains a line break, which no "
					 "sandbox profile or argument vector can carry",
					 ir_ctx_var_names[v]);
			return -1;
		}
	}

	/* Roots first, then what must be taken back inside them. */
	add_roots(ev, grants, ngrants, in);
	take_back_protections(ev, in);
	take_back_denies(ev, grants, ngrants, in);
	if (refuse_bad_paths(in, err) != 0)
		return -1;
	sort_items(in->paths, in->npaths, sizeof(*in->paths), lower_path_cmp);
	in->mask_file = in->tmp ? xasprintf("%s.mask", in->tmp) : NULL;

	network_build(ev, in, err);
	if (env_build(ev, in, err) != 0)
		return -1;
	lower_limits_build(ev, in);
	return 0;
}

void lower_input_add_masks(struct lower_input *in, struct lower_path *masks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		VEC_PUSH(in->paths, in->npaths, in->paths_cap, masks[i]);
	sort_items(in->paths, in->npaths, sizeof(*in->paths), lower_path_cmp);
}

bool lower_input_egress_for_approval(struct lower_input *in, const char *origin)
{
	if (in->net_allowed)
		return false;
	in->net_allowed = true;
	in->net_approval = xstrdup(origin);
	in->net_origin = in->net_approval;
	return true;
}

void lower_input_free(struct lower_input *in)
{
	free(in->mask_file);
	free(in->net_approval);
	for (size_t i = 0; i < in->npaths; i++)
		free(in->paths[i].path);
	free(in->paths);
	for (size_t i = 0; i < in->nadvisories; i++)
		free(in->advisories[i].pattern);
	free(in->advisories);
	free(in->link_sources);
	lower_host_free(&in->host);
	for (size_t i = 0; i < in->nset; i++) {
		free(in->set[i].value);
		free(in->set[i].origin);
	}
	free(in->set);
	lower_limits_free(in);
	memset(in, 0, sizeof(*in));
}

static const struct {
	const char *name;
	lower_fn fn;
	const char *host; /* the host whose sandbox it is, or NULL: any host's paths do */
} lowerings[] = {
	{ "bwrap", lower_bwrap_json, "linux" },
	{ "bwrap-args", lower_bwrap_args, "linux" },
	{ "seccomp", lower_seccomp_text, "linux" },
	{ "seccomp-bpf", lower_seccomp_bpf, "linux" },
	{ "landlock", lower_landlock_text, "linux" },
	{ "oci", lower_oci, "linux" },
	{ "k8s", lower_k8s, "linux" },
	{ "k8s-seccomp", lower_oci_seccomp, "linux" },
	{ "sbpl", lower_sbpl, NULL },
	{ "sbpl-argv", lower_sbpl_argv, NULL },
	{ "facts", lower_facts_text, NULL },
};

char *cordon_lower(const cordon_evaluator *ev, const char *kind, size_t *len, char **err)
{
	struct lower_input in;
	char *out;
	size_t i;
	for (i = 0; i < ARRAY_SIZE(lowerings); i++)
		if (strcmp(lowerings[i].name, kind) == 0)
			break;
	if (i == ARRAY_SIZE(lowerings)) {
		*err = xasprintf("unknown lowering '%s'", kind);
		return NULL;
	}
	/* A Linux layer made of another host's paths would protect nothing
	 * where it runs. */
	if (lowerings[i].host && strcmp(lowerings[i].host, ev->host->name) != 0) {
		*err = xasprintf("%s is a %s sandbox layer; the paths were resolved as on %s (give "
				 "--host %s)",
				 kind, lowerings[i].host, ev->host->name, lowerings[i].host);
		return NULL;
	}
	if (ev->preset->sandbox == IR_SANDBOX_NONE) {
		/* Each lowering says, in its own words, that there is nothing to
		 * lower; the context need not be complete for that. */
		memset(&in, 0, sizeof(in));
		in.ev = ev;
		in.preset = ev->preset->name;
		return lowerings[i].fn(&in, len, err);
	}
	if (lower_input_build(ev, &in, err) != 0)
		return NULL;
	/* The host is read for the user of `cordon compile`, as for a call. */
	lower_host_read(&in);
	out = lowerings[i].fn(&in, len, err);
	lower_input_free(&in);
	return out;
}

int cordon_plan_build(const cordon_evaluator *ev, struct cordon_plan *plan, char **err)
{
	struct lower_input in;
	memset(plan, 0, sizeof(*plan));
	if (ev->preset->sandbox == IR_SANDBOX_NONE) {
		*err = xasprintf("preset '%s' runs without a sandbox (sandbox none): there is no "
				 "bwrap plan",
				 ev->preset->name);
		return -1;
	}
	if (lower_input_build(ev, &in, err) != 0)
		return -1;
	lower_host_read(&in);
	int rc = lower_bwrap_plan(&in, plan, err);
	lower_input_free(&in);
	return rc;
}

bool cordon_lower_known(const char *kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(lowerings); i++)
		if (strcmp(lowerings[i].name, kind) == 0)
			return true;
	return false;
}
