#!/bin/sh
# What a killed call leaves in the runner dir (its temp dir, mask file and
# lock) is removed by the next call of the user, and never the temp dir of a
# call that still runs, nor one without a lock.  Real bwrap, real processes;
# as root and again as nobody.
. "$srcdir/tests/lib.sh"

probe=$builddir/tests/helpers/runprobe
helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

wait_for() { # wait_for FILE: until it exists and is not empty, at most 10 s
	i=0
	while [ ! -s "$1" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s "$1" ]
}

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	diag < "$tmpdir/probe"
	skip "stale temp dirs" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi

# R CMD...: CMD as the pass's user, in a fixed environment.
R() {
	$AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@"
}
# call SH: cordon run of the shell command SH in the workspace.  With
# exec in a background subshell, $! is cordon's own pid.
call() {
	exec $AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$C" run \
		--preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/sessions/s1" \
		--shell "$1"
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS/.agent" "$WS/.git/hooks" "$H"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > /dev/null 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	# A call killed while its command runs leaves its temp dir behind.
	(call 'echo "$TMPDIR" > '"$WS"'/killed; echo kept > "$TMPDIR/f"; exec sleep 60' \
		> /dev/null 2>&1) &
	killed_pid=$!
	wait_for "$WS/killed"
	dead=$(cat "$WS/killed")
	sleep 0.2
	kill -KILL "$killed_pid"
	wait "$killed_pid" 2> /dev/null
	[ -n "$dead" ] && [ -d "$dead" ] && [ -f "$dead/f" ] && [ -f "$dead.lock" ]
	ok $? "$t a call killed with SIGKILL leaves its temp dir and its lock behind"

	# A temp dir without a lock (an older cordon's) is not the sweep's to judge.
	runner=${dead%/*}
	R mkdir "$runner/call-nolock"

	# A live call: its temp dir must survive the sweep of another.
	(call 'echo "$TMPDIR" > '"$WS"'/live; echo before > "$TMPDIR/g";
		while [ ! -e '"$WS"'/go ]; do sleep 0.05; done;
		cat "$TMPDIR/g" > '"$WS"'/live-out' > /dev/null 2>&1) &
	live_pid=$!
	wait_for "$WS/live"
	live=$(cat "$WS/live")

	(call 'true')
	ok $? "$t the next call runs"
	[ ! -e "$dead" ] && [ ! -e "$dead.lock" ] && [ ! -e "$dead.mask" ]
	ok $? "$t and it removed the killed call's temp dir, mask file and lock"
	[ -d "$live" ] && [ -f "$live/g" ] && [ -f "$live.lock" ]
	ok $? "$t but not the temp dir of the call that still runs"
	[ -d "$runner/call-nolock" ]
	ok $? "$t nor a temp dir without a lock"

	R touch "$WS/go"
	wait "$live_pid"
	ok $? "$t the live call ends well"
	is "$(cat "$WS/live-out" 2> /dev/null)" before "$t with what it kept in its temp dir"
	[ ! -e "$live" ] && [ ! -e "$live.lock" ]
	ok $? "$t and its end removes its temp dir and its lock"

	# What the command made unreadable or unwritable in its temp dir goes
	# too: an unprivileged runner cannot list a mode-000 directory or
	# unlink in a mode-500 one until it gives itself the right again.
	(call 'echo "$TMPDIR" > '"$WS"'/locked; mkdir -p "$TMPDIR/a/b/c" "$TMPDIR/r/s";
		echo x > "$TMPDIR/a/b/c/f"; echo y > "$TMPDIR/r/s/g";
		chmod 000 "$TMPDIR/a/b" "$TMPDIR/a"; chmod 500 "$TMPDIR/r/s" "$TMPDIR/r"') \
		> /dev/null 2>&1
	ok $? "$t a call that locks its own temp dir runs"
	locked=$(cat "$WS/locked")
	[ -n "$locked" ] && [ ! -e "$locked" ] && [ ! -e "$locked.lock" ]
	ok $? "$t and its end removes that temp dir all the same"

	# A lock file that is a symlink is not followed, nor is its target removed.
	R mkdir "$P/victim"
	R ln -s "$P/victim" "$runner/call-planted.lock"
	R ln -s "$P/victim" "$runner/call-planted"
	(call 'true')
	[ -d "$P/victim" ] && [ -L "$runner/call-planted.lock" ]
	ok $? "$t a lock that is a symlink is left alone, and what it points to"
	rm -f "$runner/call-planted.lock" "$runner/call-planted"
	rmdir "$runner/call-nolock"
}

passes=root
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv > /dev/null && passes="root nobody"
else
	passes=self
fi
for p in $passes; do
	pass "$p"
done
case $passes in
root) [ "$(id -u)" -eq 0 ] && skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
