#!/bin/sh
# Everyday commands run for real under `cordon run --preset workspace-write`
# with the embedded default policy, in a real git repository with a C
# program, a Makefile, a Python test and text files: every command of
# tests/everyday/commands.txt must exit 0, never 122 (a prompt), 121 (a
# denial) or 125 (no sandbox).  Commands whose targets are known only at run time (xargs, a
# loop over a glob, find -exec) must not ask: everything they may reach is
# either allowed or refused by the sandbox itself, which the last checks
# verify; each refused write is explained after the call with the
# rule and the fix.  As root and again as an unprivileged user (nobody) with a
# repository of its own.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
list=$srcdir/tests/everyday/commands.txt
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "everyday commands under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi

# The repository: a C program with its Makefile, a Python test, text files
# and a script; committed, with one change left in the work tree.
make_repo() { # make_repo DIR
	mkdir -p "$1/src" "$1/tests" "$1/scripts"
	cat > "$1/src/util.h" << 'C'
int add(int a, int b);
C
	cat > "$1/src/util.c" << 'C'
#include "util.h"
int add(int a, int b) { return a + b; }
C
	cat > "$1/src/main.c" << 'C'
#include <stdio.h>
#include "util.h"
int main(void)
{
	printf("%d\n", add(2, 3));
	return 0;
}
C
	printf '%s\n' 'CC ?= cc' 'hello: src/main.c src/util.c src/util.h' \
		'	$(CC) -Wall -o $@ src/main.c src/util.c' 'check: hello' '	./hello' \
		'clean:' '	rm -f hello' '.PHONY: check clean' > "$1/Makefile"
	cat > "$1/tests/test_util.py" << 'PY'
import unittest


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(2 + 3, 5)


if __name__ == "__main__":
    unittest.main()
PY
	printf '#!/bin/sh\necho "run from $(pwd)"\n' > "$1/scripts/run.sh"
	chmod 755 "$1/scripts/run.sh"
	printf '# demo\nA program that adds.\n' > "$1/README.md"
	printf 'old line\nTODO: more\n' > "$1/notes.txt"
	printf 'a,3\nb,1\nc,2\n' > "$1/data.csv"
	printf 'c\na\nb\n' > "$1/letters.txt"
	printf '{"name": "demo"}\n' > "$1/package.json"
}

pass() { # pass NAME
	name=$1
	P=$tmpdir/$name
	AS=
	if [ "$name" = nobody ]; then
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	fi
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H/.ssh"
	echo "PRIVATE-KEY-$name" > "$H/.ssh/id_ed25519"
	make_repo "$WS"
	C=$cordon_bin
	if [ -n "$AS" ]; then
		chown -R 65534:65534 "$P"
		if ! $AS test -x "$C"; then
			mkdir -p "$P/build"
			cp "$cordon_bin" "$(dirname "$cordon_bin")/cordon-exec" "$P/build/"
			C=$P/build/cordon
		fi
	fi
	t="[$name]"
	U() {
		(cd "$WS" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb "$@")
	}
	if ! U sh -c 'git init -q -b main . && git config user.name Dev &&
		git config user.email dev@example.com && git add -A &&
		git commit -q -m initial && echo "old change" >> notes.txt' > "$tmpdir/err" 2>&1; then
		ok 1 "$t the repository is made"
		diag < "$tmpdir/err"
		return
	fi
	n=0
	while IFS= read -r cmd; do
		case $cmd in '' | '#'*) continue ;; esac
		tool=
		case $cmd in
		'['*'] '*)
			tool=${cmd%%]*}
			tool=${tool#[}
			cmd=${cmd#*] }
			;;
		esac
		desc=$(printf '%s' "$cmd" | sed 's/#/\\#/g')
		if [ -n "$tool" ] && ! command -v "$tool" > /dev/null; then
			skip "$t $desc" "$tool is not installed"
			continue
		fi
		U "$C" run --preset workspace-write --workspace "$WS" -- bash -c "$cmd" \
			> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
		rc=$?
		ok $rc "$t $desc"
		[ $rc -eq 0 ] || { echo "exit status $rc"; cat "$tmpdir/err"; } | head -n 8 | diag
		n=$((n + 1))
	done < "$list"
	[ $n -ge 100 ]
	ok $? "$t at least 100 everyday commands ran ($n)"

	# What such a command may reach at run time is contained, not
	# granted: it runs without a prompt, and the sandbox refuses it.
	mkdir -p "$WS/.agent" && echo state > "$WS/.agent/state.json" && echo 'rc' > "$H/.bashrc"
	[ -z "$AS" ] || chown -R 65534:65534 "$WS/.agent" "$H/.bashrc"
	ctx="--context agent_dir=$WS/.agent --context session_dir=$WS/.agent/s1"
	# shellcheck disable=SC2086
	U "$C" run --preset workspace-write --workspace "$WS" $ctx -- bash -c \
		"find ~ -name .bashrc -o -name 'id_*' | xargs cat; for f in \$(find ~ -name 'id_*'); do cat \"\$f\"; done" \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	[ $rc -ne $RUN_ASK ] && [ $rc -ne $RUN_DENIED ] && [ "$(head -n 1 "$tmpdir/out")" = rc ] && ! grep -q PRIVATE-KEY "$tmpdir/out"
	ok $? "$t home files read through xargs and a loop run unprompted; the key is not among them (status $rc)"
	# shellcheck disable=SC2086
	U "$C" run --preset workspace-write --workspace "$WS" $ctx -- bash -c \
		"echo .agent/state.json | xargs rm -f; for f in ~/.bashrc; do echo x >> \"\$f\"; done" \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	[ $rc -ne $RUN_ASK ] && [ $rc -ne $RUN_DENIED ] && [ -f "$WS/.agent/state.json" ] && [ "$(cat "$H/.bashrc")" = rc ]
	ok $? "$t a protected file and one outside the workspace, reached at run time, stay as they were (status $rc)"
	grep -qF "cordon: refused write ~/.bashrc: read-only (openat) by rules/default.cordon:" "$tmpdir/err" &&
		grep -qF "cordon: refused write $WS/.agent/state.json: read-only (unlinkat) by " "$tmpdir/err" &&
		grep -qF "(checked): only a change of that rule where it is written can allow it" "$tmpdir/err"
	ok $? "$t a refused write of a protected file is explained on stderr: its rule, and that no preset lifts it"
	[ $? -eq 0 ] || diag < "$tmpdir/err"
	echo note > "$H/notes.txt"
	[ -z "$AS" ] || chown 65534:65534 "$H/notes.txt"
	U "$C" run --preset workspace-write --workspace "$WS" -- bash -c 'for f in ~/notes.txt; do echo x >> "$f"; done' \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	grep -qF "cordon: refused write ~/notes.txt: read-only (openat) by rules/default.cordon:" "$tmpdir/err" &&
		grep -qF "cordon:   to allow it, add to a preset that extends 'workspace-write':  write \"~/notes.txt\" allow;" "$tmpdir/err"
	ok $? "$t a refused write is explained on stderr with the rule and the fix"
	[ $? -eq 0 ] || diag < "$tmpdir/err"
	# shellcheck disable=SC2086
	U "$C" run --preset workspace-write --workspace "$WS" $ctx -- bash -c "cat ~/.ssh/id_ed25519" \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	is "$?" $RUN_DENIED "$t a key named on the command line is still refused"
}

for p in $passes; do
	pass "$p"
done
done_testing
