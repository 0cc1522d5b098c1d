/* What a simple command does with the environment that only a sandbox
 * bounds: expanding a variable whose name says it holds a secret
 * ($GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY:-x}), printing the whole
 * environment (env, printenv, export -p, set), and assignments that change
 * which code runs (PATH=, LD_PRELOAD=, NODE_OPTIONS=, BASH_ENV=, PAGER=).
 * Under cordon's sandbox the environment is the preset's allowlist; a host
 * that runs the command itself passes its own. */
#include "config.h"

#include "command_env.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* Words in a variable's name that say it holds a secret. */
static const char *const secret_words[] = {
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY",
	"ACCESS_KEY", "CREDENTIAL", "SESSION_KEY",
};

/* Variables that name code a program runs, or where it is found. */
static const char *const code_vars[] = {
	"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
	"NODE_OPTIONS", "NODE_PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PYTHONPATH",
	"PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
	"PAGER", "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS",
	"SSH_ASKPASS", "LESSOPEN", "LESSCLOSE", "SHELL", "CDPATH", "IFS",
};

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool is_secret_name(const char *name, size_t n)
{
	char up[128];
	if (n == 0 || n >= sizeof(up))
		return false;
	for (size_t i = 0; i < n; i++)
		up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	up[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(secret_words); i++)
		if (strstr(up, secret_words[i]))
			return true;
	return false;
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

static const char *secret_in_parts(const struct shell_part *p, size_t np, char *buf, size_t size)
{
	for (size_t i = 0; i < np; i++) {
		const char *name;
		size_t n;
		if (p[i].kind == SHELL_PART_PARAM && p[i].text && param_name(p[i].text, &name, &n) &&
		    is_secret_name(name, n)) {
			snprintf(buf, size, "it expands $%.*s, whose name says it holds a secret", (int)n,
				 name);
			return buf;
		}
		if (p[i].ninner) {
			const char *r = secret_in_parts(p[i].inner, p[i].ninner, buf, size);
			if (r)
				return r;
		}
	}
	return NULL;
}

static const char *secret_in_word(const struct shell_word *w, char *buf, size_t size)
{
	return w ? secret_in_parts(w->parts, w->nparts, buf, size) : NULL;
}

static bool is_code_var(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(code_vars); i++)
		if (strcmp(name, code_vars[i]) == 0)
			return true;
	return false;
}

/* env, printenv, export, declare, typeset, set: with no operand (or only
 * -p, -x), each prints the environment or the shell's variables. */
static bool dumps_environment(const struct shell_cmd *c)
{
	static const char *const dumpers[] = { "env", "printenv", "export", "declare", "typeset",
					       "set", "compgen" };
	if (!c->prog)
		return false;
	const char *base = strrchr(c->prog, '/');
	base = base ? base + 1 : c->prog;
	bool known = false;
	for (size_t i = 0; i < ARRAY_SIZE(dumpers); i++)
		known = known || strcmp(base, dumpers[i]) == 0;
	if (!known)
		return false;
	bool printenv = strcmp(base, "printenv") == 0;
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (printenv && v && v[0] != '-') {
			/* printenv NAME...: the values of those, a secret's or not. */
			if (is_secret_name(v, strlen(v)))
				return true;
			continue;
		}
		if (!v || (strcmp(v, "-p") != 0 && strcmp(v, "-x") != 0 && strcmp(v, "-v") != 0 &&
			   strcmp(v, "-0") != 0 && strcmp(v, "--null") != 0))
			return false;
	}
	return !printenv || c->nwords == c->argi + 1;
}

const char *cmd_env_caution(const struct shell_cmd *c, char *buf, size_t size)
{
	for (size_t i = 0; i < c->nwords; i++) {
		const char *r = secret_in_word(c->words[i], buf, size);
		if (r)
			return r;
	}
	for (size_t i = 0; i < c->nredirs; i++) {
		const char *r = secret_in_word(c->redirs[i]->target, buf, size);
		if (r)
			return r;
	}
	for (size_t i = 0; i < c->nassigns; i++) {
		const char *r = secret_in_word(c->assigns[i]->value, buf, size);
		if (r)
			return r;
		if (is_code_var(c->assigns[i]->name)) {
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
			if (is_code_var(name)) {
				snprintf(buf, size, "it sets %s, which changes what code runs", name);
				return buf;
			}
		}
	}
	if (dumps_environment(c)) {
		snprintf(buf, size, "it prints the environment");
		return buf;
	}
	return NULL;
}
