#!/bin/sh
# Run cordon under valgrind; any error or leak fails the calling test.
# valgrind cannot follow pcre2's JIT-generated code: use the interpreter.
CORDON_NO_JIT=1
export CORDON_NO_JIT
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	"${CORDON_REAL:?}" "$@"
