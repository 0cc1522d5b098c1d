#!/bin/sh
# The end of a call removes the fences it made, and nothing else, even when
# the user who owns the workspace renames above a fence meanwhile.  Root
# runs cordon in a workspace nobody owns; while root's call ends, nobody's
# own process exchanges ws/.git with a symlink to a root directory holding
# a file named commondir (tests/helpers/swapper).  A sweep that removed the
# fence by its path would remove root's file there.  Real bwrap, real
# processes; as root only (it is root's files the race reaches).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
swapper=$builddir/tests/helpers/swapper
tries=${CORDON_SWEEP_TRIES:-15}

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null || ! command -v git > /dev/null; then
	skip "a fence sweep beside a rename" "needs root, setpriv and git"
	done_testing
	exit
fi
if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "a fence sweep beside a rename" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi

chmod 755 "$tmpdir"
NB="setpriv --reuid=65534 --regid=65534 --clear-groups --"
WS=$tmpdir/ws H=$tmpdir/home V=$tmpdir/victim
mkdir -p "$WS" "$H" "$V"
echo "root's own" > "$V/commondir"
cp "$swapper" "$tmpdir/swapper"
chown -R 65534:65534 "$WS" "$H"
(cd "$WS" && $NB env -i PATH=/usr/bin:/bin HOME="$H" git init -q .)
$NB ln -s "$V" "$WS/.gitx"

hit= ran=0
i=0
while [ $i -lt "$tries" ] && [ -z "$hit" ]; do
	i=$((i + 1))
	(cd "$WS" && env -i PATH=/usr/bin:/bin HOME="$H" GIT_CONFIG_NOSYSTEM=1 "$cordon_bin" run \
		--preset workspace-write --workspace "$WS" -- sleep 0.4 > /dev/null 2>&1) &
	call=$!
	sleep 0.3
	$NB "$tmpdir/swapper" "$WS/.git" "$WS/.gitx" 2 0 > /dev/null 2>&1
	wait $call && ran=$((ran + 1))
	if [ -L "$WS/.git" ]; then
		$NB mv "$WS/.git" "$WS/.gity" && $NB mv "$WS/.gitx" "$WS/.git" &&
			$NB mv "$WS/.gity" "$WS/.gitx"
	fi
	[ -f "$V/commondir" ] || hit=$i
done
is "$(cat "$V/commondir" 2> /dev/null)" "root's own" \
	"root's file named commondir in another directory survives $i call ends beside the rename${hit:+ (removed at call $hit)}"
# A fence the sweep could not reach without a link stays listed: the next
# call's end removes it.
(cd "$WS" && env -i PATH=/usr/bin:/bin HOME="$H" GIT_CONFIG_NOSYSTEM=1 "$cordon_bin" run \
	--preset workspace-write --workspace "$WS" -- true > /dev/null 2>&1)
[ ! -L "$WS/.git" ] && [ -d "$WS/.git" ] && [ ! -e "$WS/.git/commondir" ]
ok $? "the workspace's own fence is gone after the calls ($ran of $i ran to the end)"
done_testing
