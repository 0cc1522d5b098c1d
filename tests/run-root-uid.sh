#!/bin/sh
# Run by root, the command of cordon run is not root: it runs as nobody
# (65534) in the host's terms, the workspace and temp dir attached
# idmapped so that root's files there are its own and what it makes is
# root's on disk (docs/sandbox.md, "Run as root").  Under the real bwrap,
# as root and again as nobody: in a mount namespace of the test's own, a
# root-owned 0700 directory with a 0600 key, and a 0600 key in an open
# directory, are planted where the deny list of root's secrets does not
# look (/mnt and /usr/local/src, by binding the test's directories over
# them; the host's are not touched).  From inside none can be read, by
# its path or another spelling or a link in the workspace; the command's
# uid read from outside is 65534; the workspace is writable, its new files
# are the pass user's on disk, and git commits there.  Where a path on the
# way is closed to nobody, root's call runs as uid 0, as before, and says
# so; with CORDON_ROOT_UNPRIVILEGED=require it stops instead.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null || ! command -v unshare > /dev/null ||
	[ ! -d /mnt ] || [ ! -d /usr/local/src ]; then
	skip "root's command as nobody" "planting root's files needs root, setpriv, unshare, /mnt and /usr/local/src"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "root's command as nobody"

# The planted trees, bound over /mnt and /usr/local/src in the namespace.
T=$tmpdir/planted
mkdir -p "$T/mnt/vault" "$T/mnt/open" "$T/src/vault"
for d in "$T/mnt" "$T/src"; do
	echo "VAULT-KEY" > "$d/vault/key"
	chmod 600 "$d/vault/key"
	chmod 700 "$d/vault"
done
echo "OPEN-DIR-KEY" > "$T/mnt/open/key"
chmod 600 "$T/mnt/open/key"
chmod 755 "$T" "$T/mnt" "$T/mnt/open" "$T/src"

# ns CMD...: CMD in a mount namespace where the planted trees are bound.
ns() {
	unshare -m --propagation private sh -c '
		mount --bind "$1/mnt" /mnt && mount --bind "$1/src" /usr/local/src || exit 99
		shift
		exec "$@"' sh "$T" "$@"
}

# The script the command runs: the analysis sees only `sh FILE`, so what
# it reports came from the sandbox.
cat > "$tmpdir/read.sh" << 'EOF'
ln -s /mnt/open/key "$PWD/link"
for f in /mnt/vault/key /mnt/open/key /usr/local/src/vault/key /usr/local/src/./vault//key \
	/mnt/../mnt/open/key "$PWD/link"; do
	cat "$f" 2>&1
done
echo written > "$PWD/out" && mkdir -p "$PWD/d" && echo made > "$PWD/d/f" && cat "$PWD/out"
EOF
cat > "$tmpdir/git.sh" << 'EOF'
mkdir -p "$1" && cd "$1" && git init -q . && echo one > one && git add one &&
	git -c user.name=t -c user.email=t@example.com commit -qm one && git log --format=%s
EOF
cat > "$tmpdir/hold.sh" << 'EOF'
echo "$(id -u)" > "$PWD/inside-uid"
exec sleep 1234.61
EOF
chmod 644 "$tmpdir/read.sh" "$tmpdir/git.sh" "$tmpdir/hold.sh"

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H"
	runner_own "$WS" "$H"
	# run CMD...: cordon run in the namespace, as the pass's user, on the
	# workspace $ws (default $WS).
	run() {
		w=${ws:-$WS}
		out=$(ns sh -c 'cd "$1" && shift && exec "$@"' sh "$w" $AS timeout -s KILL 60 \
			env -i $RENV PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$P/build/cordon" run \
			--preset workspace-write --workspace "$w" --context home="$H" \
			--context agent_dir="$w/.agent" --context session_dir="$w/.agent/s" -- "$@" \
			2> "$errf")
		rc=$?
	}

	out=$(ns $AS cat /mnt/vault/key /mnt/open/key 2>&1)
	if [ "$name" = root ]; then
		case $out in *VAULT-KEY*OPEN-DIR-KEY*) true ;; *) false ;; esac
		ok $? "$t control: outside the sandbox, root reads the planted keys"
	else
		case $out in *KEY*) false ;; *) true ;; esac
		ok $? "$t control: outside the sandbox, nobody reads neither planted key"
	fi

	run sh "$tmpdir/read.sh"
	is "$rc:$(echo "$out" | tail -n 1)" "0:written" "$t the command ran and the workspace is writable"
	[ $rc -eq 0 ] || diag < "$errf"
	case $out in *VAULT-KEY*) false ;; *) true ;; esac
	ok $? "$t a root-owned 0600 key in a 0700 directory under /mnt or /usr/local/src cannot be read"
	case $out in *OPEN-DIR-KEY*) false ;; *) true ;; esac
	ok $? "$t a root-owned 0600 key in an open directory cannot be read, by its path, /./, //, /../ or a link in the workspace"
	owners=$(stat -c %u "$WS/out" "$WS/d" "$WS/d/f" "$WS/link" 2> /dev/null | sort -u | tr '\n' ' ')
	is "$owners" "$uid " "$t what the command made in the workspace is the pass user's on disk ($uid)"
	grep -q 'runs as uid 0' "$errf"
	is $? 1 "$t nothing says the command fell back to uid 0"

	if command -v git > /dev/null; then
		run sh "$tmpdir/git.sh" "$WS/repo"
		is "$rc:$out" "0:one" "$t git init, add and commit work in the workspace"
		[ $rc -eq 0 ] || diag < "$errf"
		is "$(stat -c %u "$WS/repo/.git/HEAD" 2> /dev/null)" "$uid" "$t and the repository is the pass user's on disk"
	else
		skip "$t git commits in the workspace" "no git here"
	fi

	# The command's uid in the host's terms, read from outside while it runs.
	rm -f "$WS/inside-uid"
	(run sh "$tmpdir/hold.sh") &
	held=$!
	i=0
	# Up to a minute: a launch on a loaded machine can take seconds.
	while ! pgrep -f 'sleep 1234\.61' > /dev/null && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	hpid=$(pgrep -f 'sleep 1234\.61' | head -n 1)
	kuid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$hpid/status" 2> /dev/null)
	pkill -KILL -f 'sleep 1234\.61'
	wait $held
	is "$kuid" "65534 65534 65534 65534" "$t the command's real, effective, saved and file uid on the host are 65534"
	is "$(cat "$WS/inside-uid" 2> /dev/null)" 65534 "$t and id -u inside says 65534"
	probed=$($AS "$P/build/cordon" probe 2> /dev/null | sed -n 's/^as root: *//p')
	if [ "$name" != root ]; then
		is "$probed" "" "$t cordon probe, not run by root, says nothing of root's commands"
		return 0
	fi

	# cordon probe says what the calls above showed, and why not where
	# the file system has no idmapped mounts (ramfs over /tmp).
	is "$probed" "commands run as uid 65534 (nobody), the write roots idmapped" \
		"$t cordon probe says root's commands run as 65534"
	json=$("$P/build/cordon" probe --json 2> /dev/null)
	case $json in *'"root_command":{"uid":65534,"why":null}'*) ok 0 "$t and so does its JSON" ;;
	*) ok 1 "$t and so does its JSON ($json)" ;; esac
	# (cordon lies below /tmp: opened before the mount, run through its fd)
	probed=$(unshare -m --propagation private sh -c \
		'exec 3< "$1" && mount -t ramfs none /tmp && exec /proc/self/fd/3 probe' \
		sh "$P/build/cordon" 2> /dev/null | sed -n 's/^as root: *//p')
	case $probed in
	*"uid 65534"*) skip "$t cordon probe where /tmp has no idmapped mounts" "ramfs has them on this kernel" ;;
	*) case $probed in "commands run as uid 0, root's own files masked: mount_setattr("*"has no idmapped mounts)") ok 0 "$t where /tmp has no idmapped mounts, cordon probe says uid 0 and why" ;;
	   *) ok 1 "$t where /tmp has no idmapped mounts, cordon probe says uid 0 and why ($probed)" ;; esac ;;
	esac

	# nobody's own calls keep their temp dirs in /tmp/cordon-65534, closed
	# to others: root's command, now nobody, must not see them either.
	# Planted in the namespace over that place (made as nobody would).
	N=$T/nobody-calls
	mkdir -p "$N/call-planted"
	echo "NOBODY-CALL-SECRET" > "$N/call-planted/secret"
	chown -R 65534:65534 "$N"
	chmod 700 "$N" "$N/call-planted"
	chmod 600 "$N/call-planted/secret"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- mkdir -p -m 700 /tmp/cordon-65534 2> /dev/null
	if [ -d /tmp/cordon-65534 ] && [ "$(stat -c %u /tmp/cordon-65534)" = 65534 ]; then
		out=$(unshare -m --propagation private sh -c '
			mount --bind "$1" /tmp/cordon-65534 || exit 99
			cd "$2" && exec env -i PATH=/usr/bin:/bin HOME="$3" "$4" run \
				--preset workspace-write --workspace "$2" --context home="$3" -- \
				sh -c "ls -A /tmp/cordon-65534; cat /tmp/cordon-65534/call-planted/secret"' \
			sh "$N" "$WS" "$H" "$P/build/cordon" 2>&1)
		case $out in *NOBODY-CALL-SECRET*) false ;; *) ! echo "$out" | grep -qx call-planted ;; esac
		ok $? "$t the temp dirs of nobody's own calls are not seen from root's call ($(echo "$out" | head -n 2 | tr '\n' ' '))"
	else
		skip "$t the temp dirs of nobody's own calls" "/tmp/cordon-65534 is not nobody's here"
	fi

	# cordon and its helper below a directory only root may enter (a
	# build in a 0700 temporary directory): the helper is copied into the
	# call's own directory, the command still runs as nobody, and the
	# copy goes with the call.
	mkdir -p "$T/closed-build/b"
	chmod 700 "$T/closed-build"
	cp "$P/build/cordon" "$P/build/cordon-exec" "$T/closed-build/b/"
	out=$(cd "$WS" && env -i PATH=/usr/bin:/bin HOME="$H" "$T/closed-build/b/cordon" run \
		--preset workspace-write --workspace "$WS" --context home="$H" -- id -u 2> "$errf")
	is "$out" 65534 "$t a helper below a 0700 directory of root's: the command still runs as 65534"
	grep -q 'runs as uid 0' "$errf"
	is $? 1 "$t and nothing says it fell back ($(head -c 200 "$errf"))"
	leftover=$(find /tmp/cordon-0 "${XDG_RUNTIME_DIR:-/nonexistent}/cordon-0" -maxdepth 1 \
		-name 'cordon-exec.*' 2> /dev/null | head -n 1)
	is "$leftover" "" "$t the copy of the helper goes with the call"

	# A workspace below a directory only root may enter (0700), with the
	# home directory elsewhere: nobody could not reach it, so the call
	# runs as uid 0 with root's secrets masked, and says why.
	mkdir -p "$T/closed/ws"
	chmod 700 "$T/closed"
	ws=$T/closed/ws run sh -c 'id -u; echo x > f && cat f'
	is "$rc:$(echo "$out" | tr '\n' ' ')" "0:0 x " "$t below a 0700 directory of root's the command runs as uid 0, the workspace writable"
	grep -q "runs as uid 0.*cannot pass $T/closed on the way" "$errf"
	ok $? "$t and cordon says so on stderr, naming the directory ($(head -c 300 "$errf"))"
	rm -f "$T/closed/ws/f"
	RENV=CORDON_ROOT_UNPRIVILEGED=require ws=$T/closed/ws run sh -c 'echo x > f'
	[ $rc -eq 125 ] && [ ! -e "$T/closed/ws/f" ] &&
		grep -q "SANDBOX_UNAVAILABLE: CORDON_ROOT_UNPRIVILEGED=require" "$errf"
	ok $? "$t with CORDON_ROOT_UNPRIVILEGED=require it stops instead (exit $rc), the command never ran"
}

for p in root nobody; do
	pass "$p"
done
done_testing
