#!/bin/sh
# The seccomp lowering: the readable filter (its key rules, and golden
# copies on x86-64), the BPF program, and the program loaded by the real
# bwrap, checking what a command inside can and cannot do.
# The goldens are tests/data/golden/POLICY.PRESET.seccomp.
. "$srcdir/tests/lib.sh"

probe=$builddir/tests/helpers/sysprobe
golden=$srcdir/tests/data/golden
T=$tmpdir/t
mkdir -p "$T/ws/sub" "$T/ws/.git/hooks" "$T/ws/.agent" "$T/home" "$T/call" "$T/w"
echo n > "$T/home/notes.txt"

lower() { # lower POLICY PRESET KIND: the lowering for the fixed tree
	(cd "$T/ws" && env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 CORDON_REAL="${CORDON_REAL:-}" \
		"$CORDON" compile ${1:+-p "$1"} --preset "$2" --emit "$3" \
		--context workspace="$T/ws" --context cwd="$T/ws" --context home="$T/home" \
		--context tmp="$T/call" --context agent_dir="$T/ws/.agent" \
		--context session_dir="$T/ws/.agent/s")
}

golden_check() { # golden_check GOT NAME
	sed -e "s|$T|@T|g" -e "s|$golden/||g" "$1" > "$1.norm"
	check_golden "$1.norm" "$golden/$2" "$2: golden"
}

has() { # has FILE REGEX DESCRIPTION: a line of the readable filter matches
	grep -Eq -- "$2" "$1"
	ok $? "$3"
}

hasnt() {
	! grep -Eq -- "$2" "$1"
	ok $? "$3"
}

# ---- the readable filter ------------------------------------------------------
for case in "default workspace-write" "lower.cordon base" "lower.cordon online" \
	"lower.cordon open"; do
	set -- $case
	policy=$1 preset=$2
	[ "$policy" = default ] && policy= || policy=$golden/$policy
	name=${1%.cordon}-$preset
	lower "$policy" "$preset" seccomp > "$tmpdir/$name" 2> "$tmpdir/err"
	ok $? "$name: seccomp"
	diag < "$tmpdir/err"
	if [ "$(uname -m)" = x86_64 ]; then
		golden_check "$tmpdir/$name" "${1%.cordon}.$preset.seccomp"
	else
		skip "${1%.cordon}.$preset.seccomp: golden" "the golden files list the x86-64 ABIs"
	fi
done

f=$tmpdir/default-workspace-write
has "$f" '^default action: allow$' "default action allow"
if [ "$(uname -m)" = x86_64 ]; then
	has "$f" '^architectures: x86_64 \(native\), x86 \(32-bit\), x32;' \
		"x86-64, x86-32 and x32 are covered"
fi
has "$f" '^unshare +all +flags & CLONE_NEWUSER +errno EPERM ' "unshare(CLONE_NEWUSER): EPERM"
has "$f" '^clone +all +flags & CLONE_NEWUSER +errno EPERM ' "clone(CLONE_NEWUSER): EPERM"
has "$f" '^clone3 +all +any +errno ENOSYS .*fall back to clone' "clone3: ENOSYS, and why"
has "$f" '^setns +all +any +errno EPERM ' "setns: EPERM"
for sc in mount umount2 pivot_root open_tree move_mount fsopen fsconfig fsmount fspick \
	mount_setattr io_uring_setup io_uring_enter io_uring_register ptrace \
	process_vm_readv process_vm_writev; do
	has "$f" "^$sc +all +any +errno EPERM +[a-z]" "$sc: EPERM, with a reason"
done
has "$f" '^socket +all +domain AF_UNIX +errno EPERM .*connect\(\) cannot see a family' \
	"socket(AF_UNIX): EPERM, and why connect is not filtered"
has "$f" '^socketpair +all +AF_UNIX, not STREAM or SEQPACKET +errno EPERM .*SOCK_RAW, which the kernel makes SOCK_DGRAM' \
	"socketpair(AF_UNIX, every type but stream and seqpacket): EPERM, and why"
has "$f" '^socket +all +domain not AF_UNIX +errno EAFNOSUPPORT .*AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK' \
	"socket(every other family): EAFNOSUPPORT"
if [ "$(uname -m)" = x86_64 ]; then
	has "$f" '^socketcall +x86 +any +errno EPERM ' "socketcall refused whole on x86-32"
	has "$f" '^umount +x86 +any +errno EPERM ' "the old umount on x86-32"
fi
for sc in keyctl add_key request_key; do
	has "$f" "^$sc +all +any +errno EPERM +the kernel keyrings" "$sc: EPERM, with a reason"
done
for sc in chmod fchmod fchmodat open openat creat mkdir mkdirat mknod mknodat; do
	has "$f" "^$sc +all +mode & \\(S_ISUID\\|S_ISGID\\) +errno EPERM +a set-user-ID" \
		"$sc: a set-user-ID or set-group-ID mode is refused"
done
# fchmodat2 (Linux 6.6) is filtered where libseccomp knows its number.
if grep -q '^fchmodat2 ' "$f"; then knows_fchmodat2=yes; else knows_fchmodat2=no; fi
if [ $knows_fchmodat2 = yes ]; then
	has "$f" '^fchmodat2 +all +mode & \(S_ISUID\|S_ISGID\) +errno EPERM' "fchmodat2: refused too"
else
	skip "fchmodat2: refused too" "this libseccomp does not know fchmodat2"
fi
for sc in mknod mknodat; do
	for ty in S_IFCHR S_IFBLK; do
		has "$f" "^$sc +all +type $ty +errno EPERM " "$sc: type $ty refused"
	done
done
has "$f" '^openat2 +all +any +errno ENOSYS .*fall back to openat' "openat2: ENOSYS, and why"
has "$f" '^network: denied' "the header says the network is denied"
has "$f" '^unix sockets: denied' "and unix sockets too"

f=$tmpdir/lower-online
has "$f" '^socket +all +domain AF_UNIX +errno EPERM' "online: socket(AF_UNIX) still refused"
hasnt "$f" 'domain not AF_UNIX' "online: network sockets are not filtered"
[ "$(uname -m)" != x86_64 ] ||
	has "$f" '^socketcall ' "online: socketcall refused (it could carry AF_UNIX)"
f=$tmpdir/lower-open
hasnt "$f" 'domain AF_UNIX' "open: no rule on unix sockets"
has "$f" '^socket +all +domain above AF_INET6 +errno EAFNOSUPPORT' \
	"open: through the egress proxy, families past AF_INET6 (netlink, packet, vsock) refused"
has "$f" '^unshare ' "open: user namespaces still refused"

lower "" danger-full-access seccomp > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "danger-full-access has no seccomp filter (exit 2)"
grep -q "runs without a sandbox" "$tmpdir/err"
ok $? "and says why"
lower "" danger-full-access seccomp-bpf > /dev/null 2> /dev/null
ok $(($? != 2)) "nor a BPF program"

# ---- the program ----------------------------------------------------------------
lower "" workspace-write seccomp-bpf > "$tmpdir/ww.bpf"
ok $? "seccomp-bpf"
size=$(wc -c < "$tmpdir/ww.bpf")
[ "$size" -gt 0 ] && [ $((size % 8)) -eq 0 ]
ok $? "seccomp-bpf is whole BPF instructions ($size bytes)"
lower "" workspace-write seccomp-bpf | cmp -s - "$tmpdir/ww.bpf"
ok $? "seccomp-bpf is the same each time"
lower "$golden/lower.cordon" online seccomp-bpf > "$tmpdir/online.bpf"
lower "$golden/lower.cordon" open seccomp-bpf > "$tmpdir/open.bpf"
! cmp -s "$tmpdir/online.bpf" "$tmpdir/ww.bpf" && ! cmp -s "$tmpdir/open.bpf" "$tmpdir/online.bpf"
ok $? "the program follows the policy's network rules"

# ---- loaded by bwrap --------------------------------------------------------------
bwrap=
for b in /usr/bin/bwrap /bin/bwrap; do [ -x "$b" ] && bwrap=$b && break; done
if [ -z "$bwrap" ] || ! "$bwrap" --ro-bind / / --unshare-user true 2> /dev/null; then
	skip "running under bwrap" "bwrap or user namespaces unavailable"
	done_testing
	exit
fi

# A sanitizer build's leak check needs ptrace, which the filter refuses.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS

inside() { # inside BPF|- COMMAND...: run it in a sandbox with the filter loaded
	bpf=$1
	shift
	if [ "$bpf" = - ]; then
		"$bwrap" --ro-bind / / --dev /dev --proc /proc --bind "$T/w" "$T/w" --chdir "$T/w" \
			${userns:---unshare-user} -- "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	else
		"$bwrap" --ro-bind / / --dev /dev --proc /proc --bind "$T/w" "$T/w" --chdir "$T/w" \
			${userns:---unshare-user} --seccomp 3 -- "$@" 3< "$bpf" > "$tmpdir/out" \
			2> "$tmpdir/err"
	fi
}

expect() { # expect OP RESULT DESCRIPTION: a line of the last sysprobe output
	grep -qx -- "$1 $2" "$tmpdir/out"
	st=$?
	ok $st "$3"
	[ $st -eq 0 ] || diag < "$tmpdir/out"
}

setid="chmod-suid chmod-sgid fchmod-suid fchmodat-suid fchmodat2-suid create-open create-openat
	create-creat create-mkdir create-mkdirat create-mknod create-mknodat"
keys="keyctl add_key request_key"
# Every spelling of an AF_UNIX socket but the stream and seqpacket pairs.
unix_refused=
for type in stream dgram raw rdm seqpacket packet 0 6 15; do
	for f in "" +flags; do
		unix_refused="$unix_refused unix-socket-$type$f"
		case $type in stream | seqpacket) ;; *) unix_refused="$unix_refused unix-pair-$type$f" ;; esac
	done
done
ops="inet inet6 netlink packet vsock unix inet-high-bits unix-high-bits pair-stream pair-dgram
	$unix_refused unix-pair-stream+flags unix-pair-seqpacket unix-pair-seqpacket+flags
	clone-user clone3 setns io_uring ptrace process_vm_readv fork $setid chmod-plain openat2 $keys
	x86 unshare-user"

# Without the filter the probes succeed, so a refusal below is the filter's.
# shellcheck disable=SC2086
inside - "$probe" inet unix pair-dgram clone-user clone3 io_uring ptrace process_vm_readv \
	$setid openat2 keyctl add_key unix-pair-raw unix-pair-raw+flags unix-socket-raw
ok $? "the probe runs under bwrap"
# shellcheck disable=SC2086
for op in inet unix pair-dgram clone-user clone3 io_uring ptrace process_vm_readv $setid \
	openat2 keyctl add_key; do
	grep -qx "$op ok" "$tmpdir/out" || echo "without the filter: $(grep "^$op " "$tmpdir/out")"
done | diag
for op in chmod-suid create-openat keyctl openat2 unix-pair-raw unix-pair-raw+flags \
	unix-socket-raw; do
	expect $op ok "control: without the filter, $op works"
done

# shellcheck disable=SC2086
inside "$tmpdir/ww.bpf" "$probe" $ops
ok $? "workspace-write: the probe runs with the filter"
diag < "$tmpdir/err"
expect unshare-user EPERM "unshare(CLONE_NEWUSER) is refused"
expect clone-user EPERM "clone(CLONE_NEWUSER) is refused"
expect clone3 ENOSYS "clone3 answers ENOSYS"
expect fork ok "fork still works"
expect setns EPERM "setns is refused"
expect io_uring EPERM "io_uring_setup is refused"
expect ptrace EPERM "ptrace is refused"
expect process_vm_readv EPERM "process_vm_readv is refused"
for fam in inet inet6 netlink packet vsock; do
	expect $fam EAFNOSUPPORT "socket($fam) is refused"
done
expect inet-high-bits EAFNOSUPPORT "socket(AF_INET with high bits set) is refused"
expect unix EPERM "socket(AF_UNIX) is refused"
expect unix-high-bits EPERM "socket(AF_UNIX with high bits set) is refused"
expect pair-stream ok "socketpair(AF_UNIX, SOCK_STREAM) still works"
expect pair-dgram EPERM "socketpair(AF_UNIX, SOCK_DGRAM) is refused"
# Every other type of a pair, and every type of a socket, known or not,
# with and without SOCK_NONBLOCK|SOCK_CLOEXEC.
for op in $unix_refused; do
	expect "$op" EPERM "every AF_UNIX spelling but a stream or seqpacket pair is refused: $op"
done
for op in unix-pair-stream+flags unix-pair-seqpacket unix-pair-seqpacket+flags; do
	expect "$op" ok "$op still works: the pair reaches only itself"
done
for op in $setid; do
	[ "$op" = fchmodat2-suid ] && [ $knows_fchmodat2 != yes ] && continue
	expect "$op" EPERM "$op: a set-user-ID or set-group-ID mode is refused"
done
expect chmod-plain ok "chmod 0755 still works"
expect openat2 ENOSYS "openat2 answers ENOSYS (libc falls back to openat)"
for op in $keys; do
	expect "$op" EPERM "$op is refused: the keyrings stay outside"
done
if ! grep -q "^x86" "$tmpdir/out"; then
	ok 1 "the x86-32 probe ran"
elif grep -qx "x86 unavailable" "$tmpdir/out"; then
	skip "the x86-32 half of the filter" "this kernel runs no 32-bit x86 syscalls"
else
	expect x86-socketcall EPERM "x86-32: socketcall is refused"
	expect x86-socket-inet EAFNOSUPPORT "x86-32: socket(AF_INET) is refused"
	expect x86-socket-unix EPERM "x86-32: socket(AF_UNIX) is refused"
	expect x86-socketpair-dgram EPERM "x86-32: socketpair(AF_UNIX, SOCK_DGRAM) is refused"
	expect x86-socketpair-stream ok "x86-32: socketpair(AF_UNIX, SOCK_STREAM) works"
	expect x86-socketpair-raw EPERM "x86-32: socketpair(AF_UNIX, SOCK_RAW) is refused"
	expect x86-socketpair-seqpacket ok "x86-32: socketpair(AF_UNIX, SOCK_SEQPACKET|SOCK_NONBLOCK) works"
	expect x86-unshare-user EPERM "x86-32: unshare(CLONE_NEWUSER) is refused"
	for op in chmod-suid fchmod-suid fchmodat-suid open-suid openat-suid creat-suid \
		mkdir-sgid mknod-suid; do
		expect "x86-$op" EPERM "x86-32: $op is refused"
	done
	expect x86-chmod-plain ok "x86-32: chmod 0755 still works"
	expect x86-openat2 ENOSYS "x86-32: openat2 answers ENOSYS"
	expect x86-keyctl EPERM "x86-32: keyctl is refused"
fi
# The same refusals for an unprivileged user, in a directory it owns.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$probe"; then
	chmod 755 "$tmpdir" "$T"
	chown 65534:65534 "$T/w"
	# shellcheck disable=SC2086
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$bwrap" --ro-bind / / --dev /dev \
		--proc /proc --bind "$T/w" "$T/w" --chdir "$T/w" --unshare-user --seccomp 3 -- \
		"$probe" $setid chmod-plain openat2 $keys 3< "$tmpdir/ww.bpf" > "$tmpdir/out" 2> "$tmpdir/err"
	for op in $setid $keys; do
		[ "$op" = fchmodat2-suid ] && [ $knows_fchmodat2 != yes ] && continue
		expect "$op" EPERM "as nobody: $op is refused"
	done
	expect chmod-plain ok "as nobody: chmod 0755 still works"
	expect openat2 ENOSYS "as nobody: openat2 answers ENOSYS"
	chown 0:0 "$T/w"
else
	skip "the filter as an unprivileged user" "needs root and setpriv"
fi
if [ "$(id -u)" -eq 0 ]; then
	# Root outside a user namespace may make device nodes; the filter
	# refuses them even then.
	userns="--cap-add CAP_MKNOD"
	inside - "$probe" create-mknodat-char
	expect create-mknodat-char ok "control: root with CAP_MKNOD makes a device node"
	inside "$tmpdir/ww.bpf" "$probe" create-mknodat-char
	expect create-mknodat-char EPERM "with the filter, mknodat(S_IFCHR) is refused"
	userns=
else
	skip "mknodat(S_IFCHR) refused by the filter" "making a device node needs root"
fi

if command -v unshare > /dev/null; then
	inside "$tmpdir/ww.bpf" /bin/sh -c 'unshare -U true'
	refused_by sandbox $? "$tmpdir/err" 'unshare failed: Operation not permitted'
	ok $? "unshare -U true fails (EPERM)"
fi
inside "$tmpdir/ww.bpf" /bin/sh -c 'test "$(echo x | cat)" = x'
ok $? "a pipe still works"
if command -v python3 > /dev/null; then
	inside "$tmpdir/ww.bpf" python3 -c 'import socket; socket.socket()'
	refused_by sandbox $? "$tmpdir/err" '\[Errno 97\] Address family not supported'
	ok $? "python3: socket.socket() fails (EAFNOSUPPORT)"
	inside "$tmpdir/ww.bpf" python3 -c 'import socket; socket.socketpair()'
	ok $? "python3: socket.socketpair() works"
fi

inside "$tmpdir/online.bpf" "$probe" inet unix pair-dgram unshare-user
expect inet ok "online: socket(AF_INET) works"
expect unix EPERM "online: socket(AF_UNIX) is refused"
expect unshare-user EPERM "online: unshare(CLONE_NEWUSER) is refused"
inside "$tmpdir/open.bpf" "$probe" inet unix pair-dgram unshare-user unix-pair-raw+flags
expect inet ok "open: socket(AF_INET) works"
expect unix ok "open: socket(AF_UNIX) works"
expect pair-dgram ok "open: socketpair(AF_UNIX, SOCK_DGRAM) works"
expect unix-pair-raw+flags ok "open: socketpair(AF_UNIX, SOCK_RAW|SOCK_NONBLOCK|SOCK_CLOEXEC) works"
expect unshare-user EPERM "open: unshare(CLONE_NEWUSER) is refused"

done_testing
