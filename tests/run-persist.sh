#!/bin/sh
# Hostile build scripts under `cordon run --preset workspace-write`, run for
# real, that plant code the host runs later: a hook in the work tree that
# core.hooksPath names (.husky, and a directory of any name, protected at
# launch), pre-commit's and dev containers' config, a rewritten
# .gemini/settings.json (where cordon's project hook for Gemini CLI lives),
# and, in a workspace that is the home directory, a ~/.gitconfig whose
# core.fsmonitor every host `git status` would run, user services, PATH
# entries and startup files.  Each write is refused, the host-side git
# calls afterwards leave no marker, and git inside the sandbox still works.
# The files a config includes, and the hooks directory an included config
# or .git/config.worktree names, are protected as the config is; an
# include through a symlink the command could repoint, or a FIFO, refuses
# the launch.
# The agents' tokens and other credential stores read empty under
# read-only.  A .git/commondir the command writes is refused too.
# As root and again as an unprivileged user (nobody).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "persistence writes under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi
if ! command -v git > /dev/null; then
	skip "persistence writes under cordon run" "git is not installed"
	done_testing
	exit
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home O=$P/other M=$P/marker
	mkdir -p "$WS" "$H" "$O"
	runner_own "$P"
	U() { # U DIR COMMAND...: run it on the host, as the pass's user, in DIR
		d=$1
		shift
		(cd "$d" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb GIT_CONFIG_NOSYSTEM=1 "$@")
	}
	R() { # R WORKSPACE PRESET SCRIPT: run the script file under cordon; its status
		U "$1" "$C" run --preset "$2" --workspace "$1" -- sh "$3" \
			> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	}
	unmarked() { [ ! -e "$M" ]; }

	# A repository whose hooks live in the work tree.
	if ! U "$WS" sh -c 'git init -q -b main . && git config user.name Dev &&
		git config user.email dev@example.com && git config core.hooksPath .husky &&
		mkdir .husky && printf "#!/bin/sh\ntrue\n" > .husky/pre-commit &&
		chmod +x .husky/pre-commit && echo a > f && git add -A &&
		git commit -q -m initial' > "$tmpdir/err" 2>&1; then
		ok 1 "$t the repository is made"
		diag < "$tmpdir/err"
		return
	fi
	cat > "$WS/build.sh" <<EOF
printf '#!/bin/sh\necho husky >> $M\n' > .husky/pre-commit
echo 'repos: [{repo: local, hooks: [{id: x, name: x, entry: "sh -c id", language: system}]}]' > .pre-commit-config.yaml
mkdir -p .devcontainer && echo '{"postCreateCommand":"id"}' > .devcontainer/devcontainer.json
echo built > out.txt
git add out.txt && git commit -q -m built
EOF
	R "$WS" workspace-write build.sh
	rc=$?
	U "$WS" sh -c 'echo b >> f && git commit -q -am two' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/.pre-commit-config.yaml" ] && [ ! -e "$WS/.devcontainer" ] &&
		grep -q '^#!/bin/sh' "$WS/.husky/pre-commit" && ! grep -q husky "$WS/.husky/pre-commit"
	ok $? "$t .husky (core.hooksPath) stays unwritten, the .pre-commit-config.yaml and .devcontainer the call made are moved aside; the host commit runs no planted hook (status $rc)"
	[ -f "$WS/out.txt" ] && U "$WS" git log --format=%s | grep -qx built
	ok $? "$t git add and git commit inside the sandbox still work"
	rm -f "$M"

	# core.hooksPath naming a directory of any name: protected at launch.
	# Written as a person may: another case, quoted, a comment after it.
	U "$WS" sh -c 'git config --unset core.hooksPath && mkdir -p "ci/git hooks" &&
		printf "[Core]\n\tHooksPath = \"ci/git hooks\" ; where husky was\n" >> .git/config &&
		[ "$(git config core.hooksPath)" = "ci/git hooks" ]' ||
		echo "git does not read the hand-written core.hooksPath" | diag
	cat > "$WS/build2.sh" <<EOF
printf '#!/bin/sh\necho hookspath >> $M\n' > "ci/git hooks/pre-commit" && chmod +x "ci/git hooks/pre-commit"
echo fine > ci/notes.txt
EOF
	R "$WS" workspace-write build2.sh
	rc=$?
	U "$WS" sh -c 'echo c >> f && git commit -q -am three' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/ci/git hooks/pre-commit" ] && [ -f "$WS/ci/notes.txt" ]
	ok $? "$t the directory core.hooksPath names (ci/git hooks) is protected at launch; its neighbour is written (status $rc)"
	rm -f "$M"

	# A core.hooksPath whose directory does not exist yet: fenced.
	U "$WS" git config core.hooksPath .hooks-later
	printf 'mkdir -p .hooks-later\nprintf "#!/bin/sh\\necho later >> %s\\n" > .hooks-later/pre-commit\nchmod +x .hooks-later/pre-commit\n' \
		"$M" > "$WS/build3.sh"
	R "$WS" workspace-write build3.sh
	rc=$?
	U "$WS" sh -c 'echo d >> f && git commit -q -am four' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/.hooks-later/pre-commit" ]
	ok $? "$t a missing core.hooksPath directory cannot be made (status $rc)"
	rm -f "$M"
	U "$WS" git config core.hooksPath .husky

	# cordon's own project-scope hook for Gemini CLI.
	if U "$WS" "$C" hook install gemini --scope project --dir "$WS" > "$tmpdir/err" 2>&1; then
		cp "$WS/.gemini/settings.json" "$P/gemini.before"
		cat > "$WS/build4.sh" <<'EOF'
echo '{"hooks":{"BeforeTool":[{"matcher":".*","hooks":[{"type":"command","command":"id"}]}]}}' > .gemini/settings.json
EOF
		R "$WS" workspace-write build4.sh
		rc=$?
		cmp -s "$P/gemini.before" "$WS/.gemini/settings.json" &&
			U "$WS" "$C" hook doctor gemini --scope project --dir "$WS" > /dev/null 2>&1
		ok $? "$t .gemini/settings.json, with cordon's hook in it, is not rewritten (status $rc)"
	rm -f "$M"
	else
		ok 1 "$t cordon hook install gemini --scope project"
		diag < "$tmpdir/err"
	fi

	# .git/commondir would send git to a config and hooks the command made.
	cat > "$WS/build5.sh" <<EOF
mkdir -p cache/hooks && cp -r .git/objects .git/refs .git/HEAD cache/
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "echo commondir >> $M; false #"\n' > cache/config
echo ../cache > .git/commondir
EOF
	R "$WS" workspace-write build5.sh
	rc=$?
	U "$WS" git status --short > /dev/null 2>&1
	unmarked && [ ! -e "$WS/.git/commondir" ]
	ok $? "$t .git/commondir is not written (status $rc)"
	rm -f "$WS/.git/commondir" "$M"
	# Its fence is a file that names the repository itself: git runs.
	cat > "$WS/build6.sh" <<'EOF'
test "$(cat .git/commondir)" = . && git status --short > /dev/null &&
	git rev-parse --git-common-dir > fence-common
EOF
	R "$WS" workspace-write build6.sh
	rc=$?
	case $(cat "$WS/fence-common" 2> /dev/null) in
	"$WS/.git" | .git) common=yes ;;
	*) common=no ;;
	esac
	[ $rc -eq 0 ] && [ $common = yes ] &&
		[ ! -e "$WS/.git/commondir" ]
	ok $? "$t git runs beside the fence of .git/commondir, which is gone after the call (status $rc)"
	rm -f "$WS/fence-common"
	# With per-worktree config on, git reads .git/config.worktree: its
	# fence is an empty file, which git reads as no config.
	U "$WS" git config extensions.worktreeConfig true
	cat > "$WS/build7.sh" <<'EOF'
git status --short > /dev/null && echo ok > wt-ok
EOF
	R "$WS" workspace-write build7.sh
	rc=$?
	[ $rc -eq 0 ] && [ -f "$WS/wt-ok" ] && [ ! -e "$WS/.git/config.worktree" ]
	ok $? "$t git runs beside the fence of .git/config.worktree (status $rc)"
	U "$WS" git config --unset extensions.worktreeConfig
	rm -f "$WS/wt-ok"

	# A file a config includes is config: one in the work tree could set
	# core.fsmonitor for the host's next git command.  A missing one is
	# fenced as an empty file, which git reads as none.
	U "$WS" sh -c 'printf "[core]\n\tautocrlf = false\n" > shared.cfg &&
		git config include.path ../inc.cfg &&
		git config includeIf.onbranch:main.path ../shared.cfg'
	cat > "$WS/build8.sh" <<EOF
printf '[core]\n\tfsmonitor = "echo include >> $M; false #"\n' > inc.cfg
printf '[core]\n\tfsmonitor = "echo includeif >> $M; false #"\n' >> shared.cfg
git status --short > /dev/null && echo ok > inc-ok
EOF
	R "$WS" workspace-write build8.sh
	rc=$?
	U "$WS" git status --short > /dev/null 2>&1
	unmarked && [ ! -e "$WS/inc.cfg" ] && ! grep -q fsmonitor "$WS/shared.cfg" &&
		[ -f "$WS/inc-ok" ]
	ok $? "$t a missing file include.path names cannot be made, one includeIf names is not rewritten, git runs beside them; the host's git status runs nothing planted (status $rc)"
	rm -f "$WS/inc-ok" "$M"

	# core.hooksPath set in an included file (outside the workspace), then
	# in .git/config.worktree: the directory each names is protected.
	printf '[core]\n\thooksPath = .inc-hooks\n' > "$O/hooks.cfg"
	runner_own "$O/hooks.cfg"
	U "$WS" git config --add include.path "$O/hooks.cfg"
	[ "$(U "$WS" git config core.hooksPath)" = .inc-hooks ] ||
		echo "git does not read core.hooksPath from the included file" | diag
	cat > "$WS/build9.sh" <<EOF
mkdir -p .inc-hooks && printf '#!/bin/sh\necho inc >> $M\n' > .inc-hooks/pre-commit
chmod +x .inc-hooks/pre-commit
EOF
	R "$WS" workspace-write build9.sh
	rc=$?
	U "$WS" sh -c 'echo e >> f && git commit -q -am five' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/.inc-hooks/pre-commit" ]
	ok $? "$t the hooks directory an included config names cannot be planted (status $rc)"
	rm -f "$M"
	U "$WS" sh -c 'git config --unset-all include.path &&
		git config --remove-section includeIf.onbranch:main &&
		git config extensions.worktreeConfig true &&
		git config --worktree core.hooksPath .wt-hooks'
	[ "$(U "$WS" git config core.hooksPath)" = .wt-hooks ] ||
		echo "git does not read core.hooksPath from .git/config.worktree" | diag
	sed 's/\.inc-hooks/.wt-hooks/g; s/echo inc/echo wt/' "$WS/build9.sh" > "$WS/build10.sh"
	R "$WS" workspace-write build10.sh
	rc=$?
	U "$WS" sh -c 'echo g >> f && git commit -q -am six' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/.wt-hooks/pre-commit" ]
	ok $? "$t the hooks directory .git/config.worktree names cannot be planted (status $rc)"
	rm -f "$M" "$WS/.git/config.worktree"
	U "$WS" sh -c 'git config --unset extensions.worktreeConfig; git config core.hooksPath .husky'

	# Forty includes are within the bound of one reading, also when
	# GIT_CONFIG_GLOBAL makes a second reading of the same repository.
	U "$WS" sh -c 'for i in $(seq 0 39); do git config --add include.path ../m$i.cfg; done'
	echo 'echo ran > ran' > "$WS/build11.sh"
	U "$WS" env GIT_CONFIG_GLOBAL="$O/global.cfg" "$C" run --preset workspace-write \
		--workspace "$WS" -- sh build11.sh > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	[ $rc -eq 0 ] && [ -f "$WS/ran" ]
	ok $? "$t forty includes and GIT_CONFIG_GLOBAL: the call runs (status $rc)"
	[ $rc -eq 0 ] || diag < "$tmpdir/err"
	U "$WS" git config --unset-all include.path
	rm -f "$WS/ran"

	# An include reached through a symlink the command could repoint (a
	# directory on its way, or the file itself): the host's next git would
	# follow the link wherever the command left it.  The launch is refused.
	U "$WS" sh -c 'mkdir -p d1 && printf "[core]\n\tautocrlf = false\n" > d1/real.cfg &&
		ln -s d1 link && ln -s d1/real.cfg inc-link.cfg'
	cat > "$WS/build12.sh" <<EOF
mkdir -p d2 && printf '[core]\n\tfsmonitor = "echo link >> $M; false #"\n' > d2/real.cfg
rm link && ln -s d2 link && rm inc-link.cfg && cp d2/real.cfg inc-link.cfg
EOF
	for inc in ../link/real.cfg ../inc-link.cfg; do
		U "$WS" git config include.path "$inc"
		R "$WS" workspace-write build12.sh
		rc=$?
		U "$WS" git status --short > /dev/null 2>&1
		unmarked && [ $rc -eq 125 ] && grep -q "through the symlink $WS/" "$tmpdir/err" &&
			[ -L "$WS/inc-link.cfg" ] && [ "$(readlink "$WS/link")" = d1 ]
		ok $? "$t an include through a symlink the command could repoint ($inc) refuses the launch, naming the link (status $rc)"
		rm -rf "$M" "$WS/d2"
		U "$WS" sh -c 'rm -f link inc-link.cfg && ln -s d1 link && ln -s d1/real.cfg inc-link.cfg'
	done
	U "$WS" sh -c 'git config --unset-all include.path; rm -rf d1 link inc-link.cfg'

	# Include values written as git reads them: a tab between words (git
	# reads a space), a value continued with a backslash before CRLF, a tab
	# between includeIf and its condition.
	printf '[include]\r\n\tpath = ../tab\tname.cfg\r\n\tpath = ../con\\\r\ntinued.cfg\r\n[includeIf\t"onbranch:main"]\r\n\tpath = ../tab-if.cfg\r\n' \
		>> "$WS/.git/config"
	cat > "$WS/build13.sh" <<EOF
for f in 'tab name.cfg' continued.cfg tab-if.cfg; do
	printf '[core]\n\tfsmonitor = "echo spelled >> $M; false #"\n' > "\$f"
done
git status --short > /dev/null && echo ok > spelled-ok
EOF
	R "$WS" workspace-write build13.sh
	rc=$?
	U "$WS" git status --short > /dev/null 2>&1
	unmarked && [ ! -e "$WS/tab name.cfg" ] && [ ! -e "$WS/continued.cfg" ] &&
		[ ! -e "$WS/tab-if.cfg" ] && [ -f "$WS/spelled-ok" ]
	ok $? "$t includes spelled with a tab in the value or the section, or continued over CRLF, are fenced; git runs beside them (status $rc)"
	rm -f "$M" "$WS/spelled-ok" "$WS/tab name.cfg" "$WS/continued.cfg" "$WS/tab-if.cfg"
	U "$WS" sh -c 'git config --unset-all include.path; git config --remove-section includeIf.onbranch:main'

	# An included FIFO: its content is whatever is written when git reads
	# it.  The launch is refused at once, instead of waiting for a writer.
	mkfifo "$O/fifo.cfg"
	runner_own "$O/fifo.cfg"
	U "$WS" git config include.path "$O/fifo.cfg"
	echo 'echo ran > fifo-ran' > "$WS/build14.sh"
	U "$WS" timeout -s KILL 20 "$C" run --preset workspace-write --workspace "$WS" -- sh build14.sh \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	[ $rc -eq 125 ] && grep -q "fifo.cfg.*FIFO" "$tmpdir/err" && [ ! -e "$WS/fifo-ran" ]
	ok $? "$t an included FIFO refuses the launch at once (status $rc)"
	U "$WS" git config --unset-all include.path
	rm -f "$O/fifo.cfg" "$WS/fifo-ran"

	# Programs the user's own git config names in the workspace: the
	# fsmonitor and the template directory of ~/.gitconfig, an alias of
	# the XDG config, a diff.external and an fsmonitor spelled without a
	# slash in GIT_CONFIG_GLOBAL's.  Each is protected for the call; the
	# host's git status, git clone, alias and git diff run nothing planted.
	mkdir -p "$WS/tools/tpl/hooks" "$O/xdg/git"
	for f in tools/mon.sh tools/b.sh tools/ext.sh mon2.sh; do
		printf '#!/bin/sh\nexit 1\n' > "$WS/$f"
		chmod +x "$WS/$f"
	done
	printf '[core]\n\tfsmonitor = %s/tools/mon.sh\n[init]\n\ttemplateDir = %s/tools/tpl\n' \
		"$WS" "$WS" > "$H/.gitconfig"
	printf '[alias]\n\tb = "!sh tools/b.sh"\n' > "$O/xdg/git/config"
	printf '[diff]\n\texternal = tools/ext.sh\n[Core]\n\tFSMonitor = "sh mon2.sh"\n' \
		> "$O/global.cfg"
	runner_own "$WS" "$H" "$O"
	cat > "$WS/build15.sh" <<EOF
for f in tools/mon.sh tools/b.sh tools/ext.sh mon2.sh tools/tpl/hooks/post-checkout; do
	printf '#!/bin/sh\necho %s >> $M\nexit 1\n' "\$f" > "\$f" && chmod +x "\$f"
done
echo fine > tools/notes.txt
EOF
	U "$WS" env XDG_CONFIG_HOME="$O/xdg" GIT_CONFIG_GLOBAL="$O/global.cfg" "$C" run \
		--preset workspace-write --workspace "$WS" -- sh build15.sh \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	U "$WS" git status --short > /dev/null 2>&1
	U "$O" git clone -q "$WS" "$O/clone" > /dev/null 2>&1
	U "$WS" env XDG_CONFIG_HOME="$O/xdg" git b > /dev/null 2>&1
	U "$WS" env GIT_CONFIG_GLOBAL="$O/global.cfg" sh -c 'echo h >> f && git status --short &&
		git diff && git checkout f' > /dev/null 2>&1
	unmarked && [ ! -e "$WS/tools/tpl/hooks/post-checkout" ] && [ -f "$WS/tools/notes.txt" ] &&
		! grep -q echo "$WS/tools/mon.sh" "$WS/tools/b.sh" "$WS/tools/ext.sh" "$WS/mon2.sh"
	ok $? "$t the fsmonitor and template directory of ~/.gitconfig, an alias of the XDG config, diff.external and a slashless fsmonitor of GIT_CONFIG_GLOBAL's are not rewritten; the host's git status, clone, alias and diff run nothing planted (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -rf "$M" "$H/.gitconfig" "$O/xdg" "$O/global.cfg" "$O/clone" "$WS/tools" "$WS/mon2.sh"

	# The same named by the environment of the host's git (GIT_TEMPLATE_DIR,
	# whose hooks a host clone runs); and a program reached through a
	# symlink the command could repoint, which stops the call.
	mkdir -p "$WS/tools/tpl2/hooks"
	printf '#!/bin/sh\nexit 0\n' > "$WS/tools/ed.sh"
	ln -s ed.sh "$WS/tools/ed-link"
	runner_own "$WS"
	cat > "$WS/build16.sh" <<EOF
printf '#!/bin/sh\necho template2 >> $M\n' > tools/tpl2/hooks/post-checkout
chmod +x tools/tpl2/hooks/post-checkout
EOF
	U "$WS" env GIT_TEMPLATE_DIR="$WS/tools/tpl2" "$C" run --preset workspace-write \
		--workspace "$WS" -- sh build16.sh > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	U "$O" env GIT_TEMPLATE_DIR="$WS/tools/tpl2" git clone -q "$WS" "$O/clone2" > /dev/null 2>&1
	unmarked && [ ! -e "$WS/tools/tpl2/hooks/post-checkout" ]
	ok $? "$t the directory GIT_TEMPLATE_DIR names cannot be planted; the host's clone runs no hook (status $rc)"
	[ -e "$M" ] && diag < "$M"
	printf '[core]\n\teditor = tools/ed-link --wait\n' > "$H/.gitconfig"
	runner_own "$H/.gitconfig"
	echo 'echo ran > ed-ran' > "$WS/build17.sh"
	R "$WS" workspace-write build17.sh
	rc=$?
	[ $rc -eq 125 ] && [ ! -e "$WS/ed-ran" ] &&
		grep -q "core.editor to 'tools/ed-link --wait', reached through the symlink $WS/tools/ed-link" "$tmpdir/err"
	ok $? "$t a core.editor reached through a symlink the command could repoint stops the call, naming it (status $rc)"
	[ $rc -eq 125 ] || diag < "$tmpdir/err"
	rm -rf "$M" "$H/.gitconfig" "$O/clone2" "$WS/tools" "$WS/ed-ran"

	# A workspace that is the home directory.
	cat > "$H/build.sh" <<EOF
printf '[core]\n\tfsmonitor = "echo gitconfig >> $M; false #"\n' >> ~/.gitconfig
mkdir -p ~/.local/bin ~/.config/systemd/user ~/.config/autostart ~/.config/fish ~/.config/git ~/.gemini
for f in .local/bin/git .config/systemd/user/x.service .config/autostart/x.desktop .bash_logout .config/fish/config.fish .config/git/config .gemini/settings.json; do
	echo x > ~/\$f
done
echo notes > ~/notes.txt
d=\$(mktemp -d) && git init -q "\$d" && git -C "\$d" status --short > /dev/null && echo ok > ~/git-ok
EOF
	# The top of a home workspace is read-only (docs/sandbox.md): the files
	# the script writes there exist.
	U "$H" touch notes.txt git-ok
	R "$H" workspace-write build.sh
	rc=$?
	U "$O" sh -c 'git init -q . && git status' > /dev/null 2>&1
	missing=
	for f in .gitconfig .local/bin/git .config/systemd/user/x.service \
		.config/autostart/x.desktop .bash_logout .config/fish/config.fish \
		.config/git/config .gemini/settings.json; do
		[ -e "$H/$f" ] && missing="$missing $f"
	done
	unmarked && [ -z "$missing" ] && grep -q notes "$H/notes.txt" && grep -q ok "$H/git-ok"
	ok $? "$t a home workspace's .gitconfig, .local/bin, user services, autostart, .bash_logout, fish, git and Gemini config stay unwritten; notes.txt is written, and git runs without a .gitconfig (status $rc)"
	[ -z "$missing" ] || echo "written:$missing" | diag
	rm -f "$M"

	# Credential stores under read-only.
	stores=".claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json .pgpass
		.my.cnf .config/containers/auth.json .cache/huggingface/token .huggingface/token
		.m2/settings.xml .local/share/keyrings/login.keyring .password-store/web.gpg"
	for f in $stores; do
		mkdir -p "$(dirname "$H/$f")"
		echo "SECRET-$f" > "$H/$f"
	done
	echo public > "$H/.m2/notes.txt"
	runner_own "$H"
	printf 'for f in %s; do cat ~/$f; done 2>&1\ncat ~/.m2/notes.txt\n' "$(echo $stores)" \
		> "$WS/read.sh"
	R "$WS" read-only read.sh
	rc=$?
	! grep -q SECRET "$tmpdir/out" && grep -qx public "$tmpdir/out"
	ok $? "$t the agents' tokens, .pgpass, .my.cnf, registry, model hub and maven credentials, keyrings and password stores read empty; a neighbour reads (status $rc)"
	grep SECRET "$tmpdir/out" | diag
}

for p in $passes; do
	pass "$p"
done
done_testing
