#!/bin/sh
# The egress proxy's cost: a large download through it against the same
# download straight over the host's loopback, and the time a small request
# takes each way (the proxy's added latency per connection).  Everything
# stays on 127.0.0.1: a test server, names mapped by --egress-hosts.
#
#   bench/egress.sh [-c CORDON] [-m MEGABYTES] [-n REQUESTS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cordon=$top/cordon
mb=512
n=50
while getopts c:m:n: opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	m) mb=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: bench/egress.sh [-c CORDON] [-m MEGABYTES] [-n REQUESTS]" >&2; exit 2 ;;
	esac
done
d=$(mktemp -d)
trap 'kill $srv 2> /dev/null; rm -rf "$d"' EXIT
python3 "$top/tests/egress-server.py" "$d/port" "$d/log" $((mb * 1048576)) &
srv=$!
while [ ! -s "$d/port" ]; do sleep 0.05; done
port=$(cat "$d/port")
echo "127.0.0.1 bench.test" > "$d/hosts"
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

printf '%-44s %10s\n' "measure" "value"
printf '%-44s %7s MB/s\n' "download ${mb} MB, direct over loopback" "$direct"
printf '%-44s %7s MB/s\n' "download ${mb} MB, through the proxy (HTTP)" "$proxied"
printf '%-44s %7s MB/s\n' "download ${mb} MB, through the proxy (CONNECT)" "$tunnel"
printf '%-44s %7s ms\n' "small request, direct (mean of $n)" "$lat_direct"
printf '%-44s %7s ms\n' "small request, through the proxy (mean of $n)" "$lat_proxied"
