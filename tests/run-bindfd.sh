#!/bin/sh
# An approved path swapped for a symlink between the runner's check and
# bwrap's mount, under the real bwrap, as root and again as an
# unprivileged user (nobody): a process beside the command exchanges an
# approved directory with a link to the session's approvals, which no
# approval ever covers (renameat2
# RENAME_EXCHANGE, tests/helpers/swapper) while `cordon run --approved`
# launches again and again.  The runner opens what it checked without
# following any symlink and bwrap mounts that descriptor (--bind-fd), so
# the denied directory is never written, however the flips fall.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
swapper=$builddir/tests/helpers/swapper
errf=$tmpdir/stderr
chmod 755 "$tmpdir"
# How many calls race the swapper, at most, and for how long.
calls=${CORDON_RACE_CALLS:-100}
seconds=${CORDON_RACE_SECONDS:-40}
# The swapper's pause between exchanges, in microseconds.
period=${CORDON_RACE_PERIOD:-10000}

U() {
	(cd "$P/ws" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
		TZ=UTC USER=tester XDG_RUNTIME_DIR="$P/rt" "$@")
}

ctx() {
	echo "--preset workspace-write --workspace $P/ws --context home=$H --context agent_dir=$P/agent --context session_dir=$P/agent/s"
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
	runner_pass "$1" "$swapper"
	H=$P/home O=$P/out
	mkdir -p "$P/rt" "$P/agent/s/approvals" "$P/ws" "$H" "$O/tree" "$P/build"
	chmod 700 "$P/rt"
	# Protected, and never approvable: a file planted there would approve
	# whatever it names.
	A=$P/agent/s/approvals
	echo data > "$P/ws/data"
	# Files for the launch's glob masks to walk, between the check and the
	# mount: the window a swap falls into.
	mkdir -p "$P/ws/walk"
	(cd "$P/ws/walk" && seq 1 ${CORDON_RACE_FILES:-20000} | xargs touch)
	# Relative: it names the same directory on the host and in the sandbox.
	ln -s ../agent/s/approvals "$O/link"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS test -w "$P/ws"; then
		skip "$t every check" "uid $uid cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi
	# The approved copy, then a script the preview does not look into that
	# writes where a mount of the link's target would be writable.
	printf 'echo {} > %s/planted.json 2> /dev/null; true\n' "$A" > "$P/ws/try.sh"
	runner_own "$P/ws/try.sh"
	cmd="cp -r data $O/tree; sh try.sh"

	# ---- the approval as it is meant: the tree is writable ----------------------------------
	U "$C" run $(ctx) --approved --shell "$cmd" > /dev/null 2> "$errf"
	is "$?:$(cat "$O/tree/data" 2> /dev/null)" "0:data" "$t the approved tree is writable"
	rm -f "$O/tree/data"

	# ---- the race --------------------------------------------------------------------------------
	# On a slow machine the runner's check can outlast every pause of the
	# swapper and refuse every call: the race then goes on with a pause
	# ten times as long, so that some calls reach bwrap.
	n=0 wins=0 ran=0 refused=0 checked=0
	for pause in "$period" $((period * 10)); do
		[ $checked -eq 0 ] || break
		U "$P/build/swapper" "$O/tree" "$O/link" "$seconds" "$pause" > "$P/flips" 2> "$P/swapper.err" &
		swapper_pid=$!
		end=$(($(date +%s) + seconds - 2))
		k=0
		while [ $k -lt "$calls" ] && [ "$(date +%s)" -lt "$end" ]; do
			k=$((k + 1)) n=$((n + 1))
			U "$C" run $(ctx) --approved --shell "$cmd" > /dev/null 2> "$errf"
			rc=$?
			case $rc in
			0) ran=$((ran + 1)) ;;
			*) refused=$((refused + 1)) ;;
			esac
			# Approved, and past the runner's check: on to bwrap.
			grep -q "is writable for this call" "$errf" && ! grep -q "APPROVAL VOID" "$errf" &&
				checked=$((checked + 1))
			if [ -e "$A/planted.json" ] || [ -e "$A/data" ]; then
				wins=$((wins + 1))
				rm -f "$A/planted.json" "$A/data"
			fi
		done
		kill "$swapper_pid" 2> /dev/null
		wait "$swapper_pid" 2> /dev/null
	done
	echo "$t $n calls against the swapper: $checked passed the check, $ran ran, $refused refused, $wins wrote the approvals" | diag
	is "$wins" 0 "$t no call writes the protected directory the approved one was swapped for"
	is "$(ls -A "$A" | grep -v '^[0-9a-f]*\.json$')" "" "$t nothing was planted among the approvals"
	[ "$checked" -gt 0 ] && [ "$refused" -gt 0 ]
	st=$?
	ok $st "$t the race was run: some calls passed the check, some were refused ($checked, $refused)"
	[ $st -eq 0 ] || { echo "swapper: $(cat "$P/flips" 2> /dev/null) exchanges"; cat "$P/swapper.err"; } | diag
}

if [ $ready -ne 0 ]; then
	skip "the approved-path race under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi
for p in $passes; do
	pass "$p"
done
done_testing
