#!/bin/sh
# `make install` into a staging directory: every file lands where it should,
# a program builds against the installed header and library through the
# installed cordon.pc, the installed binary checks and tests the installed
# policies, and `make uninstall` takes it all away again.
. "$srcdir/tests/lib.sh"

dest="$tmpdir/dest"
# A make of our own: not the jobserver or the variables of the make that
# runs this test.
unset MAKEFLAGS MFLAGS MAKELEVEL
${MAKE:-make} -C "$builddir" install DESTDIR="$dest" > "$tmpdir/install.log" 2>&1
status=$?
ok $status "make install DESTDIR=..."
if [ $status -ne 0 ]; then
	tail -20 "$tmpdir/install.log" | diag
	done_testing
	exit
fi

find_one() { # find_one PATH-GLOB: the one installed file that matches
	find "$dest" -path "$1" -type f | head -1
}

pc=$(find_one '*/pkgconfig/cordon.pc')
ok $(($(printf %s "$pc" | wc -c) == 0)) "cordon.pc is installed"
bin=$(find_one '*/bin/cordon')
[ -n "$bin" ] && [ -x "$bin" ]
ok $? "the cordon binary is installed"
helper=$(find_one '*/libexec/cordon/cordon-exec')
[ -n "$helper" ] && [ -x "$helper" ]
ok $? "the cordon-exec helper is installed under libexec/cordon"
for f in '*/lib/libcordon.a' '*/include/cordon.h' '*/include/cordon_tools.h' '*/man1/cordon.1' '*/man5/cordon.policy.5' \
	'*/bash-completion/completions/cordon'; do
	[ -n "$(find_one "$f")" ]
	ok $? "installed: $f"
done
for f in "$srcdir"/rules/*.cordon "$srcdir"/rules/examples/*.cordon; do
	rel=${f#"$srcdir"/rules/}
	[ -n "$(find_one "*/share/cordon/$rel")" ]
	ok $? "installed: policy $rel"
done

lib=$(find_one '*/lib/libcordon.a')
ar t "$lib" > "$tmpdir/members" 2>&1
grep -q 'parser' "$tmpdir/members" && grep -q 'lexer' "$tmpdir/members" && grep -q 'eval' "$tmpdir/members"
ok $? "libcordon.a holds the engine, the parser and the scanner"

# The header stands alone: it names no header that is not installed.
hdr=$(find_one '*/include/cordon.h')
grep '^#include' "$hdr" | grep -Ev '<(std[a-z]*|time|limits|inttypes)\.h>' > "$tmpdir/includes"
ok $(($(wc -l < "$tmpdir/includes") != 0)) "cordon.h includes only standard headers"
diag < "$tmpdir/includes"
tools_hdr=$(find_one '*/include/cordon_tools.h')
grep '^#include' "$tools_hdr" | grep -Ev '<(std[a-z]*|time|limits|inttypes)\.h>' | grep -v '^#include "cordon\.h"$' > "$tmpdir/includes"
ok $(($(wc -l < "$tmpdir/includes") != 0)) "cordon_tools.h includes only standard headers and cordon.h"
diag < "$tmpdir/includes"
# So does each header of include/cordon/ (the typed plan, the runner's doors).
for h in "$srcdir"/include/cordon/*.h; do
	name=cordon/${h##*/}
	inst=$(find_one "*/include/$name")
	[ -n "$inst" ]
	ok $? "installed: $name"
	grep '^#include' "$inst" | grep -Ev '<(std[a-z]*|time|limits|inttypes)\.h>' |
		grep -v '^#include "cordon\.h"$' | grep -v '^#include "cordon/[a-z_]*\.h"$' > "$tmpdir/includes"
	ok $(($(wc -l < "$tmpdir/includes") != 0)) "$name includes only standard headers and public ones"
	diag < "$tmpdir/includes"
done

# A program of an agent host, linked through pkg-config.
share=$(dirname "$(find_one '*/share/cordon/default.cordon')")
: "${CORDON_TEST_CC:=cc}"
if ! command -v "${PKG_CONFIG:-pkg-config}" > /dev/null; then
	skip "a program builds against the installed library" "pkg-config is missing"
elif ! command -v "${CORDON_TEST_CC%% *}" > /dev/null; then
	skip "a program builds against the installed library" "no C compiler ($CORDON_TEST_CC)"
else
	PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest
	export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
	cflags=$(${PKG_CONFIG:-pkg-config} --cflags cordon) &&
		libs=$(${PKG_CONFIG:-pkg-config} --libs cordon) &&
		static_libs=$(${PKG_CONFIG:-pkg-config} --static --libs cordon)
	ok $? "pkg-config reads the installed cordon.pc"
	echo "cflags: $cflags; libs: $libs" | diag
	[ "$(${PKG_CONFIG:-pkg-config} --modversion cordon)" = "$("$bin" --version | sed -n 's/^cordon \([^ ]*\).*/\1/p')" ]
	ok $? "cordon.pc carries the version of the binary"
	# shellcheck disable=SC2086
	$CORDON_TEST_CC $CORDON_TEST_CFLAGS -std=c11 -Wall -Wextra -Werror $cflags -o "$tmpdir/use-libcordon" \
		"$srcdir/tests/host/use-libcordon.c" $libs > "$tmpdir/cc.log" 2>&1
	ok $? "a program compiles and links with \$(pkg-config --cflags --libs cordon)"
	diag < "$tmpdir/cc.log"
	# shellcheck disable=SC2086
	$CORDON_TEST_CC $CORDON_TEST_CFLAGS -std=c11 $cflags -o "$tmpdir/use-libcordon-static" \
		"$srcdir/tests/host/use-libcordon.c" $static_libs > "$tmpdir/cc.log" 2>&1
	ok $? "and with \$(pkg-config --static --libs cordon)"
	diag < "$tmpdir/cc.log"
	# shellcheck disable=SC2086
	$CORDON_TEST_CC $CORDON_TEST_CFLAGS -std=c11 -Wall -Wextra -Werror $cflags -o "$tmpdir/use-cordon-tools" \
		"$srcdir/tests/host/use-cordon-tools.c" $libs > "$tmpdir/cc.log" 2>&1
	ok $? "a program of the tools' API (cordon_tools.h) compiles and links the same way"
	diag < "$tmpdir/cc.log"
	for h in "$srcdir"/include/cordon/*.h; do
		printf '#include <cordon/%s>\n' "${h##*/}"
	done > "$tmpdir/use-headers.c"
	# shellcheck disable=SC2086
	$CORDON_TEST_CC $CORDON_TEST_CFLAGS -std=c11 -Wall -Wextra -Werror $cflags -fsyntax-only \
		"$tmpdir/use-headers.c" > "$tmpdir/cc.log" 2>&1
	ok $? "the installed headers of cordon/ compile with \$(pkg-config --cflags cordon) alone"
	diag < "$tmpdir/cc.log"
	unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

	# The library decides as the installed command does.
	# The same context for both, cwd too: the command line and the library
	# fill in a missing one each in its own way.
	set -- workspace=/srv/ws cwd=/srv/ws home=/home/u tmp=/tmp/c agent_dir=/home/u/.cordon \
		session_dir=/home/u/.cordon/s
	while read -r op target; do
		"$tmpdir/use-libcordon" "$share/default.cordon" workspace-write "$op" "$target" "$@" < /dev/null \
			> "$tmpdir/lib.out" 2> "$tmpdir/lib.err"
		status=$?
		"$bin" eval -p "$share/default.cordon" --preset workspace-write --json \
			--context workspace=/srv/ws --context cwd=/srv/ws --context home=/home/u \
			--context tmp=/tmp/c --context agent_dir=/home/u/.cordon \
			--context session_dir=/home/u/.cordon/s \
			"$op" "$target" < /dev/null > "$tmpdir/cli.out" 2>&1
		echo "libcordon $("$bin" --version | sed -n 's/^cordon \([^ ]*\).*/\1/p')" >> "$tmpdir/cli.out"
		[ $status -eq 0 ] && cmp -s "$tmpdir/lib.out" "$tmpdir/cli.out"
		ok $? "libcordon and cordon eval agree: $op $target ($(sed -n 's/.*"decision":"\([a-z]*\)".*/\1/p' "$tmpdir/lib.out" | head -1))"
		diag < "$tmpdir/lib.err"
		diff "$tmpdir/cli.out" "$tmpdir/lib.out" | diag
	done <<-EOF
		write /srv/ws/src/main.c
		write /home/u/.ssh/authorized_keys
		write /etc/hosts
		net example.com:443
		exec git status
		exec git push --force origin main
		tool mcp:github/create_issue
	EOF
fi

# The tools' API formats and lints as the installed command does.
if [ -x "$tmpdir/use-cordon-tools" ]; then
	for f in "$share/default.cordon" "$share/examples/team.cordon"; do
		for verb in fmt lint; do
			if [ $verb = fmt ]; then
				"$bin" fmt "$f" > "$tmpdir/cli.out" 2>&1
			else
				"$bin" lint --format json "$f" > "$tmpdir/cli.out" 2>&1
			fi
			"$tmpdir/use-cordon-tools" $verb "$f" > "$tmpdir/lib.out" 2> "$tmpdir/lib.err"
			status=$?
			[ $status -eq 0 ] && [ -s "$tmpdir/lib.out" ] && cmp -s "$tmpdir/lib.out" "$tmpdir/cli.out"
			ok $? "libcordon and cordon $verb agree on ${f#"$share"/}"
			diag < "$tmpdir/lib.err"
			diff "$tmpdir/cli.out" "$tmpdir/lib.out" | head -20 | diag
		done
	done
else
	skip "the tools' API formats and lints as the command does" "the program was not built"
fi

# The installed binary on the installed policies.
"$bin" check "$share"/*.cordon "$share"/examples/*.cordon > "$tmpdir/out" 2>&1
ok $? "the installed cordon checks the installed policies"
diag < "$tmpdir/out"
"$bin" test "$share"/*.cordon "$share"/examples/*.cordon > "$tmpdir/out" 2>&1
status=$?
ok $status "their test blocks pass under the installed cordon ($(grep -c '^ok' "$tmpdir/out") expectations)"
[ $status -eq 0 ] || grep -v '^ok' "$tmpdir/out" | diag
"$bin" compile -p "$share/default.cordon" --all --emit ir --no-origins > "$tmpdir/a" 2>&1 &&
	"$bin" compile --all --emit ir --no-origins > "$tmpdir/b" 2>&1 &&
	cmp -s "$tmpdir/a" "$tmpdir/b"
ok $? "the installed default.cordon is the policy embedded in the binary"

${MAKE:-make} -C "$builddir" uninstall DESTDIR="$dest" > "$tmpdir/uninstall.log" 2>&1
ok $? "make uninstall"
find "$dest" -type f > "$tmpdir/left"
ok $(($(wc -l < "$tmpdir/left") != 0)) "make uninstall leaves no file behind"
diag < "$tmpdir/left"

done_testing
