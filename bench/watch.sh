#!/bin/sh
# The cost of the refused-write watch (runners/refusal_watch.h): cordon run
# with it and with --no-watch-writes, alternating, in one run.
#
#   bench/watch.sh [-c CORDON] [-n LAUNCHES] [-f FILES] [-r LOOPS]
#
# Three loads, each as the median wall time of its runs:
#   true:   a launch of /bin/true (-n of each)
#   create: FILES file creations in the workspace (allowed: each open is
#           one notification, answered CONTINUE), -r of each
#   read:   FILES read-only opens of one file (never notified), -r of each
# and the ratio watched / unwatched of each.  It reports; it does not gate.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cordon=$here/cordon n=30 files=10000 loops=7
while getopts c:n:f:r: o; do
	case $o in
	c) cordon=$OPTARG ;;
	n) n=$OPTARG ;;
	f) files=$OPTARG ;;
	r) loops=$OPTARG ;;
	*) exit 2 ;;
	esac
done
command -v python3 > /dev/null || {
	echo "bench/watch.sh: needs python3" >&2
	exit 2
}
ws=$(mktemp -d "${TMPDIR:-/tmp}/cordon-watch.XXXXXX")
trap 'rm -rf "$ws"' EXIT
cd "$ws"
cat > create.py << EOF
import os
for i in range($files):
    os.close(os.open("f%d" % (i % 500), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
EOF
cat > read.py << EOF
import os
for i in range($files):
    os.close(os.open("create.py", os.O_RDONLY))
EOF

# ms ARGS...: one cordon run's wall time in milliseconds.
ms() {
	python3 - "$@" << 'EOF'
import subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
if r.returncode:
    sys.exit("cordon run failed: %d" % r.returncode)
print("%.3f" % ((time.monotonic() - t) * 1000))
EOF
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

load() { # load NAME COUNT CMD...
	name=$1 count=$2
	shift 2
	: > on.t
	: > off.t
	i=0
	while [ $i -lt "$count" ]; do
		ms "$cordon" run --preset workspace-write -- "$@" >> on.t
		ms "$cordon" run --preset workspace-write --no-watch-writes -- "$@" >> off.t
		i=$((i + 1))
	done
	on=$(median < on.t) off=$(median < off.t)
	printf '| %s | %s ms | %s ms | %s x |\n' "$name" "$on" "$off" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')"
}

echo "cordon: $cordon; $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)"
echo "| load | watched (median) | --no-watch-writes | ratio |"
echo "| --- | --- | --- | --- |"
load "launch of /bin/true (median of $n)" "$n" /bin/true
load "$files file creations in the workspace (median of $loops)" "$loops" python3 create.py
load "$files read-only opens (median of $loops)" "$loops" python3 read.py
