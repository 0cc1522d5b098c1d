#!/bin/sh
# cordon run -- ARGV decides on the argv that runs: its words exactly, the
# wrappers looked through and a `sh -c STRING` inside analysed as shell.
# Under the real bwrap, with a real git and a real bare repository; every
# check runs as root and again as an unprivileged user (nobody) with a
# workspace of its own; run by an ordinary user, one pass as that user.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

# U CMD...: CMD as the pass's user, with a fixed environment, bounded in time.
U() {
	$AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 LC_ALL=C.UTF-8 \
		TERM=dumb TZ=UTC "$@"
}

# ww ARGS...: cordon run --preset workspace-write on the pass's repository;
# $rc, $out, stderr in $errf.
ww() {
	out=$(cd "$WS" && U "$C" run --preset workspace-write --workspace "$WS" \
		--context home="$H" --context agent_dir="$H/.cordon" \
		--context session_dir="$H/.cordon/sessions/s1" "$@" 2> "$errf")
	rc=$?
}

# pushed: the bare repository has a master branch (a push reached it).
pushed() {
	U git --git-dir="$WS/.remote.git" rev-parse -q --verify refs/heads/master > /dev/null 2>&1
}

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
ready=$?
diag < "$tmpdir/probe"
if [ $ready -ne 0 ] || ! command -v git > /dev/null; then
	why=$(grep -E 'missing|refused|UNAVAILABLE' "$tmpdir/probe" | head -1)
	skip "cordon run -- ARGV under bwrap" "${why:-no git to push with}"
	done_testing
	exit
fi

if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H/.cordon"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS test -w "$WS"; then
		skip "$t every check" "uid 65534 cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi
	# A repository with one commit, a staged change and an empty bare
	# repository to push to, all the pass's user's own.
	(cd "$WS" && U git init -q -b master . && U git config user.name cordon &&
		U git config user.email cordon@example.invalid && echo a > a.txt &&
		U git add a.txt && U git commit -q -m first && echo b >> a.txt &&
		U git add a.txt && U git init -q --bare .remote.git) > /dev/null 2>&1
	runner_own "$P"
	U git -C "$WS" rev-parse -q --verify HEAD > /dev/null && ! pushed
	ok $? "$t the repository and an empty bare repository to push to exist"

	# ---- the attack: the shell string the argv would join to hides the push --------------
	ww -- env "A='" sh -c "git push --force ./.remote.git HEAD:master #'"
	[ $rc -eq $RUN_DENIED ] && grep -q "DENIED.*force pushes rewrite shared history" "$errf" && ! pushed
	ok $? "$t env \"A='\" sh -c \"git push --force ... #'\" is refused as a force push (exit $rc) and pushes nothing"
	[ $rc -eq $RUN_DENIED ] || diag < "$errf"
	ww -- env A=1 sh -c "git push --force ./.remote.git HEAD:master"
	[ $rc -eq $RUN_DENIED ] && ! pushed
	ok $? "$t env A=1 sh -c 'git push --force ...' is refused (exit $rc)"
	ww -- timeout 30 nice git push -f ./.remote.git HEAD:master
	[ $rc -eq $RUN_DENIED ] && ! pushed
	ok $? "$t timeout 30 nice git push -f ... is refused (exit $rc)"
	ww --shell "env A=1 sh -c 'git push --force ./.remote.git HEAD:master'"
	[ $rc -eq $RUN_DENIED ] && ! pushed
	ok $? "$t the same push as a shell string is refused too (exit $rc)"

	# ---- a rule that names a program by name holds for the program run by a path ----------
	rm_path=$(command -v rm)
	printf '%s\n' 'cordon 1;' 'include "default.cordon";' \
		'preset "no-rm" extends "workspace-write" {' '  exec "rm" deny;' '}' > "$P/no-rm.cordon"
	echo keep > "$WS/victim"
	runner_own "$P/no-rm.cordon" "$WS/victim"
	ww --policy "$P/no-rm.cordon" --preset no-rm -- "$rm_path" victim
	[ $rc -eq $RUN_DENIED ] && grep -q "DENIED.*no-rm.cordon:4:3" "$errf" && [ -f "$WS/victim" ]
	ok $? "$t exec \"rm\" deny refuses $rm_path victim (exit $rc), and victim stays"
	[ $rc -eq $RUN_DENIED ] || diag < "$errf"
	ww --policy "$P/no-rm.cordon" --preset no-rm --shell "cd . && env ./../ws/../../../../../..$rm_path victim"
	[ $rc -eq $RUN_DENIED ] && [ -f "$WS/victim" ]
	ok $? "$t ... and the same by a longer path behind env in a shell string (exit $rc)"
	[ $rc -eq $RUN_DENIED ] || diag < "$errf"
	ww --policy "$P/no-rm.cordon" --preset no-rm -- "$(command -v ls)" victim
	is "$rc:$out" "0:victim" "$t while another program by its path still runs"

	# ---- harmless argv the joined string made unparseable or wrong ------------------------
	ww -- python3 -c 'print("hi")'
	is "$rc:$out" "0:hi" "$t python3 -c 'print(\"hi\")' runs"
	[ $rc -eq 0 ] || diag < "$errf"
	ww -- git commit -m 'fix: a (b); c'
	is "$rc:$(U git -C "$WS" log -1 --format=%s 2> /dev/null)" "0:fix: a (b); c" \
		"$t git commit -m 'fix: a (b); c' runs and commits that message"
	[ $rc -eq 0 ] || diag < "$errf"
	rm -f /tmp/out.cordon-argv.$$
	ww -- printf '%s\n' "x > /tmp/out.cordon-argv.$$"
	[ $rc -eq 0 ] && [ "$out" = "x > /tmp/out.cordon-argv.$$" ] && [ ! -e /tmp/out.cordon-argv.$$ ]
	ok $? "$t printf FORMAT 'x > /tmp/out' prints its argument and writes nothing (exit $rc)"
	[ $rc -eq 0 ] || diag < "$errf"
}

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
