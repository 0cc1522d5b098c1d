#!/bin/sh
# The bwrap lowering: golden plans for a fixed tree (tests/data/golden/
# POLICY.PRESET.bwrap), and the plan run under
# the real bwrap, checking what a command inside can and cannot do.
. "$srcdir/tests/lib.sh"

T=$tmpdir/t
# .hg: the parent of the default's fence of .hg/hgrc, which the plan binds
# writable (cordon run makes it for a call, as it does .git).
mkdir -p "$T/ws/.git/hooks" "$T/ws/src" "$T/ws/secrets" "$T/ws/config" "$T/ws/.agent" \
	"$T/ws/.hg" "$T/home/.ssh" "$T/call" "$T/outside"
echo key > "$T/home/.ssh/id"
echo prod > "$T/ws/config/prod.env"
echo s > "$T/ws/secrets/token"
echo o > "$T/outside/file"
# What file masks are bound from: the runner makes ${tmp}.mask; by hand, so
# does whoever runs a plan.
: > "$T/call.mask"
chmod 444 "$T/call.mask"

# Deterministic environment: the plan keeps variables from it.
plan() { # plan POLICY PRESET KIND [extra context...]
	policy=$1 preset=$2 kind=$3
	shift 3
	(cd "$T/ws" && env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 SECRET_TOKEN=x \
		${CORDON_REAL:+CORDON_REAL="$CORDON_REAL"} ${CORDON_NO_JIT:+CORDON_NO_JIT=1} \
		"$CORDON" compile ${policy:+-p "$policy"} --preset "$preset" --emit "$kind" \
		--context workspace="$T/ws" --context cwd="$T/ws" --context home="$T/home" \
		--context tmp="$T/call" --context agent_dir="$T/ws/.agent" \
		--context session_dir="$T/ws/.agent/s" "$@")
}

cd "$srcdir/tests/data/golden" || exit 1
for case in "default read-only" "default workspace-write" "deny-read.cordon team" \
	"deny-read.cordon online" "exact.cordon exact"; do
	set -- $case
	policy=$1 preset=$2
	[ "$policy" = default ] && policy=
	name=${1%.cordon}.$preset
	plan "${policy:+$PWD/$policy}" "$preset" bwrap > "$tmpdir/got" 2> "$tmpdir/err"
	ok $? "$name: plan"
	diag < "$tmpdir/err"
	# $PWD is the canonical spelling of the directory the origins name.
	# Files of the host outside the tree (/etc/shadow, /etc/gshadow-,
	# /proc/sysrq-trigger) exist on some machines only: their lines are
	# left out.
	sed -e "s|$T|@T|g" -e "s|$PWD/||g" -e '\|"/etc/|d' -e '\|"/proc/sysrq-trigger"|d' "$tmpdir/got" > "$tmpdir/got.norm"
	check_golden "$tmpdir/got.norm" "$name.bwrap" "$name: golden plan"
	if command -v python3 > /dev/null; then
		python3 -m json.tool "$tmpdir/got" > /dev/null
		ok $? "$name: plan is valid JSON"
	fi
done

plan "" danger-full-access bwrap > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "danger-full-access has no bwrap plan (exit 2)"
grep -q "runs without a sandbox" "$tmpdir/err"
ok $? "and says why"
plan "" workspace-write bwrap --context 'tmp=/tmp/a
b' > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "a line break in a context value is refused"

# bwrap-args are options only: no "--" and no command.
plan "" workspace-write bwrap-args > "$tmpdir/args"
tr '\0' '\n' < "$tmpdir/args" > "$tmpdir/args.txt"
! grep -qx -- '--' "$tmpdir/args.txt"
ok $? "bwrap-args has no '--'"
grep -qx -- '--clearenv' "$tmpdir/args.txt" && grep -qx -- '--unshare-net' "$tmpdir/args.txt"
ok $? "bwrap-args clears the environment and unshares the network"

bwrap=
for b in /usr/bin/bwrap /bin/bwrap; do [ -x "$b" ] && bwrap=$b && break; done
if [ -z "$bwrap" ] || ! "$bwrap" --ro-bind / / --unshare-user true 2> /dev/null; then
	skip "running under bwrap" "bwrap or user namespaces unavailable"
	done_testing
	exit
fi

inside() { # inside ARGS-FILE SHELL-COMMAND: run it in the sandbox
	"$bwrap" --args 3 3< "$1" -- /bin/sh -c "$2" > "$tmpdir/out" 2>&1
}

# refused ARGS-FILE SHELL-COMMAND REASON DESCRIPTION: the command ran in the
# sandbox and failed with REASON (an ERE) in its output; a bwrap that does
# not start fails the check instead of passing it.
refused() {
	inside "$1" "$2"
	refused_by sandbox $? "$tmpdir/out" "$3"
	st=$?
	ok $st "$4"
	[ $st -eq 0 ] || diag < "$tmpdir/out"
}

plan "" workspace-write bwrap-args > "$tmpdir/ww"
inside "$tmpdir/ww" "echo x > $T/ws/src/new.c"
ok $? "workspace-write: a write inside the workspace works"
test -f "$T/ws/src/new.c"
ok $? "and lands on the host"
refused "$tmpdir/ww" "echo x > $T/outside/new" "cannot create .*: Read-only file system" \
	"workspace-write: a write outside the workspace fails (EROFS)"
refused "$tmpdir/ww" "echo x > $T/ws/.agent/state" "cannot create .*: Read-only file system" \
	"workspace-write: the protected agent dir inside the workspace is read-only (EROFS)"
inside "$tmpdir/ww" "echo x > $T/call/t && test \"\$TMPDIR\" = $T/call"
ok $? "workspace-write: the private temp dir is writable and TMPDIR points at it"
inside "$tmpdir/ww" 'test -z "$SECRET_TOKEN" && test -n "$PATH"'
ok $? "workspace-write: the environment is the allowlist"
refused "$tmpdir/ww" "cat $T/home/.ssh/id" "id: No such file or directory" \
	"workspace-write: ~/.ssh is unreadable (an empty directory: ENOENT)"
inside "$tmpdir/ww" "cat $T/outside/file"
ok $? "workspace-write: other files are readable"
inside "$tmpdir/ww" "tail -n +3 /proc/net/dev | sed 's/:.*//; s/ //g'"
is "$?:$(cat "$tmpdir/out" | tr '\n' ' ')" "0:lo " "workspace-write: no network interface but loopback"
inside "$tmpdir/ww" "test \"\$(pwd)\" = $T/ws"
ok $? "workspace-write: runs in the cwd"
# The kernel's settings are the host's, and the sandbox's root owns them:
# read-only by the plan itself, not only by Landlock.
inside "$tmpdir/ww" "awk '\$5 == \"/proc/sys\" { print \$6 }' /proc/self/mountinfo"
case $(cat "$tmpdir/out") in ro,* | ro) st=0 ;; *) st=1 ;; esac
ok $st "workspace-write: /proc/sys is mounted read-only"
if [ "$(id -u)" -eq 0 ]; then
	refused "$tmpdir/ww" 'read v < /proc/sys/vm/swappiness; echo "$v" > /proc/sys/vm/swappiness' \
		"cannot create .*: Read-only file system" \
		"workspace-write: root in the sandbox cannot write a kernel setting (EROFS)"
fi

plan "" read-only bwrap-args > "$tmpdir/ro"
refused "$tmpdir/ro" "echo x > $T/ws/src/other.c" "cannot create .*: Read-only file system" \
	"read-only: the workspace is not writable (EROFS)"
inside "$tmpdir/ro" "echo x > /dev/null"
ok $? "read-only: /dev/null is writable"

plan "$srcdir/tests/data/golden/deny-read.cordon" team bwrap-args > "$tmpdir/team"
refused "$tmpdir/team" "echo x > $T/ws/.git/hooks/pre-commit" "cannot create .*: Read-only file system" \
	"team: a write-denied dir inside the workspace is read-only (EROFS)"
inside "$tmpdir/team" "cat $T/ws/config/prod.env"
is "$?:$(cat "$tmpdir/out")" "0:" "team: a read-denied file is masked: it reads empty"
inside "$tmpdir/team" "stat -c '%F %s %a' $T/ws/config/prod.env; echo x > $T/ws/config/prod.env"
is "$(($? != 0)):$(head -1 "$tmpdir/out"):$(sed -n 's/.*cannot create .*: //p' "$tmpdir/out")" \
	"1:regular empty file 0 444:Read-only file system" \
	"team: the mask is an empty read-only regular file, not a device, and cannot be written (EROFS)"
inside "$tmpdir/team" "ls -A $T/ws/secrets"
is "$?:$(cat "$tmpdir/out")" "0:" "team: a read-denied dir is empty"
inside "$tmpdir/team" "echo x > $T/ws/src/ok.c"
ok $? "team: the rest of the workspace is writable"

# Exact paths: a deny of one path is a mount at that path; an allow of one
# path inside a denied directory grants no mount, so the sandbox refuses it.
plan "$srcdir/tests/data/golden/exact.cordon" exact bwrap-args > "$tmpdir/exact"
inside "$tmpdir/exact" "cat $T/ws/config/prod.env"
is "$?:$(cat "$tmpdir/out")" "0:" "exact: a read-denied file is masked: it reads empty"
inside "$tmpdir/exact" "cat $T/ws/secrets/token"
ok $((! $?)) "exact: an exact allow inside a denied directory is refused by the sandbox (stricter)"
refused "$tmpdir/exact" "echo x > $T/ws/.git/hooks/pre-commit" "cannot create .*: Read-only file system" \
	"exact: an exact write deny of a directory makes it read-only with what is in it (stricter)"
inside "$tmpdir/exact" "echo x > $T/ws/src/ok.c"
ok $? "exact: the rest of the workspace is writable"

done_testing
