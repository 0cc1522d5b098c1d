#!/usr/bin/env bash
# The CPU time of `cordon hook claude` against `cordon --version`.
#
#   bench/hook.sh [-c CORDON] [-b BEFORE] [-n CALLS]
#
# A hook call is a process that starts, reads the policy (the embedded
# one: no -p), checks it, builds the evaluator, decides one event and
# answers; --version is the same process start and nothing else.  The
# event is a Bash tool call (`git status && make -j2`) in a temporary
# directory.  It runs CALLS of each (default 200) in blocks of 20,
# alternating, each block under bash's `time` (the shell's forks are in
# both), and prints the median CPU time a call over the blocks, the
# total's, and their ratios.  -b BEFORE times another build's hook in the
# same rounds (its --version is the same process start), for a ratio of
# the two under one load.  The target is a ratio of 1.5.  It reports; it
# does not gate.
set -eu
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
cordon=$here/../cordon
calls=200
before=
while getopts b:c:n: o; do
	case $o in
	b) before=$OPTARG ;;
	c) cordon=$OPTARG ;;
	n) calls=$OPTARG ;;
	*) echo "usage: $0 [-c CORDON] [-b BEFORE] [-n CALLS]" >&2; exit 2 ;;
	esac
done
[ -x "$cordon" ] || { echo "$0: no cordon at $cordon" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "$0: no cordon at $before" >&2; exit 2; }
case $calls in ''|*[!0-9]*) echo "$0: -n wants a number" >&2; exit 2 ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && make -j2"},"tool_use_id":"t"}\n' \
	"$dir" > "$dir/event.json"
"$cordon" hook claude < "$dir/event.json" | grep -q permissionDecision ||
	{ echo "$0: cordon hook gave no decision" >&2; exit 1; }

TIMEFORMAT='%3U %3S'
block() { # block WHAT BINARY: the CPU seconds of 20 calls
	local t
	if [ "$1" = version ]; then
		t=$({ time for ((i = 0; i < 20; i++)); do "$2" --version > /dev/null; done; } 2>&1)
	else
		t=$({ time for ((i = 0; i < 20; i++)); do
			"$2" hook claude < "$dir/event.json" > /dev/null; done; } 2>&1)
	fi
	awk -v t="$t" 'BEGIN { split(t, x, " "); print x[1] + x[2] }'
}
: > "$dir/blocks"
for ((k = 0; k < (calls + 19) / 20; k++)); do
	echo "version $(block version "$cordon")" >> "$dir/blocks"
	echo "hook $(block hook "$cordon")" >> "$dir/blocks"
	[ -z "$before" ] || echo "before $(block hook "$before")" >> "$dir/blocks"
done
# The median and the total of each kind's blocks, in ms a call.
awk -v n=20 -v target=1.50 '
	{ v[$1, ++c[$1]] = $2; sum[$1] += $2 }
	function median(k,   i, j, t, m) {
		m = c[k]
		for (i = 1; i <= m; i++) a[i] = v[k, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		mv = median("version") * 1000 / n; mh = median("hook") * 1000 / n
		tv = sum["version"] * 1000 / (n * c["version"]); th = sum["hook"] * 1000 / (n * c["hook"])
		printf "cordon --version  %6.2f ms CPU a call (median of %d blocks; mean %.2f)\n", mv, c["version"], tv
		printf "cordon hook       %6.2f ms CPU a call (median; mean %.2f)\n", mh, th
		if (c["before"]) {
			mb = median("before") * 1000 / n; tb = sum["before"] * 1000 / (n * c["before"])
			printf "before: hook      %6.2f ms CPU a call (median; mean %.2f)\n", mb, tb
			printf "before / --version %5.2f x (medians), %.2f x (means)\n", mb / mv, tb / tv
		}
		printf "hook / --version  %6.2f x (medians), %.2f x (means) (target <= %.2f): %s\n",
			mh / mv, th / tv, target, mh / mv <= target ? "met" : "MISSED"
		printf "result %.3f %.3f %.2f\n", mv, mh, target   # for bench/compare.sh
	}' "$dir/blocks"
