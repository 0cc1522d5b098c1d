#!/bin/sh
# Commands that write a protected file without naming it, run for real
# under `cordon run`: git branch -u, -d, -m and git push -u rewrite the
# protected .git/config, and so do a new branch from a remote-tracking one
# (git branch NAME origin/old, checkout -b, switch -c --track, checkout
# -t), git submodule init and git sparse-checkout set; git init writes it
# (a workspace without .git too), script and /usr/bin/time -o log to a
# file in the agent directory, and git -C ../ws/.agent works inside it.
# Each is refused before it runs (status 121) and the protected file is
# unchanged; git branch NAME, checkout -b NAME, switch -c NAME, checkout
# BRANCH and checkout -- FILE, a push without -u and script logging to
# /dev/null run without a prompt.  The pushes go to a
# repository in the workspace, under a preset that allows the network.
# As root and again as an unprivileged user (nobody).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "unnamed writes under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi
for prog in git script; do
	if ! command -v $prog > /dev/null; then
		skip "unnamed writes under cordon run" "$prog is not installed"
		done_testing
		exit
	fi
done

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi

# workspace-write with the network: a push is judged by what it writes.
cat > "$tmpdir/net.cordon" <<'EOF'
cordon 1;
include "default.cordon";
preset "net-write" extends "workspace-write" {
  net "*" allow;
}
EOF

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home E=$P/empty
	mkdir -p "$WS/.agent" "$H" "$E/.agent"
	echo state > "$WS/.agent/state.json"
	printf '.agent/\n' > "$WS/.gitignore"
	runner_own "$P"
	U() {
		(cd "$WS" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb "$@")
	}
	if ! U sh -c 'git init -q -b main . && git config user.name Dev &&
		git config user.email dev@example.com && git add .gitignore &&
		git commit -q -m initial && git branch old && git branch gone &&
		git init -q --bare up.git && git remote add origin ./up.git &&
		git push -q origin main old && git fetch -q origin' > "$tmpdir/err" 2>&1; then
		ok 1 "$t the repository is made"
		diag < "$tmpdir/err"
		return
	fi
	cp "$WS/.git/config" "$P/config.before"
	R() { # R COMMAND [PRESET]: run it under cordon in $WS; its status
		U "$C" run -p "$tmpdir/net.cordon" --preset "${2:-net-write}" --workspace "$WS" \
			--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/s1" \
			-- bash -c "$1" > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	}
	same() { cmp -s "$P/config.before" "$WS/.git/config"; }

	R 'git branch -u origin/old old'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && grep -q '\.git/config' "$tmpdir/err"
	ok $? "$t git branch -u, which sets the upstream in .git/config, is refused (status $rc)"

	R 'git branch --set-upstream-to=origin/old old'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git branch --set-upstream-to= is refused (status $rc)"

	R 'git branch -d gone'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && U git rev-parse -q --verify gone > /dev/null
	ok $? "$t git branch -d, which rewrites .git/config, is refused and the branch stays (status $rc)"

	R 'git branch -m old renamed'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && U git rev-parse -q --verify old > /dev/null
	ok $? "$t git branch -m is refused (status $rc)"

	R 'git push -q -u origin main'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git push -u, which records the upstream in .git/config, is refused (status $rc)"

	R 'git remote rename origin other'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git remote rename is refused (status $rc)"

	# A new branch from a remote-tracking one gets it as its upstream in
	# .git/config, and so does -t.
	R 'git branch topic2 origin/old'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && ! U git rev-parse -q --verify topic2 > /dev/null
	ok $? "$t git branch NAME origin/old, which records its upstream, is refused (status $rc)"

	R 'git checkout -q -b topic3 origin/old'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && grep -q '\.git/config' "$tmpdir/err"
	ok $? "$t git checkout -b NAME origin/old is refused (status $rc)"

	R 'git switch -q -c topic4 --track origin/main'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git switch -c NAME --track is refused (status $rc)"

	R 'git checkout -q -t origin/old'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git checkout -t, a flag (not --template), is refused (status $rc)"

	R 'git submodule init'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git submodule init, which keeps the URLs in .git/config, is refused (status $rc)"

	R 'git sparse-checkout set src'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same
	ok $? "$t git sparse-checkout set, which turns the mode on in .git/config, is refused (status $rc)"

	R 'git checkout -q -b local1 && git checkout -q main && git switch -q -c local2 &&
		git switch -q - && git checkout -q -b local3 old && git checkout -q -- .gitignore &&
		git checkout -q main'
	rc=$?
	[ $rc -eq 0 ] && same && U git rev-parse -q --verify local3 > /dev/null
	ok $? "$t git checkout -b NAME, -b NAME LOCAL, switch -c NAME, checkout BRANCH and -- FILE run unprompted (status $rc)"
	[ $rc -eq 0 ] || diag < "$tmpdir/err"

	if [ -x /usr/bin/time ]; then
		R '/usr/bin/time -o .agent/state.json true'
		rc=$?
		[ $rc -eq $RUN_DENIED ] && [ "$(cat "$WS/.agent/state.json")" = state ]
		ok $? "$t /usr/bin/time -o into the agent directory is refused before it runs (status $rc)"
	else
		skip "$t /usr/bin/time -o into the agent directory" "/usr/bin/time is not installed"
	fi

	R 'git init -q'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && same && grep -q "\.git/config' is protected" "$tmpdir/err"
	ok $? "$t git init again, a write of .git/config, is refused and says why (status $rc)"

	R 'git branch topic && git push -q origin topic && git branch'
	rc=$?
	[ $rc -eq 0 ] && same && grep -q topic "$tmpdir/out"
	ok $? "$t git branch NAME and a push without -u run unprompted (status $rc)"

	R 'script -q .agent/x -c true'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ ! -e "$WS/.agent/x" ] && [ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t script logging into the agent directory is refused before it runs (status $rc)"

	R 'script -q -O .agent/state.json -c true'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t script -O into the agent directory is refused (status $rc)"

	R 'script -q -c "echo logged" /dev/null'
	rc=$?
	[ $rc -eq 0 ] && grep -q logged "$tmpdir/out"
	ok $? "$t script logging to /dev/null runs unprompted (status $rc)"

	R 'git -C ../ws/.agent clean -fdxq'
	rc=$?
	[ $rc -eq $RUN_DENIED ] && [ "$(cat "$WS/.agent/state.json")" = state ]
	ok $? "$t git -C ../ws/.agent clean, inside the agent directory, is refused (status $rc)"

	# A workspace without .git: its .git/config is fenced, and git init,
	# which would write it, is refused with the reason.
	(cd "$E" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$H" LANG=C.UTF-8 TERM=dumb "$C" run --preset workspace-write --workspace "$E" \
		--context agent_dir="$E/.agent" --context session_dir="$E/.agent/s1" \
		-- git init -q) > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	[ $rc -eq $RUN_DENIED ] && grep -q "$E/.git/config' is protected" "$tmpdir/err" &&
		[ ! -f "$E/.git/config" ]
	ok $? "$t git init in a workspace without .git is refused: .git/config is protected (status $rc)"
	[ $rc -eq $RUN_DENIED ] || diag < "$tmpdir/err"
}

for p in $passes; do
	pass "$p"
done
done_testing
