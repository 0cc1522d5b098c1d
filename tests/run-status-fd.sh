#!/bin/sh
# cordon run --status-fd: one JSON line when the call ends, whose "ran" is
# true only when the status is the command's own, so that a host (the
# Node client) never takes cordon's refusal or failure for the command's
# exit, whatever the number: a command that exits 1, 2, 121, 122 or 126
# itself, against a broken or missing policy (1, 2), a misspelled preset
# (2), a denial (121), an ask (122).  The descriptor never reaches the
# command.  Real bwrap; as root and again as nobody.
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	diag < "$tmpdir/probe"
	skip "cordon run --status-fd" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi

# call [OPTION...] -- CMD...: cordon run with --status-fd 3 in $P/status;
# $rc, the line in $line, stderr in $P/err.
call() {
	$AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$C" run --status-fd 3 \
		--workspace "$WS" --context home="$H" --context agent_dir="$WS/.agent" \
		--context session_dir="$WS/.agent/s1" "$@" > "$P/out" 2> "$P/err" 3> "$P/status"
	rc=$?
	line=$(cat "$P/status")
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS/.agent" "$H/.ssh"
	echo "KEY-$name" > "$H/.ssh/id_ed25519"
	printf 'cordon 1;\npreset "p" { read "/**" allw; }\n' > "$P/broken.cordon"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > /dev/null 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	for s in 0 1 2 121 122 125 126; do
		call --preset workspace-write -- sh -c "exit $s"
		is "$rc $line" "$s {\"status\":$s,\"ran\":$([ $s = 125 ] && echo false || echo true),\"outcome\":\"$([ $s = 125 ] && echo sandbox-unavailable || echo exit:$s)\",\"refusals\":[]}" \
			"$t the command's own exit $s"
	done
	printf 'echo x\n' > "$WS/noexec.sh"
	call --preset workspace-write -- "$WS/noexec.sh"
	is "$rc $line" "126 {\"status\":126,\"ran\":true,\"outcome\":\"exit:126\",\"refusals\":[]}" \
		"$t a file that cannot be executed: the command's 126, not a refusal"
	call --preset workspace-write -- sh -c 'echo forged >&3'
	[ "$rc" -ne 0 ] && grep -q 'Bad file descriptor' "$P/err" &&
		[ "$line" = "{\"status\":$rc,\"ran\":true,\"outcome\":\"exit:$rc\",\"refusals\":[]}" ]
	ok $? "$t the status descriptor is not the command's"

	call -p "$P/broken.cordon" -- true
	is "$rc $line" '1 {"status":1,"ran":false,"outcome":"policy-error","refusals":[]}' "$t a broken policy"
	call -p "$P/missing.cordon" -- true
	is "$rc $line" '2 {"status":2,"ran":false,"outcome":"usage-error","refusals":[]}' "$t a missing policy"
	call --preset workspace-wrte -- true
	is "$rc $line" '2 {"status":2,"ran":false,"outcome":"refused","refusals":[]}' "$t a misspelled preset"
	call --preset workspace-write -- cat "$H/.ssh/id_ed25519"
	is "$rc $line" "$RUN_DENIED {\"status\":$RUN_DENIED,\"ran\":false,\"outcome\":\"denied\",\"refusals\":[]}" \
		"$t a denied command"
	call --preset workspace-write --shell "echo x > '$P/outside'"
	is "$rc $line" "$RUN_ASK {\"status\":$RUN_ASK,\"ran\":false,\"outcome\":\"needs-approval\",\"refusals\":[]}" \
		"$t a command that needs approval"
	[ ! -e "$P/outside" ]
	ok $? "$t and it did not run"
}

"$cordon_bin" run --status-fd 1 -- true > /dev/null 2> "$tmpdir/err"
is "$?:$(head -1 "$tmpdir/err")" "2:cordon: --status-fd expects a descriptor number from 3 up, not '1'" \
	"--status-fd 1 is refused"
"$cordon_bin" run --status-fd 9 -- true 2> "$tmpdir/err"
is "$?:$(head -1 "$tmpdir/err")" "2:cordon: --status-fd 9 is not an open descriptor" \
	"a descriptor that is not open is refused"

passes=self
if [ "$(id -u)" -eq 0 ]; then
	passes=root
	command -v setpriv > /dev/null && passes="root nobody"
fi
for p in $passes; do
	pass "$p"
done
done_testing
