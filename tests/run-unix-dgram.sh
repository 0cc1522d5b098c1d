#!/bin/sh
# A datagram socket of the host's (a /dev/log, a journald, any daemon's)
# stays out of reach of cordon run without net "unix": under the real
# bwrap, Landlock and seccomp, as root and again as an unprivileged user
# (nobody).  The host's socket is the test's own, bound by the user that
# runs the suite (root: a root-owned 0666 socket, as /dev/log is) outside
# the workspace, and a second one inside it.  From inside, every spelling
# of an AF_UNIX socket (socket and socketpair; stream, dgram, raw, rdm,
# seqpacket, packet and unknown types; with and without SOCK_NONBLOCK |
# SOCK_CLOEXEC) tries to send it a message and a descriptor (SCM_RIGHTS).
# The kernel makes SOCK_RAW on AF_UNIX a datagram socket, so a filter
# that refused only SOCK_DGRAM let socketpair(AF_UNIX, SOCK_RAW) through.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
dprobe=$builddir/tests/helpers/dgramprobe
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

skip_unless_sandbox "$cordon_bin" "host datagram sockets under cordon run"
passes=$(runner_passes)

# Every spelling: CALL:TYPE[+flags].
spellings=
for call in socket socketpair; do
	for type in stream dgram raw rdm seqpacket packet 0 6 15; do
		spellings="$spellings $call:$type $call:$type+flags"
	done
done
# What reaches a datagram socket from outside: a datagram socket, made as
# SOCK_DGRAM or SOCK_RAW, by socket or socketpair.
reach=
for call in socket socketpair; do
	for type in dgram raw; do
		reach="$reach $call:$type $call:$type+flags"
	done
done
reach_log=$(for s in $reach; do echo "$s fd"; done | sort)

cat > "$tmpdir/unix.cordon" << 'EOF'
cordon 1;
env { keep PATH, HOME, LANG; set TMPDIR = "${tmp}"; }
preset "ws" {
  sandbox required;
  read  "/**" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  net   "*" deny;
  exec  "*" allow;
}
preset "ws-unix" extends "ws" {
  net "unix" allow;
}
EOF
chmod 644 "$tmpdir/unix.cordon"

wait_for() { # wait_for FILE: until it exists, at most 5 s
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e "$1" ]
}

lines() { # lines FILE: how many lines, 0 when missing
	if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}

# U CMD...: CMD as the pass's user, in a fixed environment, bounded in time.
U() {
	$AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@"
}

# run PRESET ARGS...: cordon run of the default policy's workspace-write
# (PRESET -) or a preset of the test policy, ARGS after the call's own
# options; $rc, $out, stderr in $errf.
run() {
	preset=$1
	shift
	if [ "$preset" = - ]; then
		policy="--preset workspace-write"
	else
		policy="-p $tmpdir/unix.cordon --preset $preset"
	fi
	# shellcheck disable=SC2086
	out=$(U "$C" run $policy --workspace "$WS" --context home="$H" \
		--context agent_dir="$H/.cordon" --context session_dir="$H/.cordon/s" "$@" 2> "$errf")
	rc=$?
}

# refused_all OUT SPELLINGS...: each spelling's line of OUT says EPERM.
refused_all() {
	o=$1
	shift
	for s in "$@"; do
		echo "$o" | grep -qx -- "$s EPERM" || { echo "$s: $(echo "$o" | grep -- "^$s ")"; }
	done
}

pass() { # pass NAME
	runner_pass "$1" "$dprobe"
	WS=$P/ws H=$P/home O=$P/host
	mkdir -p "$WS" "$H" "$O" "$P/build"
	D=$P/build/dgramprobe
	runner_own "$WS" "$H"
	if [ -n "$AS" ] && ! $AS test -w "$WS" -a -x "$C"; then
		skip "$t every check" "uid $uid cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi

	# The host's datagram sockets, bound by the suite's own user: one
	# outside the workspace, reached by its path through the read-only
	# host, and one in the workspace, where the sandbox may write.
	"$dprobe" listen "$O/log.sock" "$O/log" 60 > /dev/null 2>&1 &
	out_pid=$!
	"$dprobe" listen "$WS/ws.sock" "$O/ws.log" 60 > /dev/null 2>&1 &
	ws_pid=$!
	if ! wait_for "$O/log.sock.ready" || ! wait_for "$WS/ws.sock.ready"; then
		skip "$t every check" "the host's datagram sockets did not start"
		kill $out_pid $ws_pid 2> /dev/null
		wait $out_pid $ws_pid 2> /dev/null
		return
	fi
	rm -f "$WS/ws.sock.ready"

	# ---- control: from outside, a datagram socket reaches them ----------------------------
	# shellcheck disable=SC2086
	U "$D" send "$O/log.sock" $spellings > "$P/control" 2>&1
	is "$(sort "$O/log")" "$reach_log" \
		"$t control: from outside, a message and a descriptor reach the host's datagram socket by $(echo $reach | sed 's/ /, /g')"
	: > "$O/log"

	# ---- from inside, no spelling reaches it -----------------------------------------------
	# shellcheck disable=SC2086
	run - -- "$D" send "$O/log.sock" $spellings
	echo "$out" | grep -q '^socketpair:stream '
	ok $? "$t the probe ran inside (exit $rc)"
	[ $rc -eq 0 ] || diag < "$errf"
	is "$(lines "$O/log")" 0 \
		"$t nothing reaches the host's datagram socket from inside, by any spelling ($(cat "$O/log" | tr '\n' ' '))"
	# shellcheck disable=SC2086
	is "$(refused_all "$out" $(echo $spellings | tr ' ' '\n' |
		grep -v -e '^socketpair:stream' -e '^socketpair:seqpacket'))" "" \
		"$t every AF_UNIX socket is refused (EPERM) but a stream or seqpacket pair"
	for s in socketpair:stream socketpair:stream+flags socketpair:seqpacket \
		socketpair:seqpacket+flags; do
		line=$(echo "$out" | grep -- "^$s ")
		case $line in "$s ok" | "$s EISCONN" | "$s EOPNOTSUPP") true ;; *) false ;; esac
		ok $? "$t $s is made, and reaches only its peer ($line)"
	done

	# ---- another spelling: a script the analysis cannot see, in another language ----------
	# Python's socketpair with SOCK_RAW|SOCK_NONBLOCK, to the socket in the
	# workspace.
	if [ -x /usr/bin/python3 ]; then
		cat > "$WS/send.py" << 'EOF'
import os, socket, sys
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW | socket.SOCK_NONBLOCK)
    a.sendmsg([b"python raw"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(4))], 0, sys.argv[1])
    print("sent")
except OSError as e:
    print("refused", e.errno)
EOF
		runner_own "$WS/send.py"
		run - -- sh -c "/usr/bin/python3 '$WS/send.py' '$WS/ws.sock'"
		is "$out:$(lines "$O/ws.log")" "refused 1:0" \
			"$t python3: socketpair(AF_UNIX, SOCK_RAW|SOCK_NONBLOCK) to a socket in the workspace is refused (EPERM)"
		run ws-unix -- /usr/bin/python3 "$WS/send.py" "$WS/ws.sock"
		is "$out:$(cat "$O/ws.log")" "sent:python raw fd" \
			"$t control: with net \"unix\" allow it reaches that socket, descriptor and all"
	else
		skip "$t python3: socketpair(AF_UNIX, SOCK_RAW|SOCK_NONBLOCK)" "no /usr/bin/python3"
	fi

	# ---- the same refusal from a policy of its own; net "unix" allow opens it -------------
	run ws -- "$D" send "$O/log.sock" socketpair:raw socket:dgram+flags
	is "$out:$(lines "$O/log")" "socketpair:raw EPERM
socket:dgram+flags EPERM:0" "$t a policy without net \"unix\" refuses them too"
	run ws-unix -- "$D" send "$O/log.sock" socketpair:raw socket:dgram+flags
	is "$out:$(sort "$O/log" | tr '\n' '|')" "socketpair:raw ok
socket:dgram+flags ok:socket:dgram+flags fd|socketpair:raw fd|" \
		"$t control: with net \"unix\" allow both reach the host's socket through the sandbox's mounts"

	kill $out_pid $ws_pid 2> /dev/null
	wait $out_pid $ws_pid 2> /dev/null
}

for p in $passes; do
	pass "$p"
done
done_testing
