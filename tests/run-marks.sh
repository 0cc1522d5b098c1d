#!/bin/sh
# cordon-exec's check of where the descriptor binds landed (--mounted
# DEV:INO:PATH), under the real bwrap, as root and again as an
# unprivileged user (nobody).  bwrap binds a descriptor by the path it
# names, so a directory swapped for a symlink and back during the launch
# can get another directory mounted where the symlink pointed while the
# destination itself stays unmounted: each case here builds one such
# outcome with plain bwrap options and expects cordon-exec to stop the
# command before it runs.
. "$srcdir/tests/lib.sh"

build_id=$(sed -n 's/^#define CORDON_BUILD_ID "\(.*\)"$/\1/p' "$builddir/build-id.h")
bwrap=$(command -v bwrap)
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

if [ -z "$bwrap" ] || ! "${CORDON_REAL:-$CORDON}" probe > /dev/null 2>&1; then
	skip "the bind checks under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi

mark() { # mark PATH [AS]: the mark of PATH as it is now, named AS
	echo "$(stat -c '%d:%i' "$1"):${2:-$1}"
}

pass() { # pass NAME
	runner_pass "$1"
	mkdir -p "$P/tree/sub" "$P/secret" "$P/other"
	ln -s tree "$P/link"
	cp "$builddir/cordon-exec" "$P/cordon-exec"
	runner_own "$P"
	# B BWRAP-OPTIONS... -- MARKS...: cordon-exec in bwrap with those marks.
	B() {
		opts=
		while [ "$1" != -- ]; do
			opts="$opts $1"
			shift
		done
		shift
		marks=
		for m in "$@"; do
			marks="$marks --mounted $m"
		done
		out=$($AS "$bwrap" --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent \
			$opts -- "$P/cordon-exec" --build-id "$build_id" --status-fd 3 $marks -- echo ran \
			3> /dev/null 2> "$errf")
		rc=$?
	}

	B --bind "$P/tree" "$P/tree" -- "$(mark "$P/tree")"
	is "$rc:$out" "0:ran" "$t a bind where its mark says runs the command"
	B --bind "$P/tree" "$P/tree" --bind "$P/other" "$P/other" -- "$(mark "$P/tree")" \
		"$(mark "$P/other")"
	is "$rc:$out" "0:ran" "$t two binds where their marks say run the command"

	# The swap's outcome: the destination unmounted, the secret mounted in
	# the symlink's place.
	B --bind "$P/secret" "$P/secret" -- "$(mark "$P/tree")"
	is "$rc:$out" "125:" "$t a destination nothing was mounted on stops the call"
	grep -q "the bind of $P/tree did not land as the plan put it (nothing is mounted there" "$errf"
	ok $? "$t and says which bind and why"

	B --bind "$P/other" "$P/tree" -- "$(mark "$P/tree")"
	is "$rc:$out" "125:" "$t another directory mounted at the destination stops the call"
	grep -q "(what is mounted there is not what was opened to be bound)" "$errf"
	ok $? "$t and says so"

	B --bind "$P/tree" "$P/tree" -- "$(mark "$P/tree" "$P/link")"
	is "$rc:$out" "125:" "$t a destination reached through a symlink stops the call"
	grep -q "(a symbolic link is on its way now)" "$errf"
	ok $? "$t and says so"

	# The same with the symlink above the destination, after a mark in
	# another directory and after one in the same (the walk to a mark's
	# directory is kept for the next mark there).
	B --bind "$P/tree/sub" "$P/tree/sub" -- "$(mark "$P/tree/sub" "$P/link/sub")"
	is "$rc:$out" "125:" "$t a destination below a symlink stops the call"
	grep -q "(a symbolic link is on its way now)" "$errf"
	ok $? "$t and says so"
	B --bind "$P/tree" "$P/tree" --bind "$P/tree/sub" "$P/tree/sub" -- "$(mark "$P/tree")" \
		"$(mark "$P/tree/sub")" "$(mark "$P/tree/sub" "$P/link/sub")"
	is "$rc:$out" "125:" "$t a destination below a symlink after good marks stops the call"
	B --bind "$P/tree" "$P/tree" --bind "$P/other" "$P/other" -- "$(mark "$P/tree")" \
		"$(mark "$P/other")" "$(mark "$P/tree" "$P/gone")"
	is "$rc:$out" "125:" "$t a missing destination beside good marks stops the call"

	B --bind "$P/tree" "$P/tree" -- "$(mark "$P/tree" "$P/gone")"
	is "$rc:$out" "125:" "$t a destination that is not there stops the call"

	# A tmpfs (a directory mask) has no source: it must be mounted at its
	# path, not where a link there pointed.
	B --tmpfs "$P/secret" -- "-:-:$P/secret"
	is "$rc:$out" "0:ran" "$t a tmpfs where its mark says runs the command"
	B --tmpfs "$P/secret" -- "-:-:$P/tree"
	is "$rc:$out" "125:" "$t a mask mounted elsewhere than its path stops the call"
	B --tmpfs "$P/tree" -- "-:-:$P/link"
	is "$rc:$out" "125:" "$t a mask's path reached through a symlink stops the call"

	B -- "not-a-mark"
	is "$rc:$out" "125:" "$t a mark that does not parse stops the call"
}

for p in $passes; do
	pass "$p"
done
done_testing
