/* What a program touches whatever its words name: the paths and hosts
 * of its spec (`read`, `write`, `deletes`, `changes`, `net`), the hosts
 * its default config may name, and those the options given make it
 * contact.  command_spec.c reads the words first: what they gave (a flag
 * that deletes, a store, a registry named) decides which of these count. */
#include "config.h"

#include "command_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A path a spec says the program uses whatever its words: `write ".git";`,
 * relative to the directory it works in, or under ~. */
void ca_fixed_path(struct reading *r, const char *path, bool write, bool tree)
{
	if (strcmp(path, "*") == 0) {
		/* A path known only at run time (git stash's work tree, above
		 * a subdirectory): anywhere. */
		char detail[160];
		snprintf(detail, sizeof(detail), "%s (%s uses a path known only at run time)",
			 tree ? "delete, recursive" : write ? "write" : "read", r->prog);
		struct cmd_op *o = ca_push(r->out, write ? IR_WRITE : IR_READ, r->c);
		o->kind = CMD_PATH_REGION;
		o->target = "/";
		o->pattern = ".*";
		o->maybe = true;
		o->tree = tree;
		o->shown = "(a path known only at run time)";
		o->detail = ca_keep(r->out, detail);
		return;
	}
	/* A read relative to a directory known only at run time (git status
	 * under git submodule foreach) is left out: it names no path a rule
	 * could judge.  Writes there stay, as a name anywhere. */
	if (!write && !r->dir && path[0] != '/' && path[0] != '~')
		return;
	struct shell_part parts[2] = { { .kind = SHELL_PART_LIT, .text = path } };
	struct shell_word sw = { .parts = parts, .nparts = 1, .start = r->c->start,
				 .end = r->c->start };
	if (path[0] == '~' && (path[1] == '/' || !path[1])) {
		parts[0].kind = SHELL_PART_TILDE;
		parts[0].text = "~";
		parts[1].kind = SHELL_PART_LIT;
		parts[1].text = path + 1;
		sw.nparts = path[1] ? 2 : 1;
	}
	char detail[160];
	ca_join(detail, sizeof(detail), tree ? "delete, recursive" : write ? "write" : "read", " (",
		r->prog, " uses ", path, ")", (char *)NULL);
	ca_add_path(r->out, r->env, r->dir, r->text, r->c, &sw, write ? IR_WRITE : IR_READ, tree,
		 detail);
	/* The preview shows the path, not the command it came from. */
	r->out->v[r->out->n - 1].shown = ca_keep(r->out, path);
}

/* Is the first word after the program the option that skips the
 * default config (curl -q), or a name declared with it (--disable)? */
static bool skips_config(const struct reading *r, const struct ir_spec *s)
{
	const struct shell_cmd *c = r->c;
	const char *v = c->argi + 1 < c->nwords ? shell_word_static(c->words[c->argi + 1]) : NULL;
	if (!v)
		return false;
	for (size_t i = 0; i < s->noptions; i++) {
		const struct ir_option *o = &s->options[i];
		bool declares = false, given = false;
		for (size_t j = 0; j < o->nnames; j++) {
			declares = declares || strcmp(o->names[j], s->config_unless) == 0;
			given = given || strcmp(o->names[j], v) == 0;
		}
		if (declares && given)
			return true;
	}
	return false;
}

/* The default config of the spec's `config` item that the program would
 * read: the first of its paths that exists or cannot be checked, as
 * text for a reason ("/h/.curlrc exists"), or NULL: none does.  A path
 * from a variable the evaluator does not know is checked only when the
 * script itself names the variable (CURL_HOME=/w curl): its value is
 * then unknown. */
static const char *default_config(struct reading *r, const struct ir_spec *s)
{
	const struct cmd_env *env = r->env;
	for (size_t k = 0; k < s->nconfigs; k++) {
		const char *p = s->configs[k], *rest, *base;
		if (p[0] == '~') {
			base = env->home;
			rest = p + 1;
			if (!base)
				return ca_printf(r->out, "%s (the home directory is unknown)", p);
		} else {
			const char *name = p + 2;
			size_t n = strcspn(name, "}");
			rest = name + n + 1;
			base = NULL;
			for (size_t i = 0; i < env->nvars && !base; i++)
				if (strlen(env->vars[i].name) == n && memcmp(env->vars[i].name, name, n) == 0)
					base = env->vars[i].value;
			if (!base && ca_mentions(r->text, env->text_len, name, n))
				return ca_printf(r->out, "%s (the command sets %.*s)", p, (int)n, name);
			if (!base)
				continue; /* the host's environment: not known here */
		}
		/* The script may write it before curl runs (echo location >
		 * ~/.curlrc; curl ...): a write decided on its own. */
		const char *file = strrchr(rest, '/') + 1;
		if (ca_mentions(r->text, env->text_len, file, strlen(file)))
			return ca_printf(r->out, "%s%s (the command names %s)", base, rest, file);
		const char *path = ca_printf(r->out, "%s%s", base, rest);
		struct stat st;
		if (stat(path, &st) == 0)
			return ca_printf(r->out, "%s exists", path);
		if (errno != ENOENT && errno != ENOTDIR)
			return ca_printf(r->out, "%s cannot be checked: %s", path, strerror(errno));
	}
	return NULL;
}

/* The paths spec s names (the subcommand's or the program's): what it
 * reads and writes, deletes, and changes, as the words given say it does
 * (sub: the subcommand, whose own changed paths are added once). */
static void spec_paths(struct reading *r, const struct ir_spec *s, const struct ir_spec *sub,
		       const struct ir_spec *prog)
{
	for (size_t k = 0; k < s->nreads + s->nwrites; k++) {
		bool wr = k >= s->nreads;
		if (wr && r->lists)
			break;
		ca_fixed_path(r, wr ? s->writes[k - s->nreads] : s->reads[k], wr, false);
	}
	/* What it deletes when no operand says where: with a flag that
	 * says so, when the spec has one (git stash -u). */
	bool deleting = !r->lists && r->nops == 0 &&
			(r->deletes || (!ir_spec_declares(sub, ROLE_DELETES) && !ir_spec_declares(prog, ROLE_DELETES)));
	for (size_t k = 0; k < s->ndeletes && deleting; k++)
		ca_fixed_path(r, s->deletes[k], true, true);
	/* What it changes when an operand or a flag says it does. */
	for (size_t k = 0; k < s->nchanges && r->changes && !r->lists; k++) {
		if (r->store && k > 0)
			break;
		ca_fixed_path(r, r->store ? r->store : s->changes[k], true, false);
	}
	if (s == sub)
		for (size_t k = 0; k < r->nchanged && !r->lists; k++)
			ca_fixed_path(r, r->changed[k], true, false);
}

/* The `net` hosts spec s names, but those a place named replaces. */
static void spec_hosts(struct reading *r, const struct ir_spec *s)
{
	for (size_t k = 0; k < s->nhosts; k++) {
		if (ca_replaced(r, s->hosts[k]))
			continue; /* a registry or repository named replaces it */
		char detail[160];
		ca_join(detail, sizeof(detail), "network (", r->prog, " contacts it)",
			(char *)NULL);
		bool any = strcmp(s->hosts[k], "*") == 0;
		ca_add_net(r->out, r->c, any ? NULL : s->hosts[k], s->hosts[k], detail);
	}
}

/* A default config it reads may say anything an option says (curl
 * with ~/.curlrc: location, url, connect-to): any host, as -K.
 * Under `cordon run` the egress proxy checks every host it reaches,
 * and the sandbox every file a config names, so there the words
 * decide as before. */
static void config_hosts(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog)
{
	const struct ir_spec *cs = sub->config_unless ? sub : prog->config_unless ? prog : NULL;
	const char *config = cs && !r->env->sandboxed && !skips_config(r, cs)
				     ? default_config(r, cs) : NULL;
	if (config)
		ca_add_net(r->out, r->c, NULL, "*",
			   ca_printf(r->out, "network (%s reads its default config, which may name any "
				     "host: %s; %s as its first word skips it)",
				     r->prog, config, cs->config_unless));
}

/* What the options given make it contact too (curl -L: where a
 * redirect leads). */
static void contacted_hosts(struct reading *r)
{
	for (size_t k = 0; k < r->ncontacted; k++) {
		const char *host = r->contacted[k];
		bool any = strcmp(host, "*") == 0;
		ca_add_net(r->out, r->c, any ? NULL : host, host,
			   ca_printf(r->out, "network (%s %s contacts it)", r->prog,
				     r->contacted_by[k]));
	}
}

void ca_fixed_places(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog)
{
	/* The subcommand's, then the program's (once when they are one). */
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		spec_paths(r, s, sub, prog);
		spec_hosts(r, s);
		if (s == prog)
			break;
	}
	config_hosts(r, sub, prog);
	contacted_hosts(r);
}
