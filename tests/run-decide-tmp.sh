#!/bin/sh
# cordon run decides a command once, with ${tmp} already the path of the
# call's temp dir; a command not allowed so is decided as `cordon eval`
# decides it, without ${tmp}.  Real bwrap, real processes; as root and
# again as nobody.
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	diag < "$tmpdir/probe"
	skip "decisions with \${tmp}" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi

# call SH: cordon run of the shell command SH in the workspace; $rc, $out,
# stderr in $P/err.
call() {
	out=$($AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$C" run \
		--preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/sessions/s1" \
		--shell "$1" 2> "$P/err")
	rc=$?
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS/.agent" "$WS/.git/hooks" "$H/.ssh"
	echo "KEY-$name" > "$H/.ssh/id_ed25519"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > /dev/null 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	call 'echo made > "$TMPDIR/f" && cat "$TMPDIR/f"'
	[ "$rc" -eq 0 ] && [ "$out" = made ]
	ok $? "$t a command that uses its temp dir runs"

	# Decided with ${tmp} known this asks (a write outside the write roots);
	# decided as eval decides it, without ${tmp}, it is allowed, as before.
	call 'rm -rf "$TMPDIR/../../cordon-test-none"'
	is "$rc" 0 "$t a command allowed without \${tmp} runs, as eval decides it"

	call "cat '$H/.ssh/id_ed25519'"
	[ "$rc" -eq $RUN_DENIED ] && grep -q "DENIED" "$P/err" && [ -z "$out" ]
	ok $? "$t a denied command is refused"

	call "echo x > '$P/outside'"
	[ "$rc" -eq $RUN_ASK ] && grep -q "NEEDS APPROVAL" "$P/err" && [ ! -e "$P/outside" ]
	ok $? "$t a command that needs approval is refused"
	hint=$(grep "cordon approve exec" "$P/err")
	case $hint in
	*"context tmp="* | "") ok 1 "$t and the approval it names binds no \${tmp}" ;;
	*) ok 0 "$t and the approval it names binds no \${tmp}" ;;
	esac
}

passes=self
if [ "$(id -u)" -eq 0 ]; then
	passes=root
	command -v setpriv > /dev/null && passes="root nobody"
fi
for p in $passes; do
	pass "$p"
done
done_testing
