/* Text bash evaluates as code where the analysis cannot read it: the value
 * of a variable used in arithmetic (x='a[$(id)]'; echo $((x)) runs id,
 * because an array subscript in arithmetic is expanded), quoted names that
 * builtins evaluate as subscripts (printf -v, read, unset, test -v),
 * declarations that make later assignments arithmetic (declare -i, -n),
 * prompt expansion (${x@P}), aliases, hash -p, compgen -C and the shell
 * variables that make bash run code later (PS4 with xtrace, BASH_ENV,
 * SHELLOPTS, exported functions BASH_FUNC_*, a PATH that may find a
 * program the agent wrote).  Each of them makes its command opaque: asked
 * about without a sandbox, contained under one. */
#include "config.h"

#include "shell_split.h"

#include <string.h>

static bool ident_start(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool ident_char(int c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* Whether arithmetic text reads a variable ($x, ${x}, or a bare name):
 * bash evaluates a variable's value as an expression again, subscripts
 * and command substitutions in it included.  A letter inside a number
 * (0x1f, 16#ff) is no name. */
static bool arith_reads_variable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '$' && i + 1 < n && s[i + 1] != '(' && s[i + 1] != '[')
			return true;
		if (!ident_start(c))
			continue;
		if (i > 0 && (ident_char((unsigned char)s[i - 1]) || s[i - 1] == '#'))
			continue;
		return true;
	}
	return false;
}

/* Whether ${...} text evaluates something it does not show: a subscript
 * or a substring offset that reads a variable (both are arithmetic),
 * indirection (${!x}: x's value may be a[$(cmd)]), prompt expansion
 * (${x@P}). */
static bool param_evaluates(const char *t)
{
	size_t n = strlen(t);
	if (n < 3 || t[0] != '$' || t[1] != '{')
		return false;
	const char *s = t + 2, *end = t + n - 1;
	if (*s == '!' && ident_start((unsigned char)s[1])) {
		const char *k = s + 1;
		while (ident_char((unsigned char)*k))
			k++;
		/* ${!prefix*} and ${!prefix@} list names, ${!a[@]} keys. */
		if (!((*k == '*' || *k == '@') && k + 1 == end) && *k != '[')
			return true;
	}
	if (*s == '!' || *s == '#')
		s++;
	while (ident_char((unsigned char)*s))
		s++;
	if (*s == '[') {
		const char *close = memchr(s, ']', (size_t)(end - s));
		size_t len = close ? (size_t)(close - s - 1) : (size_t)(end - s - 1);
		if (!(len == 1 && (s[1] == '@' || s[1] == '*')) && arith_reads_variable(s + 1, len))
			return true;
		s = close ? close + 1 : end;
	}
	if (*s == '@' && s + 2 == end && s[1] == 'P')
		return true;
	if (*s == ':' && s[1] != '-' && s[1] != '=' && s[1] != '+' && s[1] != '?')
		return arith_reads_variable(s + 1, (size_t)(end - s - 1));
	return false;
}

const char *sp_hidden_part(const struct shell_part *p)
{
	if (!p->text)
		return NULL;
	if (p->kind == SHELL_PART_ARITH && arith_reads_variable(p->text, strlen(p->text)))
		return "arithmetic evaluates a variable's value, subscripts in it included";
	if (p->kind == SHELL_PART_PARAM && param_evaluates(p->text))
		return "the expansion evaluates text it does not show (a subscript, an offset, "
		       "indirection or prompt expansion)";
	return NULL;
}

/* A subscript that reads a variable, in a name a builtin assigns or tests. */
static bool name_subscript_evaluates(const char *v)
{
	const char *b = strchr(v, '[');
	return b && arith_reads_variable(b, strlen(b));
}

/* The shell's own variables whose value makes bash run code later; PATH
 * too when path is set.  A prefix assignment (PATH=x ls) and export are
 * judged by the policy's env block (`code`), which names PATH; this list
 * covers what it does not see: an assignment alone (PATH=.:$PATH; ls),
 * env's NAME=VALUE words, and the shell's own variables wherever they are
 * set. */
static bool code_variable(const char *name, size_t n, const char *value, bool path)
{
	static const char *const names[] = { "PS4",      "BASH_ENV",       "ENV",
					     "SHELLOPTS", "BASHOPTS",      "PROMPT_COMMAND",
					     "BASH_LOADABLES_PATH" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && !memcmp(names[i], name, n))
			return true;
	if (n > 9 && !memcmp(name, "BASH_FUNC_", 10))
		return true;
	if (!path || n != 4 || memcmp(name, "PATH", 4))
		return false;
	/* A PATH of the system's own directories finds no program the agent
	 * wrote; anything else may. */
	static const char *const system[] = { "/usr/local/bin", "/usr/local/sbin", "/usr/bin",
					      "/usr/sbin",      "/bin",            "/sbin" };
	if (!value || !*value)
		return true;
	for (const char *s = value; *s;) {
		size_t len = strcspn(s, ":"), k;
		for (k = 0; k < ARRAY_SIZE(system); k++)
			if (strlen(system[k]) == len && !memcmp(system[k], s, len))
				break;
		if (k == ARRAY_SIZE(system))
			return true;
		s += len + (s[len] == ':');
	}
	return false;
}

/* NAME=VALUE as a word (env, export, declare): whether it sets one of them. */
static bool word_sets_code_variable(const struct shell_word *w, bool path)
{
	const char *v = shell_word_static(w);
	if (!v)
		return false;
	size_t n = 0;
	while (ident_char((unsigned char)v[n]) || (n >= 9 && v[n] == '%'))
		n++;
	return n && v[n] == '=' && code_variable(v, n, v + n + 1, path);
}

const char *sp_hidden_assign(const struct shell_assign *a, bool alone)
{
	const char *name = a->name;
	if (name_subscript_evaluates(name))
		return "the assignment's subscript reads a variable, evaluated as arithmetic";
	if (code_variable(name, strlen(name), shell_word_static(a->value), alone))
		return "it sets a variable that makes bash run code later (PATH, PS4, BASH_ENV, "
		       "SHELLOPTS, BASH_FUNC_*)";
	return NULL;
}

static bool word_is(const struct shell_word *w, const char *s)
{
	const char *v = shell_word_static(w);
	return v && !strcmp(v, s);
}

/* An option word (-abc) of a builtin that holds letter c. */
static bool has_flag(const struct shell_word *w, char c)
{
	const char *v = shell_word_static(w);
	return v && v[0] == '-' && v[1] != '-' && strchr(v + 1, c);
}

typedef const char *(*hidden_check)(const struct shell_cmd *cmd, size_t i, size_t n);

/* printf -v NAME, read NAME..., unset NAME..., export NAME...: a name with
 * a subscript that reads a variable, or a name not known, is evaluated. */
static const char *check_names(const struct shell_cmd *cmd, size_t i, size_t n)
{
	bool printf_ = !strcmp(cmd->prog, "printf");
	for (size_t k = i + 1; k < n; k++) {
		const struct shell_word *w = cmd->words[k];
		if (printf_) {
			if (!word_is(w, "-v"))
				continue;
			if (++k >= n)
				break;
			w = cmd->words[k];
		}
		const char *v = shell_word_static(w);
		if (!v && !printf_)
			continue;
		if (!v || name_subscript_evaluates(v))
			return "a name it assigns has a subscript bash evaluates";
		if (printf_)
			break;
	}
	return NULL;
}

/* declare, typeset, local, readonly, export. */
static const char *check_declare(const struct shell_cmd *cmd, size_t i, size_t n)
{
	for (size_t k = i + 1; k < n; k++) {
		const struct shell_word *w = cmd->words[k];
		if (strcmp(cmd->prog, "export") && (has_flag(w, 'i') || has_flag(w, 'n')))
			return "declare -i and -n make later assignments evaluate their value";
		if (word_sets_code_variable(w, false))
			return "it sets a variable that makes bash run code later";
		const char *v = shell_word_static(w);
		if (!v)
			continue;
		const char *eq = strchr(v, '=');
		size_t nl = eq ? (size_t)(eq - v) : strlen(v);
		const char *b = memchr(v, '[', nl);
		if (b && arith_reads_variable(b, nl - (size_t)(b - v)))
			return "a name it assigns has a subscript bash evaluates";
		if (eq && eq[1] == '(' && cmd->words[k]->nparts && cmd->words[k]->parts[0].quoted)
			return "a quoted array value is parsed again as words";
		if (eq && eq[1] == '(' && strpbrk(eq, "$`"))
			return "a quoted array value is parsed again as words";
	}
	return NULL;
}

/* let EXPR...: arithmetic on its words' values. */
static const char *check_let(const struct shell_cmd *cmd, size_t i, size_t n)
{
	for (size_t k = i + 1; k < n; k++) {
		const char *v = shell_word_static(cmd->words[k]);
		if (!v)
			return "let evaluates text not known before it runs";
		size_t skip = 0;
		while (ident_char((unsigned char)v[skip]))
			skip++;
		if (skip && (v[skip] == '=' || (v[skip] && v[skip + 1] == '=')))
			v += skip + 1;
		if (arith_reads_variable(v, strlen(v)))
			return "arithmetic evaluates a variable's value, subscripts in it included";
	}
	return NULL;
}

/* test -v NAME, [ -v NAME ], [[ -v NAME ]]; and in [[ ]], the operands
 * of -eq, -ne, -lt, -le, -gt, -ge are arithmetic. */
static const char *check_test(const struct shell_cmd *cmd, size_t i, size_t n)
{
	static const char *const arith_ops[] = { "-eq", "-ne", "-lt", "-le", "-gt", "-ge" };
	bool dbracket = !strcmp(cmd->prog, "[[");
	for (size_t k = i + 1; k < n; k++) {
		const struct shell_word *w = cmd->words[k];
		if (word_is(w, "-v") && k + 1 < n) {
			const char *v = shell_word_static(cmd->words[k + 1]);
			if (!v || strchr(v, '['))
				return "test -v evaluates the subscript of the name it tests";
		}
		for (size_t o = 0; dbracket && o < ARRAY_SIZE(arith_ops); o++) {
			if (!word_is(w, arith_ops[o]))
				continue;
			for (size_t side = k - 1; side <= k + 1 && side < n; side += 2) {
				const char *v = shell_word_static(cmd->words[side]);
				if (!v || arith_reads_variable(v, strlen(v)))
					return "arithmetic evaluates a variable's value, subscripts in "
					       "it included";
			}
		}
	}
	return NULL;
}

/* Builtins that run a program or code named in an option. */
static const char *check_option_runs(const struct shell_cmd *cmd, size_t i, size_t n)
{
	static const struct {
		const char *prog;
		char flag;
		const char *reason;
	} runs[] = {
		{ "hash", 'p', "hash -p makes a name run another program" },
		{ "compgen", 'C', "compgen -C runs a command" },
		{ "compgen", 'F', "compgen -F runs a function" },
		{ "complete", 'C', "complete -C names a command completion runs" },
		{ "complete", 'F', "complete -F names a function completion runs" },
		{ "mapfile", 'C', "mapfile -C runs a callback" },
		{ "readarray", 'C', "readarray -C runs a callback" },
		{ "enable", 'f', "enable -f loads a builtin from a file" },
	};
	for (size_t r = 0; r < ARRAY_SIZE(runs); r++) {
		if (strcmp(runs[r].prog, cmd->prog))
			continue;
		for (size_t k = i + 1; k < n; k++)
			if (has_flag(cmd->words[k], runs[r].flag))
				return runs[r].reason;
	}
	return NULL;
}

/* shopt -s expand_aliases: later words may be aliases. */
static const char *check_shopt(const struct shell_cmd *cmd, size_t i, size_t n)
{
	for (size_t k = i + 1; k < n; k++)
		if (!shell_word_static(cmd->words[k]) || word_is(cmd->words[k], "expand_aliases"))
			return "with expand_aliases, an alias may stand for any command";
	return NULL;
}

/* env NAME=VALUE, as a wrapper's word. */
static const char *check_env_words(const struct shell_cmd *cmd, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		if (word_sets_code_variable(cmd->words[k], true))
			return "it sets a variable that makes bash run code later (PATH, PS4, "
			       "BASH_ENV, SHELLOPTS, BASH_FUNC_*)";
	return NULL;
}

#define CHECK(name, fn) { name, sizeof(name) - 1, fn }
static const struct {
	const char *prog;
	size_t len; /* looked at first: most commands differ in length */
	hidden_check check;
} builtin_checks[] = {
	CHECK("printf", check_names),       CHECK("read", check_names),
	CHECK("unset", check_names),        CHECK("export", check_declare),
	CHECK("declare", check_declare),    CHECK("typeset", check_declare),
	CHECK("local", check_declare),      CHECK("readonly", check_declare),
	CHECK("let", check_let),            CHECK("test", check_test),
	CHECK("[", check_test),             CHECK("[[", check_test),
	CHECK("hash", check_option_runs),   CHECK("compgen", check_option_runs),
	CHECK("complete", check_option_runs), CHECK("mapfile", check_option_runs),
	CHECK("readarray", check_option_runs), CHECK("enable", check_option_runs),
	CHECK("shopt", check_shopt),
};
#undef CHECK

const char *sp_hidden_cmd(const struct shell_cmd *cmd)
{
	const char *why = check_env_words(cmd, 0, cmd->argi);
	if (why || !cmd->prog)
		return why;
	size_t len = strlen(cmd->prog);
	for (size_t i = 0; i < ARRAY_SIZE(builtin_checks); i++)
		if (builtin_checks[i].len == len && !memcmp(builtin_checks[i].prog, cmd->prog, len))
			return builtin_checks[i].check(cmd, cmd->argi, cmd->nwords);
	return NULL;
}

struct shell_cmd *sp_emit_text(struct split *sp, const struct ctx *c, const char *cwd,
			      const char *text, size_t start, size_t end)
{
	struct shell_part *part = arena_alloc0(sp->a, sizeof(*part));
	part->kind = SHELL_PART_LIT;
	part->text = text;
	part->start = start;
	part->end = end;
	struct shell_word *w = arena_alloc0(sp->a, sizeof(*w));
	w->parts = part;
	w->nparts = 1;
	w->lit = text;
	w->start = start;
	w->end = end;
	struct shell_word **words = arena_alloc0(sp->a, sizeof(*words));
	words[0] = w;
	struct shell_cmd *cmd = sp_new_cmd(sp, c, start, end, cwd);
	cmd->words = (const struct shell_word *const *)words;
	cmd->nwords = 1;
	return cmd;
}

void sp_emit_hidden(struct split *sp, const struct ctx *c, const char *cwd, const char *text,
		    size_t start, size_t end, const char *reason)
{
	struct shell_cmd *cmd = sp_emit_text(sp, c, cwd, text, start, end);
	/* Its one word is text bash evaluates, not a program's name: dynamic,
	 * so no rule takes it for a static command line. */
	((struct shell_word *)cmd->words[0])->lit = NULL;
	sp_set_opaque(cmd, reason);
}
