# TAP helpers for the shell tests.  Sourced; expects CORDON, srcdir and
# builddir in the environment (make check sets them).
: "${CORDON:?CORDON must name the cordon binary}"
: "${srcdir:?}" "${builddir:?}"

tap_n=0
tap_failed=0

ok() { # ok STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf 'got:  %s\nwant: %s\n' "$1" "$2" | diag
	fi
}

skip() { # skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

diag() {
	sed 's/^/# /'
}

# Compare a produced file with its golden copy; on mismatch keep the
# produced text beside the build tree as NAME.got and show the difference.
check_golden() { # check_golden GOT WANT DESCRIPTION
	if [ -n "${CORDON_ACCEPT:-}" ] && ! cmp -s "$1" "$2"; then
		cp "$1" "$2" # tests/regen.sh: accept on purpose
	fi
	if cmp -s "$1" "$2"; then
		ok 0 "$3"
	else
		got="$builddir/tests/$(basename "$PWD")/$(basename "$2").got"
		mkdir -p "$(dirname "$got")"
		cp "$1" "$got"
		ok 1 "$3"
		diff -u "$2" "$1" | head -40 | diag
		echo "kept as $got; tests/regen.sh accepts it" | diag
	fi
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# as_nobody_cordon DIR: a cordon the user nobody can run, for a test's
# unprivileged pass.  The build tree may be closed to nobody (a fresh
# clone in a 0700 temporary directory), and under check-valgrind $CORDON
# is a script nobody cannot read: copy the real binary into DIR.
as_nobody_cordon() {
	mkdir -p "$1" && cp "${CORDON_REAL:-$CORDON}" "$1/cordon" && chmod 755 "$1" "$1/cordon" &&
		echo "$1/cordon"
}

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-test.XXXXXX")
trap 'chmod -R u+rwx "$tmpdir" 2>/dev/null; rm -rf "$tmpdir"' EXIT
