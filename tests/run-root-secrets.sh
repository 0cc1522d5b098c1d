#!/bin/sh
# Run by root, the sandboxed command runs as nobody where the write roots
# can be idmapped, and the kernel refuses it root's files; where they
# cannot (below, a workspace inside /root, 0700), it is uid 0 without
# capabilities and the runner masks what only root may read in the host's
# system trees (docs/sandbox.md, "Run as root").  Either way, the same
# checks hold.  Under the real bwrap, as root and
# again as an unprivileged user (nobody): in a mount namespace of the
# test's own, a root-owned 0600 host key is planted in /etc/ssh, a
# root-owned 0640 file two directories down in /srv (or /opt), and a key in
# /root's .ssh, by binding the test's directories over them (the host's
# own are not touched); from inside, none can be read, while the
# public key beside the host key, the workspace and, where the home
# directory is /root, /root itself stay usable.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null || ! command -v unshare > /dev/null; then
	skip "root-only files under cordon run as root" "planting a root-owned key needs root, setpriv and unshare"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "root-only files under cordon run as root"
vault=
for d in /srv /opt; do [ -d "$d" ] && [ ! -L "$d" ] && vault=$d && break; done

# The planted trees, bound over /etc/ssh, /root and $vault in the namespace.
T=$tmpdir/planted
mkdir -p "$T/ssh" "$T/root/.ssh" "$T/root/projects/ws" "$T/vault/team/db"
echo "ROOT-NOTES" > "$T/root/notes"
chmod 644 "$T/root/notes"
echo "HOST-KEY-SECRET" > "$T/ssh/ssh_host_ed25519_key"
chmod 600 "$T/ssh/ssh_host_ed25519_key"
echo "ssh-ed25519 AAAA public" > "$T/ssh/ssh_host_ed25519_key.pub"
chmod 644 "$T/ssh/ssh_host_ed25519_key.pub"
echo "ROOT-HOME-SECRET" > "$T/root/.ssh/id_ed25519"
chmod 600 "$T/root/.ssh/id_ed25519"
chmod 700 "$T/root" "$T/root/.ssh"
echo "VAULT-SECRET" > "$T/vault/team/db/creds"
chmod 640 "$T/vault/team/db/creds"
chmod 755 "$T" "$T/ssh" "$T/vault" "$T/vault/team" "$T/vault/team/db"

# ns CMD...: CMD in a mount namespace where the planted trees are bound.
ns() {
	unshare -m --propagation private sh -c '
		mount --bind "$1/ssh" /etc/ssh && mount --bind "$1/root" /root || exit 99
		if [ -n "$2" ]; then mount --bind "$1/vault" "$2" || exit 99; fi
		shift 2
		exec "$@"' sh "$T" "$vault" "$@"
}

# The script the command runs: the analysis sees only `sh FILE`, so what
# it reports came from the sandbox.
cat > "$tmpdir/read.sh" << 'EOF2'
cat /etc/ssh/ssh_host_ed25519_key 2>&1
cat /etc/ssh/ssh_host_ed25519_key.pub 2>&1
echo "root: $(ls -A /root 2> /dev/null | tr '\n' ' ')"
cat /root/.ssh/id_ed25519 2>&1
[ -n "$1" ] && cat "$1/team/db/creds" 2>&1
echo written > "$PWD/out" && cat "$PWD/out"
EOF2
chmod 644 "$tmpdir/read.sh"

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H"
	runner_own "$WS" "$H"
	# run HOME CMD...: cordon run in the namespace, as the pass's user, on
	# the workspace $ws (default $WS).
	run() {
		home=$1
		shift
		w=${ws:-$WS}
		out=$(ns sh -c 'cd "$1" && shift && exec "$@"' sh "$w" $AS timeout -s KILL 60 \
			env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 "$P/build/cordon" run \
			--preset workspace-write --workspace "$w" --context home="$home" \
			--context agent_dir="$w/.agent" --context session_dir="$w/.agent/s" -- "$@" \
			2> "$errf")
		rc=$?
	}

	out=$(ns $AS cat /etc/ssh/ssh_host_ed25519_key /root/.ssh/id_ed25519 2>&1)
	if [ "$name" = root ]; then
		case $out in *HOST-KEY-SECRET*ROOT-HOME-SECRET*) true ;; *) false ;; esac
		ok $? "$t control: outside the sandbox, root reads the planted keys"
	else
		case $out in *SECRET*) false ;; *) true ;; esac
		ok $? "$t control: outside the sandbox, nobody reads neither planted key"
	fi

	run "$H" sh "$tmpdir/read.sh" "$vault"
	is "$rc:$(echo "$out" | tail -n 1)" "0:written" "$t the command ran and the workspace is writable"
	[ $rc -eq 0 ] || diag < "$errf"
	case $out in *HOST-KEY-SECRET*) false ;; *) true ;; esac
	ok $? "$t the root-owned 0600 host key in /etc/ssh cannot be read"
	echo "$out" | grep -qx "ssh-ed25519 AAAA public"
	ok $? "$t the public key beside it still can"
	case $out in *ROOT-HOME-SECRET*) false ;; *) echo "$out" | grep -qx "root: " ;; esac
	ok $? "$t with the home directory elsewhere, nothing in /root is seen or read ($(echo "$out" | grep '^root:'))"
	if [ -n "$vault" ]; then
		case $out in *VAULT-SECRET*) false ;; *) true ;; esac
		ok $? "$t a root-owned 0640 file two directories down in $vault cannot be read"
	else
		skip "$t a root-owned 0640 file in /srv or /opt" "neither is a directory here"
	fi
	[ "$name" = root ] || return 0

	# /root as the home directory is the policy's to decide: not masked.
	run /root sh -c 'ls -A /root'
	echo "$out" | grep -qx ".ssh"
	ok $? "$t with /root as the home directory, /root is listed as it is"
	run "$H" sh -c 'grep -c . /etc/passwd; test -r /etc/hosts && echo hosts'
	is "$rc:$(echo "$out" | tail -n 1)" "0:hosts" "$t files any user may read stay readable"
	# A workspace inside /root (0700) with the home directory elsewhere:
	# /root stays on the way to it; what else is in /root, even a 0644
	# file, no other user could reach, so neither can the command.
	ws=/root/projects/ws run "$H" sh "$tmpdir/read.sh"
	is "$rc:$(echo "$out" | tail -n 1)" "0:written" "$t a workspace inside /root stays writable"
	case $out in *SECRET* | *ROOT-NOTES*) false ;; *) true ;; esac
	ok $? "$t and nothing else in /root is read, not even its 0644 file"
	ws=/root/projects/ws run "$H" cat /root/notes
	is "$rc:$out" "0:" "$t (cat /root/notes reads an empty mask)"
}

for p in root nobody; do
	pass "$p"
done
done_testing
