#!/bin/sh
# Resource limits under cordon run: real bwrap, real processes, real files.
# The shipped presets bound a sparse terabyte file and a fork bomb; a
# policy's limits bound file size, processes, open files, CPU time, address
# space and memory; a limit that cannot be applied stops the call unless it
# is best_effort.  Every check runs as root and again as an unprivileged
# user (nobody) with a workspace of its own.  Each load is bounded (a count,
# a timeout), so a limit that does not hold fails its check and ends.
. "$srcdir/tests/lib.sh"

limitprobe=$builddir/tests/helpers/limitprobe
helper=$builddir/cordon-exec
build_id=$(sed -n 's/^#define CORDON_BUILD_ID "\(.*\)"$/\1/p' "$builddir/build-id.h")
cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

# U CMD...: CMD as the pass's user, in a fixed environment, bounded in time.
U() {
	$AS timeout -s KILL 60 env -i PATH="/usr/bin:/bin" HOME="$H" LANG=C.UTF-8 "$@"
}

# hidden CMD...: U CMD in a mount namespace where /sys/fs/cgroup is an
# empty tmpfs: no cgroup to be had (root only).
hidden() {
	unshare -m sh -c 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"' hide \
		$AS timeout -s KILL 60 env -i PATH="/usr/bin:/bin" HOME="$H" LANG=C.UTF-8 "$@"
}

# run [-h] PRESET ARGS...: cordon run on $WS as the pass's user ($POLICY
# names the policy); $rc, $out, stderr in $errf.  -h: with the cgroups hidden.
run() {
	how=U
	if [ "$1" = -h ]; then
		how=hidden
		shift
	fi
	preset=$1
	shift
	out=$($how "$C" run $POLICY --preset "$preset" --workspace "$WS" --context home="$H" \
		--timeout 30 "$@" 2> "$errf")
	rc=$?
}
ww() { POLICY= run workspace-write "$@"; }
tp() { POLICY="-p $POL" run "$@"; }

size_of() { # size_of FILE: its apparent size, 0 when missing
	if [ -e "$1" ]; then stat -c %s "$1"; else echo 0; fi
}

gone() { # gone PATTERN: no process matches, within 3 s
	i=0
	while pgrep -f "$1" > /dev/null && [ $i -lt 60 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	! pgrep -f "$1" > /dev/null
}

started_of() { # started_of "started=K failed=F": K
	echo "$1" | sed -n 's/^started=\([0-9]*\) .*/\1/p'
}

# cgroup_has CONTROLLER: `cordon probe` (as the pass's user) found a cgroup
# with it: "limits:    cgroup v1 (pids, memory): ..."
cgroup_has() {
	case $cgroups in *"($1"[,\)]* | *", $1)"*) true ;; *) false ;; esac
}

cat > "$tmpdir/limits.cordon" << 'EOF'
cordon 1;

preset "small" {
  sandbox required;
  read  "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec  "*" allow;
  limits {
    processes 40;
    open_files 64;
    file_size 1M;
    cpu_time 1s;
    address_space 1G;
  }
}

preset "memory" extends "small" {
  limits { memory 64M; processes unlimited; address_space unlimited; }
}

preset "memory-best-effort" extends "small" {
  limits { memory 64M best_effort; processes 40 best_effort; address_space unlimited; }
}

preset "processes-best-effort" extends "small" {
  limits { processes 40 best_effort; }
}

preset "none" {
  sandbox none;
  read "/**" allow;
  write "/**" allow;
  exec "*" allow;
  limits { file_size 1M; }
}

preset "none-processes" extends "none" {
  limits { processes 100 best_effort; }
}
EOF
chmod 644 "$tmpdir/limits.cordon"
POL=$tmpdir/limits.cordon

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
ready=$?
diag < "$tmpdir/probe"

pass() { # pass NAME
	runner_pass "$1" "$limitprobe"
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H" "$P/build"
	probe=$P/build/limitprobe
	runner_own "$P"
	cgroups=$(U "$C" probe 2> /dev/null | sed -n 's/^limits: *//p')
	diag <<- DIAG
		limits for $name: $cgroups
	DIAG

	# ---- the shipped presets: a sparse terabyte file, a fork bomb --------------------------
	ww -- "$probe" sparse "$WS/big" 1099511627776
	sz=$(size_of "$WS/big")
	[ "$out" = EFBIG ] && [ "$sz" -lt 8589934592 ]
	ok $? "$t workspace-write: a 1 TB sparse file fails ($out, exit $rc) and none is left (size $sz)"
	rm -f "$WS/big"
	ww -- "$probe" spawn 1100 2
	n=$(started_of "$out")
	[ -n "$n" ] && [ "$n" -lt 1024 ] && [ "$n" -gt 100 ]
	ok $? "$t workspace-write: a loop of 1100 forks is cut off below 1024 ($out, exit $rc)"
	gone "$P/build/limitprobe spawn"
	ok $? "$t and none of them outlives the call"
	U sh -c 'true & wait'
	ok $? "$t the machine still forks for this user afterwards"

	# ---- each limit of a policy ------------------------------------------------------------
	tp small -- "$probe" write "$WS/f" 5000000
	is "$out:$(size_of "$WS/f")" "EFBIG after 1048576 bytes:1048576" \
		"$t file_size 1M: a write past it fails with EFBIG"
	rm -f "$WS/f"
	tp small -- sh -c "head -c 5000000 /dev/zero > '$WS/g'"
	sz=$(size_of "$WS/g")
	[ $rc -eq 153 ] && [ "$sz" -le 1048576 ]
	ok $? "$t file_size 1M: a shell redirect dies of SIGXFSZ (exit $rc) at $sz bytes"
	rm -f "$WS/g"
	tp small -- "$probe" spawn 200 1
	n=$(started_of "$out")
	[ -n "$n" ] && [ "$n" -lt 40 ] && [ "$n" -gt 0 ]
	ok $? "$t processes 40: a loop of 200 forks is bounded ($out)"
	gone "$P/build/limitprobe spawn"
	ok $? "$t and nothing of it is left"
	tp small -- "$probe" open 200
	n=$(echo "$out" | sed -n 's/^opened=//p')
	[ -n "$n" ] && [ "$n" -lt 64 ] && [ "$n" -gt 0 ]
	ok $? "$t open_files 64: opening 200 files stops below 64 ($out)"
	start=$(date +%s)
	# A spin of two minutes: stopped well before its end on any load.
	tp small -- "$probe" spin 120
	took=$(($(date +%s) - start))
	{ [ $rc -eq 152 ] || [ $rc -eq 137 ]; } && [ -z "$out" ] && [ $took -lt 90 ]
	ok $? "$t cpu_time 1s: a busy loop is killed (exit $rc after ${took}s)"
	tp small -- "$probe" alloc 2000000000
	is "$out:$rc" "ENOMEM:1" "$t address_space 1G: a 2 GB allocation fails"
	tp small -- "$probe" alloc 100000000
	is "$out:$rc" "ok:0" "$t address_space 1G: 100 MB still works"
	tp none -- "$probe" write "$WS/n" 5000000
	is "$out:$(size_of "$WS/n")" "EFBIG after 1048576 bytes:1048576" \
		"$t sandbox none: the limits hold without a sandbox too"
	rm -f "$WS/n"

	# The command cannot move itself out of the call's cgroup: inside, the
	# cgroup file systems are read-only.
	cat > "$WS/escape.sh" << 'EOF'
for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do
	[ -e "$f" ] || continue
	if (echo $$ > "$f") 2> /dev/null; then echo "moved to $f"; else echo refused; fi
done
EOF
	runner_own "$WS/escape.sh"
	tp small -- sh "$WS/escape.sh"
	case $rc:$out in 0:*refused*) ! echo "$out" | grep -q moved ;; *) false ;; esac
	ok $? "$t the command cannot move itself out of the call's cgroup ($(echo $out))"
	rm -f "$WS/escape.sh"

	# Without a sandbox no pid namespace ends the call's processes; its
	# cgroup does, when there is one.
	if cgroup_has pids; then
		tp none-processes -- sh -c "setsid sleep 4321.$$ > /dev/null 2>&1 < /dev/null &"
		gone "sleep 4321.$$"
		ok $? "$t sandbox none: a daemon the command leaves behind dies with the call's cgroup"
	else
		skip "$t sandbox none: the call's cgroup ends its daemons" "no writable pids cgroup for uid $uid"
	fi
	pkill -f "sleep 4321.$$"

	# ---- memory: a cgroup, or the call does not run ----------------------------------------
	if cgroup_has memory; then
		tp memory -- "$probe" alloc 300000000
		[ $rc -eq 137 ] && [ -z "$out" ]
		ok $? "$t memory 64M: a 300 MB allocation is killed in the call's cgroup (exit $rc)"
		tp memory -- "$probe" alloc 30000000
		is "$out:$rc" "ok:0" "$t memory 64M: 30 MB still works"
	else
		skip "$t memory 64M in a cgroup" "no writable cgroup with the memory controller for uid $uid"
		tp memory -- sh -c ": > '$WS/ran'"
		[ $rc -eq 125 ] && grep -q "memory limit needs a cgroup" "$errf" && [ ! -e "$WS/ran" ]
		ok $? "$t memory 64M where no cgroup can be had: exit $rc, the command never runs"
		rm -f "$WS/ran"
	fi
	if [ "$(id -u)" -eq 0 ]; then
		tp -h memory -- sh -c ": > '$WS/ran'"
		[ $rc -eq 125 ] && grep -q "memory limit needs a cgroup" "$errf" && [ ! -e "$WS/ran" ]
		ok $? "$t memory 64M without a cgroup: exit $rc, the command never runs ($(head -1 "$errf"))"
		rm -f "$WS/ran"
		tp -h memory-best-effort -- "$probe" alloc 30000000
		is "$out:$rc" "ok:0" "$t memory best_effort without a cgroup: the call runs"
	fi

	# ---- processes without a cgroup --------------------------------------------------------
	# Root has nothing left to count processes with; an unprivileged user
	# still has RLIMIT_NPROC, counted in the sandbox's own user namespace.
	if [ "$(id -u)" -eq 0 ]; then
		tp -h small -- "$probe" spawn 200 1
		if [ "$uid" -eq 0 ]; then
			[ $rc -eq 125 ] && [ -z "$out" ] && grep -q "RLIMIT_NPROC does not bind root" "$errf"
			ok $? "$t processes without a cgroup: root fails closed (exit $rc: $(head -1 "$errf"))"
		else
			n=$(started_of "$out")
			[ -n "$n" ] && [ "$n" -lt 40 ] && [ "$n" -gt 0 ]
			ok $? "$t processes without a cgroup: RLIMIT_NPROC bounds the loop ($out)"
		fi
		tp -h processes-best-effort -- "$probe" spawn 10 1
		is "$out" "started=10 failed=0" "$t processes best_effort without a cgroup: the call runs"
	fi
	if [ "$uid" -ne 0 ]; then
		# The user's other processes do not use up the call's count.
		U sh -c 'i=0; while [ $i -lt 60 ]; do sleep 4 & i=$((i + 1)); done; wait' &
		bg=$!
		sleep 0.5
		tp small -- "$probe" spawn 10 1
		is "$out" "started=10 failed=0" "$t processes 40 counts the call's processes, not the user's 60 others"
		wait $bg
	fi

	# ---- the launch waits for its plan --------------------------------------------------------
	# The launch is forked (and joins the call's cgroups) before cordon
	# makes the plan, and runs nothing until cordon sends it whole.  A lock
	# held on the workspace's .git stops cordon where it fences the missing
	# .git/hooks; killed there, cordon leaves a launch that must die with it
	# without running the command.
	mkdir -p "$WS/.git"
	runner_own "$WS/.git"
	flock -x "$WS/.git" sleep 60 &
	holder=$!
	sleep 0.2
	U "$C" run --preset workspace-write --workspace "$WS" --context home="$H" -- \
		sh -c ": > '$WS/ran-early'; : early.$$" > /dev/null 2>&1 &
	main= launch= i=0
	while [ -z "$launch" ] && [ $i -lt 100 ]; do
		for q in $(pgrep -f "early[.]$$"); do
			pp=$(awk '/^PPid:/ { print $2 }' "/proc/$q/status" 2> /dev/null)
			[ -n "$pp" ] && [ "$(cat "/proc/$q/comm" 2> /dev/null)" = cordon ] &&
				[ "$(cat "/proc/$pp/comm" 2> /dev/null)" = cordon ] && main=$pp launch=$q
		done
		[ -z "$launch" ] && sleep 0.05
		i=$((i + 1))
	done
	if [ -n "$launch" ]; then
		if cgroup_has pids; then
			grep -q "cordon-$main-" "/proc/$launch/cgroup"
			ok $? "$t the launch waiting for its plan has joined the call's cgroup already"
		else
			skip "$t the waiting launch is in the call's cgroup" "no writable pids cgroup for uid $uid"
		fi
		kill -KILL "$main"
		i=0
		while [ -e "/proc/$launch" ] && [ "$(cat "/proc/$launch/stat" 2> /dev/null | awk '{ print $3 }')" != Z ] &&
			[ $i -lt 60 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		{ [ ! -e "/proc/$launch" ] || [ "$(awk '{ print $3 }' "/proc/$launch/stat" 2> /dev/null)" = Z ]; } &&
			[ ! -e "$WS/ran-early" ]
		ok $? "$t cordon killed while it makes the plan: the waiting launch dies with it, the command never runs"
		for g in /sys/fs/cgroup/*/cordon-"$main"-* /sys/fs/cgroup/*/*/*/cordon-"$main"-* \
			/sys/fs/cgroup/cordon-"$main"-*; do
			[ -d "$g" ] && rmdir "$g" 2> /dev/null
		done
	else
		ok 1 "$t cordon run forks its launch before the plan is made (no launch seen while cordon fences)"
	fi
	kill "$holder" 2> /dev/null
	wait "$holder" 2> /dev/null
	rm -f "$WS/ran-early"

	# A cgroup that a killed call left, named after the pid a later call
	# gets, does not stop that call: it takes the next name.
	rel=$(sed -n 's/^[0-9]*:pids:\(.*\)$/\1/p' /proc/self/cgroup)
	if [ -z "$AS" ] && [ "$uid" -eq 0 ] && cgroup_has pids && [ -n "$rel" ] &&
		[ -w "/sys/fs/cgroup/pids${rel%/}" ]; then
		out=$(sh -c 'mkdir "$1/cordon-$$-0" && echo "$1/cordon-$$-0" > "$2" || exit 99
			shift 2; exec "$@"' sh "/sys/fs/cgroup/pids${rel%/}" "$tmpdir/stale-cgroup" \
			"$C" run -p "$POL" --preset small --workspace "$WS" --context home="$H" \
			--timeout 30 -- echo ran 2> "$errf")
		rc=$?
		is "$rc:$out" "0:ran" "$t a cgroup a killed call left under this pid does not stop the call ($(head -1 "$errf"))"
		[ -s "$tmpdir/stale-cgroup" ] && rmdir "$(cat "$tmpdir/stale-cgroup")"
	else
		skip "$t a cgroup left under this pid" "not root, or no cgroup v1 pids hierarchy here"
	fi
}

# cordon-exec on its own: it sets what it is given, and refuses what it
# cannot read rather than running without it.
got=$("$helper" --build-id "$build_id" --status-fd 3 --rlimit NOFILE=50 --rlimit CPU=7 -- sh -c 'ulimit -n; ulimit -t; ulimit -Ht' 3> /dev/null | tr '\n' ' ')
is "$got" "50 7 8 " "cordon-exec --rlimit sets the soft limits, and CPU's hard limit a second later"
for bad in NOFILE=abc NOFILE=0 NOFILE=-1 BOGUS=1 NOFILE; do
	"$helper" --build-id "$build_id" --status-fd 3 --rlimit "$bad" -- sh -c ': > "$1"' sh "$tmpdir/ran" 3> /dev/null 2> "$errf"
	rc=$?
	[ $rc -eq 125 ] && [ ! -e "$tmpdir/ran" ] && grep -q SANDBOX_UNAVAILABLE "$errf"
	ok $? "cordon-exec --rlimit $bad: exit $rc, the command does not run"
done

if [ $ready -ne 0 ]; then
	skip "resource limits under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi
for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
