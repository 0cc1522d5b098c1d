#!/bin/sh
# The OCI config of a preset under a real engine: `cordon compile --emit
# oci` made into a bundle and run by crun, and the same checks run by
# `cordon run` under the same preset; the outcomes must be the same, and
# the ones the preset sets.  A write outside the workspace is refused, one
# inside allowed; the protected .git/hooks cannot be written; ~/.ssh cannot
# be read; an AF_INET socket is refused (no net rule allows a host); ptrace
# and a new user namespace are refused by the seccomp filter; the open
# files limit is the preset's.  Run unsandboxed first, the same checks see
# the writes, the read, the socket and ptrace allowed: they are not blind.
# The same checks under podman, from the same config made into podman's
# options and the emitted seccomp profile (--emit k8s-seccomp).
# As root (crun and podman as root, the container as nobody) and as nobody
# (crun and podman rootless).  A difference fails unless docs/fleet.md
# lists it as a limit of the runtime (none does for these checks).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
crun=$(command -v crun)
if [ -z "$crun" ]; then
	skip "the OCI config under crun" "crun is not installed (apt-get install crun)"
	done_testing
	exit
fi
if ! command -v python3 > /dev/null; then
	skip "the OCI config under crun" "no python3 here (the checks use it)"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "the OCI config under crun beside cordon run"
chmod 755 "$tmpdir"

# What runs inside: one line a check, allowed or refused.
cat > "$tmpdir/check.sh" << 'EOF'
T=$1
try() {
	name=$1
	shift
	if "$@" > /dev/null 2>&1; then echo "$name=allowed"; else echo "$name=refused"; fi
}
try write_outside touch "$T/outside/new$2"
try write_inside touch "$T/ws/new$2"
try write_hooks touch "$T/ws/.git/hooks/new$2"
try read_ssh cat "$T/home/.ssh/id"
try inet_socket python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)'
try ptrace python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).ptrace(0, 0, 0, 0) != 0)'
try new_userns unshare -U true
echo "open_files=$(ulimit -n)"
EOF
chmod 644 "$tmpdir/check.sh"

expected='write_outside=refused
write_inside=allowed
write_hooks=refused
read_ssh=refused
inet_socket=refused
ptrace=refused
new_userns=refused
open_files=4096'

# crun refuses a hybrid cgroup hierarchy whose v2 part has controllers
# (this kernel's hugetlb); without its cgroup manager it needs none, so
# there it runs in a mount namespace of its own without the v2 part.
hybrid=false
if [ "$(stat -f -c %T /sys/fs/cgroup 2> /dev/null)" = tmpfs ] &&
	grep -q . /sys/fs/cgroup/unified/cgroup.controllers 2> /dev/null; then
	hybrid=true
fi

# crun_run AS T: run the bundle T/bundle as AS (root, nobody or self).
crun_run() {
	as=
	[ "$1" = nobody ] && as="setpriv --reuid nobody --regid nogroup --clear-groups"
	set -- $as env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$2/crun" "$crun" --root "$2/crun" \
		--cgroup-manager=disabled run -b "$2/bundle" "cordon-test-$$-$(basename "$2")"
	if $hybrid; then
		unshare -m sh -c 'umount /sys/fs/cgroup/unified && exec "$@"' sh "$@"
	else
		"$@"
	fi
}

# podman_checks AS T: the same checks under podman, from the same config
# (tests/oci/podman_args.py says its bounds as podman's options) and the
# emitted seccomp profile, on an empty root the config's binds fill.
podman_checks() {
	if [ -z "$podman" ]; then
		skip "$1: podman" "podman is not installed (apt-get install podman)"
		return
	fi
	(cd "$2/ws" && $as env -i PATH=/usr/bin:/bin HOME="$2/home" LANG=C.UTF-8 "$cordon" compile \
		--preset workspace-write --emit k8s-seccomp --context workspace="$2/ws" \
		--context cwd="$2/ws" --context home="$2/home" --context tmp="$2/call") \
		> "$2/seccomp.json" 2> /dev/null &&
		python3 "$srcdir/tests/oci/podman_args.py" "$2/bundle/config.orig" "$2/seccomp.json" \
			> "$2/podman.args" 2> "$2/podman.err"
	ok $? "$1: podman's options from the config"
	diag < "$2/podman.err"
	mkdir -p "$2/podman/rootfs" "$2/podman/run"
	[ "$1" = nobody ] && chown -R nobody:nogroup "$2/podman"
	# Its own storage and state: nothing of the host's is read or kept;
	# vfs, as --rootfs stores no layer (no overlay or fuse-overlayfs needed).
	set -- "$1" "$2" $as env -i PATH=/usr/bin:/bin HOME="$2/podman" \
		XDG_RUNTIME_DIR="$2/podman/run" "$podman" --root "$2/podman/storage" \
		--runroot "$2/podman/runroot" --storage-driver=vfs run --rm --cgroups=disabled
	# Rootless podman without subordinate ids maps the caller to the
	# container's root alone: there the user is that root, without
	# capabilities (nobody on the host), not the config's.
	user=
	[ "$1" = root ] || user=--user=0:0
	old_ifs=$IFS
	IFS='
'
	set -f
	set -- "$@" $(cat "$2/podman.args") $user --rootfs "$2/podman/rootfs" /bin/sh "$tmpdir/check.sh" \
		"$2" .podman
	set +f
	IFS=$old_ifs
	who=$1 T=$2
	shift 2
	if $hybrid; then
		unshare -m sh -c 'umount /sys/fs/cgroup/unified && exec "$@"' sh "$@"
	else
		"$@"
	fi > "$T/podman.out" 2> "$T/podman.err"
	status=$?
	# Rootless podman leaves its pause process (which keeps its user
	# namespace) running after it exits: end it.
	[ -s "$T/podman/run/libpod/tmp/pause.pid" ] && kill "$(cat "$T/podman/run/libpod/tmp/pause.pid")"
	if [ "$who" != root ] && [ $status -ne 0 ] && [ ! -s "$T/podman.out" ]; then
		diag < "$T/podman.err"
		skip "$who: podman" "podman cannot run a rootless container here"
		return
	fi
	ok $status "$who: podman ran the checks"
	diag < "$T/podman.err"
	is "$(cat "$T/podman.out")" "$expected" "$who: podman holds the preset's bounds"
	[ -e "$T/ws/new.podman" ]
	ok $? "$who: podman wrote in the workspace"
}
podman=$(command -v podman)

for pass in $(runner_passes); do
	T=$tmpdir/$pass
	mkdir -p "$T/ws/.git/hooks" "$T/home/.ssh" "$T/call" "$T/outside" "$T/bundle/rootfs" \
		"$T/crun"
	echo key > "$T/home/.ssh/id"
	chmod 644 "$T/home/.ssh/id"
	chmod 755 "$T/home/.ssh"
	: > "$T/call.mask"
	chmod 444 "$T/call.mask"
	# cordon and its helper where nobody can run them.
	mkdir -p "$T/build"
	cp "$cordon_bin" "${cordon_bin%/*}/cordon-exec" "$T/build/"
	chmod 755 "$T" "$T/build" "$T/build/cordon" "$T/build/cordon-exec"
	cordon=$T/build/cordon
	as=
	if [ "$pass" = nobody ]; then
		as="setpriv --reuid nobody --regid nogroup --clear-groups"
		chown -R nobody:nogroup "$T"
	elif [ "$pass" = root ]; then
		# The container runs as nobody, cordon run's command as root
		# without capabilities: both write the write roots.
		chmod 1777 "$T/ws" "$T/call"
		chown nobody:nogroup "$T/outside"
	fi
	if $hybrid && [ "$(id -u)" -ne 0 ]; then
		skip "$pass: crun" "crun refuses this host's hybrid cgroup hierarchy, and only root can hide it"
		continue
	fi

	(cd "$T" && $as sh "$tmpdir/check.sh" "$T" .plain) > "$T/plain.out" 2>&1
	for c in write_outside=allowed read_ssh=allowed inet_socket=allowed ptrace=allowed; do
		grep -qx "$c" "$T/plain.out"
		ok $? "$pass: without a sandbox the check sees $c"
	done

	(cd "$T/ws" && $as env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 "$cordon" compile \
		--preset workspace-write --emit oci --context workspace="$T/ws" --context cwd="$T/ws" \
		--context home="$T/home" --context tmp="$T/call") > "$T/bundle/config.orig" 2> "$T/err"
	ok $? "$pass: the preset's OCI config"
	diag < "$T/err"
	python3 - "$T/bundle/config.orig" "$T/bundle/config.json" "$tmpdir/check.sh" "$T" << 'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["/bin/sh", sys.argv[3], sys.argv[4], ".crun"]
json.dump(c, open(sys.argv[2], "w"))
EOF
	ok $? "$pass: the bundle, the checks its command"
	[ "$pass" = nobody ] && chown -R nobody:nogroup "$T/bundle"

	(cd "$T/ws" && $as env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 "$cordon" run \
		--preset workspace-write --workspace "$T/ws" -- sh "$tmpdir/check.sh" "$T" .cordon) \
		> "$T/cordon.out" 2> "$T/cordon.err"
	ok $? "$pass: cordon run ran the checks"
	diag < "$T/cordon.err"
	is "$(cat "$T/cordon.out")" "$expected" "$pass: cordon run holds the preset's bounds"

	crun_run "$pass" "$T" > "$T/crun.out" 2> "$T/crun.err"
	status=$?
	if [ "$pass" = nobody ] && [ $status -ne 0 ] && [ ! -s "$T/crun.out" ]; then
		diag < "$T/crun.err"
		skip "$pass: crun" "crun cannot run a rootless container here"
		continue
	fi
	ok $status "$pass: crun ran the checks"
	diag < "$T/crun.err"
	is "$(cat "$T/crun.out")" "$expected" "$pass: crun holds the preset's bounds"
	is "$(cat "$T/crun.out")" "$(cat "$T/cordon.out")" \
		"$pass: crun and cordon run agree on every check"
	podman_checks "$pass" "$T"
	ls "$T/outside" "$T/ws/.git/hooks" | grep -q 'new\.\(c\|podman\)'
	ok $(($? == 0)) "$pass: nothing was written where the preset refuses it"
	[ -e "$T/ws/new.cordon" ] && [ -e "$T/ws/new.crun" ]
	ok $? "$pass: both wrote in the workspace"
done
done_testing
