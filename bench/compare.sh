#!/usr/bin/env bash
# Every speed target of cordon side by side, in one run, as a table of
# ratios against the target.
#
#   bench/compare.sh [-c CORDON] [-n LAUNCHES] [-k HOOK_CALLS] [-q REQUESTS] [-r RUNS]
#                    [-f SECONDS] [-o DIR]
#
# It runs the benchmarks that measure each target and reads their figures:
#
#   bench/run.sh      cordon run --preset workspace-write -- /bin/true against
#                     bare bubblewrap and the peers that are installed
#                     (sandbox-runtime's srt, Codex's codex sandbox, ...),
#                     alternating, LAUNCHES runs of each (default 40);
#   bench/hook.sh     cordon hook claude on a Bash event against cordon
#                     --version, HOOK_CALLS calls of each (default 200);
#   bench/wide.sh     loading and deciding on 1,000 and 10,000 rules whose
#                     patterns start with a wildcard (20,000 requests, 5 runs);
#   bench/eval.sh     decisions through the C API at 1,000 and 10,000 rules,
#                     (a) canonical paths, (b) a real tree, and cordon eval
#                     --stdin (REQUESTS API requests, default 200,000);
#   bench/shell_bench parse + decide a typical 100-byte command and a 1 MB
#                     script (CPU time of the thread; RUNS runs, default 41);
#   tests/fuzz/run.sh the shell fuzz target for SECONDS (default 20; 0 skips
#                     it), inputs per second, when tests/fuzz/fuzz_shell is
#                     built (make fuzz-shell).
#
# On a shared machine compare the ratios, which come from one run with the
# compared commands alternating, rather than the absolute times.  It
# reports; it does not gate: the exit status is 0 when the measurements ran,
# 2 on a usage error or a missing binary.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

cordon=$top/cordon
launches=40
hook_calls=200
requests=200000
runs=41
fuzz_seconds=20
outdir=

usage() {
	echo "usage: $0 [-c CORDON] [-n LAUNCHES] [-k HOOK_CALLS] [-q REQUESTS] [-r RUNS] [-f SECONDS] [-o DIR]" >&2
	echo "  -c CORDON    the binary to measure (default: $top/cordon; the benchmarks beside it)" >&2
	echo "  -n LAUNCHES  timed launches of each launcher (default: $launches)" >&2
	echo "  -k CALLS     hook calls, and --version calls (default: $hook_calls)" >&2
	echo "  -q REQUESTS  API requests per policy (default: $requests)" >&2
	echo "  -r RUNS      shell_bench runs (default: $runs)" >&2
	echo "  -f SECONDS   how long the shell fuzz target runs; 0 skips it (default: $fuzz_seconds)" >&2
	echo "  -o DIR       keep every benchmark's output in DIR (default: a temp dir)" >&2
	exit 2
}

while getopts c:n:k:q:r:f:o:h opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	n) launches=$OPTARG ;;
	k) hook_calls=$OPTARG ;;
	q) requests=$OPTARG ;;
	r) runs=$OPTARG ;;
	f) fuzz_seconds=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done
for v in "$launches" "$hook_calls" "$requests" "$runs"; do
	case $v in '' | *[!0-9]* | 0) echo "$0: -n, -k, -q and -r want positive numbers" >&2; exit 2 ;; esac
done
case $fuzz_seconds in '' | *[!0-9]*) echo "$0: -f wants a number of seconds" >&2; exit 2 ;; esac
build=$(cd "$(dirname "$cordon")" && pwd)
for b in "$cordon" "$build/bench/eval_bench" "$build/bench/shell_bench"; do
	if [ ! -x "$b" ]; then
		echo "$0: $b not found; run make && make bench/eval_bench bench/shell_bench" >&2
		exit 2
	fi
done

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	dir=$(cd "$outdir" && pwd)
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-compare.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi

echo "cordon speed targets, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cpus," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "binary:  $cordon ($("$cordon" --version 2>/dev/null | head -n 1))"
echo

# Each benchmark's own report is kept; the table is read from it.
echo "running bench/run.sh ($launches launches of each) ..." >&2
"$here/run.sh" -c "$cordon" -n "$launches" > "$dir/run.out"
echo "running bench/hook.sh ($hook_calls calls of each) ..." >&2
"$here/hook.sh" -c "$cordon" -n "$hook_calls" > "$dir/hook.out"
echo "running bench/wide.sh (1,000 and 10,000 rules) ..." >&2
"$here/wide.sh" -c "$cordon" -s "1000 10000" -q 20000 -r 5 -o "$dir/wide" > "$dir/wide.out"
echo "running bench/eval.sh ($requests requests) ..." >&2
"$here/eval.sh" -c "$cordon" -e "$build/bench/eval_bench" -q "$requests" \
	-l "$((requests < 200000 ? requests : 200000))" -r 5 -o "$dir/eval" > "$dir/eval.out"
echo "running bench/shell_bench -r $runs ..." >&2
"$build/bench/shell_bench" -r "$runs" > "$dir/shell.out"
fuzz_rate=
if [ "$fuzz_seconds" -gt 0 ] && [ -x "$build/tests/fuzz/fuzz_shell" ]; then
	echo "running the shell fuzz target for $fuzz_seconds s ..." >&2
	FUZZ_BIN=$build/tests/fuzz/fuzz_shell FUZZ_CORPUS=$top/tests/shell/corpus \
		sh "$top/tests/fuzz/run.sh" "$fuzz_seconds" > "$dir/fuzz.out" 2>&1 || true
	units=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$dir/fuzz.out" | tail -n 1)
	secs=$(awk '/stat::average_exec_per_sec:/ { print $2 }' "$dir/fuzz.out" | tail -n 1)
	if [ -n "$units" ]; then
		fuzz_rate=$(awk -v u="$units" -v s="$fuzz_seconds" 'BEGIN { printf "%.0f", u / s }')
	fi
	: "${secs:=}"
fi

# ---- the figures -------------------------------------------------------------
launch() { awk -v n="$1" -v f="$2" '$1 == "result" && $2 == n { print $f }' "$dir/run.out"; }
api() { awk -v n="$1" -v c="$2" '$1 == "result" && $2 == n && $3 == c { print $4 }' "$dir/eval/api.out"; }
# CPU time (user + system) per API decision, from eval_bench's second table:
# on a shared machine the wall time also holds the waits for a CPU.
api_cpu() {
	awk -v n="$1" -v c="$2" '/^of which CPU time/ { t = 1; next } t && $1 == n && $2 == "|" {
		print (c == "a" ? $3 + $4 : $6 + $7); exit }' "$dir/eval/api.out"
}
stdin_rate() { # decisions/s of the 1k policy, root (a), wall
	awk '/\(a\) --stdin, 1,000 rules/ { print $5 }' "$dir/eval.out"
}
# Decisions per second of CPU time (user + system) of the same command on
# the same input eval.sh made, the best of three runs.
stdin_cpu_rate() {
	local in=$dir/eval/stdin-1000-a.jsonl r=/nonexistent-cordon-bench best= t
	local TIMEFORMAT='%3U %3S'
	for _ in 1 2 3; do
		t=$( { time "$cordon" eval -p "$dir/eval/eval-1000.cordon" --preset bench \
			--context "workspace=$r/ws" --context "cwd=$r/ws" --context "home=$r/home/u" \
			--context "tmp=$r/tmp" --context "agent_dir=$r/home/u/.cordon" \
			--context "session_dir=$r/home/u/.cordon/sessions/s1" --context user=u \
			--stdin < "$in" > /dev/null 2>&1; } 2>&1 )
		t=$(awk -v t="$t" 'BEGIN { split(t, a, " "); print a[1] + a[2] }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	awk -v n="$(wc -l < "$in")" -v t="$best" 'BEGIN { if (t > 0) printf "%.0f", n / t }'
}
shell_us() { awk '/^decide command/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }' "$dir/shell.out"; }
script_ms() {
	awk '/^decide script/ { v = ""; for (i = 1; i <= NF; i++) if ($i == "median") v = $(i + 1) }
		END { print v }' "$dir/shell.out"
}
script_growth() { # per byte of the 1 MB script over the 100 KB one
	awk '/^decide script/ { for (i = 1; i <= NF; i++) if ($i == "byte") v = $(i + 1) } END { print v }' \
		"$dir/shell.out"
}

row() { # row WHAT VALUE UNIT OP TARGET [COMPARISON]
	local verdict
	if [ -z "$2" ]; then
		verdict=n/a
	elif awk -v a="$2" -v op="$4" -v b="$5" \
		'BEGIN { exit !(op == "<" ? a < b : op == "<=" ? a <= b : a >= b) }'; then
		verdict=met
	else
		verdict=MISSED
	fi
	printf '| %s | %s %s | %s %s | %s | %s |\n' "$1" "${2:-n/a}" "$3" "$4" "$5" "$verdict" "${6:-}"
}

launch_target=$(awk '$1 == "target" { print $2 }' "$dir/run.out")
mc=$(launch cordon 3) mb=$(launch bare 3) mp=$(launch plan 3)
cc=$(launch cordon 4) cb=$(launch bare 4)
wall_ratio=$(awk -v a="$mc" -v b="$mb" 'BEGIN { printf "%.2f", a / b }')
cpu_ratio=$(awk -v a="$cc" -v b="$cb" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
others=$(awk '$1 == "result" && $2 != "cordon" && $2 != "bare" && $2 != "plan" { print $2, $3 }' \
	"$dir/run.out" | while read -r name us; do
		printf '%s %.1fx; ' "$name" "$(awk -v a="$us" -v b="$mb" 'BEGIN { print a / b }')"
	done)
skipped=$(awk '/not installed: skipped/ { print $1 }' "$dir/run.out" | paste -sd, -)
# The fastest peer that ran, for "ahead of every peer".
read -r peer_name peer_us < <(awk '$1 == "result" && $2 != "cordon" && $2 != "bare" &&
	$2 != "plan" { print $2, $3 }' "$dir/run.out" | sort -k2,2n | head -n 1; echo)
peer_ratio=$( [ -z "${peer_us:-}" ] || awk -v a="$mc" -v b="$peer_us" 'BEGIN { printf "%.2f", a / b }')

read -r hook_version hook_call hook_target < <(awk '$1 == "result" { print $2, $3, $4 }' "$dir/hook.out")
hook_ratio=$(awk -v a="$hook_call" -v b="$hook_version" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
wide() { # wide RULES FIELD: 4 the load in ms, 5 a decision in µs
	awk -v n="$1" -v f="$2" '$1 == "result" && $2 == "cordon" && $3 == n {
		printf (f == 4 ? "%.1f\n" : "%.2f\n"), $f }' "$dir/wide/results"
}
read -r wide_load_target wide_growth_target < <(awk '$1 == "target" { print $2, $3 }' "$dir/wide/results")
wide_load=$(wide 10000 4) wide_load1=$(wide 1000 4)
wide_growth=$(awk -v a="$(wide 10000 5)" -v b="$(wide 1000 5)" 'BEGIN { if (b > 0) printf "%.2f", a / b }')

a1=$(api 1k a) b1=$(api 1k b) a10=$(api 10k a)
growth=$(awk -v x="$a10" -v y="$a1" 'BEGIN { printf "%.2f", x / y }')

echo "| what | measured | target | | for comparison |"
echo "| --- | --- | --- | --- | --- |"
row "hook call / cordon --version, CPU (median of $hook_calls, alternating)" "$hook_ratio" x "<=" \
	"$hook_target" "$(awk -v a="$hook_call" -v b="$hook_version" 'BEGIN { printf "%.2f ms vs %.2f ms", a, b }')"
row "load, 10,000 rules with a leading wildcard, CPU" "$wide_load" ms "<" "$wide_load_target" \
	"1,000 rules: $wide_load1 ms"
row "decision at 10,000 / at 1,000 rules with a leading wildcard, CPU" "$wide_growth" x "<=" \
	"$wide_growth_target" \
	"$(wide 1000 5) µs and $(wide 10000 5) µs"
row "cordon run / bare bwrap, wall (median of $launches, alternating)" "$wall_ratio" x "<=" "$launch_target" \
	"$(awk -v a="$mc" -v b="$mb" -v p="$mp" \
		'BEGIN { printf "%.1f ms vs %.1f ms; bwrap with cordon'"'"'s plan %.2fx", a / 1000, b / 1000, p / b }')"
row "cordon run / bare bwrap, CPU of the processes" "$cpu_ratio" x "<=" "$launch_target" \
	"$(awk -v a="$cc" -v b="$cb" 'BEGIN { printf "%.1f ms vs %.1f ms", a / 1000, b / 1000 }')"
if [ -n "$peer_ratio" ]; then
	row "cordon run / the fastest peer ($peer_name), wall" "$peer_ratio" x "<" 1 \
		"every launcher / bare bwrap: $others${skipped:+not installed: $skipped}"
else
	printf '| cordon run / the fastest peer | n/a | < 1 x | n/a | %s |\n' \
		"no peer installed${skipped:+: $skipped}"
fi
ca1=$(api_cpu 1k a) cb1=$(api_cpu 1k b) ca10=$(api_cpu 10k a)
growth_cpu=$(awk -v x="$ca10" -v y="$ca1" 'BEGIN { if (y > 0) printf "%.2f", x / y }')
row "decision, C API, 1,000 rules, (a) canonical, CPU" \
	"$(awk -v v="$ca1" 'BEGIN { printf "%.2f", v / 1000 }')" µs "<" 1 \
	"wall $(awk -v v="$a1" 'BEGIN { printf "%.2f", v / 1000 }') µs"
row "decision, C API, 1,000 rules, (b) real tree, CPU" \
	"$(awk -v v="$cb1" 'BEGIN { printf "%.2f", v / 1000 }')" µs "<" 3 \
	"wall $(awk -v v="$b1" 'BEGIN { printf "%.2f", v / 1000 }') µs; one lstat here: $(awk '/one lstat/ { print $(NF - 1) " ns" }' "$dir/eval.out")"
row "10k rules / 1k rules (a), CPU" "$growth_cpu" x "<=" 2 "wall $growth"
row "cordon eval --stdin, 1,000 rules, per CPU second" "$(stdin_cpu_rate)" "/s" ">=" 200000 \
	"per wall second $(stdin_rate)"
row "parse + decide a 97-byte command" "$(shell_us)" µs "<" 5
row "parse + decide a 1 MB script" "$(script_ms)" ms "<" 10 "per byte $(script_growth)x the 100 KB one (linear: 1)"
if [ -n "$fuzz_rate" ]; then
	row "shell fuzz target (ASan/UBSan), inputs/s" "$fuzz_rate" "/s" ">=" 2000
else
	printf '| shell fuzz target | n/a | >= 2000 /s | n/a | not built (make fuzz-shell) or -f 0 |\n'
fi
echo
echo "(each benchmark's full report: $dir, kept with -o)"
