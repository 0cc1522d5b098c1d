/* Lint checks over what was written: environment names and values,
 * regexes, and the definitions nothing uses. */
#include "config.h"

#include "lint_int.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fnmatch.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* ---- the syntax tree -------------------------------------------------------------- */

/* The text of a string token without variables (a preset name, an
 * environment name).  The checks run only on a policy that checked, whose
 * strings all decode. */
static char *decode(const struct ast *s)
{
	char *text = lit_string(NULL, s, NULL, NULL);
	return text ? text : xstrdup("");
}

/* Where a node stands: the preset around it (NULL at top level) and, for
 * the atoms of a rule, what its patterns name. */
struct site {
	const char *preset;
	const char *what;     /* "path", "command", "host", "tool name", "variable name",
			       * "redaction" */
	bool condition;       /* a regex after an exec prefix */
};

typedef void (*node_fn)(struct linter *l, const struct ast *node, const struct site *where,
			void *arg);

static const char *pattern_noun(const char *word)
{
	static const struct {
		const char *word, *noun;
	} nouns[] = {
		{ "read", "path" }, { "write", "path" }, { "protect", "path" },
		{ "unprotect", "path" }, { "exec", "command" }, { "net", "host" },
		{ "tool", "tool name" }, { "redact", "redaction" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(nouns); i++)
		if (strcmp(word, nouns[i].word) == 0)
			return nouns[i].noun;
	return NULL;
}

static void walk_item(struct linter *l, const struct ast *item, const struct site *outer,
		      node_fn fn, void *arg)
{
	const char *noun = item->u.item.name ? pattern_noun(item->u.item.name->u.tok.text) : NULL;
	if (!noun)
		return;
	for (const struct ast *p = item->u.item.patterns.head; p; p = p->next) {
		for (const struct ast *a = p->u.seq.head; a; a = a->next) {
			struct site s = { outer->preset, noun, a != p->u.seq.head };
			fn(l, a, &s, arg);
		}
	}
}

static void walk_env(struct linter *l, const struct ast *env, const struct site *outer,
		     node_fn fn, void *arg)
{
	for (const struct ast *it = env->u.seq.head; it; it = it->next) {
		struct site s = { outer->preset, "variable name", false };
		fn(l, it, &s, arg);
		if (it->kind == AST_ENV_SET)
			continue;
		for (const struct ast *n = it->u.seq.head; n; n = n->next)
			fn(l, n, &s, arg);
	}
}

/* Every statement of the root file and of the files it includes, and the
 * atoms, env items and names inside them.  fn sees each node once. */
static void walk_file(struct linter *l, const struct ast *file, node_fn fn, void *arg)
{
	struct site top = { 0 };
	for (const struct ast *s = file->u.seq.head; s; s = s->next) {
		fn(l, s, &top, arg);
		switch (s->kind) {
		case AST_INCLUDE:
			if (s->u.one.included)
				walk_file(l, s->u.one.included, fn, arg);
			break;
		case AST_ITEM:
			walk_item(l, s, &top, fn, arg);
			break;
		case AST_ENV:
			walk_env(l, s, &top, fn, arg);
			break;
		case AST_PRESET: {
			char *name = decode(s->u.block.name);
			struct site in = { name, NULL, false };
			for (const struct ast *it = s->u.block.body.head; it; it = it->next) {
				fn(l, it, &in, arg);
				if (it->kind == AST_ITEM)
					walk_item(l, it, &in, fn, arg);
				else if (it->kind == AST_ENV)
					walk_env(l, it, &in, fn, arg);
			}
			free(name);
			break;
		}
		default:
			break;
		}
	}
}

/* ---- the environment ---------------------------------------------------------------- */

static const char *const credential_globs[] = {
	"*TOKEN*", "*SECRET*", "*KEY*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*",
	"AWS_*", "GITHUB_*",
};

/* Names a keep glob is tested against: credentials that hosts commonly hold. */
static const char *const credential_samples[] = {
	"GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DATABASE_PASSWORD",
	"CLIENT_SECRET",
};

static const struct {
	const char *name, *why;
} startup_hooks[] = {
	{ "LD_PRELOAD", "loads a library into every program" },
	{ "LD_AUDIT", "loads a library into every program" },
	{ "LD_LIBRARY_PATH", "chooses where every program loads its libraries from" },
	{ "DYLD_INSERT_LIBRARIES", "loads a library into every program" },
	{ "DYLD_LIBRARY_PATH", "chooses where every program loads its libraries from" },
	{ "BASH_ENV", "names a file every non-interactive bash runs first" },
	{ "ENV", "names a file every interactive sh runs first" },
	{ "PROMPT_COMMAND", "runs a command before every prompt" },
	{ "PYTHONSTARTUP", "names a file interactive python runs first" },
	{ "PYTHONPATH", "puts modules ahead of the ones python would import" },
	{ "PYTHONHOME", "chooses the library python runs from" },
	{ "NODE_OPTIONS", "adds options such as --require to every node process" },
	{ "NODE_PATH", "puts modules ahead of the ones node would load" },
	{ "PERL5OPT", "adds options such as -M to every perl" },
	{ "PERL5LIB", "puts modules ahead of the ones perl would load" },
	{ "PERLLIB", "puts modules ahead of the ones perl would load" },
	{ "RUBYOPT", "adds options such as -r to every ruby" },
	{ "RUBYLIB", "puts libraries ahead of the ones ruby would load" },
	{ "GIT_SSH", "names the program git runs to reach a remote" },
	{ "GIT_SSH_COMMAND", "names the command git runs to reach a remote" },
	{ "GIT_PROXY_COMMAND", "names the command git runs to reach a remote" },
	{ "GIT_EDITOR", "names the editor git runs" },
	{ "GIT_SEQUENCE_EDITOR", "names the editor git rebase runs" },
	{ "GIT_EXEC_PATH", "chooses where git finds its own programs" },
	{ "GIT_ASKPASS", "names the program git runs to ask for a password" },
	{ "SSH_ASKPASS", "names the program ssh runs to ask for a password" },
	{ "GIT_PAGER", "names the pager git runs" },
	{ "GIT_EXTERNAL_DIFF", "names the diff program git runs" },
	{ "GIT_CONFIG_GLOBAL", "names a git config file, which can name programs git runs" },
	{ "GIT_CONFIG_SYSTEM", "names a git config file, which can name programs git runs" },
	{ "GIT_CONFIG_PARAMETERS", "passes git configuration, which can name programs git runs" },
	{ "GIT_CONFIG_COUNT", "passes git configuration, which can name programs git runs" },
};

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool is_credential_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(credential_globs); i++)
		if (fnmatch(credential_globs[i], name, FNM_CASEFOLD) == 0)
			return true;
	return false;
}

static bool regex_matches(const char *re_src, const char *subject)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)re_src, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re)
		return false;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc = pcre2_match(re, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

/* Does one of an env list's patterns (names, globs, regexes) match name? */
static bool env_listed(const struct ir_pattern *pats, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (pats[i].regex ? regex_matches(pats[i].regex, name)
				  : fnmatch(pats[i].text, name, 0) == 0)
			return true;
	return false;
}

static bool env_dropped(const struct ir_preset *p, const char *name)
{
	return env_listed(p->env.drop, p->env.ndrop, name);
}

/* Is preset p, or one of its ancestors, named `scope`? */
static bool preset_within(const struct ir_policy *ir, const struct ir_preset *p, const char *scope)
{
	for (size_t depth = 0; p && depth <= ir->npresets; depth++) {
		if (strcmp(p->name, scope) == 0)
			return true;
		p = p->parent ? ir_preset_find(ir, p->parent) : NULL;
	}
	return false;
}

/* Does a keep written in `scope` pass `name` into some preset, that is,
 * reach a preset that does not drop it?  A keep no preset sees counts. */
static bool keep_effective(const struct linter *l, const char *scope, const char *name)
{
	bool reached = false;
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		if (scope && !preset_within(l->ir, p, scope))
			continue;
		reached = true;
		if (!env_dropped(p, name))
			return true;
	}
	return !reached;
}

/* The names a keep passes that match: the name itself, or for a glob the
 * samples it matches.  Joined into *list; returns how many. */
static size_t keep_matches(const struct linter *l, const struct site *where, const char *keep,
			   const char *const *names, size_t n,
			   bool (*pick)(const struct linter *l, const struct site *where,
					const char *name),
			   struct strbuf *list, const char **first)
{
	size_t count = 0;
	if (!has_glob(keep)) {
		if (pick(l, where, keep) && keep_effective(l, where->preset, keep)) {
			sb_adds(list, keep);
			*first = keep;
			return 1;
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(keep, names[i], 0) != 0 || !pick(l, where, names[i]) ||
		    !keep_effective(l, where->preset, names[i]))
			continue;
		if (count < 4)
			sb_addf(list, "%s%s", count ? ", " : "", names[i]);
		else if (count == 4)
			sb_adds(list, ", ...");
		if (!count)
			*first = names[i];
		count++;
	}
	return count;
}

/* A credential by its name, or by the env `secret` list of a preset the
 * keep at `where` reaches: the policy's own word for what a host shell
 * must not expand. */
static bool pick_credential(const struct linter *l, const struct site *where, const char *name)
{
	if (is_credential_name(name))
		return true;
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		if ((!where->preset || preset_within(l->ir, p, where->preset)) &&
		    env_listed(p->env.secret, p->env.nsecret, name))
			return true;
	}
	return false;
}

static void keep_credential(struct linter *l, const struct ast *node, const struct site *where,
			    void *arg)
{
	(void)arg;
	if (node->kind != AST_ENV_KEEP)
		return;
	for (const struct ast *n = node->u.seq.head; n; n = n->next) {
		if (n->kind != AST_IDENT && n->kind != AST_STRING)
			continue;
		char *keep = n->kind == AST_STRING ? decode(n) : xstrdup(n->u.tok.text);
		struct strbuf list;
		const char *first = NULL;
		sb_init(&list);
		size_t count = keep_matches(l, where, keep, credential_samples,
					    ARRAY_SIZE(credential_samples), pick_credential, &list, &first);
		/* A glob that names a credential itself: keep "*_TOKEN". */
		if (!count && has_glob(keep) && is_credential_name(keep) &&
		    keep_effective(l, where->preset, keep)) {
			sb_adds(&list, keep);
			count = 1;
		}
		if (count) {
			struct diag *f =
				has_glob(keep)
					? lint_report(l, &n->loc, NULL,
						      "env keep '%s' passes credentials into the sandbox "
						      "(it keeps %s)",
						      keep, list.buf)
					: lint_report(l, &n->loc, NULL,
						      "env keep '%s' passes a credential into the sandbox",
						      keep);
			diag_hint(f, "leave it out, or add 'drop /(TOKEN|SECRET|KEY|PASSWORD)/;' to the "
				     "env block (drop beats keep)");
		}
		sb_free(&list);
		free(keep);
	}
}

/* A value that looks like a credential: a known token prefix, or a long
 * string of random-looking characters. */
static const char *secret_kind(const char *v)
{
	static const struct {
		const char *prefix, *kind;
	} prefixes[] = {
		{ "ghp_", "a GitHub token" },	  { "gho_", "a GitHub token" },
		{ "ghu_", "a GitHub token" },	  { "ghs_", "a GitHub token" },
		{ "ghr_", "a GitHub token" },	  { "github_pat_", "a GitHub token" },
		{ "glpat-", "a GitLab token" },	  { "xoxb-", "a Slack token" },
		{ "xoxp-", "a Slack token" },	  { "AKIA", "an AWS access key" },
		{ "ASIA", "an AWS access key" },  { "sk-", "an API secret key" },
		{ "sk_live_", "a Stripe key" },	  { "npm_", "an npm token" },
		{ "AIza", "a Google API key" },	  { "-----BEGIN", "a private key" },
	};
	size_t len = strlen(v);
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i].prefix);
		if (len >= n + 12 && strncmp(v, prefixes[i].prefix, n) == 0 && !strchr(v, ' '))
			return prefixes[i].kind;
	}
	if (len < 24 || v[0] == '/' || strstr(v, "://") ||
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.") != len)
		return NULL;
	/* Random text uses many different characters; words and paths repeat
	 * a few. */
	bool seen[256] = { false }, digit = false, alpha = false;
	size_t distinct = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];
		distinct += !seen[c];
		seen[c] = true;
		digit = digit || (c >= '0' && c <= '9');
		alpha = alpha || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
	}
	return digit && alpha && distinct >= 14 ? "a long random string" : NULL;
}

void lint_env_secret(struct linter *l)
{
	walk_file(l, l->root, keep_credential, NULL);
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_env *e = &LINT_PRESET(l, k)->env;
		for (size_t i = 0; i < e->nset; i++) {
			const struct ir_env_set *s = &e->set[i];
			if (strchr(s->value, IR_VAR_OPEN) || !*s->value)
				continue;
			const char *kind = secret_kind(s->value);
			struct diag *f = NULL;
			if (kind)
				f = lint_report(l, &s->origin, NULL,
						"env set '%s' writes what looks like %s into the policy",
						s->name, kind);
			else if (is_credential_name(s->name))
				f = lint_report(l, &s->origin, NULL,
						"env set '%s' writes a credential into the policy", s->name);
			diag_hint(f, "policy files are shared and reviewed: give the secret to the "
				     "command another way (a credential helper), not in the policy");
		}
	}
}

static const char *hook_why(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(startup_hooks); i++)
		if (strcmp(startup_hooks[i].name, name) == 0)
			return startup_hooks[i].why;
	return NULL;
}

static bool pick_hook(const struct linter *l, const struct site *where, const char *name)
{
	(void)l;
	(void)where;
	return hook_why(name) != NULL;
}

static void keep_hook(struct linter *l, const struct ast *node, const struct site *where, void *arg)
{
	const char *names[ARRAY_SIZE(startup_hooks)];
	(void)arg;
	if (node->kind != AST_ENV_KEEP)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(startup_hooks); i++)
		names[i] = startup_hooks[i].name;
	for (const struct ast *n = node->u.seq.head; n; n = n->next) {
		if (n->kind != AST_IDENT && n->kind != AST_STRING)
			continue;
		char *keep = n->kind == AST_STRING ? decode(n) : xstrdup(n->u.tok.text);
		struct strbuf list;
		const char *first = NULL;
		sb_init(&list);
		size_t count = keep_matches(l, where, keep, names, ARRAY_SIZE(names), pick_hook,
					    &list, &first);
		struct diag *f = NULL;
		if (count == 1 && !has_glob(keep))
			f = lint_report(l, &n->loc, NULL,
					"env keep '%s' passes a start-up hook into the sandbox: it %s",
					keep, hook_why(keep));
		else if (count)
			f = lint_report(l, &n->loc, NULL,
					"env keep '%s' passes start-up hooks into the sandbox (it keeps "
					"%s); %s %s",
					keep, list.buf, first, hook_why(first));
		diag_hint(f, "leave it out: whoever sets it on the host decides what code the "
			     "agent's commands run");
		sb_free(&list);
		free(keep);
	}
}

void lint_env_startup_hook(struct linter *l)
{
	walk_file(l, l->root, keep_hook, NULL);
}

/* ---- regexes -------------------------------------------------------------------------- */

/* Past the escape at re[i]: \Q...\E whole, or a backslash and the
 * character after it. */
static size_t re_escape_end(const char *re, size_t i)
{
	if (re[i + 1] == 'Q') {
		const char *e = strstr(re + i, "\\E");
		return e ? (size_t)(e - re) + 2 : strlen(re);
	}
	return i + (re[i + 1] ? 2 : 1);
}

/* Past the bracket expression at re[i] ([^]...], [[:alpha:]], escapes
 * within), or at the end of re when it does not close. */
static size_t re_class_end(const char *re, size_t i)
{
	size_t j = i + 1;
	if (re[j] == '^')
		j++;
	if (re[j] == ']')
		j++;
	while (re[j] && re[j] != ']') {
		if (re[j] == '\\' && re[j + 1]) {
			j++;
		} else if (re[j] == '[' && re[j + 1] == ':') {
			const char *e = strstr(re + j, ":]");
			if (e)
				j = (size_t)(e - re) + 1;
		}
		j++;
	}
	return re[j] ? j + 1 : j;
}

/* Past the quantifier at re[i], if any (i itself when none): *, +, ?,
 * {n}, {n,m}, {n,}, then a lazy '?' or possessive '+'.  *unbounded: it
 * repeats without bound and backtracks (a possessive one does not). */
static size_t re_quantifier(const char *re, size_t i, bool *unbounded)
{
	size_t q = i;
	*unbounded = false;
	if (re[q] == '*' || re[q] == '+') {
		*unbounded = true;
		q++;
	} else if (re[q] == '?') {
		q++;
	} else if (re[q] == '{') {
		size_t j = q + 1;
		while (re[j] >= '0' && re[j] <= '9')
			j++;
		if (re[j] == ',' && re[j + 1] == '}') {
			*unbounded = j > q + 1;
			q = j + 2;
		} else if (re[j] == ',' || re[j] == '}') {
			while (re[j] && re[j] != '}')
				j++;
			q = re[j] == '}' && j > q + 1 ? j + 1 : q;
		}
	}
	bool possessive = q > i && re[q] == '+';
	if (q > i && (re[q] == '+' || re[q] == '?'))
		q++;
	if (possessive)
		*unbounded = false;
	return q;
}

/* The first group that repeats without bound and holds a part that repeats
 * without bound itself, as [start, end) of re; false when there is none.
 * Atomic groups and possessive quantifiers do not backtrack. */
static bool nested_repeat(const char *re, size_t *start, size_t *end)
{
	struct frame {
		size_t open;
		bool atomic, inner; /* inner: it holds a part that repeats without bound */
	} stack[64];
	size_t depth = 0;
	for (size_t i = 0; re[i];) {
		struct frame closed = { 0 };
		bool group = false;
		if (re[i] == '(') {
			if (depth == ARRAY_SIZE(stack))
				return false;
			stack[depth++] = (struct frame){ .open = i,
							 .atomic = strncmp(re + i, "(?>", 3) == 0 };
			i++;
			continue;
		}
		if (strchr("|^$", re[i])) {
			i++;
			continue;
		}
		/* An atom, then its quantifier. */
		if (re[i] == ')') {
			if (!depth)
				return false;
			closed = stack[--depth];
			group = true;
			i++;
		} else if (re[i] == '\\') {
			i = re_escape_end(re, i);
		} else if (re[i] == '[') {
			i = re_class_end(re, i);
		} else {
			i++;
		}
		bool unbounded;
		size_t q = re_quantifier(re, i, &unbounded);
		bool holds = group && closed.inner && !closed.atomic;
		if (unbounded && holds) {
			*start = closed.open;
			*end = q;
			return true;
		}
		if (depth)
			stack[depth - 1].inner = stack[depth - 1].inner || unbounded || holds;
		i = q;
	}
	return false;
}

static void regex_backtracking(struct linter *l, const struct ast *node, const struct site *where,
			       void *arg)
{
	size_t s, e;
	(void)arg;
	if (node->kind != AST_REGEX)
		return;
	bool redaction = where->what && strcmp(where->what, "redaction") == 0;
	char *re = lit_regex(node, NULL);
	if (nested_repeat(re, &s, &e)) {
		struct diag *f = lint_report(
			l, &node->loc, NULL,
			"/%s/ repeats a group that repeats inside ('%.*s'): %s that almost "
			"matches can take exponential time",
			node->u.tok.text, (int)(e - s), re + s, redaction ? "output" : "a request");
		diag_hint(f, "let the inner part match one way only ((a+)+ is a+), or use an "
			     "atomic group (?>...) or a possessive quantifier (a++)");
	}
	free(re);
}

void lint_regex_backtracking(struct linter *l)
{
	walk_file(l, l->root, regex_backtracking, NULL);
}

static void regex_empty(struct linter *l, const struct ast *node, const struct site *where,
			void *arg)
{
	(void)arg;
	if (node->kind != AST_REGEX || !where->what)
		return;
	char *src = lit_regex(node, NULL);
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED,
				       PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY, &code, &off, NULL);
	free(src);
	if (!re)
		return;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	bool empty = pcre2_match(re, (PCRE2_SPTR) "", 0, 0, 0, md, NULL) >= 0;
	/* Text no pattern means: does the regex match any subject at all? */
	static const char odd[] = "\x7f cordon lint \x7f";
	bool any = pcre2_match(re, (PCRE2_SPTR)odd, sizeof(odd) - 1, 0, 0, md, NULL) >= 0;
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (!empty)
		return;
	struct diag *f;
	if (strcmp(where->what, "redaction") == 0)
		f = lint_report(l, &node->loc, NULL,
				"/%s/ matches the empty string: where it does, there is nothing to "
				"redact, and a secret it means may be missed",
				node->u.tok.text);
	else if (where->condition)
		f = lint_report(l, &node->loc, NULL,
				"/%s/ matches the empty string, so this condition always holds and "
				"the rule is its command prefix alone",
				node->u.tok.text);
	else if (any)
		f = lint_report(l, &node->loc, NULL,
				"/%s/ matches the empty string, so it matches every %s", node->u.tok.text,
				where->what);
	else
		f = lint_report(l, &node->loc, NULL,
				"/%s/ matches the empty string, which no %s is, and little else",
				node->u.tok.text, where->what);
	diag_hint(f, "require at least one character (+ instead of *), or anchor what must be "
		     "there");
}

void lint_regex_empty_match(struct linter *l)
{
	walk_file(l, l->root, regex_empty, NULL);
}

/* ---- what nothing uses ------------------------------------------------------------------ */

void lint_unused_let(struct linter *l)
{
	for (size_t i = 0; i < l->ir->nlets; i++) {
		const struct ir_let *v = &l->ir->lets[i];
		if (v->used)
			continue;
		struct diag *f = lint_report(l, &v->loc, NULL, "variable '%s' is never used",
					     v->name);
		diag_hint(f, "remove it, or use it as $%s", v->name);
	}
}

static bool preset_referenced(const struct ir_policy *ir, const char *name)
{
	if (ir->default_preset && strcmp(ir->default_preset, name) == 0)
		return true;
	for (size_t i = 0; i < ir->npresets; i++)
		if (ir->presets[i].parent && strcmp(ir->presets[i].parent, name) == 0)
			return true;
	for (size_t i = 0; i < ir->ntests; i++)
		if (ir->tests[i].preset && strcmp(ir->tests[i].preset, name) == 0)
			return true;
	return false;
}

static bool tested(const struct ir_policy *ir, const char *name)
{
	for (size_t i = 0; i < ir->ntests; i++)
		if (ir->tests[i].preset && strcmp(ir->tests[i].preset, name) == 0)
			return true;
	return false;
}

/* Is anything of this file's tree used: a statement with an effect of its
 * own, a let that is used, a preset that is referred to, or an include of
 * a file that is? */
static bool file_used(const struct linter *l, const struct ast *file)
{
	for (const struct ast *s = file->u.seq.head; s; s = s->next) {
		switch (s->kind) {
		case AST_ITEM:
		case AST_ENV:
		case AST_TEST:
		case AST_DEFAULT:
		case AST_PROGRAM:
		case AST_ASSERT:
			return true;
		case AST_INCLUDE:
			if (s->u.one.included && file_used(l, s->u.one.included))
				return true;
			break;
		case AST_LET:
			for (size_t i = 0; i < l->ir->nlets; i++) {
				const struct ir_let *v = &l->ir->lets[i];
				if (v->used && v->loc.file == s->loc.file &&
				    v->loc.start == s->u.bind.name->loc.start)
					return true;
			}
			break;
		case AST_PRESET: {
			char *name = decode(s->u.block.name);
			bool used = preset_referenced(l->ir, name);
			free(name);
			if (used)
				return true;
			break;
		}
		default:
			break;
		}
	}
	return false;
}

static void include_unused(struct linter *l, const struct ast *node, const struct site *where,
			   void *arg)
{
	(void)where;
	(void)arg;
	if (node->kind != AST_INCLUDE || !node->u.one.included || file_used(l, node->u.one.included))
		return;
	const struct src_file *f = srcmgr_file(l->sm, node->u.one.included->loc.file);
	struct diag *fd = lint_report(l, &node->loc, NULL, "nothing from '%s' is used",
					      f ? f->name : "the included file");
	diag_hint(fd, "remove the include");
}

void lint_unused_include(struct linter *l)
{
	walk_file(l, l->root, include_unused, NULL);
}

void lint_unused_preset(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		if (preset_referenced(l->ir, p->name))
			continue;
		struct diag *f = lint_report(
			l, &p->loc, NULL,
			"preset '%s' is not the default, no preset extends it and no test names it",
			p->name);
		diag_hint(f, "a host can still choose it by name; remove it if none does");
	}
}

void lint_no_description(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		if (p->description && *p->description)
			continue;
		struct diag *f = lint_report(l, &p->loc, NULL,
					     "preset '%s' has no description", p->name);
		diag_hint(f, "say what it allows, for the people who choose it: description \"...\";");
	}
}

void lint_no_tests(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		if (tested(l->ir, p->name))
			continue;
		struct diag *f = lint_report(l, &p->loc, NULL, "no test names preset '%s'",
					     p->name);
		diag_hint(f, "add one: test \"...\" { preset \"%s\"; context ...; expect ...; }",
			  p->name);
	}
}
