#!/bin/sh
# Run cordon under valgrind; any error or leak fails the calling test.
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	"${CORDON_REAL:?}" "$@"
