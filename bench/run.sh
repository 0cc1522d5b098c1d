#!/usr/bin/env bash
# The cost of `cordon run` over bare bwrap.
#
#   bench/run.sh [-c CORDON] [-n RUNS] [-o DIR]
#
# Times, alternating one with the other RUNS times each (default 50, after
# two warm-up runs of each),
#
#   cordon run --preset workspace-write -- /bin/true
#   bwrap --args 3 -- /bin/true  3< PLAN
#
# where PLAN is `cordon compile --preset workspace-write --emit bwrap-args`
# for the same workspace, home and a temp dir: the same mounts, namespaces
# and environment, without the policy load, the evaluation, the seccomp
# filter, the Landlock helper and the status pipes.  It prints the median of
# each, their ratio (target: at most 1.15), and cordon's peak resident set
# size.
#
# Wall times come from bash's EPOCHREALTIME (microseconds), read around each
# run with no extra process.  Peak RSS is read twice: GNU time's %M
# (/usr/bin/time, `apt-get install time`), which is the largest of cordon and
# the processes it waited for (bwrap, and what bwrap waited for), and
# VmHWM from /proc/PID/status of cordon itself while the command runs.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

cordon=$top/cordon
runs=50
outdir=
target_ratio=1.15

usage() {
	echo "usage: $0 [-c CORDON] [-n RUNS] [-o DIR]" >&2
	echo "  -c CORDON  the binary to measure (default: $top/cordon; cordon-exec next to it)" >&2
	echo "  -n RUNS    timed runs of each (default: $runs)" >&2
	echo "  -o DIR     keep the workspace, the plan and the raw times in DIR (default: a temp dir)" >&2
	exit 2
}

while getopts c:n:o:h opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	n) runs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "$0: -n wants a positive number" >&2; exit 2 ;; esac
if [ ! -x "$cordon" ]; then
	echo "$0: $cordon not found or not executable; run make first" >&2
	exit 2
fi
bwrap=
for b in /usr/bin/bwrap /bin/bwrap; do
	if [ -x "$b" ]; then bwrap=$b; break; fi
done
if [ -z "$bwrap" ]; then
	echo "$0: no bwrap in /usr/bin or /bin (install bubblewrap)" >&2
	exit 2
fi
if ! "$cordon" probe > /dev/null 2>&1; then
	"$cordon" probe >&2 || true
	echo "$0: the sandbox cannot start here; nothing to measure" >&2
	exit 2
fi

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	dir=$(cd "$outdir" && pwd)
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-bench-run.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi
ws=$dir/ws home=$dir/home tmp=$dir/tmp
mkdir -p "$ws/.agent" "$home" "$tmp"

# One fixed environment for both, as a host would give it.
environment=(env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TERM=dumb)
context=(--context home="$home" --context agent_dir="$ws/.agent"
	--context session_dir="$ws/.agent/sessions/s1")

cd "$ws"
"${environment[@]}" "$cordon" compile --preset workspace-write --emit bwrap-args \
	--context workspace="$ws" --context cwd="$ws" --context tmp="$tmp" "${context[@]}" \
	> "$dir/plan"

run_cordon() {
	"${environment[@]}" "$cordon" run --preset workspace-write --workspace "$ws" \
		"${context[@]}" -- /bin/true
}
run_bwrap() {
	"${environment[@]}" "$bwrap" --args 3 -- /bin/true 3< "$dir/plan"
}

# Both must work before either is timed.
if ! run_cordon; then
	echo "$0: cordon run failed" >&2
	exit 1
fi
if ! run_bwrap; then
	echo "$0: bwrap with the compiled plan failed" >&2
	exit 1
fi

for _ in 1 2; do run_cordon; run_bwrap; done
: > "$dir/cordon.us"
: > "$dir/bwrap.us"
for ((i = 0; i < runs; i++)); do
	# Alternate which goes first, so neither always follows the other.
	for which in cordon bwrap; do
		[ $((i % 2)) -eq 1 ] && which=$([ $which = cordon ] && echo bwrap || echo cordon)
		t0=${EPOCHREALTIME/[.,]/}
		"run_$which"
		t1=${EPOCHREALTIME/[.,]/}
		echo $((10#$t1 - 10#$t0)) >> "$dir/$which.us"
	done
done

median() { # median FILE: of the numbers in it, one a line
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mc=$(median "$dir/cordon.us")
mb=$(median "$dir/bwrap.us")
ratio=$(awk -v a="$mc" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')
verdict=$(awk -v r="$ratio" -v t="$target_ratio" 'BEGIN { print (r <= t) ? "met" : "MISSED" }')
spread() { # spread FILE: the 10th and 90th percentiles, in ms
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		lo = v[int(NR * 0.1) + 1]; hi = v[int(NR * 0.9) > 0 ? int(NR * 0.9) : 1]
		printf "%.2f-%.2f", lo / 1000, hi / 1000 }'
}

# Peak RSS: GNU time over cordon (and what it waited for), then cordon alone,
# read from /proc while a command keeps it running.
rss_time=n/a
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then
	best=0
	for _ in 1 2 3; do
		/usr/bin/time -o "$dir/rss" -f %M "${environment[@]}" "$cordon" run \
			--preset workspace-write --workspace "$ws" "${context[@]}" -- /bin/true
		kb=$(tail -1 "$dir/rss")
		if [ "$kb" -gt "$best" ]; then best=$kb; fi
	done
	rss_time="$best kB"
fi
"${environment[@]}" "$cordon" run --preset workspace-write --workspace "$ws" "${context[@]}" \
	-- /bin/sleep 0.5 &
pid=$!
sleep 0.3
hwm=$(awk '/^VmHWM:/ { print $2 " " $3 }' "/proc/$pid/status" 2> /dev/null || true)
wait $pid || true

printf 'cordon run --preset workspace-write -- /bin/true  vs  bwrap --args 3 -- /bin/true\n'
printf '%s; %s; %d runs of each, alternating\n\n' "$("$bwrap" --version)" "$(uname -sr)" "$runs"
printf '%-28s %10s %16s\n' "" "median ms" "p10-p90 ms"
printf '%-28s %10.2f %16s\n' "cordon run" "$(awk -v v="$mc" 'BEGIN { print v / 1000 }')" \
	"$(spread "$dir/cordon.us")"
printf '%-28s %10.2f %16s\n' "bwrap, the same plan" "$(awk -v v="$mb" 'BEGIN { print v / 1000 }')" \
	"$(spread "$dir/bwrap.us")"
printf '\nratio cordon/bwrap: %s (target <= %s: %s)\n' "$ratio" "$target_ratio" "$verdict"
printf 'peak RSS, cordon and what it waited for (GNU time %%M): %s\n' "$rss_time"
printf 'peak RSS, cordon itself (VmHWM while the command runs): %s\n' "${hwm:-n/a}"
