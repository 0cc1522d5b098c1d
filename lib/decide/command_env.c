/* What a simple command does with the environment that only a sandbox
 * bounds: expanding a variable whose name says it holds a secret
 * ($GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY:-x}), printing the whole
 * environment (env, printenv, export -p, set), and assignments that change
 * which code runs (PATH=, LD_PRELOAD=, NODE_OPTIONS=, BASH_ENV=, PAGER=).
 * Under cordon's sandbox the environment is the preset's allowlist; a host
 * that runs the command itself passes its own.  The names are policy data:
 * the env block's `secret` and `code` lists; the programs that print the
 * environment are those whose spec says `environment;`
 * (rules/commands.cordon). */
#include "config.h"

#include "command_env.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

void cmd_names_init(struct cmd_names *n, const struct ir_env *e)
{
	name_set_init(&n->secret, e->secret, e->nsecret);
	name_set_init(&n->code, e->code, e->ncode);
}

void cmd_names_free(struct cmd_names *n)
{
	name_set_free(&n->secret);
	name_set_free(&n->code);
}

static bool is_secret_name(const struct cmd_names *e, pcre2_match_data *md, const char *name,
			   size_t n)
{
	char v[128];
	if (!e || n == 0 || n >= sizeof(v))
		return false;
	memcpy(v, name, n);
	v[n] = '\0';
	return name_set_match(&e->secret, v, md);
}

/* The name $NAME, ${NAME...}, ${!NAME}, ${#NAME} expands. */
static bool param_name(const char *t, const char **name, size_t *n)
{
	if (t[0] != '$')
		return false;
	t++;
	if (*t == '{') {
		t++;
		if (*t == '!' || *t == '#')
			t++;
	}
	size_t k = 0;
	while (name_char(t[k]))
		k++;
	*name = t;
	*n = k;
	return k > 0;
}

static const char *secret_in_parts(const struct cmd_names *e, pcre2_match_data *md,
				   const struct shell_part *p, size_t np, char *buf, size_t size)
{
	for (size_t i = 0; i < np; i++) {
		const char *name;
		size_t n;
		if (p[i].kind == SHELL_PART_PARAM && p[i].text && param_name(p[i].text, &name, &n) &&
		    is_secret_name(e, md, name, n)) {
			snprintf(buf, size, "it expands $%.*s, whose name says it holds a secret", (int)n,
				 name);
			return buf;
		}
		if (p[i].ninner) {
			const char *r = secret_in_parts(e, md, p[i].inner, p[i].ninner, buf, size);
			if (r)
				return r;
		}
	}
	return NULL;
}

static const char *secret_in_word(const struct cmd_names *e, pcre2_match_data *md,
				  const struct shell_word *w, char *buf, size_t size)
{
	return w ? secret_in_parts(e, md, w->parts, w->nparts, buf, size) : NULL;
}

static bool is_code_var(const struct cmd_names *e, pcre2_match_data *md, const char *name)
{
	return e && name_set_match(&e->code, name, md);
}

/* A program whose spec says `environment;` prints the environment when its
 * words are only options the spec lists (env, export -p, set; not set -e);
 * a `variable` operand prints that variable (printenv NAME): 1 when one
 * of them names a secret.  0: it prints none of these. */
static int dumps_environment(const struct cmd_names *e, pcre2_match_data *md,
			     const struct shell_cmd *c, const struct ir_spec *spec)
{
	if (!spec || !spec->environment)
		return 0;
	bool operands = false;
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (!v)
			return 0;
		if (v[0] == '-' && v[1]) {
			if (!ir_spec_option(spec, v, strlen(v)))
				return 0;
			continue;
		}
		if (spec->operands != ROLE_VARIABLE)
			return 0;
		if (is_secret_name(e, md, v, strlen(v)))
			return 1;
		operands = true;
	}
	return operands ? 0 : 2;
}

const char *cmd_env_caution(const struct cmd_names *e, pcre2_match_data *md,
			    const struct shell_cmd *c, const struct ir_spec *spec, char *buf,
			    size_t size)
{
	for (size_t i = 0; i < c->nwords; i++) {
		const char *r = secret_in_word(e, md, c->words[i], buf, size);
		if (r)
			return r;
	}
	for (size_t i = 0; i < c->nredirs; i++) {
		const char *r = secret_in_word(e, md, c->redirs[i]->target, buf, size);
		if (r)
			return r;
	}
	for (size_t i = 0; i < c->nassigns; i++) {
		const char *r = secret_in_word(e, md, c->assigns[i]->value, buf, size);
		if (r)
			return r;
		if (is_code_var(e, md, c->assigns[i]->name)) {
			snprintf(buf, size, "it sets %s, which changes what code runs",
				 c->assigns[i]->name);
			return buf;
		}
	}
	/* export NAME=VALUE: the assignment is a word of export. */
	if (c->prog && (strcmp(c->prog, "export") == 0 || strcmp(c->prog, "declare") == 0 ||
			strcmp(c->prog, "typeset") == 0 || strcmp(c->prog, "local") == 0 ||
			strcmp(c->prog, "readonly") == 0)) {
		for (size_t i = c->argi + 1; i < c->nwords; i++) {
			const char *v = shell_word_static(c->words[i]);
			const char *eq = v ? strchr(v, '=') : NULL;
			if (!v && c->words[i]->nparts && c->words[i]->parts[0].kind == SHELL_PART_LIT) {
				v = c->words[i]->parts[0].text;
				eq = strchr(v, '=');
			}
			if (!eq)
				continue;
			char name[64];
			size_t n = (size_t)(eq - v);
			if (n >= sizeof(name))
				continue;
			memcpy(name, v, n);
			name[n] = '\0';
			if (is_code_var(e, md, name)) {
				snprintf(buf, size, "it sets %s, which changes what code runs", name);
				return buf;
			}
		}
	}
	switch (dumps_environment(e, md, c, spec)) {
	case 1:
		snprintf(buf, size, "it prints a variable whose name says it holds a secret");
		return buf;
	case 2:
		snprintf(buf, size, "it prints the environment");
		return buf;
	}
	return NULL;
}
