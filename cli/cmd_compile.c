/* cordon compile: print what a preset compiles to. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	enum cordon_dump_format format;
} emit_kinds[] = {
	{ "ir", CORDON_DUMP_IR },
	{ "json", CORDON_DUMP_JSON },
};

/* How `${tmp}` is shown when no --context gives the per-call temp dir: the
 * kinds that have comments say so in one; the others on stderr. */
#define TMP_SHOWN "${tmp}"
#define FOREIGN_TMP_STANDIN "/cordon-per-call-tmp.standin"
#define TMP_NOTE                                                                             \
	"${tmp} stands for the private temp dir that cordon run makes for each call; "      \
	"--context tmp=DIR shows a concrete path"

static const struct {
	const char *kind, *comment; /* the comment's opening, before TMP_NOTE */
} comment_kinds[] = {
	{ "landlock", "# " },
	{ "seccomp", "# " },
	{ "sbpl", ";; " },
};

/* A malloc'd string from asprintf, which fails only without memory. */
static char *must_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *must_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

static void *must_malloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		abort();
	return p;
}

/* A stand-in for the per-call temp dir, made so the lowering sees the
 * existing directory the runner would give it; canonical, as lowered paths
 * are.  NULL with *err when none can be made. */
static char *make_standin_tmp(char **made, char **err)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = must_asprintf("%s/cordon-compile-XXXXXX",
				   base && base[0] == '/' ? base : "/tmp");
	if (!mkdtemp(tmpl)) {
		*err = must_asprintf("cannot make a stand-in for the per-call temp dir in %s: %s; "
				     "give --context tmp=DIR",
				     base && base[0] == '/' ? base : "/tmp", strerror(errno));
		free(tmpl);
		return NULL;
	}
	*made = tmpl;
	char *real = realpath(tmpl, NULL);
	return real ? real : must_asprintf("%s", tmpl);
}

/* out with every occurrence of path replaced by TMP_SHOWN; *count says how
 * many there were.  The stand-in's name is random, so it means nothing else. */
static char *show_tmp(const char *out, size_t len, const char *path, size_t *newlen,
		      size_t *count)
{
	size_t plen = strlen(path), slen = strlen(TMP_SHOWN), n = 0;
	*count = 0;
	for (size_t i = 0; i < len;)
		if (len - i >= plen && memcmp(out + i, path, plen) == 0)
			i += plen, (*count)++;
		else
			i++;
	char *shown = must_malloc(len - *count * plen + *count * slen + 1);
	for (size_t i = 0; i < len;) {
		if (len - i >= plen && memcmp(out + i, path, plen) == 0) {
			memcpy(shown + n, TMP_SHOWN, slen);
			n += slen;
			i += plen;
		} else {
			shown[n++] = out[i++];
		}
	}
	shown[n] = '\0';
	*newlen = n;
	return shown;
}

/* The output with the note on its second line, after the title. */
static char *add_tmp_comment(char *out, size_t *len, const char *opening)
{
	const char *nl = memchr(out, '\n', *len);
	size_t head = nl ? (size_t)(nl - out) + 1 : 0;
	char *note = must_asprintf("%s%s\n", opening, TMP_NOTE);
	size_t nlen = strlen(note);
	char *with = must_malloc(*len + nlen + 1);
	memcpy(with, out, head);
	memcpy(with + head, note, nlen);
	memcpy(with + head + nlen, out + head, *len - head);
	*len += nlen;
	with[*len] = '\0';
	free(note);
	free(out);
	return with;
}

/* A lowering needs concrete paths: the context defaults apply.  The temp
 * dir exists only at run time; without --context tmp=DIR it is shown as
 * ${tmp}, so an auditor can lower a preset offline. */
static int emit_lowered(const char *policy_path, const char *preset, cordon_context *ctx,
			const char *kind)
{
	int status = EXIT_OK;
	cordon_policy *policy = cli_load_policy(policy_path, &status);
	cordon_evaluator *ev = NULL;
	char *err = NULL, *out = NULL, *standin = NULL, *made = NULL;
	size_t len;
	if (!policy)
		return status;
	if (!preset && !(preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("compile", "the policy names no default preset; give --preset");
		goto out;
	}
	/* A Seatbelt profile runs on a Mac: it is lowered with the macOS
	 * host's facts unless --host says otherwise. */
	if (!cordon_context_get_host(ctx) && strncmp(kind, "sbpl", 4) == 0 &&
	    cordon_context_set_host(ctx, "macos", &err) != 0) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	const char *host = cordon_context_get_host(ctx);
	bool foreign = host && strcmp(host, cordon_host_native()) != 0;
	cli_context_defaults(ctx);
	if (!cordon_context_get(ctx, "tmp") && foreign) {
		/* Nothing of another host's file system is read: the stand-in
		 * need not exist, only be a path no alias of any host covers. */
		standin = must_asprintf("%s", FOREIGN_TMP_STANDIN);
		if (cordon_context_set(ctx, "tmp", standin, &err) != 0) {
			status = cli_usage_error(NULL, "%s", err);
			goto out;
		}
	} else if (!cordon_context_get(ctx, "tmp")) {
		if (!(standin = make_standin_tmp(&made, &err)) ||
		    cordon_context_set(ctx, "tmp", standin, &err) != 0) {
			status = cli_usage_error(NULL, "%s", err);
			goto out;
		}
	}
	if (!(ev = cordon_evaluator_new(policy, preset, ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	/* Under a managed layer, the plan cordon run would refuse. */
	if (cordon_evaluator_check_layers(ev, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		status = EXIT_POLICY;
		goto out;
	}
	if (!(out = cordon_lower(ev, kind, &len, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (standin) {
		size_t count, newlen;
		char *shown = show_tmp(out, len, standin, &newlen, &count);
		free(out);
		out = shown;
		len = newlen;
		size_t k;
		for (k = 0; k < ARRAY_SIZE(comment_kinds); k++)
			if (strcmp(comment_kinds[k].kind, kind) == 0)
				break;
		if (count && k < ARRAY_SIZE(comment_kinds))
			out = add_tmp_comment(out, &len, comment_kinds[k].comment);
		else if (count)
			fprintf(stderr, "cordon: note: %s\n", TMP_NOTE);
	}
	/* A runtime's config leaves out what it cannot express: say where
	 * that is written. */
	if (strcmp(kind, "oci") == 0 || strcmp(kind, "k8s") == 0)
		fprintf(stderr, "cordon: note: what %s cannot express (Landlock; egress by host) "
				"is listed in the annotations %s; docs/fleet.md says how cordon "
				"covers it\n",
			strcmp(kind, "oci") == 0 ? "a container runtime" : "a Pod",
			strcmp(kind, "oci") == 0 ? "org.cordon.unexpressed.N" : "cordon/unexpressed.N");
	if (fwrite(out, 1, len, stdout) != len || fflush(stdout) != 0)
		status = cli_usage_error(NULL, "cannot write the output: %s", strerror(errno));
out:
	free(out);
	if (made)
		rmdir(made);
	free(made);
	free(standin);
	free(err);
	cordon_evaluator_free(ev);
	cordon_policy_free(policy);
	return status;
}

int cmd_compile(int argc, char **argv)
{
	const char *policy_path, *preset, *emit = NULL, *arg;
	cordon_context *ctx;
	cordon_policy *policy = NULL;
	struct cli_args a;
	int id, status = EXIT_OK, flags = 0;
	bool all = false;
	enum cordon_dump_format format = CORDON_DUMP_IR;
	char *out, *err = NULL;

	cli_args_init(&a, "compile", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_EMIT:
			emit = arg;
			break;
		case OPT_NO_ORIGINS:
			flags |= CORDON_DUMP_NO_ORIGINS;
			break;
		case OPT_ALL:
			all = true;
			break;
		}
	}
	policy_path = a.policy_path;
	preset = a.preset;
	ctx = a.ctx;
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (a.noperands > 0) {
		status = cli_usage_error("compile", "unexpected argument '%s'", a.operands[0]);
		goto out;
	}
	if (!emit) {
		status = cli_usage_error("compile", "--emit is required (ir or json)");
		goto out;
	}
	size_t k;
	for (k = 0; k < sizeof(emit_kinds) / sizeof(emit_kinds[0]); k++)
		if (strcmp(emit_kinds[k].name, emit) == 0)
			break;
	if (k == sizeof(emit_kinds) / sizeof(emit_kinds[0])) {
		if (!cordon_lower_known(emit)) {
			status = cli_usage_error("compile",
						 "unknown --emit kind '%s' (expected ir, json, bwrap, "
						 "bwrap-args, landlock, seccomp, seccomp-bpf, sbpl, "
						 "sbpl-argv, oci, k8s, k8s-seccomp or facts)",
						 emit);
			goto out;
		}
		if (all) {
			status = cli_usage_error("compile", "--emit %s lowers one preset; give --preset",
						 emit);
			goto out;
		}
		status = emit_lowered(policy_path, preset, ctx, emit);
		goto out;
	}
	format = emit_kinds[k].format;
	if (!(policy = cli_load_policy(policy_path, &status)))
		goto out;
	if (all && preset) {
		status = cli_usage_error("compile", "--all and --preset exclude each other");
		goto out;
	}
	if (!all && !preset && !(preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("compile", "the policy names no default preset; give --preset");
		goto out;
	}
	size_t n = all ? cordon_policy_preset_count(policy) : 1;
	for (size_t i = 0; i < n; i++) {
		const char *name = all ? cordon_policy_preset_name(policy, i) : preset;
		out = cordon_policy_dump(policy, name, ctx, format, flags, &err);
		if (!out) {
			status = cli_usage_error(NULL, "%s", err);
			free(err);
			goto out;
		}
		fputs(out, stdout);
		free(out);
	}
out:
	cordon_policy_free(policy);
	cli_args_free(&a);
	return status;
}
