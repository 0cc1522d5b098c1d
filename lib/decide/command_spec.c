/* A command read through its program's spec: options and their
 * arguments, operands and their roles, subcommands, and what a program
 * changes that its words do not name. */
#include "config.h"

#include "command_int.h"
#include "command_env.h"
#include "shell/confusable.h"
#include "base/canon.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- program specs ------------------------------------------------------- */

static const struct ir_option *lookup(const struct ir_spec *sub, const struct ir_spec *prog,
				      const char *name, size_t n)
{
	const struct ir_option *o = sub != prog ? ir_spec_option(sub, name, n) : NULL;
	return o ? o : ir_spec_option(prog, name, n);
}

static bool takes_arg(enum ir_role r)
{
	return ir_role_takes_arg[r];
}

static void contacted(struct reading *r, const char *host, const char *by)
{
	const size_t max = sizeof(r->contacted) / sizeof(*r->contacted);
	for (size_t k = 0; k < r->ncontacted; k++)
		if (strcmp(r->contacted[k], host) == 0)
			return;
	if (r->ncontacted == max) {
		r->contacted[max - 1] = "*"; /* more than it keeps: any host */
		return;
	}
	r->contacted_by[r->ncontacted] = by;
	r->contacted[r->ncontacted++] = host;
}

bool ca_mentions(const char *text, size_t len, const char *name, size_t n)
{
	for (const char *p = text, *end = text + len; n && (size_t)(end - p) >= n; p++)
		if (memcmp(p, name, n) == 0 && !(p > text && ca_name_char(p[-1])) &&
		    !(p + n < end && ca_name_char(p[n])))
			return true;
	return false;
}

/* The option word name (n bytes) is a `contacts` option: note its host.
 * A long one counts abbreviated too (--locat), as curl reads a unique
 * prefix: the stricter reading. */
static void contacts_too(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog,
			 const char *name, size_t n)
{
	bool prefix = n >= 3 && name[0] == '-' && name[1] == '-';
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		for (size_t i = 0; ir_spec_declares(s, ROLE_CONTACTS) && i < s->noptions; i++) {
			const struct ir_option *o = &s->options[i];
			bool given = false;
			for (size_t j = 0; j < o->nnames && o->role == ROLE_CONTACTS && !given; j++)
				given = strncmp(o->names[j], name, n) == 0 &&
					(prefix || o->names[j][n] == '\0');
			if (given)
				contacted(r, o->path, o->names[0]);
		}
		if (s == prog)
			break;
	}
}

/* --PREFIX of a long option that rewrites history, as getopt_long and git
 * resolve an abbreviation (--forc).  Only those: a word the spec does not
 * list may be an option of its own (--stat beside --stat-width), and
 * reading it as another that takes an argument would hide the next word. */
static const struct ir_option *abbreviation(const struct ir_spec *sub, const struct ir_spec *prog,
					    const char *name, size_t n)
{
	if (n < 3 || name[0] != '-' || name[1] != '-')
		return NULL;
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		for (size_t i = 0; i < s->noptions; i++) {
			const struct ir_option *o = &s->options[i];
			if (o->role != ROLE_REWRITES)
				continue;
			for (size_t j = 0; j < o->nnames; j++) {
				if (o->names[j][0] != '-' || o->names[j][1] != '-' ||
				    o->names[j][2] != name[2] || strlen(o->names[j]) <= n ||
				    memcmp(o->names[j], name, n) != 0)
					continue;
				return o;
			}
		}
		if (s == prog)
			break;
	}
	return NULL;
}

static bool declares_recursive(const struct ir_spec *s)
{
	return ir_spec_declares(s, ROLE_RECURSIVE);
}

/* The part rewrites or deletes shared history: it also runs as
 * PROG SUB... CANONICAL, the spelling a rule names. */
static void add_rewrite(struct reading *r, const char *canonical, const char *spelled)
{
	for (size_t i = 0; i < r->nrewrote; i++)
		if (strcmp(r->rewrote[i], canonical) == 0)
			return;
	if (r->nrewrote < sizeof(r->rewrote) / sizeof(*r->rewrote))
		r->rewrote[r->nrewrote++] = canonical;
	struct cmd_op *o = ca_push(r->out, IR_EXEC, r->c);
	struct strbuf sb;
	sb_init(&sb);
	o->nwords = r->nsubs + 2;
	o->words = arena_alloc0(&r->out->arena, (o->nwords + 1) * sizeof(*o->words));
	o->dyn = arena_alloc0(&r->out->arena, (o->nwords + 1) * sizeof(*o->dyn));
	o->words[0] = ca_keep(r->out, r->prog);
	for (size_t i = 0; i < r->nsubs; i++)
		o->words[i + 1] = ca_keep(r->out, r->subs[i]);
	o->words[o->nwords - 1] = ca_keep(r->out, canonical);
	for (size_t i = 0; i < o->nwords; i++) {
		if (i)
			sb_addc(&sb, ' ');
		shell_quote_word(&sb, o->words[i], i == 0);
	}
	o->target = ca_keep_sb(r->out, &sb);
	o->shown = ca_keepn(r->out, r->text + r->c->start, r->c->end - r->c->start);
	o->detail = ca_cat(r->out, "rewrites or deletes shared history (", canonical, ", spelled ",
			   spelled, ")", (char *)NULL);
}

/* A directory word's value when it is known before the command runs: its
 * static text, a leading ~ as the home directory, and the variables whose
 * values are known ($TMPDIR).  NULL: known only at run time. */
static char *dir_value(const struct cmd_env *env, const struct shell_word *w)
{
	if (shell_word_static(w))
		return xstrdup(shell_word_static(w));
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		const char *v = NULL;
		if (p->kind == SHELL_PART_LIT)
			v = p->text;
		else if (p->kind == SHELL_PART_TILDE && i == 0 && strcmp(p->text, "~") == 0)
			v = env->home;
		else if (p->kind == SHELL_PART_PARAM)
			v = ca_known_value(env, p);
		if (!v) {
			sb_free(&sb);
			return NULL;
		}
		sb_adds(&sb, v);
	}
	return sb_steal(&sb);
}

/* rsync and scp read a word as [USER@]HOST:PATH (or rsync://HOST/PATH)
 * when a ':' comes before any '/'; ./a:b and /a:b are local. */
static bool remote_operand(const char *v)
{
	if (!v || v[0] == '/' || v[0] == '.')
		return false;
	if (strncmp(v, "rsync://", 8) == 0)
		return true;
	size_t colon = strcspn(v, ":/");
	return colon > 0 && v[colon] == ':';
}

/* The find whose -exec runs c: its wrapper, or NULL. */
static const struct shell_wrapper *find_wrapper(const struct shell_cmd *c)
{
	if (!(c->flags & SHELL_CMD_FIND_EXEC) || !c->nwrappers)
		return NULL;
	const struct shell_wrapper *fw = &c->wrappers[c->nwrappers - 1];
	const char *base = strrchr(fw->name, '/');
	return strcmp(base ? base + 1 : fw->name, "find") == 0 && fw->nwords >= 2 ? fw : NULL;
}

/* find's starting points, fw->words[*first, *end) (past -H, -L, -P):
 * false when one is not static, or when no -exec follows them. */
static bool find_starts(const struct shell_wrapper *fw, size_t *first, size_t *end)
{
	size_t k = 1;
	for (; k < fw->nwords; k++) {
		const char *o = shell_word_static(fw->words[k]);
		if (!o || (strcmp(o, "-H") != 0 && strcmp(o, "-L") != 0 && strcmp(o, "-P") != 0))
			break;
	}
	*first = k;
	for (; k < fw->nwords; k++) {
		const char *o = shell_word_static(fw->words[k]);
		if (!o)
			return false;
		if (o[0] == '-' || strcmp(o, "(") == 0 || strcmp(o, "!") == 0)
			break;
	}
	*end = k;
	/* The wrapper's words end with the -exec that runs this command. */
	return k < fw->nwords;
}

/* The tree below a starting point of find, as role says: every path
 * below it passed (every), or some. */
static void find_tree(struct reading *r, enum ir_role role, const char *start, bool every,
		      const char *detail)
{
	char *dir;
	if (start[0] == '/') {
		dir = canon_lexical(start);
	} else {
		char *j = xasprintf("%s/%s", r->dir, start);
		dir = canon_lexical(j);
		free(j);
	}
	struct cmd_op *o = ca_push(r->out, role == ROLE_READ ? IR_READ : IR_WRITE, r->c);
	o->kind = CMD_PATH_EXACT;
	o->target = ca_own(r->out, dir);
	o->tree = true;
	o->members = !every;
	o->shown = ca_keep(r->out, start);
	o->detail = ca_keep(r->out, detail);
}

/* A word of a command find -exec runs that holds {}: the paths find
 * passes, which lie below its starting points.  Each starting point is a
 * tree; with no test before -exec every path below it is passed (a tree
 * known in full), otherwise some of them (members known only at run time).
 * Returns false when they cannot be narrowed: a dynamic starting point or
 * directory, -execdir, a word that does not start with {}. */
static bool find_args(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	const char *v = shell_word_static(w);
	if (!r->dir || !v || strncmp(v, "{}", 2) != 0 ||
	    (role != ROLE_READ && role != ROLE_WRITE && role != ROLE_DELETE))
		return false;
	const struct shell_wrapper *fw = find_wrapper(r->c);
	size_t first, k;
	if (!fw || !find_starts(fw, &first, &k))
		return false;
	bool every = k == fw->nwords - 1; /* no test before -exec */
	char detail[160];
	snprintf(detail, sizeof(detail), "%s, recursive (%s%s, the paths find passes)",
		 role == ROLE_READ ? "read" : role == ROLE_WRITE ? "write" : "delete", r->prog, what);
	size_t n0 = r->out->n;
	if (first == k) /* No starting point: find starts at ".". */
		find_tree(r, role, ".", every, detail);
	for (size_t i = first; i < k; i++)
		find_tree(r, role, shell_word_static(fw->words[i]), every, detail);
	return r->out->n > n0;
}

/* The file a value in the role `data` reads (curl -d @FILE, -F name=@FILE,
 * -F name=<FILE, --data-urlencode name@FILE), kept in the operations'
 * arena; NULL when the value is the data itself or stdin (@-). */
static const char *data_file(struct reading *r, const char *v)
{
	const char *eq = strchr(v, '='), *at = strchr(v, '@'), *file = NULL;
	bool form = false;
	if (at && (!eq || at < eq))
		file = at + 1; /* @FILE, name@FILE */
	else if (eq && (eq[1] == '@' || eq[1] == '<'))
		file = eq + 2, form = true; /* name=@FILE, name=<FILE (;type=... after it) */
	if (!file || !*file || strcmp(file, "-") == 0)
		return NULL;
	size_t n = form ? strcspn(file, ";") : strlen(file);
	return n ? ca_keepn(r->out, file, n) : NULL;
}

static void role_word(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what);

/* A word with {} of a command find -exec runs: the paths find passes,
 * narrowed to its starting points where they can be, else anywhere,
 * known only at run time.  Returns whether it was one. */
static bool find_exec_word(struct reading *r, const struct shell_word *w, enum ir_role role,
			   const char *what)
{
	const char *v = shell_word_static(w);
	if (!v || !strstr(v, "{}"))
		return false;
	if (find_args(r, w, role, what))
		return true;
	if (role == ROLE_NONE || role == ROLE_ARG)
		return false;
	/* {} inside a word, or paths that cannot be narrowed. */
	struct shell_part part = { .kind = SHELL_PART_PARAM, .text = "{}" };
	struct shell_word sw = { .parts = &part, .nparts = 1, .start = w->start, .end = w->end };
	role_word(r, &sw, role, what);
	return true;
}

/* A value in the role `data`: the file it names is read; a value known
 * only at run time may name a file: a read too. */
static void data_word(struct reading *r, const struct shell_word *w, const char *what)
{
	const char *v = shell_word_static(w);
	const char *file = v ? data_file(r, v) : NULL;
	struct shell_part part = { .kind = SHELL_PART_LIT, .text = file,
				   .start = w->start, .end = w->end };
	struct shell_word sw = { .parts = &part, .nparts = 1, .lit = file,
				 .start = w->start, .end = w->end };
	if (!v || file)
		role_word(r, v ? &sw : w, ROLE_READ, what);
}

/* A path read, written or deleted (role), recursive as the options say;
 * a listing or a dry run writes and deletes nothing. */
static void path_word(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	char detail[160];
	bool read = role == ROLE_READ || role == ROLE_SCRIPTFILE;
	bool tree = r->recursive && role != ROLE_SCRIPTFILE;
	if (!read && r->lists)
		return;
	ca_join(detail, sizeof(detail),
		read ? "read" : role == ROLE_WRITE ? "write" : "delete", tree ? ", recursive" : "",
		" (", r->prog, what, ")", (char *)NULL);
	ca_add_path(r->out, r->env, r->dir, r->text, r->c, w, read ? IR_READ : IR_WRITE, tree,
		    detail);
}

/* A host the program contacts: the word's host, or one known only at
 * run time. */
static void net_word(struct reading *r, const struct shell_word *w, const char *what)
{
	char detail[160];
	const char *v = shell_word_static(w);
	ca_join(detail, sizeof(detail), "network (", r->prog, what, ")", (char *)NULL);
	char *h = v ? ca_host_of(v) : NULL;
	ca_add_net(r->out, r->c, h, ca_word_source(r->out, r->text, w), detail);
	free(h);
}

/* A refspec of git push: +SRC:DST forces the update of DST; :DST
 * (nothing pushed) deletes it. */
static void refspec_word(struct reading *r, const struct shell_word *w)
{
	const char *v = shell_word_static(w);
	if (v && v[0] == '+')
		add_rewrite(r, "--force", v);
	else if (v && v[0] == ':' && v[1])
		add_rewrite(r, "--delete", v);
}

/* A file of code the program runs: read, and what the code does is not
 * seen here ("-": the code comes from stdin). */
static void run_word(struct reading *r, const struct shell_word *w, const char *what)
{
	char detail[160];
	r->opaque = true;
	const char *v = shell_word_static(w);
	if (v && strcmp(v, "-") == 0)
		return;
	ca_join(detail, sizeof(detail), "read (", r->prog, what, ", the code it runs)",
		(char *)NULL);
	ca_add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_READ, false, detail);
}

/* The directory the program works in (ROLE_CWD) or extracts into
 * (ROLE_INTO): NULL when the word is known only at run time. */
static void dir_word(struct reading *r, const struct shell_word *w, enum ir_role role)
{
	char *d = dir_value(r->env, w);
	char *nd = NULL;
	if (d && d[0] == '/') {
		nd = canon_lexical(d);
	} else if (d && r->dir) {
		char *j = xasprintf("%s/%s", r->dir, d);
		nd = canon_lexical(j);
		free(j);
	}
	free(d);
	if (role == ROLE_CWD) {
		free(r->dir);
		r->dir = nd;
	} else {
		free(r->into);
		r->into = nd;
		r->into_set = true;
	}
}

/* The role of a path operand of a program that reaches other hosts
 * (`remote;`: scp, rsync): HOST:PATH is a contact of HOST, not a path. */
static enum ir_role remote_role(const struct reading *r, const struct shell_word *w,
				enum ir_role role)
{
	bool path = role == ROLE_READ || role == ROLE_WRITE || role == ROLE_DELETE;
	return r->remote && path && remote_operand(shell_word_static(w)) ? ROLE_NET : role;
}

/* A sed or awk program: read for the files it names and the code it
 * runs; one built at run time is opaque. */
static void script_word(struct reading *r, const struct shell_word *w, enum ir_role role)
{
	const char *v = shell_word_static(w);
	if (!v)
		r->opaque = true;
	else if (role == ROLE_SEDSCRIPT)
		ca_sed_scan(r, v);
	else
		ca_awk_scan(r, v);
}

/* What a word in role does, one handler a role. */
static void role_word(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	if ((r->c->flags & SHELL_CMD_FIND_EXEC) && find_exec_word(r, w, role, what))
		return;
	role = remote_role(r, w, role);
	switch (role) {
	case ROLE_DATA:
		data_word(r, w, what);
		break;
	case ROLE_READ:
	case ROLE_SCRIPTFILE:
	case ROLE_WRITE:
	case ROLE_DELETE:
		path_word(r, w, role, what);
		break;
	case ROLE_NET:
		net_word(r, w, what);
		break;
	case ROLE_REGISTRY:
		ca_registry_word(r, w, r->opt ? r->opt->names[0] : "names its registry",
				 r->opt ? r->opt->path : NULL);
		break;
	case ROLE_FETCHURL:
	case ROLE_PUSHURL:
	case ROLE_CLONEURL:
		r->git_named = true;
		ca_git_place(r, w, role);
		break;
	case ROLE_OPAQUE:
		r->opaque = true;
		break;
	case ROLE_SEDSCRIPT:
	case ROLE_AWKSCRIPT:
		script_word(r, w, role);
		break;
	case ROLE_REFSPEC:
		refspec_word(r, w);
		break;
	case ROLE_RUN:
		run_word(r, w, what);
		break;
	case ROLE_CWD:
	case ROLE_INTO:
		dir_word(r, w, role);
		break;
	case ROLE_CHANGES:
		r->changes = true;
		break;
	case ROLE_CREATES:
		r->creating = true; /* the name is a ref in the repository */
		break;
	case ROLE_VARIABLE:
		break; /* printenv NAME: command_env.c judges the name */
	default:
		break;
	}
}

/* Files the program does not name land below the directory it extracts
 * into (tar -x -C DIR, unzip -d DIR, patch): a write of that tree whose
 * members are known only at run time.  Archivers refuse members with ".."
 * and strip a leading "/", so they stay below it. */
static void add_members(struct reading *r)
{
	const char *dir = r->into_set ? r->into : r->dir;
	char *own = NULL;
	if (!r->into_set && r->extracts_dir) {
		/* The spec's directory: "*" is one known only at run time. */
		dir = own = strcmp(r->extracts_dir, "*") == 0 ? NULL : ca_cmd_dir(r->env, r->extracts_dir);
		if (own && r->extracts_dir[0] != '/' && r->extracts_dir[0] != '~' && r->dir) {
			free(own);
			char *j = xasprintf("%s/%s", r->dir, r->extracts_dir);
			dir = own = canon_lexical(j);
			free(j);
		}
	}
	char detail[160];
	snprintf(detail, sizeof(detail),
		 "write, recursive (%s writes files it does not name below this directory)",
		 r->prog);
	struct cmd_op *o = ca_push(r->out, IR_WRITE, r->c);
	o->detail = ca_keep(r->out, detail);
	o->tree = true;
	if (!dir) {
		/* A directory known only at run time: anywhere. */
		o->kind = CMD_PATH_REGION;
		o->target = "/";
		o->pattern = ".*";
		o->maybe = true;
		o->shown = "(a directory known only at run time)";
		return;
	}
	o->kind = CMD_PATH_EXACT;
	o->target = ca_keep(r->out, dir);
	o->members = true;
	o->shown = o->target;
	free(own);
}

/* A path the program changes besides the spec's `changes` paths (git
 * branch -d rewrites .git/config). */
static void change_path(struct reading *r, const char *path)
{
	for (size_t i = 0; path && i < r->nchanged; i++)
		if (strcmp(r->changed[i], path) == 0)
			return;
	if (!path)
		return;
	if (r->nchanged < sizeof(r->changed) / sizeof(*r->changed))
		r->changed[r->nchanged++] = path;
	else
		r->changed[r->nchanged - 1] = "*"; /* more than it keeps: anywhere */
}

/* A flag that changes something (git config --unset), and maybe a path of
 * its own. */
static void changed_too(struct reading *r, const char *path)
{
	r->changes = true;
	change_path(r, path);
}

/* A start point that may be a remote-tracking branch: a '/' (origin/main,
 * refs/remotes/origin/main), an '@{' (@{upstream}), or a value known only
 * at run time.  git records such a branch as the new one's upstream
 * (branch.autoSetupMerge); a name without them is taken for a local
 * branch, a tag or a commit. */
static bool may_track(const struct shell_word *w)
{
	const char *v = shell_word_static(w);
	return !v || strchr(v, '/') || strstr(v, "@{");
}

/* An option the spec names: what a flag does, or its argument -- glued to
 * the word (--x=V, -xV, key=V) or the next word.  Returns how many words
 * past words[i] it used. */
static size_t apply_option(struct reading *r, const struct ir_option *o,
			   const struct shell_word *w, const char *glued, size_t i)
{
	if (o->role == ROLE_MODIFIES)
		r->modifies = true;
	else if (o->role == ROLE_EXTRACTS)
		r->modifies = r->extracts = true;
	else if (o->role == ROLE_LISTS)
		r->lists = true;
	else if (o->role == ROLE_DELETES)
		r->deletes = true;
	else if (o->role == ROLE_CHANGES)
		changed_too(r, o->path);
	else if (o->role == ROLE_STORE)
		r->store = o->path;
	else if (o->role == ROLE_RECURSIVE)
		r->recursive = true;
	else if (o->role == ROLE_REWRITES)
		add_rewrite(r, o->names[0], shell_word_static(w) ? shell_word_static(w) : o->names[0]);
	if (o->role == ROLE_PAIR || o->role == ROLE_NAMEDREAD) {
		/* NAME then VALUE (jq --arg k v) or NAME then FILE (--rawfile):
		 * the words after it, never glued. */
		size_t left = r->c->nwords - i - 1;
		if (o->role == ROLE_NAMEDREAD && left >= 2)
			role_word(r, r->c->words[i + 2], ROLE_READ, "");
		return left < 2 ? left : 2;
	}
	if (!takes_arg(o->role))
		return 0;
	/* The program's code came through an option (sed -e, awk -f): the
	 * first operand is an input, not the code. */
	if (o->role == ROLE_SCRIPT || o->role == ROLE_SCRIPTFILE || o->role == ROLE_SEDSCRIPT ||
	    o->role == ROLE_AWKSCRIPT || o->role == ROLE_RUN)
		r->script = true;
	if (!glued) {
		if (i + 1 >= r->c->nwords)
			return 0;
		r->opt = o;
		role_word(r, r->c->words[i + 1], o->role, "");
		r->opt = NULL;
		return 1;
	}
	/* The value sits inside this word, which is static. */
	if (o->role == ROLE_OPAQUE) {
		r->opaque = true;
	} else if (o->role != ROLE_ARG && o->role != ROLE_SCRIPT) {
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = glued,
					   .start = w->start, .end = w->end };
		struct shell_word sw = { .parts = &part, .nparts = 1, .lit = glued,
					 .start = w->start, .end = w->end };
		r->opt = o;
		role_word(r, &sw, o->role, "");
		r->opt = NULL;
	}
	return 0;
}

/* python3 -m MODULE ARGS: the module's code is not seen (opaque), but a
 * module with a spec of its own (pip, pytest) does what that spec says
 * with the words after it.  Returns true when it read them. */
static bool read_module(struct reading *r, const char *name, size_t from)
{
	r->opaque = true;
	const struct ir_spec *spec = name ? ca_find_program(r->env, name) : NULL;
	if (!spec)
		return false;
	struct reading m = { .env = r->env, .text = r->text, .c = r->c, .out = r->out,
			     .prog = name, .dir = r->dir ? xstrdup(r->dir) : NULL };
	ca_read_spec(&m, spec, from);
	free(m.ops);
	free(m.dir);
	free(m.into);
	return true;
}

/* Whether c's standard input is a redirection or the pipe before it. */
static bool stdin_feeds_code(const struct shell_cmd *c)
{
	if (c->pipeline && c->pipe_pos > 0)
		return true;
	for (size_t k = 0; k < c->nredirs; k++) {
		const struct shell_redir *rd = c->redirs[k];
		if (rd->fd == 0 && rd->op != SHELL_REDIR_DUP_IN && rd->op != SHELL_REDIR_DUP_OUT)
			return true;
	}
	return false;
}

/* --long[=value], or a single-dash word the spec names (o: its option;
 * NULL for a long one, looked up here). */
static size_t read_long_option(struct reading *r, const struct ir_spec *sub,
			       const struct ir_spec *prog, const struct ir_option *o, size_t i)
{
	const struct shell_word *w = r->c->words[i];
	const char *v = shell_word_static(w);
	size_t len = strlen(v);
	const char *eq = memchr(v, '=', len);
	size_t n = eq ? (size_t)(eq - v) : len;
	if (v[1] == '-' || eq) /* else o is the whole word's already */
		o = lookup(sub, prog, v, n);
	if (!o)
		o = abbreviation(sub, prog, v, n);
	contacts_too(r, sub, prog, v, n);
	if (!o)
		return 0;
	return apply_option(r, o, w, eq ? eq + 1 : NULL, i);
}

/* Short options, maybe bundled: -xzf FILE (first: the option of the
 * first letter, looked up already).  The first that takes a value takes
 * the rest of the word or the next one. */
static size_t read_short_options(struct reading *r, const struct ir_spec *sub,
				 const struct ir_spec *prog, const struct ir_option *first,
				 size_t i)
{
	const struct shell_word *w = r->c->words[i];
	const char *v = shell_word_static(w);
	for (size_t k = 1; v[k]; k++) {
		char name[3] = { '-', v[k], 0 };
		const struct ir_option *o = k == 1 ? first : lookup(sub, prog, name, 2);
		contacts_too(r, sub, prog, name, 2);
		if (!o)
			continue;
		if (!takes_arg(o->role)) {
			apply_option(r, o, w, NULL, i);
			continue;
		}
		return apply_option(r, o, w, v[k + 1] ? v + k + 1 : NULL, i);
	}
	return 0;
}

/* A word that starts with '-' (not "-" alone) before any "--": the module
 * option (python3 -m), a long option or a single-dash word the spec
 * names, or short options.  Returns how many words past words[i] it
 * used; *done when the module read the rest of the words. */
static size_t read_dash_word(struct reading *r, const struct ir_spec *sub,
			     const struct ir_spec *prog, size_t i, bool *done)
{
	const struct shell_cmd *c = r->c;
	const char *v = shell_word_static(c->words[i]);
	/* -m MODULE, -mMODULE: the rest of the words are the module's. */
	const struct ir_option *first =
		v[1] != '-' ? lookup(sub, prog, (char[3]){ '-', v[1], 0 }, 2) : NULL;
	const struct ir_option *o = first;
	if (o && o->role == ROLE_MODULE) {
		const char *name = v[2] ? v + 2
			    : i + 1 < c->nwords ? shell_word_static(c->words[i + 1]) : NULL;
		*done = read_module(r, name, i + (v[2] ? 1 : 2));
		return (*done || v[2]) ? 0 : 1; /* MODULE as the next word */
	}
	size_t len = strlen(v);
	if (v[1] == '-' || (o = len == 2 ? first : lookup(sub, prog, v, len)))
		return read_long_option(r, sub, prog, o, i);
	return read_short_options(r, sub, prog, first, i);
}

/* A word a spec names as an option though it does not start with '-':
 * +COMMAND as the option "+" (less +G, vim +CMD), key=value as "key="
 * (dd of=FILE).  Returns whether it was one. */
static bool read_option_operand(struct reading *r, const struct ir_spec *sub,
				const struct ir_spec *prog, size_t i)
{
	const struct shell_word *w = r->c->words[i];
	const char *v = shell_word_static(w);
	const struct ir_option *plus = v && v[0] == '+' && v[1] ? lookup(sub, prog, "+", 1) : NULL;
	if (plus) {
		apply_option(r, plus, w, v + 1, i);
		return true;
	}
	const char *eq = v ? strchr(v, '=') : NULL;
	const struct ir_option *kv = eq ? lookup(sub, prog, v, (size_t)(eq - v) + 1) : NULL;
	if (kv)
		apply_option(r, kv, w, eq + 1, i);
	return kv != NULL;
}

/* Subcommands nest: `git stash list`, `uv pip install`; with `targets;`
 * any operand selects one (make all install).  A name with a `*` is a
 * glob (install-*).  Returns the subcommand of sub the word v enters, or
 * NULL: it is an operand. */
static const struct ir_spec *enter_sub(struct reading *r, const struct ir_spec *sub,
				       const struct ir_spec *prog, const char *v)
{
	if ((r->nops != 0 && !prog->targets) || !v)
		return NULL;
	const struct ir_spec *s = ir_spec_sub(sub, v);
	if (!s)
		return NULL;
	r->recursive = r->recursive || s->recursive;
	r->remote = r->remote || s->remote;
	r->project = r->project || s->project;
	if (r->nsubs < sizeof(r->subs) / sizeof(*r->subs))
		r->subs[r->nsubs++] = v;
	return s;
}

/* Read words[from..] against a spec: its options, its subcommands, and
 * the operands, kept in r->ops for their roles.  Returns the subcommand
 * the words chose, or prog. */
static const struct ir_spec *read_words(struct reading *r, const struct ir_spec *prog, size_t from)
{
	const struct shell_cmd *c = r->c;
	const struct ir_spec *sub = prog;
	bool ddash = false;
	for (size_t i = from; i < c->nwords; i++) {
		const struct shell_word *w = c->words[i];
		const char *v = shell_word_static(w);
		if (v && !ddash && strcmp(v, "--") == 0) {
			ddash = true;
			continue;
		}
		if (v && !ddash && v[0] == '-' && v[1]) {
			bool done = false;
			i += read_dash_word(r, sub, prog, i, &done);
			if (done)
				break;
			continue;
		}
		if (!ddash && read_option_operand(r, sub, prog, i))
			continue;
		const struct ir_spec *s = enter_sub(r, sub, prog, v);
		if (s) {
			sub = s;
			continue;
		}
		struct operand op = { w, sub->operands };
		VEC_PUSH(r->ops, r->nops, r->cap, op);
	}
	return sub;
}

/* A program run without a subcommand that runs one (yarn: install).
 * Returns the subcommand that runs then, or sub. */
static const struct ir_spec *bare_sub(struct reading *r, const struct ir_spec *sub,
				      const struct ir_spec *prog)
{
	if (sub != prog || r->nops != 0 || !prog->bare)
		return sub;
	for (size_t k = 0; k < prog->nsubs && sub == prog; k++)
		for (size_t j = 0; j < prog->subs[k].nnames; j++)
			if (strcmp(prog->subs[k].names[j], prog->bare) == 0)
				sub = ir_spec_ready(&prog->subs[k]);
	if (sub != prog && r->nsubs < sizeof(r->subs) / sizeof(*r->subs))
		r->subs[r->nsubs++] = prog->bare;
	return sub;
}

/* What the words chose, settled before the operands are read: code from
 * standard input, `host;` and `shell_escape;`, the roles of the first and
 * the last operand. */
static void settle_roles(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog)
{
	/* A program whose first operand is its code (python3, node) run
	 * with none reads the code from standard input: a here-document, a
	 * file or a pipe the analysis does not read (python3 <<'PY'). */
	if (!r->nops && sub->has_first && sub->first == ROLE_RUN && !r->script && !r->opaque &&
	    stdin_feeds_code(r->c)) {
		r->opaque = true;
		r->stdin_code = true;
	}
	r->host = prog->host || sub->host;
	r->shell_escape = prog->shell_escape || sub->shell_escape;
	/* Code given by an option (python3 -c, perl -e): the first operand
	 * is not the file of code to run, but may be one the code reads. */
	if (r->nops && sub->has_first && !r->script)
		r->ops[0].role = sub->first == ROLE_RUN && r->opaque ? ROLE_READ : sub->first;
	if (r->nops >= 2 && sub->has_last)
		r->ops[r->nops - 1].role = sub->last;
}

/* The role operand k is read in: its own, as the options given turn it.
 * A start point records its upstream when starting says it counts. */
static enum ir_role operand_role(struct reading *r, const struct ir_spec *sub, size_t k,
				 bool starting)
{
	enum ir_role role = r->ops[k].role;
	if (role == ROLE_UPSTREAM) {
		/* Its upstream, and the operand in the operands' role. */
		if (starting && r->upstream && !r->lists && may_track(r->ops[k].w))
			change_path(r, r->upstream);
		role = sub->operands == ROLE_UPSTREAM ? ROLE_NONE : sub->operands;
	}
	if (r->modifies && role == ROLE_READ)
		role = ROLE_WRITE;
	if (r->deletes && role == ROLE_WRITE)
		role = ROLE_DELETE; /* git stash -u -- PATH removes PATH's untracked files */
	return role;
}

/* Each operand in its role; what an extraction writes that no operand
 * names.  tree_deletes: a delete is of a whole tree. */
static void read_operands(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog,
			  bool tree_deletes)
{
	bool extracting = r->extracts || sub->extracts || prog->extracts;
	r->extracts_dir = sub->extracts_dir ? sub->extracts_dir : prog->extracts_dir;
	bool named = false; /* an operand names what is written */
	/* A start point counts with a `creates` option, or always when the
	 * spec has none (git branch NAME START). */
	r->upstream = sub->upstream ? sub->upstream : prog->upstream;
	bool starting = r->creating || (!ir_spec_declares(sub, ROLE_CREATES) && !ir_spec_declares(prog, ROLE_CREATES));
	for (size_t k = 0; k < r->nops; k++) {
		enum ir_role role = operand_role(r, sub, k, starting);
		bool saved = r->recursive;
		if (role == ROLE_DELETE)
			r->recursive = r->deletes || tree_deletes;
		named = named || role == ROLE_WRITE || role == ROLE_DELETE;
		char *dir = r->dir;
		if (extracting && r->into_set && (role == ROLE_WRITE || role == ROLE_DELETE))
			r->dir = r->into; /* members named land in the extraction directory */
		role_word(r, r->ops[k].w, role, "");
		if (role != ROLE_CWD) /* an operand that moves it (git init DIR) keeps it moved */
			r->dir = dir;
		r->recursive = saved;
	}
	if (extracting && !named && !r->lists)
		add_members(r);
}

/* No operand: the one the program takes then, in the first's role
 * (script writes ./typescript). */
static void read_implied(struct reading *r, const struct ir_spec *sub)
{
	enum ir_role implied = sub->has_first ? sub->first : sub->operands;
	if (r->modifies && implied == ROLE_READ)
		implied = ROLE_WRITE;
	if (sub->implied && r->nops == 0 && !r->lists &&
	    (implied == ROLE_READ || implied == ROLE_WRITE))
		ca_fixed_path(r, sub->implied, implied == ROLE_WRITE, false);
}

/* xargs and find -exec ... + add operands only known at run time: one
 * word in the operands' role that stands for them. */
static void read_run_time_args(struct reading *r, const struct ir_spec *sub, bool tree_deletes)
{
	const struct shell_cmd *c = r->c;
	if (!(c->flags & SHELL_CMD_EXTRA_ARGS) || (c->flags & SHELL_CMD_FIND_EXEC))
		return;
	enum ir_role role = sub->operands == ROLE_READ && r->modifies ? ROLE_WRITE : sub->operands;
	if (role == ROLE_DELETE)
		r->recursive = r->recursive || tree_deletes;
	struct shell_part part = { .kind = SHELL_PART_PARAM, .text = "{}" };
	struct shell_word sw = { .parts = &part, .nparts = 1, .start = c->start, .end = c->start };
	role_word(r, &sw, role, ", arguments added at run time");
}

void ca_read_spec(struct reading *r, const struct ir_spec *prog, size_t from)
{
	r->recursive = prog->recursive;
	r->remote = prog->remote;
	r->project = prog->project;
	const struct ir_spec *sub = bare_sub(r, read_words(r, prog, from), prog);
	settle_roles(r, sub, prog);
	/* A delete is of a whole tree unless the program has a recursive
	 * option and it was not given. */
	bool tree_deletes = r->recursive || (!declares_recursive(sub) && !declares_recursive(prog));
	read_operands(r, sub, prog, tree_deletes);
	read_implied(r, sub);
	read_run_time_args(r, sub, tree_deletes);
	ca_places_done(r, sub, prog); /* before the `net` hosts it may replace */
	ca_fixed_places(r, sub, prog);
}

/* The files a wrapper's own options name (time -o FILE, xargs -a FILE):
 * its words before the command it runs, read against its spec's options
 * in the roles read and write; nothing else of the spec applies there
 * (env's `environment;`, operands, code).  at is the index of the
 * wrapper's name in r->c->words. */
void ca_read_wrapper(struct reading *r, const struct ir_spec *spec, size_t at, size_t nwords)
{
	const struct shell_cmd *c = r->c;
	for (size_t i = at + 1; i < at + nwords; i++) {
		const struct shell_word *w = c->words[i];
		const char *v = shell_word_static(w);
		if (!v || v[0] != '-' || !v[1] || strcmp(v, "--") == 0)
			break; /* the options end (flock FILE, the command) */
		const struct ir_option *o;
		const char *glued = NULL;
		if (v[1] == '-') {
			const char *eq = strchr(v, '=');
			o = ir_spec_option(spec, v, eq ? (size_t)(eq - v) : strlen(v));
			glued = eq ? eq + 1 : NULL;
		} else {
			/* -ao FILE, -oFILE: flags, then one that takes a value. */
			o = NULL;
			for (size_t k = 1; v[k] && !o; k++) {
				const struct ir_option *b = ir_spec_option(spec, (char[3]){ '-', v[k], 0 }, 2);
				if (b && takes_arg(b->role)) {
					o = b;
					glued = v[k + 1] ? v + k + 1 : NULL;
				}
			}
		}
		if (!o || !takes_arg(o->role))
			continue;
		if (o->role == ROLE_READ || o->role == ROLE_WRITE)
			apply_option(r, o, w, glued, i);
		if (!glued)
			i++; /* its value */
	}
}

/* find's starting points: the words before the expression. */
void ca_find_deletes(struct reading *r)
{
	const struct shell_cmd *c = r->c;
	bool any = false;
	r->recursive = true;
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (v && (v[0] == '-' || strcmp(v, "(") == 0 || strcmp(v, "!") == 0))
			break;
		role_word(r, c->words[i], ROLE_DELETE, " -delete");
		any = true;
	}
	if (!any) {
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = "." };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = c->start, .end = c->start };
		role_word(r, &sw, ROLE_DELETE, " -delete");
	}
	r->recursive = false;
}

