#!/bin/sh
# docs/sandbox-demo.sh, the main job of the README's first line: under
# cordon run it reports every boundary held and exits 0; run bare, on a
# host with credentials and a network, it names what did not hold and
# exits 1, so its "held" means something.  As root and as nobody.
. "$srcdir/tests/lib.sh"

demo=$srcdir/docs/sandbox-demo.sh
# The real binary: valgrind does not know Landlock's system calls.
CORDON=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"
if ! "$CORDON" probe > "$tmpdir/probe" 2>&1; then
	skip "the sandbox demo" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi

passes=self
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then passes="self nobody"; fi

for name in $passes; do
	P=$tmpdir/$name AS= C=$CORDON
	mkdir -p "$P/ws" "$P/home/.ssh" "$P/home/.aws" "$P/build"
	echo "PRIVATE-KEY" > "$P/home/.ssh/id_ed25519"
	echo "[default]" > "$P/home/.aws/credentials"
	cp "$demo" "$P/ws/demo.sh"
	if [ "$name" = nobody ]; then
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
		cp "$CORDON" "$builddir/cordon-exec" "$P/build/"
		C=$P/build/cordon
		chown -R 65534:65534 "$P"
	fi
	t="[$name]"
	out=$(cd "$P/ws" && $AS env HOME="$P/home" "$C" run --preset workspace-write \
		--context home="$P/home" -- sh demo.sh 2>&1)
	rc=$?
	is "$rc" 0 "$t the demo exits 0 under cordon run"
	printf '%s\n' "$out" | diag
	echo "$out" | grep -q '^every boundary held$'
	ok $? "$t it says every boundary held"
	n=$(echo "$out" | grep -c '^  held ')
	[ "$n" -ge 8 ]
	ok $? "$t it tried each of the eight things ($n held)"
	! echo "$out" | grep -q BROKE
	ok $? "$t nothing broke"
	[ -z "$(ls "$P/ws" | grep -v '^demo.sh$')" ]
	ok $? "$t it leaves nothing behind in the workspace"

	# Bare, the credentials under the test's home can be listed.
	out=$(cd "$P/ws" && $AS env HOME="$P/home" sh demo.sh 2>&1)
	rc=$?
	is "$rc" 1 "$t run bare, the demo exits 1"
	echo "$out" | grep -q "BROKE  $P/home/.ssh can be listed"
	ok $? "$t and names the readable ~/.ssh"
done
done_testing
