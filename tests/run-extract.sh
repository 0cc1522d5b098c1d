#!/bin/sh
# Commands that change files they do not name, run for real under `cordon
# run --preset workspace-write`: an archive extracted into the protected
# agent directory, git stash -u (which removes the untracked files it
# stashes), git config KEY VALUE (which writes the protected .git/config)
# and find . -exec rm -rf {} + (every path below the workspace) are refused
# before they run (status 121), and nothing changes; an
# archive extracted into the workspace runs without a prompt, and a member
# that would land in the protected directory stays out; a dry run runs.
# As root and again as an unprivileged user (nobody).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "extraction and git under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi
if ! command -v git > /dev/null || ! command -v tar > /dev/null; then
	skip "extraction and git under cordon run" "git or tar is not installed"
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
	WS=$P/ws H=$P/home
	mkdir -p "$WS/.agent" "$H" "$P/src/.agent" "$P/src/x"
	echo state > "$WS/.agent/state.json"
	printf '.agent/\n' > "$WS/.gitignore"
	echo tracked > "$WS/tracked.txt"
	# The archive: an ordinary member and one for the agent directory.
	echo evil > "$P/src/.agent/state.json"
	echo member > "$P/src/x/new.txt"
	tar -cf "$WS/a.tar" -C "$P/src" x .agent
	runner_own "$P"
	U() {
		(cd "$WS" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb "$@")
	}
	if ! U sh -c 'git init -q -b main . && git config user.name Dev &&
		git config user.email dev@example.com && git add tracked.txt .gitignore a.tar &&
		git commit -q -m initial && echo untracked > untracked.txt' > "$tmpdir/err" 2>&1; then
		ok 1 "$t the repository is made"
		diag < "$tmpdir/err"
		return
	fi
	R() { # R COMMAND: run it under cordon; its status
		U "$C" run --preset workspace-write --workspace "$WS" \
			--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/s1" \
			-- bash -c "$1" > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	}

	R 'tar -xf a.tar -C .agent'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ "$(cat "$WS/.agent/state.json")" = state ] && [ ! -e "$WS/.agent/x" ]
	ok $? "$t tar -x -C into the agent directory is refused before it runs (status $rc)"

	R 'tar --directory=.agent -xf a.tar'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t tar --directory= into the agent directory is refused (status $rc)"

	R 'tar -xf a.tar'
	rc=$?
	[ $rc -ne $RUN_ASK ] && [ $rc -ne $RUN_DENIED ] && [ "$(cat "$WS/x/new.txt" 2>/dev/null)" = member ] &&
		[ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t tar -x into the workspace runs unprompted; the member for the agent directory stays out (status $rc)"

	R 'git stash -u'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ -f "$WS/untracked.txt" ] && [ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t git stash -u is refused before it removes the untracked files (status $rc)"

	R 'git stash --all'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ -f "$WS/untracked.txt" ]
	ok $? "$t git stash --all is refused (status $rc)"

	R 'git clean -n'
	rc=$?
	[ $rc -eq 0 ] && grep -q untracked.txt "$tmpdir/out" && [ -f "$WS/untracked.txt" ]
	ok $? "$t git clean -n, a dry run, runs and lists (status $rc)"

	R 'git config user.name Mallory'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ "$(U git config user.name)" = Dev ]
	ok $? "$t git config KEY VALUE, a write of the protected .git/config, is refused (status $rc)"

	R 'git config --get user.name && git tag --list && git branch'
	ok $? "$t git config --get, git tag --list and git branch run unprompted"

	R 'find . -exec rm -rf {} +'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ -f "$WS/tracked.txt" ] && [ -f "$WS/untracked.txt" ]
	ok $? "$t find . -exec rm -rf {} +, which passes every path below ., is refused before it runs (status $rc)"

	R "awk '{print > \".agent/x\"}' tracked.txt"
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ ! -e "$WS/.agent/x" ]
	ok $? "$t awk printing into the agent directory is refused before it runs (status $rc)"

	R "awk '{print \$1}' tracked.txt"
	rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$tmpdir/out")" = tracked ]
	ok $? "$t a plain awk program runs unprompted (status $rc)"

	R 'find . -name "*.txt" -exec wc -l {} +'
	rc=$?
	[ $rc -eq 0 ] && grep -q tracked.txt "$tmpdir/out"
	ok $? "$t find -name -exec wc reads what it finds, unprompted (status $rc)"
}

for p in $passes; do
	pass "$p"
done
done_testing
