#!/usr/bin/env bash
# Benchmark the cordon front end on generated policies.
#
#   bench/compile.sh [-c CORDON] [-s "1000 10000 100000"] [-r RUNS] [-o DIR]
#
# For each size N it generates a policy of N rules over 20 presets and 5 files
# (bench/gen-policy.sh), then measures
#
#   cordon check FILE
#   cordon compile -p FILE --preset team-19 --emit ir > /dev/null
#
# as the median wall time of RUNS runs (default 5, after one warm-up run) and
# the peak resident set size (the largest of RUNS runs under GNU time).  It
# also times `cordon check rules/default.cordon` as a baseline, so results
# from different machines can be compared as ratios.
#
# Wall time is measured with bash's `time` (millisecond resolution).  Peak
# RSS needs GNU time (/usr/bin/time, `apt-get install time`); without it the
# RSS columns read n/a (GNU_TIME= in the environment forces that).

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

cordon=$top/cordon
sizes="1000 10000 100000"
runs=5
outdir=
preset=team-19

# Targets the numbers are compared against.
target_check_ms=100             # cordon check of 10k rules
target_rss_kb=$((64 * 1024))    # peak memory of check and compile, 10k rules
target_n=10000

usage() {
	echo "usage: $0 [-c CORDON] [-s SIZES] [-r RUNS] [-o DIR]" >&2
	echo "  -c CORDON  the binary to measure (default: $top/cordon)" >&2
	echo "  -s SIZES   rule counts, space separated (default: \"$sizes\")" >&2
	echo "  -r RUNS    timed runs per measurement (default: $runs)" >&2
	echo "  -o DIR     keep the generated policies in DIR (default: a temp dir)" >&2
	exit 2
}

while getopts c:s:r:o:h opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	s) sizes=$OPTARG ;;
	r) runs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done

case $runs in ''|*[!0-9]*|0) echo "$0: -r wants a positive number" >&2; exit 2 ;; esac
if [ ! -x "$cordon" ]; then
	echo "$0: $cordon not found or not executable; run make first" >&2
	exit 2
fi

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-bench.XXXXXX")
	trap 'rm -rf "$outdir"' EXIT
fi
mkdir -p "$outdir"

# GNU_TIME= (empty) forces the fallback without RSS.
gnu_time=${GNU_TIME-/usr/bin/time}
if [ -z "$gnu_time" ] || ! "$gnu_time" -f '%M' -o /dev/null true 2>/dev/null; then
	gnu_time=
fi

# run_time CMD... -> prints "WALL CPU" for one run, in seconds (ms
# resolution); CPU is user + system time, which a busy machine disturbs far
# less than wall time.
run_time() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || true
	echo "$t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
}

# run_rss CMD... -> prints the peak RSS of one run in KiB, or n/a.
run_rss() {
	if [ -z "$gnu_time" ]; then
		echo n/a
		return
	fi
	local f=$outdir/.rss
	"$gnu_time" -f '%M' -o "$f" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$f"
}

# median FIELD < "WALL CPU" lines -> the median of that column.
median() {
	sort -n -k "$1" | awk -v f="$1" '{ v[NR] = $f }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure CMD... -> sets wall and cpu (medians, seconds) and rss (max KiB or n/a).
measure() {
	local i times=
	"$@" >/dev/null 2>&1 || true           # warm-up: page cache, dynamic loader
	for ((i = 0; i < runs; i++)); do
		times+="$(run_time "$@")"$'\n'
	done
	wall=$(printf '%s' "$times" | median 1)
	cpu=$(printf '%s' "$times" | median 2)
	rss=n/a
	if [ -n "$gnu_time" ]; then
		rss=0
		for ((i = 0; i < runs; i++)); do
			local r
			r=$(run_rss "$@")
			if [ "$r" -gt "$rss" ]; then rss=$r; fi
		done
	fi
}

ms() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
mbu() { if [ "$1" = n/a ]; then echo "n/a"; else echo "$(mb "$1") MB"; fi; }
mb() { if [ "$1" = n/a ]; then echo n/a; else awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "cordon front-end benchmark"
echo "  binary:   $cordon ($("$cordon" --version 2>/dev/null | head -n 1))"
echo "  machine:  $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cpus," \
	"load $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "  runs:     $runs per measurement (median wall and cpu time; max peak RSS)"
if [ -n "$gnu_time" ]; then
	echo "  RSS:      GNU time %M"
else
	echo "  RSS:      n/a (GNU time not found: apt-get install time)"
fi
echo "  targets:  check of ${target_n} rules under ${target_check_ms} ms;" \
	"peak memory under $((target_rss_kb / 1024)) MB"
echo

# Baseline: the standard presets, a policy of a few dozen lines.
measure "$cordon" check "$top/rules/default.cordon"
base_wall=$wall
base_cpu=$cpu
base_rss=$rss
echo "baseline: cordon check rules/default.cordon  wall $(ms "$base_wall") ms," \
	"cpu $(ms "$base_cpu") ms, peak RSS $(mbu "$base_rss")"
if [ -x /bin/true ]; then
	measure /bin/true
	echo "process start (/bin/true, for reference): wall $(ms "$wall") ms"
fi
echo

declare -A cw cc cr pw pc pr bytes
for n in $sizes; do
	d=$outdir/n$n
	policy=$(sh "$here/gen-policy.sh" -n "$n" -o "$d")
	if ! "$cordon" check "$policy" >/dev/null 2>"$outdir/.err"; then
		echo "$0: generated policy of $n rules does not check:" >&2
		head -n 20 "$outdir/.err" >&2
		exit 1
	fi
	bytes[$n]=$(cat "$d"/*.cordon | wc -c | tr -d ' ')
	measure "$cordon" check "$policy"
	cw[$n]=$wall; cc[$n]=$cpu; cr[$n]=$rss
	measure "$cordon" compile -p "$policy" --preset "$preset" --emit ir
	pw[$n]=$wall; pc[$n]=$cpu; pr[$n]=$rss
done

row='%-7s %6s | %8s %8s %7s %7s | %8s %8s %7s %7s\n'
printf '%-14s | %-33s | %s\n' "" "cordon check" "cordon compile --emit ir ($preset)"
# shellcheck disable=SC2059
printf "$row" rules "KB" "wall ms" "cpu ms" "x base" "RSS MB" "wall ms" "cpu ms" "x base" "RSS MB"
printf '%s\n' "---------------+-----------------------------------+-----------------------------------"
for n in $sizes; do
	# shellcheck disable=SC2059
	printf "$row" \
		"$n" "$(awk -v b="${bytes[$n]}" 'BEGIN { printf "%.0f", b / 1024 }')" \
		"$(ms "${cw[$n]}")" "$(ms "${cc[$n]}")" "$(ratio "${cw[$n]}" "$base_wall")" "$(mb "${cr[$n]}")" \
		"$(ms "${pw[$n]}")" "$(ms "${pc[$n]}")" "$(ratio "${pw[$n]}" "$base_wall")" "$(mb "${pr[$n]}")"
done
echo "(KB: size of the five input files; x base: wall time / baseline wall time)"
echo

# Growth between consecutive sizes.  With a linear cost, time grows by the
# size ratio and the per-rule cost ratio, time(n)/time(prev)/(n/prev), stays
# near 1.00.  The fixed cost of starting a process pulls the raw ratio below
# 1.00 when the smaller size is dominated by it, so the ratio is also given
# with the baseline subtracted from both times ("net"), for wall and cpu time.
per_rule() {	# per_rule T_N T_PREV K [BASE]
	awk -v a="$1" -v b="$2" -v k="$3" -v z="${4:-0}" \
		'BEGIN { if (b - z > 0) printf "%.2f", (a - z) / (b - z) / k; else print "n/a" }'
}
echo "growth between sizes (per-rule cost ratio, 1.00 = linear; net = baseline subtracted):"
prev=
for n in $sizes; do
	if [ -n "$prev" ]; then
		k=$(ratio "$n" "$prev")
		printf '  time(%s)/time(%s), x%s rules:\n' "$n" "$prev" "$k"
		printf '    check    wall x%-6s per rule %s, net %s;  cpu x%-6s net per rule %s\n' \
			"$(ratio "${cw[$n]}" "${cw[$prev]}")" \
			"$(per_rule "${cw[$n]}" "${cw[$prev]}" "$k")" \
			"$(per_rule "${cw[$n]}" "${cw[$prev]}" "$k" "$base_wall")" \
			"$(ratio "${cc[$n]}" "${cc[$prev]}")" \
			"$(per_rule "${cc[$n]}" "${cc[$prev]}" "$k" "$base_cpu")"
		printf '    compile  wall x%-6s per rule %s, net %s;  cpu x%-6s net per rule %s\n' \
			"$(ratio "${pw[$n]}" "${pw[$prev]}")" \
			"$(per_rule "${pw[$n]}" "${pw[$prev]}" "$k")" \
			"$(per_rule "${pw[$n]}" "${pw[$prev]}" "$k" "$base_wall")" \
			"$(ratio "${pc[$n]}" "${pc[$prev]}")" \
			"$(per_rule "${pc[$n]}" "${pc[$prev]}" "$k" "$base_cpu")"
	fi
	prev=$n
done
echo

# Targets, judged at target_n rules when that size was measured.
if [ -n "${cw[$target_n]:-}" ]; then
	echo "targets at $target_n rules:"
	t=$(ms "${cw[$target_n]}")
	if awk -v t="$t" -v m="$target_check_ms" 'BEGIN { exit !(t < m) }'; then v=met; else v=MISSED; fi
	echo "  check    wall time $t ms, cpu $(ms "${cc[$target_n]}") ms  (target < $target_check_ms ms): $v"
	for what in check compile; do
		if [ $what = check ]; then r=${cr[$target_n]}; else r=${pr[$target_n]}; fi
		if [ "$r" = n/a ]; then
			v="not measured"
		elif [ "$r" -lt "$target_rss_kb" ]; then
			v=met
		else
			v=MISSED
		fi
		printf '  %-8s peak RSS %s  (target < %s MB): %s\n' \
			"$what" "$(mbu "$r")" "$((target_rss_kb / 1024))" "$v"
	done
	# A wall time well above the cpu time means the process waited for a cpu.
	if awk -v w="${cw[$target_n]}" -v c="${cc[$target_n]}" 'BEGIN { exit !(w > 1.3 * c + 0.005) }'; then
		echo "  note: wall time exceeds cpu time by more than 30%: the machine is busy," \
			"judge by the cpu time or rerun on an idle machine"
	fi
else
	echo "targets: $target_n rules not among the sizes measured"
fi
