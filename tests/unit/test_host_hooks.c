/* core.hooksPath read from a git config's text as git reads it
 * (host_hooks.c): sections and keys in any case, quotes, escapes,
 * comments, continuations, the last value winning, and what is not it;
 * then the files a config includes, and every hooksPath it sets. */
#include "config.h"

#include "lower/lower.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *hooks_path(const char *text)
{
	char *v = NULL;
	lower_git_config_hooks_path(text, &v);
	return v;
}

static void check(const char *text, const char *want, const char *what)
{
	char *got = hooks_path(text);
	if (want)
		is_str(got ? got : "(none)", want, "%s", what);
	else
		ok(got == NULL, "%s: none (got %s)", what, got ? got : "none");
	free(got);
}

/* What the scan finds: its hooks paths, then "|", then its includes,
 * each followed by ";". */
static void scan(const char *text, const char *want, const char *what)
{
	struct git_config_seen seen = { 0 };
	char got[512] = "";
	lower_git_config_scan(text, &seen);
	for (size_t i = 0; i < seen.nhooks; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s;", seen.hooks[i]);
	strcat(got, "|");
	for (size_t i = 0; i < seen.nincludes; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s;", seen.includes[i]);
	is_str(got, want, "%s", what);
	lower_git_config_seen_free(&seen);
}

/* The values of the table a config sets that run something:
 * "label=value;" each. */
static void programs(const char *text, const char *want, const char *what)
{
	struct git_config_seen seen = { 0 };
	char got[1024] = "";
	lower_git_config_scan(text, &seen);
	for (size_t i = 0; i < seen.nvalues; i++)
		if (git_value_runs(&seen.values[i]))
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s=%s;",
				 seen.values[i].label, seen.values[i].value);
	is_str(got, want, "%s", what);
	lower_git_config_seen_free(&seen);
}

static void add_path(void *arg, const char *path)
{
	char *got = arg;
	snprintf(got + strlen(got), 512 - strlen(got), "%s;", path);
}

/* The paths a command value names: "p;" each. */
static void paths(enum git_value_kind kind, const char *value, const char *top, const char *want,
		  const char *what)
{
	char got[512] = "";
	struct git_config_value v = { "x", (char *)value, kind };
	git_value_paths(&v, top, add_path, got);
	is_str(got, want, "%s", what);
}

int main(void)
{
	check("[core]\n\thooksPath = .husky\n", ".husky", "the plain form");
	check("[core]\r\n\thooksPath = hooks\r\n[user]\r\n\tname = x\r\n", "hooks",
	      "CRLF line endings: no carriage return in the value");
	check("[core]\r\n\thooksPath = \"my hooks\"\r\n", "my hooks", "CRLF after a quoted value");
	check("\xef\xbb\xbf[core]\n\thooksPath = .githooks\n", ".githooks",
	      "a UTF-8 byte order mark before the first section");
	check("[Core]\n\tHOOKSPATH=.githooks\n", ".githooks", "section and key in any case");
	check("[core]\n\thooksPath = \"ci/git hooks\" ; a comment\n", "ci/git hooks",
	      "quoted, with a blank, a comment after it");
	check("[core]\n\thooksPath = tools/hooks # a comment\n", "tools/hooks",
	      "a # comment and the blanks before it");
	check("[core]\n\thooksPath = \"a#b\"\n", "a#b", "a # inside quotes");
	check("[core]\n\thooksPath = a\\\\b\n", "a\\b", "an escaped backslash");
	check("[core]\n\thooksPath = long\\\n/path\n", "long/path", "a continued line");
	check("[core] hooksPath = same-line\n", "same-line", "a key on the section's line");
	check("[core]\n\thooksPath = first\n[user]\n\tname = x\n[core]\n\thooksPath = second\n",
	      "second", "the last one wins");
	check("[core \"x\"]\n\thooksPath = sub\n", NULL, "a subsection of core is not core");
	check("[corex]\n\thooksPath = other\n", NULL, "another section");
	check("[core]\n\thooksPathX = other\n\tnothooksPath = other\n", NULL, "other keys");
	check("[core]\n#\thooksPath = commented\n;\thooksPath = commented\n", NULL,
	      "commented-out lines");
	check("[core]\n\tfsmonitor = \"x\\\n\thooksPath = y\"\n", NULL,
	      "a key inside another value's continuation");
	check("[core]\n\thooksPath\n", NULL, "a key without a value (a boolean)");
	check("", NULL, "an empty config");

	scan("[include]\n\tpath = ../shared.cfg\n", "|../shared.cfg;", "include.path");
	scan("[includeIf \"gitdir:~/src/\"]\n\tpath = ~/.gitconfig-src\n"
	     "[IncludeIf \"onbranch:main\"] PATH = \"a b.cfg\"\n",
	     "|~/.gitconfig-src;a b.cfg;", "includeIf, whatever its condition, in any case");
	scan("[include]\n\tpath = one\n[core]\n\thooksPath = h1\n[include]\n\tpath = two\n"
	     "[core]\n\thooksPath = h2\n",
	     "h1;h2;|one;two;", "every hooks path and every include, in order");
	scan("[include \"x\"]\n\tpath = sub\n[includes]\n\tpath = other\n"
	     "[include]\n\tpaths = other\n\tpath\n\tpath = \n[user]\n\tpath = other\n",
	     "|", "a subsection of include, other sections and keys, a path without a value");
	scan("[include]\r\n\tpath = crlf.cfg\r\n", "|crlf.cfg;", "an include with CRLF");
	scan("[include]\n\tpath = ../a\tb  c\rd.cfg \t\n", "|../a b  c d.cfg;",
	     "blanks between words outside quotes are spaces, as git reads them");
	scan("[include]\n\tpath = \"a\tb\" x\n", "|a\tb x;", "a tab inside quotes is kept");
	scan("[include]\r\n\tpath = ../ev\\\r\nil.cfg\r\n", "|../evil.cfg;",
	     "a value continued with a backslash before CRLF");
	scan("[includeIf\t\"onbranch:main\"]\n\tpath = tab.cfg\n", "|tab.cfg;",
	     "a tab between includeIf and its condition");
	scan("[include]\n\tpath = a\\nb\n", "|a\nb;", "the escape \\n is a newline");

	/* The table: every key git runs or loads, read as git spells it. */
	programs("[core]\n\tfsmonitor = ./mon.sh\n\tFSMonitor = true\n\teditor = vim\n"
		 "\tpager = less\n\tsshCommand = ssh -i k\n\taskPass = ~/ask\n",
		 "core.fsmonitor=./mon.sh;core.editor=vim;core.pager=less;"
		 "core.sshCommand=ssh -i k;core.askPass=~/ask;",
		 "core: fsmonitor (not its boolean), editor, pager, sshCommand, askPass");
	programs("[diff \"pdf\"]\n\ttextconv = tools/pdf2txt\n\tcommand = d\n"
		 "[diff]\n\texternal = ext\n\ttextconv = no-driver\n"
		 "[filter \"lfs\"]\n\tclean = c\n\tsmudge = s\n\tprocess = p\n"
		 "[merge \"m\"]\n\tdriver = md\n",
		 "diff.<driver>.textconv=tools/pdf2txt;diff.<driver>.command=d;diff.external=ext;"
		 "filter.<driver>.clean=c;filter.<driver>.smudge=s;filter.<driver>.process=p;"
		 "merge.<driver>.driver=md;",
		 "drivers need their subsection; diff.external has none");
	programs("[credential]\n\thelper = store\n[credential \"https://x\"]\n\thelper = !h\n"
		 "[gpg]\n\tprogram = g\n[gpg \"ssh\"]\n\tprogram = s\n\tdefaultKeyCommand = k\n"
		 "[sequence]\n\teditor = e\n[init]\n\ttemplateDir = t\n",
		 "credential.helper=store;credential.helper=!h;gpg.program=g;gpg.program=s;"
		 "gpg.ssh.defaultKeyCommand=k;sequence.editor=e;init.templateDir=t;",
		 "credential, gpg with or without a subsection, sequence.editor, init.templateDir");
	programs("[alias]\n\tst = status\n\tx = !sh run.sh\n[pager]\n\tlog = false\n"
		 "\tdiff = ./p\n[submodule \"s\"]\n\tupdate = !./u\n\turl = x\n",
		 "alias.*=!sh run.sh;pager.<cmd>=./p;submodule.<name>.update=!./u;",
		 "an alias or a submodule update runs only with '!'; a pager unless boolean");
	programs("[diff.pdf]\n\ttextconv = old\n[core \"x\"]\n\tfsmonitor = no\n",
		 "diff.<driver>.textconv=old;", "the old [section.sub] spelling is a subsection");
	ok(git_key_count() >= 40, "the table holds %zu keys", git_key_count());
	/* The spelling of git -c and git config, which the shell analysis
	 * judges with the same table. */
	static const struct {
		const char *name, *label;
	} dotted[] = {
		{ "core.fsmonitor=x", "core.fsmonitor" },
		{ "Diff.pdf.TextConv", "diff.<driver>.textconv" },
		{ "interactive.diffFilter=x", "interactive.diffFilter" },
		{ "url.ext::sh -c x.insteadOf=https://", "url.<base>.insteadOf" },
		{ "includeIf.gitdir:~/a.b/.path=x", "includeIf.<condition>.path" },
		{ "alias.st=!sh", "alias.*" },
		{ "alias.a.b=!sh", NULL },
		{ "diff.textconv=x", NULL },
		{ "user.name=x", NULL },
		{ "core", NULL },
	};
	for (size_t i = 0; i < sizeof(dotted) / sizeof(*dotted); i++) {
		enum git_value_kind kind;
		const char *got = git_key_find_dotted(dotted[i].name, &kind);
		is_str(got ? got : "(none)", dotted[i].label ? dotted[i].label : "(none)",
		       "git -c %s", dotted[i].name);
	}

	paths(GIT_RUNS, "./mon.sh --x", "/nonexistent", "./mon.sh;", "a relative program");
	paths(GIT_RUNS, "sh tools/m.sh; ~/bin/x a|/opt/y", "/nonexistent",
	      "tools/m.sh;~/bin/x;/opt/y;", "words with a slash or ~, in each part of a command");
	paths(GIT_RUNS, "A=1 /w/p \"/w/a b\" '/w/c d' $HOME/x \"$P/y\" >/w/log", "/nonexistent",
	      "/w/p;/w/a b;/w/c d;", "quotes undone; assignments, expansions, redirections not");
	paths(GIT_RUNS, "cmd --config=/w/c -f /w/d", "/nonexistent", "/w/c;/w/d;",
	      "an option's value");
	paths(GIT_RUNS_BANG, "!./x.sh", "/nonexistent", "./x.sh;", "an alias's command");
	paths(GIT_RUNS_BANG, "log --oneline", "/nonexistent", "", "an alias of git's own");
	paths(GIT_RUNS_UNLESS_BOOL, "true", "/nonexistent", "", "the built-in fsmonitor");
	paths(GIT_TEMPLATE_DIR, "~/tpl dir", "/nonexistent", "~/tpl dir;", "a directory, whole");
	paths(GIT_RUNS, "sh Makefile", ".", "Makefile;",
	      "a word without a slash that is a file below the top of the work tree");
	paths(GIT_RUNS, "Makefile x", ".", "", "a first word without a slash is found on PATH");
	return tap_done();
}
