#!/usr/bin/env bash
# Benchmark redaction and the audit log through the cordon command.
#
#   bench/audit.sh [-c CORDON] [-m MIB] [-q REQUESTS] [-r RUNS]
#
#   1. `cordon run --preset danger-full-access [--redact] -- cat FILE` on MIB
#      MiB (default 32) of generated text with a GitHub token every 1,000
#      lines: MiB/s with and without --redact (no sandbox, so the numbers
#      are the redaction's own);
#   2. `cordon eval --preset read-only --stdin [--audit LOG]` on REQUESTS
#      tool requests (default 20,000): microseconds a record the audit log
#      adds to a decision.
#
# Each number is the median of RUNS runs (default 3).  It reports; it does
# not gate.
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
cordon=$here/../cordon
mib=32 requests=20000 runs=3
while getopts c:m:q:r: o; do
	case $o in
	c) cordon=$OPTARG ;;
	m) mib=$OPTARG ;;
	q) requests=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
# The runs below start in a temp dir: name the binary from the root.
case $cordon in
/*) ;;
*) cordon=$(cd "$(dirname "$cordon")" && pwd)/$(basename "$cordon") ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/cordon-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Lines of 10 words of 2-12 letters; a token every 1,000 lines.
awk -v bytes=$((mib * 1048576)) 'BEGIN {
	srand(1); chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for (n = 0; total < bytes; n++) {
		line = ""
		for (w = 0; w < 10; w++) {
			len = 2 + int(rand() * 11); word = ""
			for (i = 0; i < len; i++) word = word substr(chars, 1 + int(rand() * 62), 1)
			line = line (w ? " " : "") word
		}
		if (n % 1000 == 0) line = line " ghp_1234567890abcdefghijABCDEFGHIJ123456"
		print line; total += length(line) + 1
	}
}' > text
awk -v n="$requests" 'BEGIN { for (i = 0; i < n; i++) printf "{\"op\":\"tool\",\"target\":\"t%d\"}\n", i }' > req

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
seconds() { # seconds CMD...: wall time of one run
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}

for mode in plain redact; do
	flag=
	[ $mode = redact ] && flag=--redact
	s=$(for _ in $(seq "$runs"); do seconds "$cordon" run --preset danger-full-access $flag -- cat text; done | median)
	printf 'run %-7s %4d MiB: %6.2f s, %7.1f MiB/s\n' $mode "$mib" "$s" "$(echo "$mib / $s" | bc -l)"
done
plain=$(for _ in $(seq "$runs"); do seconds "$cordon" eval --preset read-only --stdin < req; done | median)
audit=$(for _ in $(seq "$runs"); do rm -f log; seconds "$cordon" eval --preset read-only --stdin --audit log < req; done | median)
printf 'eval --stdin %d requests: %.2f s; with --audit %.2f s: %.1f us a record\n' "$requests" \
	"$plain" "$audit" "$(echo "($audit - $plain) * 1000000 / $requests" | bc -l)"
