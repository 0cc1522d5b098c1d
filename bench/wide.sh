#!/usr/bin/env bash
# Load time and decision time on policies whose path patterns start with a
# wildcard component ("/home/STAR/ws/projN/STARSTAR": bench/gen-wide.sh).
#
#   bench/wide.sh [-c CORDON] [-b BASE] [-s "SIZES"] [-q REQUESTS] [-r RUNS] [-o DIR]
#
# For each size N (default 1000 2000 5000 10000) it generates the policy
# and REQUESTS requests (default 20,000), then, RUNS times (default 7),
# rotating the order of the sizes each round:
#
#   load:   `cordon eval -p POLICY read PATH`: reading, checking and the
#           evaluator built, one decision;
#   stream: `cordon eval -p POLICY --stdin` on the REQUESTS requests, and on
#           the first of them alone: the difference over REQUESTS - 1 is the
#           cost of one decision.
#
# Each is timed in CPU time (user + system, bash's `time`, 1 ms), the
# machine being shared; the medians are reported, with each size as a ratio
# of the smallest one measured in the same run.  A linear load is N/1000 at
# N rules; decisions that do not grow with the rules stay near 1.  Targets:
# 10,000 rules load in under 100 ms of CPU; a decision at 10,000 rules at
# most 2x one at 1,000.  With -b BASE, a second binary is timed in the same
# rounds (before and after a change): each of its medians is given beside
# and as a ratio of CORDON's.  It reports; it does not gate.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cordon=$top/cordon
base=
sizes="1000 2000 5000 10000"
requests=20000
runs=7
outdir=
target_load_ms=100
target_growth=2.00

usage() {
	echo "usage: $0 [-c CORDON] [-b BASE] [-s \"SIZES\"] [-q REQUESTS] [-r RUNS] [-o DIR]" >&2
	exit 2
}
while getopts c:b:s:q:r:o:h opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	b) base=$OPTARG ;;
	s) sizes=$OPTARG ;;
	q) requests=$OPTARG ;;
	r) runs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done
for b in "$cordon" ${base:+"$base"}; do
	[ -x "$b" ] || { echo "$0: no binary at $b (make -j2)" >&2; exit 2; }
done
case $requests$runs in ''|*[!0-9]*) usage ;; esac
[ "$requests" -ge 2 ] && [ "$runs" -ge 1 ] || usage

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	dir=$outdir
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-wide.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi

read -r -a sz <<< "$sizes"
for n in "${sz[@]}"; do
	"$here/gen-wide.sh" -n "$n" -q "$requests" -o "$dir" > /dev/null
	head -n 1 "$dir/wide-$n.jsonl" > "$dir/one-$n.jsonl"
done
bins=(cordon)
declare -A bin=([cordon]=$cordon)
if [ -n "$base" ]; then bins+=(base); bin[base]=$base; fi

TIMEFORMAT='%3U %3S'
cpu_ms() { # cpu_ms CMD...: prints the CPU ms of CMD (stdin/stdout as given)
	local t
	t=$({ time "$@" > /dev/null 2>&1 < "$input"; } 2>&1)
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f\n", (a[1] + a[2]) * 1000 }'
}

# one round: every binary, every size, every measure, in a rotated order
jobs=()
for b in "${bins[@]}"; do for n in "${sz[@]}"; do jobs+=("$b $n"); done; done
for ((i = -1; i < runs; i++)); do
	nj=${#jobs[@]}
	for ((k = 0; k < nj; k++)); do
		read -r b n <<< "${jobs[(k + (i < 0 ? 0 : i)) % nj]}"
		p=$dir/wide-$n.cordon
		input=/dev/null
		l=$(cpu_ms "${bin[$b]}" eval -p "$p" read /home/u/ws/proj1/a.c)
		input=$dir/one-$n.jsonl
		o=$(cpu_ms "${bin[$b]}" eval -p "$p" --stdin)
		input=$dir/wide-$n.jsonl
		s=$(cpu_ms "${bin[$b]}" eval -p "$p" --stdin)
		[ "$i" -ge 0 ] || continue  # the first round warms the caches
		echo "$l" >> "$dir/$b-$n.load"
		awk -v s="$s" -v o="$o" -v q="$requests" \
			'BEGIN { printf "%.3f\n", (s - o) * 1000 / (q - 1) }' >> "$dir/$b-$n.dec"
	done
done

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

first=${sz[0]}
last=${sz[${#sz[@]} - 1]}
# For bench/compare.sh, beside the results: the targets, written once.
echo "target $target_load_ms $target_growth" >> "$dir/results"
printf '%s rules, %s requests, %s runs, medians of CPU time\n' "$sizes" "$requests" "$runs"
for b in "${bins[@]}"; do
	printf '\n%s (%s)\n' "$b" "${bin[$b]}"
	printf '%8s %10s %8s %12s %8s\n' rules "load ms" "x $first" "decision us" "x $first"
	l0=$(median "$dir/$b-$first.load")
	d0=$(median "$dir/$b-$first.dec")
	for n in "${sz[@]}"; do
		l=$(median "$dir/$b-$n.load")
		d=$(median "$dir/$b-$n.dec")
		awk -v n="$n" -v l="$l" -v d="$d" -v l0="$l0" -v d0="$d0" 'BEGIN {
			printf "%8d %10.1f %8.2f %12.2f %8.2f\n", n, l, l / l0, d, d / d0 }'
		echo "result $b $n $l $d" >> "$dir/results"
	done
	l=$(median "$dir/$b-$last.load")
	d=$(median "$dir/$b-$last.dec")
	awk -v n="$last" -v l="$l" -v d="$d" -v d0="$d0" -v f="$first" -v tl="$target_load_ms" \
		-v tg="$target_growth" 'BEGIN {
		printf "load at %d rules: %.1f ms (target < %d): %s\n", n, l, tl, l < tl ? "met" : "MISSED"
		printf "decision at %d rules / at %d: %.2f x (target <= %.2f): %s\n", n, f, d / d0, tg,
			d / d0 <= tg ? "met" : "MISSED" }'
done
if [ -n "$base" ]; then
	printf '\nthis build / base, medians\n%8s %10s %10s\n' rules load decision
	for n in "${sz[@]}"; do
		awk -v n="$n" -v a="$(median "$dir/cordon-$n.load")" -v b="$(median "$dir/base-$n.load")" \
			-v c="$(median "$dir/cordon-$n.dec")" -v d="$(median "$dir/base-$n.dec")" \
			'BEGIN { printf "%8d %10.2f %10.2f\n", n, a / b, (d > 0 ? c / d : 0) }'
	done
fi
