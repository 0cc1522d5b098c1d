#!/bin/sh
# The egress proxy's cost: a large download through it against the same
# download straight over the host's loopback, the time a small request
# takes each way (the proxy's added latency per connection), and the cost
# of refusals: a call that makes R contacts the proxy refuses, with the
# report cordon prints after it and with --quiet-refusals.  Everything
# stays on 127.0.0.1: a test server, names mapped by --egress-hosts.
#
#   bench/egress.sh [-c CORDON] [-m MEGABYTES] [-n REQUESTS] [-r REFUSALS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cordon=$top/cordon
mb=512
n=50
r=100
while getopts c:m:n:r: opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	m) mb=$OPTARG ;;
	n) n=$OPTARG ;;
	r) r=$OPTARG ;;
	*) echo "usage: bench/egress.sh [-c CORDON] [-m MEGABYTES] [-n REQUESTS] [-r REFUSALS]" >&2; exit 2 ;;
	esac
done
d=$(mktemp -d)
trap 'kill $srv 2> /dev/null; rm -rf "$d"' EXIT
python3 "$top/tests/egress-server.py" "$d/port" "$d/log" $((mb * 1048576)) &
srv=$!
while [ ! -s "$d/port" ]; do sleep 0.05; done
port=$(cat "$d/port")
echo "127.0.0.1 bench.test refused.test" > "$d/hosts"
cat > "$d/p.cordon" << 'POLICY'
cordon 1;
preset "bench" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" deny;
  net "bench.test" allow;
}
default "bench";
POLICY
mkdir "$d/ws"
chmod -R a+rX "$d"

# Throughput: curl's own measure of the transfer, in MB/s.
speed() { awk '{ printf "%.0f", $1 / 1048576 }'; }
direct=$(curl -s -o /dev/null -w '%{speed_download}\n' "http://127.0.0.1:$port/big" | speed)
proxied=$("$cordon" run -p "$d/p.cordon" --workspace "$d/ws" --egress-hosts "$d/hosts" -- \
	curl -s -o /dev/null -w '%{speed_download}\n' "http://bench.test:$port/big" | speed)
tunnel=$("$cordon" run -p "$d/p.cordon" --workspace "$d/ws" --egress-hosts "$d/hosts" -- \
	curl -s -p -o /dev/null -w '%{speed_download}\n' "http://bench.test:$port/big" | speed)

# Latency: the mean time of a small request, n of them one after the other.
mean() { awk '{ s += $1 } END { printf "%.2f", s / NR * 1000 }'; }
small() { # URL [CURL OPTION...]
	u=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		curl -s -o /dev/null -w '%{time_total}\n' "$@" "$u"
		i=$((i + 1))
	done
}

lat_direct=$(small "http://127.0.0.1:$port/x" | mean)
script='n=$1; i=0; while [ $i -lt $n ]; do curl -s -o /dev/null -w "%{time_total}\n" "$2"; i=$((i + 1)); done'
lat_proxied=$("$cordon" run -p "$d/p.cordon" --workspace "$d/ws" --egress-hosts "$d/hosts" -- \
	sh -c "$script" sh "$n" "http://bench.test:$port/x" | mean)

# Refusals: r contacts to a denied host in one call (the name is in a
# file, so the call runs and the proxy refuses each), the whole call's
# wall time and the mean of one refused request; with the report cordon
# prints after the call, and with --quiet-refusals where this cordon has it.
echo "refused.test:$port" > "$d/ws/target"
# One process makes the r requests through the proxy (3128 inside), so
# that what is timed is the proxy's, not a client's start.
cat > "$d/ws/loop.py" << 'LOOP'
import socket, sys, time
t = open("target").read().strip()
for _ in range(int(sys.argv[1])):
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(("GET http://%s/x HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)).encode())
    while s.recv(65536):
        pass
    s.close()
    print("%.6f" % (time.monotonic() - t0))
LOOP
chmod -R a+rX "$d/ws"
wall() { # CORDON-RUN-OPTION...: the call's wall time in ms, then the mean latency
	t0=$(date +%s%N)
	lat=$(cd "$d/ws" && "$cordon" run -p "$d/p.cordon" --workspace "$d/ws" --egress-hosts "$d/hosts" \
		"$@" -- python3 loop.py "$r" 2> "$d/refusals.err" | mean)
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) "$lat"
}
set -- $(wall)
wall_refused=$1 lat_refused=$2
report_lines=$(grep -c '^cordon: ' "$d/refusals.err" || true)
wall_quiet=- lat_quiet=-
if "$cordon" run --help 2>&1 | grep -q -- --quiet-refusals; then
	set -- $(wall --quiet-refusals)
	wall_quiet=$1 lat_quiet=$2
fi
echo "bench.test:$port" > "$d/ws/target"
set -- $(wall)
wall_allowed=$1 lat_allowed=$2

printf '%-44s %10s\n' "measure" "value"
printf '%-44s %7s MB/s\n' "download ${mb} MB, direct over loopback" "$direct"
printf '%-44s %7s MB/s\n' "download ${mb} MB, through the proxy (HTTP)" "$proxied"
printf '%-44s %7s MB/s\n' "download ${mb} MB, through the proxy (CONNECT)" "$tunnel"
printf '%-44s %7s ms\n' "small request, direct (mean of $n)" "$lat_direct"
printf '%-44s %7s ms\n' "small request, through the proxy (mean of $n)" "$lat_proxied"
printf '%-44s %7s ms\n' "call of $r allowed requests, wall" "$wall_allowed"
printf '%-44s %7s ms\n' "call of $r refused requests, wall" "$wall_refused"
printf '%-44s %7s ms\n' "call of $r refused, --quiet-refusals, wall" "$wall_quiet"
printf '%-44s %7s ms\n' "allowed request in that call (mean)" "$lat_allowed"
printf '%-44s %7s ms\n' "refused request in that call (mean)" "$lat_refused"
printf '%-44s %7s ms\n' "refused request, --quiet-refusals (mean)" "$lat_quiet"
printf '%-44s %10s\n' "lines of cordon's report on stderr" "$report_lines"
