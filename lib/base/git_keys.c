/* The git config keys whose value git runs or loads, in one table, and
 * the paths such a value names (git_keys.h).
 *
 * Where the list comes from: git-config(1) of git 2.39 (every key whose
 * description says its value is a command, a program, a helper, a hook
 * directory, a template directory or a file of config), gitattributes(5)
 * (filter.<driver>.process), gitcredentials(7) (credential.<url>.helper),
 * git-send-email(1) (the sendemail commands), and the keys that let git
 * run a program without naming one (protocol.allow, which opens ext::,
 * url.*.insteadOf, ssh.variant, web.browser).  A key git adds later goes
 * here and nowhere else. */
#include "config.h"

#include "git_keys.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

enum sub {
	SUB_NONE, /* [section] only */
	SUB_ANY,  /* [section "name"] only */
	SUB_OPT,  /* either */
};

static const struct git_program_key {
	const char *label; /* as git-config(1) names it */
	const char *section, *key; /* lower case; key "*": any */
	enum sub sub;
	enum git_value_kind kind;
} git_program_keys[] = {
	{ "core.fsmonitor", "core", "fsmonitor", SUB_NONE, GIT_RUNS_UNLESS_BOOL },
	{ "core.editor", "core", "editor", SUB_NONE, GIT_RUNS },
	{ "core.pager", "core", "pager", SUB_NONE, GIT_RUNS },
	{ "core.sshCommand", "core", "sshcommand", SUB_NONE, GIT_RUNS },
	{ "core.askPass", "core", "askpass", SUB_NONE, GIT_RUNS },
	{ "core.gitProxy", "core", "gitproxy", SUB_NONE, GIT_RUNS },
	{ "core.alternateRefsCommand", "core", "alternaterefscommand", SUB_NONE, GIT_RUNS },
	{ "core.hooksPath", "core", "hookspath", SUB_NONE, GIT_HOOKS_DIR },
	{ "init.templateDir", "init", "templatedir", SUB_NONE, GIT_TEMPLATE_DIR },
	{ "include.path", "include", "path", SUB_NONE, GIT_INCLUDE },
	{ "includeIf.<condition>.path", "includeif", "path", SUB_OPT, GIT_INCLUDE },
	{ "sequence.editor", "sequence", "editor", SUB_NONE, GIT_RUNS },
	{ "interactive.diffFilter", "interactive", "difffilter", SUB_NONE, GIT_RUNS },
	{ "diff.external", "diff", "external", SUB_NONE, GIT_RUNS },
	{ "diff.<driver>.textconv", "diff", "textconv", SUB_ANY, GIT_RUNS },
	{ "diff.<driver>.command", "diff", "command", SUB_ANY, GIT_RUNS },
	{ "filter.<driver>.clean", "filter", "clean", SUB_ANY, GIT_RUNS },
	{ "filter.<driver>.smudge", "filter", "smudge", SUB_ANY, GIT_RUNS },
	{ "filter.<driver>.process", "filter", "process", SUB_ANY, GIT_RUNS },
	{ "merge.<driver>.driver", "merge", "driver", SUB_ANY, GIT_RUNS },
	{ "credential.helper", "credential", "helper", SUB_OPT, GIT_RUNS },
	{ "gpg.program", "gpg", "program", SUB_OPT, GIT_RUNS },
	{ "gpg.ssh.defaultKeyCommand", "gpg", "defaultkeycommand", SUB_ANY, GIT_RUNS },
	{ "alias.*", "alias", "*", SUB_NONE, GIT_RUNS_BANG },
	{ "pager.<cmd>", "pager", "*", SUB_NONE, GIT_RUNS_UNLESS_BOOL },
	{ "browser.<tool>.cmd", "browser", "cmd", SUB_ANY, GIT_RUNS },
	{ "browser.<tool>.path", "browser", "path", SUB_ANY, GIT_RUNS },
	{ "man.<tool>.cmd", "man", "cmd", SUB_ANY, GIT_RUNS },
	{ "man.<tool>.path", "man", "path", SUB_ANY, GIT_RUNS },
	{ "difftool.<tool>.cmd", "difftool", "cmd", SUB_ANY, GIT_RUNS },
	{ "difftool.<tool>.path", "difftool", "path", SUB_ANY, GIT_RUNS },
	{ "mergetool.<tool>.cmd", "mergetool", "cmd", SUB_ANY, GIT_RUNS },
	{ "mergetool.<tool>.path", "mergetool", "path", SUB_ANY, GIT_RUNS },
	{ "guitool.<name>.cmd", "guitool", "cmd", SUB_ANY, GIT_RUNS },
	{ "imap.tunnel", "imap", "tunnel", SUB_NONE, GIT_RUNS },
	{ "instaweb.httpd", "instaweb", "httpd", SUB_NONE, GIT_RUNS },
	{ "sendemail.smtpServer", "sendemail", "smtpserver", SUB_OPT, GIT_RUNS },
	{ "sendemail.sendmailCmd", "sendemail", "sendmailcmd", SUB_OPT, GIT_RUNS },
	{ "sendemail.toCmd", "sendemail", "tocmd", SUB_OPT, GIT_RUNS },
	{ "sendemail.ccCmd", "sendemail", "cccmd", SUB_OPT, GIT_RUNS },
	{ "sendemail.headerCmd", "sendemail", "headercmd", SUB_OPT, GIT_RUNS },
	{ "remote.<name>.uploadpack", "remote", "uploadpack", SUB_ANY, GIT_RUNS },
	{ "remote.<name>.receivepack", "remote", "receivepack", SUB_ANY, GIT_RUNS },
	{ "submodule.<name>.update", "submodule", "update", SUB_ANY, GIT_RUNS_BANG },
	{ "uploadpack.packObjectsHook", "uploadpack", "packobjectshook", SUB_NONE, GIT_RUNS },
	{ "protocol.allow", "protocol", "allow", SUB_OPT, GIT_ENABLES },
	{ "url.<base>.insteadOf", "url", "insteadof", SUB_ANY, GIT_ENABLES },
	{ "url.<base>.pushInsteadOf", "url", "pushinsteadof", SUB_ANY, GIT_ENABLES },
	{ "ssh.variant", "ssh", "variant", SUB_NONE, GIT_ENABLES },
	{ "web.browser", "web", "browser", SUB_NONE, GIT_ENABLES },
};

const char *git_key_find(const char *section, size_t slen, bool has_sub, const char *key,
			 size_t klen, enum git_value_kind *kind)
{
	for (size_t i = 0; i < sizeof(git_program_keys) / sizeof(*git_program_keys); i++) {
		const struct git_program_key *k = &git_program_keys[i];
		if (strlen(k->section) != slen || strncasecmp(k->section, section, slen) != 0)
			continue;
		if ((k->sub == SUB_NONE && has_sub) || (k->sub == SUB_ANY && !has_sub))
			continue;
		if (strcmp(k->key, "*") != 0 &&
		    (strlen(k->key) != klen || strncasecmp(k->key, key, klen) != 0))
			continue;
		*kind = k->kind;
		return k->label;
	}
	return NULL;
}

/* The environment variables of the host's git that do what a key does
 * (git(1), ENVIRONMENT VARIABLES): each names a program or a directory
 * git runs or copies from. */
static const struct git_env_program {
	const char *name;
	enum git_value_kind kind;
} git_env_programs[] = {
	{ "GIT_EDITOR", GIT_RUNS },	    { "GIT_SEQUENCE_EDITOR", GIT_RUNS },
	{ "GIT_PAGER", GIT_RUNS },	    { "GIT_SSH", GIT_RUNS },
	{ "GIT_SSH_COMMAND", GIT_RUNS },    { "GIT_ASKPASS", GIT_RUNS },
	{ "GIT_EXTERNAL_DIFF", GIT_RUNS },  { "GIT_PROXY_COMMAND", GIT_RUNS },
	{ "GIT_TEMPLATE_DIR", GIT_TEMPLATE_DIR }, { "GIT_EXEC_PATH", GIT_TEMPLATE_DIR },
};

const char *git_env_program_at(size_t i, enum git_value_kind *kind)
{
	if (i >= sizeof(git_env_programs) / sizeof(*git_env_programs))
		return NULL;
	*kind = git_env_programs[i].kind;
	return git_env_programs[i].name;
}

const char *git_key_find_dotted(const char *name, enum git_value_kind *kind)
{
	size_t n = strcspn(name, "=");
	const char *dot = memchr(name, '.', n), *last = dot;
	if (!dot)
		return NULL;
	for (const char *s = dot + 1; s < name + n; s++)
		if (*s == '.')
			last = s;
	return git_key_find(name, (size_t)(dot - name), last != dot, last + 1,
			    (size_t)(name + n - last - 1), kind);
}

size_t git_key_count(void)
{
	return sizeof(git_program_keys) / sizeof(*git_program_keys);
}

const char *git_key_at(size_t i)
{
	return i < git_key_count() ? git_program_keys[i].label : NULL;
}

/* The values git reads as booleans: core.fsmonitor and pager.<cmd> set
 * to one of them run nothing named by the value. */
static bool git_bool(const char *v)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "1", "0", "" };
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	return false;
}

bool git_value_runs(const struct git_config_value *v)
{
	switch (v->kind) {
	case GIT_RUNS:
		return *v->value != '\0';
	case GIT_RUNS_BANG:
		return v->value[0] == '!';
	case GIT_RUNS_UNLESS_BOOL:
		return !git_bool(v->value);
	case GIT_HOOKS_DIR:
	case GIT_TEMPLATE_DIR:
	case GIT_INCLUDE:
		return *v->value != '\0';
	case GIT_ENABLES:
		return false;
	}
	return true;
}

/* One shell word from *p, unquoted as sh would (quotes, backslashes);
 * *special when it holds an expansion ($, `) the launch cannot follow.
 * NULL at the end of the command or of one part of it (*sep set). */
static char *shell_word(const char **p, bool *special, bool *sep)
{
	const char *s = *p;
	struct strbuf w;
	*special = *sep = false;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == ';' || *s == '&' || *s == '|' || *s == '\n' || *s == '(' || *s == ')') {
		*p = s + 1;
		*sep = true;
		return NULL;
	}
	if (!*s) {
		*p = s;
		return NULL;
	}
	sb_init(&w);
	char quote = 0;
	for (; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
			else if (quote == '"' && *s == '\\' && s[1])
				sb_addc(&w, *++s);
			else {
				*special |= quote == '"' && (*s == '$' || *s == '`');
				sb_addc(&w, *s);
			}
			continue;
		}
		if (strchr(" \t\n;&|()", *s))
			break;
		if (*s == '\'' || *s == '"')
			quote = *s;
		else if (*s == '\\' && s[1])
			sb_addc(&w, *++s);
		else {
			*special |= *s == '$' || *s == '`' || *s == '<' || *s == '>';
			sb_addc(&w, *s);
		}
	}
	*p = s;
	return sb_steal(&w);
}

/* Whether a word names a file: one with a slash or a leading ~ always
 * (made or not); another only where it is a file already, relative to
 * the top of the work tree (`sh monitor.sh`).  A first word without a
 * slash is a program git finds on PATH. */
static bool names_file(const char *word, bool first, const char *top)
{
	if (strchr(word, '/') || word[0] == '~')
		return true;
	if (first || !top || word[0] == '-' || word[0] == '\0')
		return false;
	char *at = xasprintf("%s/%s", top, word);
	struct stat st;
	bool file = lstat(at, &st) == 0 && !S_ISDIR(st.st_mode);
	free(at);
	return file;
}

void git_value_paths(const struct git_config_value *v, const char *top,
		     void (*each)(void *arg, const char *path), void *arg)
{
	if (!git_value_runs(v))
		return;
	if (v->kind == GIT_HOOKS_DIR || v->kind == GIT_TEMPLATE_DIR || v->kind == GIT_INCLUDE) {
		each(arg, v->value);
		return;
	}
	const char *s = v->value + (v->value[0] == '!');
	bool first = true, special, sep;
	for (;;) {
		char *w = shell_word(&s, &special, &sep);
		if (!w) {
			if (!sep)
				return;
			first = true;
			continue;
		}
		/* An assignment before a command leaves it first. */
		const char *eq = strchr(w, '=');
		bool assign = first && eq && eq != w && !strchr(w, '/');
		const char *name = w[0] == '-' && eq ? eq + 1 : w;
		if (!special && !assign && names_file(name, first, top))
			each(arg, name);
		first = first && assign;
		free(w);
	}
}
