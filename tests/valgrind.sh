#!/bin/sh
# Run cordon under valgrind; any error or leak fails the calling test.
# valgrind cannot follow pcre2's JIT-generated code: use the interpreter.
#
# CORDON_VALGRIND_EVERY=N (CI's pass sets 3) puts one cordon process in N
# of a test under valgrind, counted in CORDON_VALGRIND_COUNT (a file in the
# test's directory, which tests/lib.sh names): the first always, and every
# stream (--stdin), whose one process decides many cases.  The others run
# the real binary: most of a suite's processes repeat one verb's code on
# other data, valgrind's start alone is half a second each, and the ASan
# and UBSan pass checks every process.  Without the variable (`make
# check-valgrind` by hand) every process runs under valgrind.
CORDON_NO_JIT=1
export CORDON_NO_JIT
every=${CORDON_VALGRIND_EVERY:-1}
count=${CORDON_VALGRIND_COUNT:-}
case " $* " in *" --stdin "*) every=1 ;; esac
if [ "$every" -gt 1 ] && [ -n "$count" ] && [ -w "$(dirname "$count")" ]; then
	# The count under a lock: a test's processes may start side by side.
	n=$(flock "$count" sh -c 'n=$(($(cat "$1") + 0 + 1)); echo "$n" > "$1"; echo "$n"' sh "$count") || n=1
	if [ $(((n - 1) % every)) -ne 0 ]; then
		exec "${CORDON_REAL:?}" "$@"
	fi
fi
exec valgrind -q --vgdb=no --read-inline-info=no --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect "${CORDON_REAL:?}" "$@"
