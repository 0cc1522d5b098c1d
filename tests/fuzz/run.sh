#!/bin/sh
# Run an already built fuzz target for a bounded time.
#
#   sh tests/fuzz/run.sh [SECONDS] [LIBFUZZER-OPTION...]
#
# SECONDS defaults to 60.  Builds nothing: build the target first with
# `make fuzz`.  The seed corpus (tests/fuzz/corpus) is copied into a scratch
# directory, which the fuzzer grows; the seeds themselves are never modified.
# After the fuzzer's log comes the line
#   run.sh: N inputs in Ss
# with libFuzzer's count of the inputs it executed and the seconds it took
# (.ci/run totals it); -runs=N among the options ends a run sooner.
#
# Exit status: 0 when the time (or -runs) ran out without a finding, 1 on a
# crash, a sanitizer report, a leak, a timeout (an input taking more than
# 10 s) or an out-of-memory, 2 on a usage error or a missing binary.  On a
# finding the reproducer is printed as a hex dump and kept, with the log, in
# the scratch directory, whose path is printed.
#
# Environment:
#   FUZZ_BIN     the fuzz binary (default: tests/fuzz/fuzz_parse)
#   FUZZ_CORPUS  the seed corpus (default: tests/fuzz/corpus)
#   FUZZ_MAX_LEN the largest input tried, in bytes (default: 4096)

set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${FUZZ_BIN:-$here/fuzz_parse}
seeds=${FUZZ_CORPUS:-$here/corpus}
max_len=${FUZZ_MAX_LEN:-4096}

seconds=60
if [ $# -gt 0 ]; then
	case $1 in
	''|*[!0-9]*) ;;
	*) seconds=$1; shift ;;
	esac
fi
case $seconds in
0|'') echo "usage: $0 [SECONDS] [LIBFUZZER-OPTION...]" >&2; exit 2 ;;
esac

if [ ! -x "$bin" ]; then
	echo "run.sh: no fuzz binary at $bin; build it with 'make fuzz'" >&2
	exit 2
fi
if [ ! -d "$seeds" ]; then
	echo "run.sh: no seed corpus at $seeds" >&2
	exit 2
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/cordon-fuzz.XXXXXX")
mkdir "$scratch/corpus" "$scratch/artifacts"
cp "$seeds"/* "$scratch/corpus/"

# Undefined behaviour is a finding, not a warning; leaks are findings too.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

echo "run.sh: $bin for ${seconds}s over $(find "$scratch/corpus" -type f | wc -l | tr -d ' ') seeds in $scratch"
status=0
# -entropic=0: the entropic schedule's bookkeeping of rare features grows
# with the features an input touches; on the shell analyser (30,000 and
# more) it took three quarters of the fuzzer's CPU time, so four inputs in
# five went untried.  A later -entropic=1 among the options turns it on.
"$bin" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -entropic=0 \
	-print_final_stats=1 -artifact_prefix="$scratch/artifacts/" "$@" \
	"$scratch/corpus" > "$scratch/fuzz.log" 2>&1 || status=$?
cat "$scratch/fuzz.log"
units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/fuzz.log" | tail -n 1)
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$scratch/fuzz.log" | tail -n 1)
echo "run.sh: ${units:-0} inputs in ${took:-$seconds}s"

found=$(ls "$scratch/artifacts")
if [ "$status" -eq 0 ] && [ -z "$found" ]; then
	echo "run.sh: no finding in ${took:-$seconds}s"
	rm -rf "$scratch"
	exit 0
fi

echo "run.sh: FINDING (fuzzer exit status $status)"
grep -E '^(SUMMARY|==[0-9]+==ERROR)|runtime error' "$scratch/fuzz.log" | sort -u | head -n 10 || true
for f in $found; do
	echo "--- reproducer $scratch/artifacts/$f ($(wc -c < "$scratch/artifacts/$f" | tr -d ' ') bytes):"
	if command -v xxd > /dev/null 2>&1; then
		xxd "$scratch/artifacts/$f" | head -n 64
	else
		od -A x -t x1 -v "$scratch/artifacts/$f" | head -n 64
	fi
done
echo "run.sh: reproduce with: $bin $scratch/artifacts/<file>"
echo "run.sh: log and reproducers kept in $scratch"
exit 1
