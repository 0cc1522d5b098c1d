#!/usr/bin/env bash
# Policies whose path patterns start with a wildcard component: load and
# decisions as the rules grow.
#
#   bench/wide.sh [-c CORDON] [-q REQUESTS] [-r RUNS]
#
# The shape: N rules in one preset, four in five `read|write
# "/home/*/ws/projI/**" allow`, one in five `"/home/*/ws/projI/**/*.pem"
# deny`, at N = 1,000 and 10,000.  For each N it times, alternating and
# taking medians of RUNS runs (default 5): `cordon --version` (a process
# start), `cordon eval` of one request (start, load, one decision), and
# REQUESTS requests (default 20,000) through `cordon eval --stdin`.  It
# prints the times and the ratios 10k/1k, which are what to compare on a
# shared machine: each pair comes from one run.
set -eu
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
cordon=$here/../cordon requests=20000 runs=5
while getopts c:q:r: o; do
	case $o in
	c) cordon=$OPTARG ;;
	q) requests=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) echo "usage: $0 [-c CORDON] [-q REQUESTS] [-r RUNS]" >&2; exit 2 ;;
	esac
done
[ -x "$cordon" ] || { echo "bench/wide.sh: no cordon at $cordon" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

policy() { # policy N FILE
	awk -v n="$1" 'BEGIN {
		print "cordon 1;\npreset \"p\" {"
		for (i = 0; i < n; i++) {
			op = i % 2 ? "read" : "write"
			if (i % 5 < 4) printf "  %s \"/home/*/ws/proj%d/**\" allow;\n", op, i
			else printf "  %s \"/home/*/ws/proj%d/**/*.pem\" deny;\n", op, i
		}
		print "}\ndefault \"p\";"
	}' > "$2"
}
requests() { # requests N COUNT FILE
	awk -v n="$1" -v c="$2" 'BEGIN {
		srand(1)
		for (i = 1; i <= c; i++) {
			p = int(rand() * n); f = rand() < 0.3 ? "k.pem" : "src/a.c"
			printf "{\"id\":%d,\"op\":\"%s\",\"target\":\"/home/u/ws/proj%d/%s\"}\n", i, i % 2 ? "read" : "write", p, f
		}
	}' > "$3"
}
ms() { # ms COMMAND...: wall milliseconds of one run
	local s e
	s=$(date +%s%N)
	"$@" > /dev/null 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for n in 1000 10000; do
	policy $n "$dir/p$n.cordon"
	requests $n "$requests" "$dir/r$n.jsonl"
done
for i in $(seq "$runs"); do
	for n in 1000 10000; do
		ms "$cordon" --version >> "$dir/version"
		ms "$cordon" eval -p "$dir/p$n.cordon" read /home/u/ws/proj7/a.c >> "$dir/load$n"
		ms sh -c "\"\$0\" eval -p \"\$1\" --stdin < \"\$2\"" "$cordon" "$dir/p$n.cordon" \
			"$dir/r$n.jsonl" >> "$dir/stream$n"
	done
done
v=$(median < "$dir/version")
for n in 1000 10000; do
	eval "load$n=$(median < "$dir/load$n") stream$n=$(median < "$dir/stream$n")"
done
printf 'cordon --version                   %6d ms\n' "$v"
printf 'eval, one request, 1,000 rules     %6d ms\n' "$load1000"
printf 'eval, one request, 10,000 rules    %6d ms   (%s x the 1,000)\n' "$load10000" \
	"$(awk -v a="$load10000" -v b="$load1000" 'BEGIN { printf "%.2f", a / (b ? b : 1) }')"
printf '%s requests, 1,000 rules   %6d ms\n' "$requests" "$stream1000"
printf '%s requests, 10,000 rules  %6d ms   (%s x the 1,000)\n' "$requests" "$stream10000" \
	"$(awk -v a="$stream10000" -v b="$stream1000" 'BEGIN { printf "%.2f", a / (b ? b : 1) }')"
