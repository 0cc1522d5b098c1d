#!/bin/sh
# Attacks on how paths reach the sandbox, under the real bwrap, as root and
# again as an unprivileged user (nobody) with trees of its own:
#  - credentials and protected paths reached through a symlink (stow,
#    home-manager, dotfile repositories);
#  - protections in every writable root (a workspace that is the home
#    directory, a policy with a second write root);
#  - the persistence files the default presets protect, most of which do
#    not exist: fenced one by one, the rest of the workspace writable, and
#    nothing left behind, with two calls at once too.
# Each command runs as `sh -c 'sh SCRIPT'`, which the analysis cannot see
# into: the sandbox alone must stop it.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"
GIT=$(command -v git)

# U CMD...: CMD as the pass's user, with a runtime dir of the pass's own (the
# runner keeps its temp dirs and fence registry there), bounded in time.
U() {
	# From the pass's own directory: the build tree may be closed to the user.
	(cd "$P" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 TZ=UTC \
		XDG_RUNTIME_DIR="$P/rt" "$@")
}

# run ARGS...: cordon run ARGS as the pass's user; $rc, $out, stderr in $errf.
run() {
	out=$(U "$C" run "$@" 2> "$errf")
	rc=$?
}

# wsw WS HOME SCRIPT: workspace-write of the default policy on WS with home
# HOME, running `sh SCRIPT` behind sh -c; the agent's storage is elsewhere.
wsw() {
	run --preset workspace-write --workspace "$1" --context home="$2" \
		--context agent_dir="$P/agent" --context session_dir="$P/agent/s" -- \
		sh -c "sh '$3'"
}

# script NAME TEXT: a script file the pass's user can read.
script() {
	printf '%s\n' "$2" > "$P/$1.sh"
	chmod 644 "$P/$1.sh"
}

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
ready=$?
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

pass() { # pass NAME
	runner_pass "$1"
	mkdir -p "$P/rt" "$P/agent" "$P/h1/dotfiles/ssh" "$P/h2" "$P/store/ssh" "$P/ws1" "$P/ws2" \
		"$P/ws3" "$P/h3" "$P/x/ws" "$P/x/extra" "$P/c" "$P/ws5/real"
	chmod 700 "$P/rt"
	echo "KEY-ONE-$name" > "$P/h1/dotfiles/ssh/id_ed25519"
	ln -s dotfiles/ssh "$P/h1/.ssh"             # stow: relative
	echo "KEY-TWO-$name" > "$P/store/ssh/id_ed25519"
	ln -s "$P/store/ssh" "$P/h2/.ssh"           # home-manager: absolute
	echo "rc-$name" > "$P/h3/.bashrc"
	echo "profile-$name" > "$P/h3/.profile"
	echo state > "$P/ws5/real/state.json"
	mkdir -p "$P/ws5/real2"
	ln -s real "$P/ws5/.vscode"
	ln -s "$P/ws5/real2" "$P/ws5/.claude"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS test -w "$P/ws1"; then
		skip "$t every check" "uid $uid cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi

	cat > "$P/x.cordon" << EOF
cordon 1;
protect "\${workspace}/.git/hooks", "\${workspace}/.vscode", "\${workspace}/.claude";
preset "two" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "\${workspace}" allow;
  write "\${tmp}" allow;
  write "$P/x/extra" allow;
  write "\${workspace}/sub" allow;
  exec "*" allow;
}
EOF
	chmod 644 "$P/x.cordon"

	# ---- symlinked credentials -------------------------------------------------------------
	for h in h1 h2; do
		H=$P/$h
		d=$(U "$C" eval --preset read-only --context home="$H" --context workspace="$P/ws1" \
			read "$H/.ssh/id_ed25519" 2>&1 | head -1)
		is "${d%%:*}" deny "$t $h: the decision denies ~/.ssh/id_ed25519 through the link"
	done
	H=$P/h1
	d=$(U "$C" eval --preset read-only --context home="$H" --context workspace="$P/ws1" \
		read "$H/dotfiles/ssh/id_ed25519" 2>&1 | head -1)
	is "${d%%:*}" deny "$t h1: and the link's target by its own name"
	d=$(U "$C" explain --preset read-only --context home="$H" --context workspace="$P/ws1" \
		read "$H/.ssh/id_ed25519" 2>&1)
	case $d in *"read \"$H/dotfiles/ssh\" (what \"$H/.ssh\" resolves to) deny"*) true ;; *) false ;; esac
	ok $? "$t explain shows the rule on the target and the link it comes from"
	script cat 'cat "$HOME/.ssh/id_ed25519"; cat "$(readlink -f "$HOME/.ssh")/id_ed25519"; ls -A "$HOME/.ssh/"'
	for h in h1 h2; do
		H=$P/$h
		wsw "$P/ws1" "$H" "$P/cat.sh"
		case $out in *KEY-*) false ;; *) true ;; esac
		ok $? "$t $h: cat ~/.ssh/id_ed25519 through a symlinked ~/.ssh reads nothing ($(echo $out))"
	done
	# The home directory as the workspace: writes through the link are
	# credentials too.
	H=$P/h1
	# The top of a home workspace is read-only (docs/sandbox.md): the
	# file the script writes beside the attack is one that exists.
	U touch "$H/free"
	script akeys 'echo evil >> "$HOME/.ssh/authorized_keys"; echo evil >> "$HOME/.ssh/id_ed25519"; echo ok > "$HOME/free"'
	wsw "$H" "$H" "$P/akeys.sh"
	is "$(ls "$H/dotfiles/ssh" | tr '\n' ' ')$(cat "$H/dotfiles/ssh/id_ed25519"):$(cat "$H/free" 2> /dev/null)" \
		"id_ed25519 KEY-ONE-$name:ok" "$t h1 as the workspace: nothing is written through ~/.ssh ($(echo $out))"
	# A protected path that is a symlink: what it resolves to is protected.
	H=$P/h1
	script plink "echo evil > '$P/ws5/real/state.json'; echo evil > '$P/ws5/real/new'; echo evil > '$P/ws5/real2/new'; echo ok > '$P/ws5/free'"
	run -p "$P/x.cordon" --preset two --workspace "$P/ws5" --context home="$H" -- sh -c "sh '$P/plink.sh'"
	is "$(cat "$P/ws5/real/state.json"):$(ls "$P/ws5/real" "$P/ws5/real2" | tr '\n' ' '):$(cat "$P/ws5/free" 2> /dev/null)" \
		"state:$P/ws5/real: state.json  $P/ws5/real2: :ok" \
		"$t a protected path that is a symlink, relative or absolute, protects its target ($(head -1 "$errf"))"
	d=$(U "$C" eval -p "$P/x.cordon" --preset two --context workspace="$P/ws5" --context home="$H" \
		write "$P/ws5/real/state.json" 2>&1 | head -1)
	is "${d%%:*}" deny "$t and the decision denies writing the target"

	# The plan and the Landlock ruleset name the target, never the link: a
	# mount on a symlink would land wherever the link points at launch.
	pl=$(U "$C" compile -p "$P/x.cordon" --preset two --emit bwrap --context workspace="$P/ws5" \
		--context home="$H" --context tmp="$P/rt/t" 2>&1)
	ll=$(U env CORDON_LANDLOCK_ABI=4 "$C" compile -p "$P/x.cordon" --preset two --emit landlock \
		--context workspace="$P/ws5" --context home="$H" --context tmp="$P/rt/t" 2>&1)
	case $pl in *"\"$P/ws5/.vscode\""* | *"\"$P/ws5/.claude\""*) false ;;
	*"\"--ro-bind\",\"$P/ws5/real\",\"$P/ws5/real\""*"\"--ro-bind\",\"$P/ws5/real2\""*) true ;; *) false ;; esac
	ok $? "$t the mount plan binds the targets of the protected links read-only, not the links"
	case $ll in *"$P/ws5/real "*protected*"$P/ws5/real2 "*protected*) true ;; *) false ;; esac
	ok $? "$t the Landlock listing names the targets as protected inside the write root"

	# The Seatbelt profile ranks the target as the evaluator does: an allow
	# of the directory around it must not come after the deny.
	printf '%s\n' 'cordon 1;' 'preset "p" {' '  sandbox required;' '  read "/**" allow;' \
		'  read "~/dotfiles" allow;' '  read "~/.ssh" deny;' '  write "/dev/null" allow;' \
		'  exec "*" allow;' '}' > "$P/sb.cordon"
	chmod 644 "$P/sb.cordon"
	if [ -x "$builddir/tests/sbpl-check" ]; then
		U "$C" compile -p "$P/sb.cordon" --host linux --preset p --emit sbpl --context home="$P/h1" \
			--context workspace="$P/ws1" --context tmp="$P/rt/t" > "$P/sb.prof" 2> "$errf"
		is "$("$builddir/tests/sbpl-check" "$P/sb.prof" read "$P/h1/dotfiles/ssh/id_ed25519"):$("$builddir/tests/sbpl-check" "$P/sb.prof" read "$P/h1/dotfiles/x")" \
			"deny:allow" "$t the Seatbelt profile denies the target of a symlinked deny under a broader allow"
	else
		skip "$t the Seatbelt profile of a symlinked deny" "no tests/sbpl-check"
	fi

	# ---- protections in every writable root --------------------------------------------------
	H=$P/h3
	U touch "$H/free"
	script rc 'echo evil >> "$HOME/.bashrc"; echo evil >> "$HOME/.profile"; echo evil > "$HOME/.zshrc"; echo ok > "$HOME/free"'
	wsw "$H" "$H" "$P/rc.sh"
	is "$(cat "$H/.bashrc"):$(cat "$H/.profile"):$([ -e "$H/.zshrc" ] && echo zshrc):$(cat "$H/free" 2> /dev/null)" \
		"rc-$name:profile-$name::ok" "$t the home directory as the workspace: ~/.bashrc, ~/.profile, ~/.zshrc stay untouched"
	script extra "mkdir -p '$P/x/extra/.git/hooks'; echo evil > '$P/x/extra/.git/hooks/pre-commit'; mkdir '$P/x/extra/.vscode'; echo ok > '$P/x/extra/free'"
	run -p "$P/x.cordon" --preset two --workspace "$P/x/ws" --context home="$H" -- sh -c "sh '$P/extra.sh'"
	is "$(ls -A "$P/x/extra" | tr '\n' ' '):$(cat "$P/x/extra/free" 2> /dev/null)" "free :ok" \
		"$t a protection written for the workspace holds in a second write root too"
	d=$(U "$C" eval -p "$P/x.cordon" --preset two --context workspace="$P/x/ws" --context home="$H" \
		write "$P/x/extra/.git/hooks/pre-commit" 2>&1 | head -1)
	is "${d%%:*}" deny "$t and the decision says so"
	d=$(U "$C" eval -p "$P/x.cordon" --preset two --context workspace="$P/x/ws" --context home="$H" \
		write "$P/x/ws/sub/.git/hooks/pre-commit" 2>&1 | head -1)
	is "${d%%:*}" allow "$t but not in a write root inside the workspace, which is part of its tree"

	# ---- the persistence files of the default presets -------------------------------------------
	H=$P/h1
	W=$P/ws2
	script persist "cd '$W' && echo ok > new
mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit
echo '[core] fsmonitor = evil' >> .git/config
mkdir .vscode; echo evil > .vscode/settings.json
mkdir -p .claude .codex .cursor .idea; echo evil > .claude/settings.json; echo evil > .codex/config.toml
echo evil > .cursor/mcp.json; echo evil > .idea/workspace.xml
echo evil > .mcp.json; echo evil > .devcontainer.json
ls -A"
	wsw "$W" "$H" "$P/persist.sh"
	is "$rc:$(cat "$W/new" 2> /dev/null)" "0:ok" "$t a workspace without .git/hooks stays writable ($(head -1 "$errf"))"
	is "$(ls -A "$W" | tr '\n' ' ')" ".devcontainer.json.cordon-disarmed .git.cordon-disarmed new " \
		"$t no persistence file could be created, and no placeholder is left behind; the .git and .devcontainer.json the call made where there were none are moved aside"
	# The same with a policy of one's own that protects .git/hooks: a
	# missing protected path no longer makes its parent read-only.  The
	# workspace has no .git: none is fenced into being, and the one the
	# call makes with a hook is moved aside after it.
	W=$P/ws7
	mkdir -p "$W"
	runner_own "$W"
	script own "cd '$W' && echo ok > new; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; mkdir .vscode"
	run -p "$P/x.cordon" --preset two --workspace "$W" --context home="$H" -- sh -c "sh '$P/own.sh'"
	is "$(cat "$W/new" 2> /dev/null):$(ls -A "$W" | tr '\n' ' ')" "ok:.git.cordon-disarmed new " \
		"$t a protected .git/hooks where there is no .git: the workspace stays writable, .vscode is fenced alone, the .git made with a hook is moved aside"
	# The same below a write root that is "/" itself: the root holds every
	# path, so the missing hooks directory is fenced there too.
	W=$P/ws8
	mkdir -p "$W"
	runner_own "$W"
	cat > "$P/root.cordon" << EOF
cordon 1;
protect "\${workspace}/.git/hooks";
preset "everywhere" {
  sandbox required;
  read "/**" allow;
  write "/**" allow;
  exec "*" allow;
}
EOF
	chmod 644 "$P/root.cordon"
	script rootw "cd '$W' && echo ok > new; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit"
	run -p "$P/root.cordon" --preset everywhere --workspace "$W" --context home="$H" -- sh -c "sh '$P/rootw.sh'"
	is "$(cat "$W/new" 2> /dev/null):$(ls -A "$W" | tr '\n' ' ')" "ok:.git.cordon-disarmed new " \
		"$t below a write root of \"/\", a .git made with a hook where there was none is moved aside too"
	if [ -n "$GIT" ]; then
		W=$P/ws3
		U "$GIT" -C "$W" init -q && U "$GIT" -C "$W" -c user.name=t -c user.email=t@t commit -q --allow-empty -m init
		cp "$W/.git/config" "$P/config.before"
		script git "cd '$W' && echo a > a.txt && '$GIT' add a.txt && '$GIT' -c user.name=t -c user.email=t@t commit -q -m a && echo committed
'$GIT' config core.fsmonitor evil 2> /dev/null || echo config-refused
echo evil > .git/hooks/post-checkout 2> /dev/null || echo hook-refused
mkdir sub && cd sub && '$GIT' init -q && '$GIT' -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && echo subrepo"
		wsw "$W" "$H" "$P/git.sh"
		is "$(echo $out)" "committed config-refused hook-refused subrepo" \
			"$t git add/commit and git init in a new directory work; .git/config and hooks are fenced"
		cmp -s "$W/.git/config" "$P/config.before" && [ ! -e "$W/.git/hooks/post-checkout" ] &&
			[ "$(U "$GIT" -C "$W" log --oneline | wc -l)" = 2 ]
		ok $? "$t the repository has the commit and its config and hooks are unchanged"
	else
		skip "$t git inside the workspace" "no git"
	fi

	# A worktree's .git is a file: nothing can be made below it, so the file
	# itself is what must stay (a command could replace it by a directory).
	W=$P/ws6
	mkdir -p "$W"
	echo "gitdir: $P/elsewhere" > "$W/.git"
	runner_own "$W"
	script gitfile "cd '$W' && echo ok > new; echo evil > .git; rm -f .git; mkdir -p .git/hooks; ls -A"
	wsw "$W" "$H" "$P/gitfile.sh"
	is "$(cat "$W/.git"):$(cat "$W/new" 2> /dev/null):$(ls -A "$W" | tr '\n' ' ')" \
		"gitdir: $P/elsewhere:ok:.git new " "$t a .git file (a worktree) cannot be replaced, the rest stays writable"

	# A missing write-denied path below a read-only directory, in a write
	# root nested below that directory: the nested root makes the place
	# writable again, so the path is fenced there (the plan once took it
	# for one that could not be created and left it writable).
	W=$P/ws8
	mkdir -p "$W/build/out"
	cat > "$P/nested.cordon" << EOF
cordon 1;
preset "nested" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "\${workspace}" allow;
  write "\${workspace}/build" deny;
  write "\${workspace}/build/out" allow;
  write "\${workspace}/build/out/keys" deny;
  exec "*" allow;
}
EOF
	runner_own "$W" "$P/nested.cordon"
	script nested "cd '$W/build/out' && echo ok > a.o; mkdir -p keys 2> /dev/null; echo evil > keys/k 2> /dev/null; echo evil > build.log; ls -A"
	run -p "$P/nested.cordon" --preset nested --workspace "$W" -- sh -c "sh '$P/nested.sh'"
	is "$rc:$(cat "$W/build/out/a.o" 2> /dev/null):$(ls -A "$W/build/out" | tr '\n' ' ')" "0:ok:a.o build.log " \
		"$t a missing denied path in a write root nested below a read-only one is fenced: nothing is written below it ($(head -1 "$errf"))"
	[ ! -e "$W/build/out/keys" ]
	ok $? "$t ... and the fence is gone after the call"

	# A workspace this user cannot write needs no fence, and the call runs.
	if [ -n "$AS" ]; then
		mkdir -p "$P/rows"
		chown 0:0 "$P/rows"
		chmod 755 "$P/rows"
		script rows "echo hi; echo x > '$P/rows/.bashrc' 2> /dev/null || echo refused"
		wsw "$P/rows" "$H" "$P/rows.sh"
		is "$rc:$(echo $out):$(ls -A "$P/rows" | wc -l)" "0:hi refused:0" \
			"$t a workspace the user cannot write still runs, with nothing made in it ($(head -1 "$errf"))"
	fi

	# ---- two calls at once ------------------------------------------------------------------------
	# The first makes the fences and ends first; the second relies on them
	# meanwhile, and removes them when it ends.
	W=$P/c
	script first "while [ ! -e '$P/go-first' ]; do sleep 0.05; done; echo ok > '$W/first-done'"
	script second "echo started > '$P/second-started'; while [ ! -e '$P/go-second' ]; do sleep 0.05; done
cd '$W' && mkdir -p .git/hooks 2> /dev/null; echo evil > .vscode/settings.json; echo evil > .git/hooks/pre-commit; echo ok > second-done"
	(wsw "$W" "$H" "$P/first.sh") &
	first=$!
	i=0
	while [ ! -d "$W/.vscode" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	(wsw "$W" "$H" "$P/second.sh") &
	second=$!
	i=0
	while [ ! -e "$P/second-started" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	: > "$P/go-first"
	wait $first
	: > "$P/go-second"
	wait $second
	is "$(ls -A "$W" | tr '\n' ' ')" ".git.cordon-disarmed first-done second-done " \
		"$t two calls at once: the fences hold while the other call runs, though the one that made them ended first; the last removes them"
}

# Two users in one workspace: root's call makes the fences, nobody's call
# starts while they stand and relies on them, root's call ends first.  The
# fences must stay until nobody's call is over: removing a directory that is
# a mount point in another namespace detaches that mount.
cross_users() {
	P=$tmpdir/cross
	W=$P/ws
	mkdir -p "$W" "$P/rt" "$P/h"
	chmod 777 "$P/rt"
	chown -R 65534:65534 "$W"
	H=$P/h
	script a "while [ ! -e '$P/go-a' ]; do sleep 0.05; done"
	script b "echo started > '$P/b-started'; while [ ! -e '$P/go-b' ]; do sleep 0.05; done
cd '$W' && echo evil > .vscode/settings.json; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo ok > b-done"
	AS= C=$cordon_bin
	(wsw "$W" "$H" "$P/a.sh") &
	a=$!
	i=0
	while [ ! -d "$W/.vscode" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	C=$tmpdir/nobody/build/cordon
	[ -x "$C" ] || C=$cordon_bin
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	(wsw "$W" "$H" "$P/b.sh") &
	b=$!
	i=0
	while [ ! -e "$P/b-started" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	: > "$P/go-a"
	wait $a
	: > "$P/go-b"
	wait $b
	is "$(ls -A "$W/.vscode" 2> /dev/null | tr '\n' ' '):$(ls -A "$W/.git/hooks" 2> /dev/null):$(cat "$W/b-done" 2> /dev/null)" \
		"::ok" "[root+nobody] a call of another user keeps its fences when the one that made them ends first"
	AS= C=$cordon_bin
	script c ":"
	wsw "$W" "$H" "$P/c.sh"
	is "$(ls -A "$W" | tr '\n' ' ')" ".git.cordon-disarmed b-done " "[root+nobody] the next call of the user who made them removes them"
}

if [ $ready -ne 0 ]; then
	skip "symlinked and missing paths under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi
for p in $passes; do
	pass "$p"
done
case $passes in *nobody*) cross_users ;; esac
done_testing
