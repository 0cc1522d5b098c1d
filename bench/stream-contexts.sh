#!/usr/bin/env bash
# How the decision stream keeps its speed as requests name many contexts
# (one session each, as a host with many agents sends them).
#
#   bench/stream-contexts.sh [-c CORDON] [-n DECISIONS] [-r RUNS]
#
# For 1, 8, 9, 16, 64, 65 and 256 distinct contexts, DECISIONS requests
# (default 1,000) cycling through them go to one `cordon eval --stdin`
# under the embedded policy (workspace-write), directly and, when node is
# installed, through the Node client (bindings/node).  It prints the
# median milliseconds of RUNS runs (default 5) and the ratio to one
# context.  The stream keeps 64 evaluators (cli/cmd_eval.c), so the ratio
# stays near 1 up to 64 contexts and grows past it, where each line
# builds its evaluator again.  It reports; it does not gate.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cordon=$top/cordon
n=1000
runs=5
while getopts c:n:r: opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	n) n=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) sed -n '5p' "$0" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The requests for k contexts: a write in the context's own workspace.
requests() { # requests K > FILE
	awk -v n="$n" -v k="$1" 'BEGIN { for (i = 0; i < n; i++) { c = i % k;
		printf "{\"op\":\"write\",\"target\":\"/ws%d/f%d\",\"context\":{\"workspace\":\"/ws%d\",\"home\":\"/home/u%d\"}}\n", c, i, c, c } }'
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

stream_ms() { # stream_ms FILE: one run, the whole stream
	local t0
	t0=$(now_ms)
	"$cordon" eval --preset workspace-write --stdin < "$1" > /dev/null
	echo $(($(now_ms) - t0))
}

# The client's own clock: from the first request to the last answer, the
# stream already started.
cat > "$tmp/client.js" <<'JS'
const { Cordon } = require(process.argv[2]);
const [n, k] = [Number(process.argv[3]), Number(process.argv[4])];
(async () => {
  const c = new Cordon({ bin: process.argv[5], preset: 'workspace-write', timeoutMs: 600000 });
  await c.decide({ op: 'read', target: '/etc/hosts' });
  const t0 = process.hrtime.bigint();
  const all = [];
  for (let i = 0; i < n; i++) {
    const w = `/ws${i % k}`;
    all.push(c.decide({ op: 'write', target: `${w}/f${i}`, context: { workspace: w, home: `/home/u${i % k}` } }));
  }
  await Promise.all(all);
  console.log(Math.round(Number(process.hrtime.bigint() - t0) / 1e6));
  c.close();
})();
JS
have_node=false
command -v node > /dev/null && have_node=true

printf '%-9s %10s %7s' contexts stream_ms ratio
$have_node && printf ' %10s %7s' client_ms ratio
echo
base_s= base_c=
for k in 1 8 9 16 64 65 256; do
	requests "$k" > "$tmp/req"
	s=$(for _ in $(seq "$runs"); do stream_ms "$tmp/req"; done | median)
	[ -n "$base_s" ] || base_s=$((s > 0 ? s : 1))
	printf '%-9s %10s %7s' "$k" "$s" "$(awk -v a="$s" -v b="$base_s" 'BEGIN { printf "%.2f", a / b }')"
	if $have_node; then
		c=$(for _ in $(seq "$runs"); do
			node "$tmp/client.js" "$top/bindings/node" "$n" "$k" "$cordon"
		done | median)
		[ -n "$base_c" ] || base_c=$((c > 0 ? c : 1))
		printf ' %10s %7s' "$c" "$(awk -v a="$c" -v b="$base_c" 'BEGIN { printf "%.2f", a / b }')"
	fi
	echo
done
