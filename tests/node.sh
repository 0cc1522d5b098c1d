#!/bin/sh
# The Node client (bindings/node) under node's own test runner, against
# the cordon just built; TAP on stdout.  Skipped where node 18 or later is
# not installed.
: "${CORDON:?}" "${srcdir:?}"
major=$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null)
if [ -z "$major" ] || [ "$major" -lt 18 ]; then
	echo "1..0 # SKIP node 18 or later is not installed"
	exit 0
fi
# The real binary: the client's runs go through cordon run, which valgrind
# cannot follow (it does not know Landlock's system calls).
CORDON=${CORDON_REAL:-$CORDON}
CORDON=$(cd "$(dirname "$CORDON")" && pwd)/$(basename "$CORDON")
export CORDON
exec node --test --test-reporter=tap "$srcdir/bindings/node/test/"
