/* Checking program specs: `program "sed" { operands read; option "-i"
 * modifies; subcommand ... { } }` into struct ir_spec. */
#include "config.h"

#include "check.h"
#include "base/strmap.h"
#include "lang/literal.h"
#include "lang/load.h"
#include "lang/parse.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR(d, locp, id, ...) diag_add((d), DIAG_ERROR, (locp), (id), __VA_ARGS__)

/* A name in a spec: a string without variables or blanks. */
static char *plain(struct diag_list *d, const struct ast *s, const char *what)
{
	char *text = lit_string(d, s, NULL, NULL);
	if (!text)
		return NULL;
	if (!*text || strpbrk(text, " \t\n")) {
		ERR(d, &s->loc, "bad-value", "'%s' is not %s", text, what);
		free(text);
		return NULL;
	}
	return text;
}

static int role_of(struct diag_list *d, const struct ast *word, const bool *allowed)
{
	const char *w = word->u.tok.text;
	const char *names[ROLE_COUNT];
	size_t n = 0;
	for (int r = 0; r < ROLE_COUNT; r++) {
		if (!allowed[r])
			continue;
		if (strcmp(w, ir_role_names[r]) == 0)
			return r;
		names[n++] = ir_role_names[r];
	}
	struct diag *dg = ERR(d, &word->loc, "bad-value", "'%s' is not a role here", w);
	const char *best = closest_word(w, names, n);
	if (best) {
		diag_hint(dg, "did you mean '%s'?", best);
		return -1;
	}
	struct strbuf sb;
	sb_init(&sb);
	sb_add_words(&sb, names, n, ", ");
	diag_hint(dg, "roles: %s", sb.buf);
	sb_free(&sb);
	return -1;
}

static void names_of(struct diag_list *d, const struct ast_seq *seq, char ***out, size_t *n)
{
	size_t cap = 0;
	for (const struct ast *s = seq->head; s; s = s->next) {
		char *name = plain(d, s, "a program or subcommand name");
		if (name)
			VEC_PUSH(*out, *n, cap, name);
	}
}

/* `net "host", "host:port";` -- contacts the program makes whatever its
 * words say; "*" is a host not known before it runs.  `read "path";` and
 * `write "path";` -- likewise for files, relative to its working
 * directory. */
static void check_fixed(struct diag_list *d, const struct ast *it, const char *what,
			const char *example, char ***out, size_t *n, size_t *cap)
{
	const char *item = it->u.item.name->u.tok.text;
	if (it->u.item.word || it->u.item.reason || !it->u.item.patterns.n) {
		ERR(d, &it->loc, "syntax", "write '%s \"%s\";'", item, example);
		return;
	}
	for (const struct ast *p = it->u.item.patterns.head; p; p = p->next) {
		if (p->u.seq.n != 1 || p->u.seq.head->kind != AST_STRING) {
			ERR(d, &p->loc, "syntax", "%s is named by a string, as in \"%s\"", what, example);
			continue;
		}
		char *v = plain(d, p->u.seq.head, what);
		if (v)
			VEC_PUSH(*out, *n, *cap, v);
	}
}

/* A default config's path: ~/REST or ${NAME}/REST (NAME an environment
 * variable), resolved where the command runs. */
static bool config_path(const char *v)
{
	if (v[0] == '~')
		return v[1] == '/' && v[2];
	if (v[0] != '$' || v[1] != '{' || !(v[2] == '_' || (v[2] >= 'A' && v[2] <= 'Z') ||
					    (v[2] >= 'a' && v[2] <= 'z')))
		return false;
	size_t n = 2;
	while (v[n] == '_' || (v[n] >= 'A' && v[n] <= 'Z') || (v[n] >= 'a' && v[n] <= 'z') ||
	       (v[n] >= '0' && v[n] <= '9'))
		n++;
	return v[n] == '}' && v[n + 1] == '/' && v[n + 2];
}

/* `config "~/.curlrc", ... unless "-q";` */
static void check_config(struct diag_list *d, struct ir_spec *spec, const struct ast *it)
{
	const char *example = "config \"~/.curlrc\" unless \"-q\";";
	if (!it->u.item.patterns.n || !it->u.item.word || !it->u.item.reason ||
	    strcmp(it->u.item.word->u.tok.text, "unless") != 0) {
		ERR(d, &it->loc, "syntax", "write '%s'", example);
		return;
	}
	if (spec->config_unless) {
		ERR(d, &it->loc, "duplicate-setting", "'config' is set twice");
		return;
	}
	for (const struct ast *p = it->u.item.patterns.head; p; p = p->next) {
		if (p->u.seq.n != 1 || p->u.seq.head->kind != AST_STRING) {
			ERR(d, &p->loc, "syntax", "a path is named by a string, as in \"~/.curlrc\"");
			continue;
		}
		char *v = plain(d, p->u.seq.head, "a path");
		if (v && !config_path(v)) {
			ERR(d, &p->u.seq.head->loc, "bad-value",
			    "'%s' is not ~/PATH or ${NAME}/PATH (a default config is found from the "
			    "home directory or an environment variable)",
			    v);
			free(v);
			continue;
		}
		if (v)
			VEC_PUSH(spec->configs, spec->nconfigs, spec->configs_cap, v);
	}
	char *unless = plain(d, it->u.item.reason, "an option name");
	if (unless && unless[0] != '-') {
		ERR(d, &it->u.item.reason->loc, "bad-value", "'%s' is not an option name", unless);
		free(unless);
		return;
	}
	if (unless) {
		spec->config_unless = unless;
		spec->config_loc = it->u.item.reason->loc;
	}
}

/* `config ".npmrc", "~/.npmrc" net "registry";`: files whose KEY = VALUE
 * lines (the key a glob) name hosts the program contacts too; a path is
 * ~/PATH, ${NAME}/PATH, an absolute one, or a file name looked for in
 * the directory it works in and those above it. */
static void check_config_keys(struct diag_list *d, struct ir_spec *spec, const struct ast *it)
{
	const char *role = it->u.item.word->u.tok.text;
	struct ir_option c = { .origin = it->loc };
	if (strcmp(role, ir_role_names[ROLE_NET]) == 0) {
		c.role = ROLE_NET;
	} else {
		ERR(d, &it->u.item.word->loc, "syntax",
		    "write 'config \"~/.curlrc\" unless \"-q\";' or 'config \"~/.npmrc\" "
		    "net \"registry\";'");
		return;
	}
	if (!it->u.item.patterns.n || !it->u.item.reason) {
		ERR(d, &it->loc, "syntax", "write 'config \"~/.npmrc\" %s \"KEY\";'", role);
		return;
	}
	if (!(c.path = plain(d, it->u.item.reason, "a key")))
		return;
	size_t cap = 0;
	for (const struct ast *p = it->u.item.patterns.head; p; p = p->next) {
		if (p->u.seq.n != 1 || p->u.seq.head->kind != AST_STRING) {
			ERR(d, &p->loc, "syntax", "a path is named by a string, as in \"~/.npmrc\"");
			continue;
		}
		char *v = plain(d, p->u.seq.head, "a path");
		if (v && !config_path(v) && v[0] != '/' &&
		    (!v[0] || strchr(v, '/') || strcmp(v, ".") == 0 || strcmp(v, "..") == 0)) {
			ERR(d, &p->u.seq.head->loc, "bad-value",
			    "'%s' is not ~/PATH, ${NAME}/PATH, /PATH or a file name", v);
			free(v);
			continue;
		}
		if (v)
			VEC_PUSH(c.names, c.nnames, cap, v);
	}
	if (c.nnames)
		VEC_PUSH(spec->configkeys, spec->nconfigkeys, spec->configkeys_cap, c);
	else
		free(c.path);
}

/* The host after the role registry: one of the spec's `net` hosts, which
 * the value replaces (the spec's own, or its program's: a subcommand's
 * items are checked before its program's `net` is known, so a host the
 * spec does not name is checked where the analysis reads it: it then
 * replaces nothing).  Malloc'd, or NULL after an error. */
static char *registry_host(struct diag_list *d, const struct ast *s)
{
	char *h = plain(d, s, "a host name");
	if (h && (!*h || strcmp(h, "*") == 0 || strchr(h, '/'))) {
		ERR(d, &s->loc, "bad-value",
		    "'%s' is not a host the spec names with `net` (a registry replaces one of them, "
		    "as in registry \"proxy.golang.org:443\")",
		    h);
		free(h);
		return NULL;
	}
	return h;
}

/* `getenv "GOPROXY", ... registry;`: variables that name where it goes. */
static void check_env(struct diag_list *d, struct ir_spec *spec, const struct ast *it)
{
	if (!it->u.item.patterns.n || !it->u.item.word) {
		ERR(d, &it->loc, "syntax", "write 'getenv \"npm_config_registry\" registry;'");
		return;
	}
	const char *role = it->u.item.word->u.tok.text;
	struct ir_option e = { .origin = it->loc };
	if (strcmp(role, ir_role_names[ROLE_REGISTRY]) == 0) {
		e.role = ROLE_REGISTRY;
	} else if (strcmp(role, ir_role_names[ROLE_NET]) == 0) {
		e.role = ROLE_NET;
	} else {
		ERR(d, &it->u.item.word->loc, "bad-value",
		    "'%s' is not a role of a variable (registry: it names where the program goes "
		    "instead of its net hosts; net: a host it contacts too)",
		    role);
		return;
	}
	if (it->u.item.reason && e.role != ROLE_REGISTRY) {
		ERR(d, &it->u.item.reason->loc, "syntax",
		    "only the role 'registry' takes a host after it (the spec's `net` host it "
		    "replaces)");
		return;
	}
	if (it->u.item.reason && !(e.path = registry_host(d, it->u.item.reason)))
		return;
	size_t cap = 0;
	for (const struct ast *p = it->u.item.patterns.head; p; p = p->next) {
		if (p->u.seq.n != 1 || p->u.seq.head->kind != AST_STRING) {
			ERR(d, &p->loc, "syntax", "a variable is named by a string, as in \"GOPROXY\"");
			continue;
		}
		char *name = plain(d, p->u.seq.head, "a variable name");
		bool ok = name && name[0] && !(name[0] >= '0' && name[0] <= '9');
		for (const char *c = name; ok && *c; c++)
			ok = *c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
			     (*c >= '0' && *c <= '9');
		if (name && !ok) {
			ERR(d, &p->loc, "bad-value", "'%s' is not a variable name", name);
			free(name);
			continue;
		}
		if (name)
			VEC_PUSH(e.names, e.nnames, cap, name);
	}
	if (e.nnames)
		VEC_PUSH(spec->envs, spec->nenvs, spec->envs_cap, e);
}

/* Where the operands' roles (`operands`, `first`, `last`: ITEM_OPERANDS,
 * ITEM_FIRST, ITEM_LAST, 0 to 2) were set in one body, so that a second
 * setting is refused. */
struct roles_set {
	bool have[3];
	struct loc seen[3];
};

/* The one string after an item and nothing else (`bare "install";`), or
 * NULL. */
static const struct ast *one_string(const struct ast *it)
{
	const struct ast *p1 = it->u.item.patterns.head;
	bool one = !it->u.item.word && !it->u.item.reason && it->u.item.patterns.n == 1 &&
		   p1->u.seq.n == 1 && p1->u.seq.head->kind == AST_STRING;
	return one ? p1->u.seq.head : NULL;
}

/* An item of one string into *slot (the last one given wins): `bare
 * "install";` (`yarn` alone runs `yarn install`), `implied "typescript";`
 * (script alone writes ./typescript), `upstream ".git/config";` (where a
 * start point's upstream goes), `extracts "PATH";`.  usage: the message
 * for another shape; what: what the string is.  Returns whether it set
 * *slot. */
static bool check_one_string(struct diag_list *d, const struct ast *it, const char *usage,
			     const char *what, char **slot)
{
	const struct ast *s = one_string(it);
	if (!s) {
		ERR(d, &it->loc, "syntax", "%s", usage);
		return false;
	}
	char *v = plain(d, s, what);
	if (!v)
		return false;
	free(*slot);
	*slot = v;
	return true;
}

/* An item without words that sets *flag: `recursive;`: operands are
 * whole trees, no option needed (rg); `extracts;`: files it does not
 * name land below its directory (unzip); `environment;`: it prints the
 * environment (env); `remote;`: HOST:PATH operands are contacts (scp);
 * `targets;`: any operand selects a subcommand (make all install);
 * `project;`: it runs the project's code (make, npm test); `host;`: it
 * changes the host beyond its files (pkill); `shell_escape;`: its input
 * may run commands (vim :!). */
static void check_flag(struct diag_list *d, const struct ast *it, bool *flag)
{
	if (it->u.item.word || it->u.item.reason || it->u.item.patterns.n)
		ERR(d, &it->loc, "syntax", "write '%s;'", it->u.item.name->u.tok.text);
	*flag = true;
}

/* `extracts;` or `extracts "PATH";`: they land below PATH ("*":
 * unknown). */
static void check_extracts(struct diag_list *d, struct ir_spec *spec, const struct ast *it)
{
	if (!it->u.item.patterns.n)
		check_flag(d, it, &spec->extracts);
	else if (check_one_string(d, it, "write 'extracts;' or 'extracts \"PATH\";'", "a path",
				  &spec->extracts_dir))
		spec->extracts = true;
}

/* `operands ROLE;`, `first ROLE;`, `last ROLE;` (k): the role of the
 * operands, of the first and of the last, each set once. */
static void check_operand_role(struct diag_list *d, struct ir_spec *spec, const struct ast *it,
			       int k, struct roles_set *set)
{
	const char *what = it->u.item.name->u.tok.text;
	if (!it->u.item.word || it->u.item.reason || it->u.item.patterns.n) {
		ERR(d, &it->loc, "syntax", "write '%s ROLE;'", what);
		return;
	}
	int role = role_of(d, it->u.item.word, ir_role_operand);
	if (role < 0)
		return;
	if (set->have[k]) {
		struct diag *dg = ERR(d, &it->loc, "duplicate-setting", "'%s' is set twice", what);
		diag_note(dg, set->seen[k], "first set here");
		return;
	}
	set->have[k] = true;
	set->seen[k] = it->loc;
	if (k == 0)
		spec->operands = (enum ir_role)role;
	else if (k == 1)
		spec->first = (enum ir_role)role, spec->has_first = true;
	else
		spec->last = (enum ir_role)role, spec->has_last = true;
}

/* The names of an option: strings that start with '-', end with '='
 * (key=value) or are "+" (+COMMAND). */
static void option_names(struct diag_list *d, struct ir_option *opt, const struct ast *it)
{
	size_t cap = 0;
	for (const struct ast *p = it->u.item.patterns.head; p; p = p->next) {
		if (p->u.seq.n != 1 || p->u.seq.head->kind != AST_STRING) {
			ERR(d, &p->loc, "syntax", "an option is named by a string, as in \"-i\"");
			continue;
		}
		char *name = plain(d, p->u.seq.head, "an option name");
		if (name && name[0] != '-' && name[strlen(name) - 1] != '=' &&
		    strcmp(name, "+") != 0) {
			ERR(d, &p->loc, "bad-value",
			    "option '%s' neither starts with '-' nor ends with '=' (key=value), "
			    "nor is '+' (+COMMAND)",
			    name);
			free(name);
			continue;
		}
		if (name)
			VEC_PUSH(opt->names, opt->nnames, cap, name);
	}
}

/* Is the role word of item it the role r? */
static bool role_is(const struct ast *it, enum ir_role r)
{
	return it->u.item.word && strcmp(it->u.item.word->u.tok.text, ir_role_names[r]) == 0;
}

/* `option "-x", "--long" ROLE;`.  `option "--global" store
 * "~/.gitconfig";` needs a path, `option "-L" contacts "*";` a host, and
 * `option "-d" changes ".git/config";` may have a path, `option
 * "--registry" registry "HOST";` a host it replaces. */
static void check_option(struct diag_list *d, struct ir_spec *spec, const struct ast *it)
{
	bool store = role_is(it, ROLE_STORE), changes = role_is(it, ROLE_CHANGES);
	bool contacts = role_is(it, ROLE_CONTACTS), registry = role_is(it, ROLE_REGISTRY);
	bool takes_more = store || changes || contacts || registry; /* a word after the role */
	if (store && !it->u.item.reason) {
		ERR(d, &it->loc, "syntax", "write 'option \"--global\" store \"~/.gitconfig\";'");
		return;
	}
	if (contacts && !it->u.item.reason) {
		ERR(d, &it->loc, "syntax", "write 'option \"-L\", \"--location\" contacts \"*\";'");
		return;
	}
	if (it->u.item.word && it->u.item.reason && !takes_more) {
		ERR(d, &it->u.item.reason->loc, "syntax",
		    "only the roles 'store' and 'changes' take a path after them, 'contacts' "
		    "and 'registry' a host");
		return;
	}
	if (!it->u.item.word || (it->u.item.reason && !takes_more) || !it->u.item.patterns.n) {
		ERR(d, &it->loc, "syntax", "write 'option \"-x\", \"--long\" ROLE;'");
		return;
	}
	int role = role_of(d, it->u.item.word, ir_role_option);
	if (role < 0)
		return;
	struct ir_option opt = { .role = (enum ir_role)role, .origin = it->loc };
	if ((store || (changes && it->u.item.reason)) &&
	    !(opt.path = plain(d, it->u.item.reason, "a path")))
		return;
	if (contacts && !(opt.path = plain(d, it->u.item.reason, "a host name")))
		return;
	if (registry && it->u.item.reason && !(opt.path = registry_host(d, it->u.item.reason)))
		return;
	option_names(d, &opt, it);
	VEC_PUSH(spec->options, spec->noptions, spec->options_cap, opt);
}

/* ---- the items of a spec's body, one handler each ---------------------- */

#define ITEM_ARGS struct diag_list *d, struct ir_spec *spec, const struct ast *it, struct roles_set *set

/* `operands ROLE;`, `first ROLE;`, `last ROLE;`: the slot of set each
 * keeps its place in. */
static void item_operands(ITEM_ARGS) { check_operand_role(d, spec, it, 0, set); }
static void item_first(ITEM_ARGS) { check_operand_role(d, spec, it, 1, set); }
static void item_last(ITEM_ARGS) { check_operand_role(d, spec, it, 2, set); }
static void item_option(ITEM_ARGS)
{
	(void)set;
	check_option(d, spec, it);
}

/* `net "host";`, `read "path";`, ...: what the program touches whatever
 * its words say, with the example its usage message shows. */
#define FIXED_ITEM(item, what, example, field) \
	static void item_##item(ITEM_ARGS) \
	{ \
		(void)set; \
		check_fixed(d, it, what, example, &spec->field, &spec->n##field, &spec->field##_cap); \
	}
FIXED_ITEM(net, "a host name", "registry.npmjs.org", hosts)
FIXED_ITEM(read, "a path", "~/.npmrc", reads)
FIXED_ITEM(write, "a path", ".git", writes)
FIXED_ITEM(delete, "a path", ".", deletes)
FIXED_ITEM(changes, "a path", ".git", changes)
#undef FIXED_ITEM

/* `bare "install";`, `implied "typescript";`, `upstream ".git/config";`. */
#define STRING_ITEM(item, usage, what) \
	static void item_##item(ITEM_ARGS) \
	{ \
		(void)set; \
		check_one_string(d, it, usage, what, &spec->item); \
	}
STRING_ITEM(bare, "write 'bare \"install\";'", "a subcommand name")
STRING_ITEM(implied, "write 'implied \"typescript\";'", "a path")
STRING_ITEM(upstream, "write 'upstream \".git/config\";'", "a path")
#undef STRING_ITEM

/* The items without words (check_flag says what each means). */
#define FLAG_ITEM(item) \
	static void item_##item(ITEM_ARGS) \
	{ \
		(void)set; \
		check_flag(d, it, &spec->item); \
	}
FLAG_ITEM(recursive)
FLAG_ITEM(environment)
FLAG_ITEM(remote)
FLAG_ITEM(targets)
FLAG_ITEM(project)
FLAG_ITEM(host)
FLAG_ITEM(shell_escape)
#undef FLAG_ITEM

static void item_extracts(ITEM_ARGS)
{
	(void)set;
	check_extracts(d, spec, it);
}

/* `config "PATH" unless "-q";` (a default config file) or `config
 * "KEY" ROLE "...";` (git config keys): told apart by the word. */
static void item_config(ITEM_ARGS)
{
	(void)set;
	if (it->u.item.word && strcmp(it->u.item.word->u.tok.text, "unless") != 0)
		check_config_keys(d, spec, it);
	else
		check_config(d, spec, it);
}

static void item_getenv(ITEM_ARGS)
{
	(void)set;
	check_env(d, spec, it);
}
#undef ITEM_ARGS

/* Every item a program spec's body may hold, once: the enum, the names,
 * the hint that lists them (docs/language.md's spec_item and
 * cordon.policy.5 are checked against it by tests/man.sh) and the handler
 * come from this list.  X(ID, name, handler).  `subcommand` is not here:
 * the grammar reads it, as a block.  The order is the hint's. */
#define SPEC_ITEMS(X) \
	X(OPERANDS, "operands", item_operands) \
	X(FIRST, "first", item_first) \
	X(LAST, "last", item_last) \
	X(OPTION, "option", item_option) \
	X(NET, "net", item_net) \
	X(READ, "read", item_read) \
	X(WRITE, "write", item_write) \
	X(DELETE, "delete", item_delete) \
	X(CHANGES, "changes", item_changes) \
	X(RECURSIVE, "recursive", item_recursive) \
	X(EXTRACTS, "extracts", item_extracts) \
	X(ENVIRONMENT, "environment", item_environment) \
	X(REMOTE, "remote", item_remote) \
	X(BARE, "bare", item_bare) \
	X(IMPLIED, "implied", item_implied) \
	X(TARGETS, "targets", item_targets) \
	X(UPSTREAM, "upstream", item_upstream) \
	X(PROJECT, "project", item_project) \
	X(CONFIG, "config", item_config) \
	X(HOST, "host", item_host) \
	X(SHELL_ESCAPE, "shell_escape", item_shell_escape) \
	X(GETENV, "getenv", item_getenv)

enum spec_item {
#define SPEC_ITEM_ENUM(id, name, handler) ITEM_##id,
	SPEC_ITEMS(SPEC_ITEM_ENUM)
#undef SPEC_ITEM_ENUM
	ITEM_COUNT
};
/* The operands' roles keep their places in struct roles_set by these. */
_Static_assert(ITEM_OPERANDS == 0 && ITEM_FIRST == 1 && ITEM_LAST == 2,
	       "operands, first and last lead SPEC_ITEMS");

#define SPEC_ITEM_NAME(id, name, handler) [ITEM_##id] = name,
static const char *const item_names[ITEM_COUNT] = { SPEC_ITEMS(SPEC_ITEM_NAME) };
#undef SPEC_ITEM_NAME
typedef void item_handler(struct diag_list *d, struct ir_spec *spec, const struct ast *it,
			  struct roles_set *set);
#define SPEC_ITEM_HANDLER(id, name, handler) [ITEM_##id] = handler,
static item_handler *const item_handlers[ITEM_COUNT] = { SPEC_ITEMS(SPEC_ITEM_HANDLER) };
#undef SPEC_ITEM_HANDLER

/* An item no spec has: the closest one, or the list of them. */
static void unknown_item(struct diag_list *d, const struct ast *it)
{
	const char *what = it->u.item.name->u.tok.text;
	struct diag *dg = ERR(d, &it->u.item.name->loc, "unknown-operation",
			      "unknown item '%s' in a program spec", what);
	const char *best = closest_word(what, item_names, ITEM_COUNT);
	if (best) {
		diag_hint(dg, "did you mean '%s'?", best);
		return;
	}
	struct strbuf sb;
	sb_init(&sb);
	sb_add_words(&sb, item_names, ITEM_COUNT, ", ");
	diag_hint(dg, "items: %s, subcommand", sb.buf);
	sb_free(&sb);
}

/* One item of a spec's body, by its name. */
static void check_item(struct diag_list *d, struct ir_spec *spec, const struct ast *it,
		       struct roles_set *set)
{
	const char *what = it->u.item.name->u.tok.text;
	if (it->u.item.mod) {
		ERR(d, &it->u.item.mod->loc, "syntax",
		    "'%s' modifies the path of a read or write rule, not a program's item",
		    it->u.item.mod->u.tok.text);
		return;
	}
	int k = 0;
	while (k < ITEM_COUNT && strcmp(what, item_names[k]) != 0)
		k++;
	if (k == ITEM_COUNT)
		unknown_item(d, it);
	else
		item_handlers[k](d, spec, it, set);
}

/* The option that skips the default config is one the spec reads as a
 * flag, so that the word after it stays a word of its own. */
static void check_config_unless(struct diag_list *d, const struct ir_spec *spec)
{
	bool declared = !spec->config_unless;
	for (size_t i = 0; i < spec->noptions && !declared; i++)
		for (size_t j = 0; j < spec->options[i].nnames && !declared; j++)
			declared = strcmp(spec->options[i].names[j], spec->config_unless) == 0 &&
				   spec->options[i].role == ROLE_FLAG;
	if (!declared)
		ERR(d, &spec->config_loc, "bad-value",
		    "'%s' is not declared as a flag of this spec (write 'option \"%s\" flag;')",
		    spec->config_unless, spec->config_unless);
}

static void check_body(struct diag_list *d, struct ir_spec *spec, const struct ast_seq *body)
{
	struct roles_set set = { .have = { false } };
	spec->operands = ROLE_READ; /* an operand of an unknown meaning: read at most */
	for (const struct ast *it = body->head; it; it = it->next) {
		if (it->kind != AST_SUBCOMMAND) {
			check_item(d, spec, it, &set);
			continue;
		}
		struct ir_spec sub = { .origin = it->loc };
		names_of(d, &it->u.prog.names, &sub.names, &sub.nnames);
		check_body(d, &sub, &it->u.prog.body);
		VEC_PUSH(spec->subs, spec->nsubs, spec->subs_cap, sub);
	}
	check_config_unless(d, spec);
}

/* The host a registry replaces is a `net` host of its spec or of one
 * that encloses it (depth of them in up): else it would replace nothing,
 * and the default it means to stand for would be contacted besides. */
static bool names_host(const struct ir_spec *const *up, size_t depth, const char *host)
{
	for (size_t k = 0; k < depth; k++)
		for (size_t i = 0; i < up[k]->nhosts; i++)
			if (strcmp(up[k]->hosts[i], host) == 0)
				return true;
	return false;
}

static void check_replaces(struct diag_list *d, const struct ir_spec **up, size_t depth)
{
	const struct ir_spec *s = up[depth - 1];
	for (size_t k = 0; k < s->noptions + s->nenvs; k++) {
		const struct ir_option *o = k < s->noptions ? &s->options[k] : &s->envs[k - s->noptions];
		if (o->role == ROLE_REGISTRY && o->path && !names_host(up, depth, o->path))
			ERR(d, &o->origin, "bad-value",
			    "'%s' is not a host this spec names with `net`: the registry would "
			    "replace nothing",
			    o->path);
	}
	for (size_t k = 0; k < s->nsubs && depth < 8; k++) {
		up[depth] = &s->subs[k];
		check_replaces(d, up, depth + 1);
	}
}

_Noreturn static void broken(const struct ir_spec_deferred *df)
{
	fprintf(stderr, "cordon: the program spec built in at offset %u does not check; "
			"this cordon is broken\n",
		df->sub_end ? df->sub_start : df->start);
	abort();
}

/* The members of a spec's body, from what was read into body: other
 * threads read the names (an evaluator's index of them, a program's index
 * of its subcommands) while this one reads the body. */
static void take_body(struct ir_spec *spec, const struct ir_spec *body)
{
	size_t from = offsetof(struct ir_spec, operands), to = offsetof(struct ir_spec, origin);
	memcpy((char *)spec + from, (const char *)body + from, to - from);
}

static void read_deferred_sub(void *arg);

/* The subcommands of a program read with their bodies blank (subs, n of
 * them, as load_defer_subcommands found them): each is read when it is
 * first looked up.  The parse must have made one for each, in order. */
static void defer_subs(struct ir_spec *body, const struct ir_spec *spec,
		       const struct ir_spec_deferred *df, uint32_t open,
		       const struct load_range *subs, size_t n)
{
	if (body->nsubs != n)
		broken(df);
	for (size_t k = 0; k < n; k++) {
		struct ir_spec *sub = &body->subs[k];
		if (sub->origin.start != subs[k].start || sub->origin.end != subs[k].end)
			broken(df);
		struct ir_spec_deferred *sd = xmalloc(sizeof(*sd));
		*sd = (struct ir_spec_deferred){ .text = df->text,
						 .file = df->file,
						 .start = df->start,
						 .end = df->end,
						 .read = read_deferred_sub,
						 .sub_start = subs[k].start,
						 .sub_end = subs[k].end,
						 .open = open,
						 .up = spec };
		sub->deferred = sd;
	}
}

/* The program statement of a deferred spec, parsed: its subcommands'
 * bodies left blank (*subs, *n of them) unless CORDON_FAST_LOAD=0 or the
 * statement is not of the form load_defer_subcommands reads. */
static const struct ast *parse_deferred(const struct ir_spec_deferred *df, struct arena *arena,
					struct diag_list *d, struct load_range **subs, size_t *n,
					uint32_t *open)
{
	*subs = NULL;
	*n = 0;
	const char *v = getenv("CORDON_FAST_LOAD");
	if (!(v && strcmp(v, "0") == 0))
		*n = load_defer_subcommands(df->text, df->start, df->end, open, subs);
	if (!*n)
		return parse_range(df->file, df->text, df->start, df->end, arena, d);
	/* Everything but the inside of each subcommand's braces. */
	uint32_t(*keep)[2] = xcalloc(*n + 1, sizeof(*keep));
	uint32_t from = df->start;
	for (size_t k = 0; k < *n; k++) {
		keep[k][0] = from;
		keep[k][1] = (*subs)[k].open;
		from = (*subs)[k].close;
	}
	keep[*n][0] = from;
	keep[*n][1] = df->end;
	const struct ast *file =
		parse_range_kept(df->file, df->text, df->start, df->end, keep, *n + 1, arena, d);
	free(keep);
	return file;
}

/* A deferred spec's body (ir_spec_ready): the statement parsed and checked
 * as a file's would be, its names kept as they stand (a later spec may
 * have taken some).  The text is part of the binary and is checked by
 * the tests as it is built; if it does not check, nothing is decided. */
static void read_deferred(void *arg)
{
	struct ir_spec *spec = arg;
	const struct ir_spec_deferred *df = spec->deferred;
	struct arena arena;
	struct diag_list d;
	struct load_range *subs;
	size_t nsubs;
	uint32_t open = 0;
	arena_init(&arena);
	diag_init(&d);
	const struct ast *file = parse_deferred(df, &arena, &d, &subs, &nsubs, &open);
	const struct ast *node = file->u.seq.head;
	struct ir_spec body = { .origin = spec->origin };
	bool one = node && node->kind == AST_PROGRAM && !node->next &&
		   node->loc.start == df->start && node->loc.end == df->end;
	if (one) {
		check_body(&d, &body, &node->u.prog.body);
		const struct ir_spec *up[9] = { &body };
		check_replaces(&d, up, 1);
	}
	if (!one || d.nerrors)
		broken(df);
	if (nsubs)
		defer_subs(&body, spec, df, open, subs, nsubs);
	free(subs);
	diag_free(&d);
	arena_free(&arena);
	take_body(spec, &body);
}

/* A subcommand of a deferred spec (defer_subs), read when it is first
 * looked up: the program statement parsed with only its head, this
 * subcommand and its closing brace kept, and the subcommand checked as
 * it is within its program. */
static void read_deferred_sub(void *arg)
{
	struct ir_spec *sub = arg;
	const struct ir_spec_deferred *df = sub->deferred;
	struct arena arena;
	struct diag_list d;
	const uint32_t keep[3][2] = { { df->start, df->open },
				      { df->sub_start, df->sub_end },
				      { df->end - 1, df->end } };
	arena_init(&arena);
	diag_init(&d);
	const struct ast *file =
		parse_range_kept(df->file, df->text, df->start, df->end, keep, 3, &arena, &d);
	const struct ast *node = file->u.seq.head;
	const struct ast *it = node && node->kind == AST_PROGRAM && !node->next
				       ? node->u.prog.body.head
				       : NULL;
	struct ir_spec body = { .origin = sub->origin };
	if (!it || it->next || it->kind != AST_SUBCOMMAND || it->loc.start != df->sub_start ||
	    it->loc.end != df->sub_end)
		broken(df);
	check_body(&d, &body, &it->u.prog.body);
	const struct ir_spec *up[9] = { df->up, &body };
	check_replaces(&d, up, 2);
	if (d.nerrors)
		broken(df);
	diag_free(&d);
	arena_free(&arena);
	take_body(sub, &body);
}

static void check_spec(struct diag_list *d, struct ir_spec *spec, const struct ast *node)
{
	if (node->u.prog.deferred) {
		struct ir_spec_deferred *df = xmalloc(sizeof(*df));
		*df = (struct ir_spec_deferred){ .text = node->u.prog.deferred,
						 .file = node->loc.file,
						 .start = node->loc.start,
						 .end = node->loc.end,
						 .read = read_deferred };
		spec->deferred = df;
		return;
	}
	check_body(d, spec, &node->u.prog.body);
	const struct ir_spec *up[9] = { spec };
	check_replaces(d, up, 1);
}

void check_program(struct diag_list *d, struct ir_policy *ir, const struct ast *node)
{
	struct ir_spec spec = { .origin = node->loc };
	names_of(d, &node->u.prog.names, &spec.names, &spec.nnames);
	check_spec(d, &spec, node);
	/* A later spec replaces the names it gives in an earlier one: the
	 * index says which spec has a name now, so that a policy of many
	 * specs is not checked in quadratic time. */
	if (!ir->spec_names) {
		/* Made with room for the built-in specs' 577 names: grown
		 * from empty it was rehashed six times, 2% of a hook call. */
		ir->spec_names = xmalloc(sizeof(*ir->spec_names));
		strmap_init_for(ir->spec_names, 600);
	}
	for (size_t n = 0; n < spec.nnames; n++) {
		const char *name = spec.names[n];
		const struct strmap_entry *e = strmap_get(ir->spec_names, name, strlen(name));
		if (e && e->items[e->nitems - 1] < ir->nprograms) { /* not this spec's own */
			struct ir_spec *old = &ir->programs[e->items[e->nitems - 1]];
			for (size_t j = 0; j < old->nnames; j++) {
				if (strcmp(old->names[j], name) != 0)
					continue;
				free(old->names[j]);
				memmove(&old->names[j], &old->names[j + 1],
					(old->nnames - j - 1) * sizeof(*old->names));
				old->nnames--;
				break;
			}
		}
		strmap_add(ir->spec_names, name, strlen(name), (uint32_t)ir->nprograms);
	}
	VEC_PUSH(ir->programs, ir->nprograms, ir->programs_cap, spec);
}

struct spec_order {
	const char *name; /* its first */
	uint32_t at;      /* its index before the sort */
};

static int order_cmp(const void *a, const void *b)
{
	return strcmp(((const struct spec_order *)a)->name, ((const struct spec_order *)b)->name);
}

/* The specs that kept a name, sorted by their first (each name is one
 * spec's, so no two tie), and the index of names made while checking
 * kept for the evaluators: each name to the index of its spec now.  The
 * specs are sorted by their names and moved once. */
void check_programs_done(struct ir_policy *ir)
{
	size_t w = 0, n = ir->nprograms;
	struct spec_order *order = xcalloc(n + 1, sizeof(*order));
	uint32_t *now = xcalloc(n + 1, sizeof(*now));
	for (size_t i = 0; i < n; i++) {
		if (!ir->programs[i].nnames) {
			ir_spec_free(&ir->programs[i]);
			continue;
		}
		order[w].name = ir->programs[i].names[0];
		order[w++].at = (uint32_t)i;
	}
	sort_items(order, w, sizeof(*order), order_cmp);
	struct ir_spec *sorted = xcalloc(n + 1, sizeof(*sorted));
	for (size_t k = 0; k < w; k++) {
		memcpy(&sorted[k], &ir->programs[order[k].at], sizeof(*sorted));
		now[order[k].at] = (uint32_t)k;
	}
	free(ir->programs);
	ir->programs = sorted;
	ir->nprograms = w;
	ir->programs_cap = n + 1;
	/* A name's last item is the spec that names it, which kept it. */
	for (size_t s = 0; ir->spec_names && s < ir->spec_names->nslots; s++) {
		struct strmap_entry *e = &ir->spec_names->slots[s];
		if (!e->key)
			continue;
		e->items[0] = now[e->items[e->nitems - 1]];
		e->nitems = 1;
	}
	free(order);
	free(now);
}
