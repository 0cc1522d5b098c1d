#!/usr/bin/env bash
# Benchmark the cordon evaluator: decisions through the C API and through
# `cordon eval --stdin`.
#
#   bench/eval.sh [-c CORDON] [-e EVAL_BENCH] [-q REQUESTS] [-l LINES] [-r RUNS] [-o DIR] [-v]
#
# It generates (bench/gen-eval.sh) a policy of 1,000 path rules and one of
# 10,000, REQUESTS requests for each (default 1,000,000), and a directory
# tree of a few hundred directories, files and symlinks, then
#
#   1. runs bench/eval_bench on the embedded default policy (workspace-write),
#      the 1k policy and the 10k policy, in one process: the median ns per
#      decision of RUNS passes over the requests, (a) with canonical paths
#      under a root that does not exist and (b) with paths under the tree,
#      which are resolved component by component, symlinks followed;
#   2. times `cordon eval -p POLICY --preset P --stdin < FILE > /dev/null`
#      on LINES JSONL requests (default 200,000), the same three policies and
#      two roots, and prints decisions per second (the median of RUNS runs,
#      after one warm-up run, timed with bash's `time`).
#
# Then it compares the numbers with the targets (below).  It reports; it
# does not gate: the exit status is 0 when the measurements ran.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

cordon=$top/cordon
bench=$top/bench/eval_bench
requests=1000000
lines=200000
runs=5
outdir=
verbose=

# Targets the numbers are compared against.
target_api_ns=1000        # per API decision, 1,000 rules
target_growth=2.00        # 10k rules / 1k rules, per API decision
target_stdin=200000       # decisions per second, cordon eval --stdin, 1,000 rules

# (a): a root that does not exist, so canonicalizing stops at its lstat.
absent=/nonexistent-cordon-bench

usage() {
	echo "usage: $0 [-c CORDON] [-e EVAL_BENCH] [-q REQUESTS] [-l LINES] [-r RUNS] [-o DIR] [-v]" >&2
	echo "  -c CORDON      the cordon binary (default: $top/cordon)" >&2
	echo "  -e EVAL_BENCH  the API benchmark (default: $top/bench/eval_bench;" >&2
	echo "                 make bench/eval_bench builds it)" >&2
	echo "  -q REQUESTS    API requests per policy (default: $requests)" >&2
	echo "  -l LINES       JSONL lines for cordon eval --stdin (default: $lines)" >&2
	echo "  -r RUNS        timed runs per measurement (default: $runs)" >&2
	echo "  -o DIR         keep the generated files in DIR (default: a temp dir)" >&2
	echo "  -v             also the API cost per operation" >&2
	exit 2
}

while getopts c:e:q:l:r:o:vh opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	e) bench=$OPTARG ;;
	q) requests=$OPTARG ;;
	l) lines=$OPTARG ;;
	r) runs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	v) verbose=-v ;;
	*) usage ;;
	esac
done

for v in "$requests" "$lines" "$runs"; do
	case $v in ''|*[!0-9]*|0) echo "$0: -q, -l and -r want positive numbers" >&2; exit 2 ;; esac
done
if [ ! -x "$cordon" ]; then
	echo "$0: $cordon not found or not executable; run make first" >&2
	exit 2
fi
if [ ! -x "$bench" ]; then
	echo "$0: $bench not found or not executable; run make bench/eval_bench first" >&2
	exit 2
fi
if [ -e "$absent" ]; then
	echo "$0: $absent exists; (a) needs a root that does not" >&2
	exit 2
fi

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-eval.XXXXXX")
	trap 'rm -rf "$outdir"' EXIT
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd -P)     # the workspace must be canonical

echo "cordon evaluator benchmark"
echo "  binary:   $cordon ($("$cordon" --version 2>/dev/null | head -n 1))"
echo "  machine:  $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cpus"
echo "  runs:     $runs per measurement (median)"
echo "  targets:  API < ${target_api_ns} ns per decision at 1,000 rules;" \
	"10k rules <= ${target_growth}x the 1k cost;"
echo "            cordon eval --stdin >= ${target_stdin} decisions/s at 1,000 rules"
echo

# ---- inputs ----------------------------------------------------------------------
for n in 1000 10000; do
	sh "$here/gen-eval.sh" -n "$n" -q "$requests" -o "$outdir" >/dev/null
	if ! "$cordon" check "$outdir/eval-$n.cordon" >/dev/null 2>"$outdir/.err"; then
		echo "$0: the generated policy of $n rules does not check:" >&2
		head -n 20 "$outdir/.err" >&2
		exit 1
	fi
done
rm -rf "$outdir/tree"
sh "$here/gen-eval.sh" -t "$outdir/tree"
tree=$outdir/tree
echo "inputs: $requests requests per policy; tree $tree:" \
	"$(find "$tree" -type d | wc -l | tr -d ' ') dirs," \
	"$(find "$tree" -type f | wc -l | tr -d ' ') files," \
	"$(find "$tree" -type l | wc -l | tr -d ' ') symlinks"
echo

# ---- 1. the C API --------------------------------------------------------------------
echo "== 1. cordon_evaluate through the C API (bench/eval_bench)"
echo "   (a) root $absent (absent), (b) root $tree"
echo
"$bench" -r "$runs" $verbose -a "$absent" -b "$tree" \
	baseline - workspace-write "$outdir/requests-1000.tsv" \
	1k "$outdir/eval-1000.cordon" bench "$outdir/requests-1000.tsv" \
	10k "$outdir/eval-10000.cordon" bench "$outdir/requests-10000.tsv" |
	tee "$outdir/api.out" | grep -v '^result '
api() { awk -v n="$1" -v c="$2" '$1 == "result" && $2 == n && $3 == c { print $4 }' "$outdir/api.out"; }

# ---- 2. cordon eval --stdin --------------------------------------------------------
# JSONL requests with the roots put in.
jsonl() {	# jsonl REQUESTS_TSV ROOT > FILE
	head -n "$lines" "$1" | awk -F '\t' -v root="$2" '
	{
		t = $2
		if (substr(t, 1, 2) == "@/")
			t = root "/ws" substr(t, 2)
		else if (substr(t, 1, 2) == "~/" && ($1 == "read" || $1 == "write"))
			t = root "/home/u" substr(t, 2)
		gsub(/\\/, "\\\\", t)
		gsub(/"/, "\\\"", t)
		printf "{\"op\":\"%s\",\"target\":\"%s\"}\n", $1, t
	}'
}

# run_wall CMD... < input -> the wall time of one run in seconds (ms resolution).
run_wall() {
	local TIMEFORMAT=%3R t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || true
	echo "$t"
}

# median_wall INPUT CMD... -> the median of RUNS runs, after one warm-up run.
median_wall() {
	local input=$1 i times=
	shift
	"$@" <"$input" >/dev/null 2>&1 || true
	for ((i = 0; i < runs; i++)); do
		times+="$(run_wall "$@" <"$input")"$'\n'
	done
	printf '%s' "$times" | sort -n | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "== 2. cordon eval --stdin, $lines JSONL lines"
echo
declare -A rate
printf '%-10s %-4s | %9s %12s | %9s %12s\n' policy root "wall ms" "decisions/s" "start ms" "net dec/s"
printf '%s\n' "----------------+--------------------------+--------------------------"
for root in a b; do
	if [ $root = a ]; then r=$absent; else r=$tree; fi
	jsonl "$outdir/requests-1000.tsv" "$r" >"$outdir/stdin-1000-$root.jsonl"
	jsonl "$outdir/requests-10000.tsv" "$r" >"$outdir/stdin-10000-$root.jsonl"
	head -n 1 "$outdir/stdin-1000-$root.jsonl" >"$outdir/one-$root.jsonl"
	ctx=(--context "workspace=$r/ws" --context "cwd=$r/ws" --context "home=$r/home/u"
		--context "tmp=$r/tmp" --context "agent_dir=$r/home/u/.cordon"
		--context "session_dir=$r/home/u/.cordon/sessions/s1" --context user=u)
	for name in baseline 1k 10k; do
		case $name in
		baseline) pol=(--preset workspace-write); in=$outdir/stdin-1000-$root.jsonl ;;
		1k) pol=(-p "$outdir/eval-1000.cordon" --preset bench); in=$outdir/stdin-1000-$root.jsonl ;;
		10k) pol=(-p "$outdir/eval-10000.cordon" --preset bench); in=$outdir/stdin-10000-$root.jsonl ;;
		esac
		# The decisions must be decisions, not errors.
		if "$cordon" eval "${pol[@]}" "${ctx[@]}" --stdin <"$outdir/one-$root.jsonl" |
			grep -q '"error"'; then
			echo "$0: cordon eval --stdin answers with an error:" >&2
			"$cordon" eval "${pol[@]}" "${ctx[@]}" --stdin <"$outdir/one-$root.jsonl" >&2
			exit 1
		fi
		wall=$(median_wall "$in" "$cordon" eval "${pol[@]}" "${ctx[@]}" --stdin)
		start=$(median_wall "$outdir/one-$root.jsonl" "$cordon" eval "${pol[@]}" "${ctx[@]}" --stdin)
		rate[$name$root]=$(awk -v n="$lines" -v t="$wall" 'BEGIN { printf "%.0f", n / t }')
		net=$(awk -v n="$lines" -v t="$wall" -v s="$start" \
			'BEGIN { if (t > s) printf "%.0f", n / (t - s); else print "n/a" }')
		printf '%-10s (%s)  | %9s %12s | %9s %12s\n' "$name" "$root" \
			"$(awk -v t="$wall" 'BEGIN { printf "%.0f", t * 1000 }')" "${rate[$name$root]}" \
			"$(awk -v t="$start" 'BEGIN { printf "%.0f", t * 1000 }')" "$net"
	done
done
echo "  start ms: the same command on one line (loading the policy, building the"
echo "  evaluator, starting the process); net dec/s leaves it out."
echo

# ---- targets -----------------------------------------------------------------------
verdict() { if awk -v a="$1" -v op="$2" -v b="$3" \
	'BEGIN { exit !(op == "<" ? a < b : op == "<=" ? a <= b : a >= b) }'; then echo met; else echo MISSED; fi; }
echo "targets:"
for root in a b; do
	ns=$(api 1k $root)
	ratio=$(awk -v x="$(api 10k $root)" -v y="$ns" 'BEGIN { printf "%.2f", x / y }')
	printf '  (%s) API, 1,000 rules      %8s ns/decision  (target < %s): %s\n' \
		$root "$ns" "$target_api_ns" "$(verdict "$ns" "<" "$target_api_ns")"
	printf '  (%s) API, 10k/1k           %8s x            (target <= %s): %s\n' \
		$root "$ratio" "$target_growth" "$(verdict "$ratio" "<=" "$target_growth")"
	printf '  (%s) --stdin, 1,000 rules  %8s decisions/s  (target >= %s): %s\n' \
		$root "${rate[1k$root]}" "$target_stdin" "$(verdict "${rate[1k$root]}" ">=" "$target_stdin")"
done
