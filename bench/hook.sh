#!/usr/bin/env bash
# The CPU time of `cordon hook claude` against `cordon --version`.
#
#   bench/hook.sh [-c CORDON] [-n CALLS]
#
# A hook call is a process that starts, reads the policy (the embedded
# one: no -p), checks it, builds the evaluator, decides one event and
# answers; --version is the same process start and nothing else.  The
# event is a Bash tool call (`git status && make -j2`) in a temporary
# directory.  It runs CALLS of each (default 200) in blocks of 20,
# alternating, each block under bash's `time` (the shell's forks are in
# both), and prints the CPU time a call and the ratio.  The target is a
# ratio of 1.5.  It reports; it does not gate.
set -eu
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
cordon=$here/../cordon
calls=200
while getopts c:n: o; do
	case $o in
	c) cordon=$OPTARG ;;
	n) calls=$OPTARG ;;
	*) echo "usage: $0 [-c CORDON] [-n CALLS]" >&2; exit 2 ;;
	esac
done
[ -x "$cordon" ] || { echo "$0: no cordon at $cordon" >&2; exit 2; }
case $calls in ''|*[!0-9]*) echo "$0: -n wants a number" >&2; exit 2 ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && make -j2"},"tool_use_id":"t"}\n' \
	"$dir" > "$dir/event.json"
"$cordon" hook claude < "$dir/event.json" | grep -q permissionDecision ||
	{ echo "$0: cordon hook gave no decision" >&2; exit 1; }

TIMEFORMAT='%3U %3S'
block() { # block WHAT: the CPU seconds of 20 calls
	local t
	if [ "$1" = version ]; then
		t=$({ time for ((i = 0; i < 20; i++)); do "$cordon" --version > /dev/null; done; } 2>&1)
	else
		t=$({ time for ((i = 0; i < 20; i++)); do
			"$cordon" hook claude < "$dir/event.json" > /dev/null; done; } 2>&1)
	fi
	awk -v t="$t" 'BEGIN { split(t, x, " "); print x[1] + x[2] }'
}
v=0 h=0
for ((k = 0; k < (calls + 19) / 20; k++)); do
	v=$(awk -v a="$v" -v b="$(block version)" 'BEGIN { print a + b }')
	h=$(awk -v a="$h" -v b="$(block hook)" 'BEGIN { print a + b }')
done
awk -v v="$v" -v h="$h" -v n="$(((calls + 19) / 20 * 20))" 'BEGIN {
	printf "cordon --version  %6.2f ms CPU a call\n", v * 1000 / n
	printf "cordon hook       %6.2f ms CPU a call\n", h * 1000 / n
	printf "hook / --version  %6.2f x (target <= 1.50): %s\n", h / v, h / v <= 1.5 ? "met" : "MISSED"
}'
