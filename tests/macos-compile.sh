#!/bin/sh
# The code built only on macOS (#ifdef __APPLE__: the sandbox-exec runner,
# cordon probe's Seatbelt report, the native macOS host facts) still
# compiles against this tree: with __APPLE__ defined, on this machine's
# headers, with the warnings of the build as errors.  A proxy for a Mac's
# compiler, not one: tests/macos/verify.sh builds and runs it on a Mac.
. "$srcdir/tests/lib.sh"

cc=${CORDON_TEST_CC:-cc}
flags=$(pkg-config --cflags libpcre2-8 jansson 2> /dev/null)
for f in runners/run_macos.c cli/cmd_run.c lib/base/host_facts.c lib/decide/eval.c; do
	# shellcheck disable=SC2086
	$cc -std=c11 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-function -D__APPLE__ \
		-D_GNU_SOURCE -I"$builddir" -I"$srcdir/include" -I"$srcdir/lib" -I"$builddir/lib" -I"$builddir/lib/lang" -I"$srcdir/runners" -I"$srcdir/cli" \
		$flags "$srcdir/$f" 2> "$tmpdir/err"
	ok $? "$f compiles with __APPLE__ defined"
	diag < "$tmpdir/err"
done
# The script a Mac user runs is valid sh, and says it has nothing to do here.
sh -n "$srcdir/tests/macos/verify.sh"
ok $? "tests/macos/verify.sh is valid sh"
if [ "$(uname -s)" != Darwin ]; then
	is "$(sh "$srcdir/tests/macos/verify.sh" "$CORDON")" "1..0 # SKIP not macOS" \
		"tests/macos/verify.sh skips where it is not macOS"
fi
done_testing
