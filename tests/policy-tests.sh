#!/bin/sh
# The test blocks of the shipped policies, run by `cordon test` (its output
# is the TAP of this test).
exec "$CORDON" test "$srcdir/rules/default.cordon" "$srcdir"/rules/examples/*.cordon \
	"$srcdir/tests/data/golden/tests-default.cordon"
