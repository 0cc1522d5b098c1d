#!/bin/sh
# What cannot be verified without a Mac, checked on one.  Run from a built
# tree on macOS (./configure && make first):
#
#   sh tests/macos/verify.sh [PATH-TO-CORDON]
#
# It prints TAP ("ok N - ..." / "not ok N - ...") and exits 1 when any
# check fails.  It writes only below a temp dir of its own (under $TMPDIR)
# and removes it.  docs/sandbox.md lists what each check settles.
set -u
C=${1:-./cordon}
n=0
failed=0
ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
note() { sed 's/^/# /'; }

if [ "$(uname -s)" != Darwin ]; then
	echo "1..0 # SKIP not macOS"
	exit 0
fi
[ -x "$C" ] || { echo "Bail out! no cordon at $C (build it first, or give its path)"; exit 2; }
SB=/usr/bin/sandbox-exec
t=$(mktemp -d "${TMPDIR:-/tmp}/cordon-verify.XXXXXX") || exit 2
t=$(cd "$t" && pwd -P)
trap 'rm -rf "$t"' EXIT

# ---- 1. the host facts built into cordon are this Mac's -------------------------
for d in etc tmp var; do
	test "$(readlink "/$d")" = "private/$d"
	ok $? "/$d is a symlink to private/$d"
done
# The firmlinks cordon knows of are the system's (/usr/share/firmlinks).
for f in /private /Users /Applications /Library /Volumes /opt /usr/local /cores; do
	grep -q "^${f}[[:space:]]" /usr/share/firmlinks 2> /dev/null
	ok $? "$f is a firmlink of the data volume"
done
# The kernel reports a firmlinked directory by its usual name.
mkdir -p "$HOME/.cordon-verify-fl"
real=$(cd "/System/Volumes/Data$HOME/.cordon-verify-fl" 2> /dev/null && pwd -P)
test "$real" = "$HOME/.cordon-verify-fl"
ok $? "/System/Volumes/Data$HOME resolves to $HOME (got '$real')"
rmdir "$HOME/.cordon-verify-fl"

# The built-in facts (--host macos) decide as this Mac's own file system does.
cat > "$t/p.cordon" << 'P'
cordon 1;

preset "v" {
  sandbox required;
  read  "/**"               allow;
  write "/**"               deny;
  read  "/etc/master.passwd" deny;
  read  "/etc/ssl/**/*.pem" ask;
  write "/tmp/cordon-verify" allow;
  read  /^\/var\/db\/.*\.db$/ deny;
}

default "v";
P
for r in "read /etc/master.passwd" "read /private/etc/master.passwd" "read /etc/ssl/cert.pem" \
	"write /tmp/cordon-verify/x" "write /private/tmp/cordon-verify/x" "read /var/db/x.db" \
	"read /System/Volumes/Data/private/etc/master.passwd"; do
	# shellcheck disable=SC2086
	a=$("$C" eval -p "$t/p.cordon" --json $r | sed 's/"reason":"[^"]*",//')
	# shellcheck disable=SC2086
	b=$("$C" eval -p "$t/p.cordon" --host macos --json $r | sed 's/"reason":"[^"]*",//')
	test -n "$a" && test "$a" = "$b"
	ok $? "$r: this Mac's file system and the built-in facts decide alike"
	[ "$a" = "$b" ] || printf 'native:   %s\nbuilt-in: %s\n' "$a" "$b" | note
done

# ---- 2. Seatbelt sees paths as cordon's profiles name them -------------------------
mkdir -p "$t/d"
echo secret > "$t/d/f"
tp=$(printf '%s' "$t" | sed 's|^/private||')  # the /var/folders spelling, if $t is there
prof() { printf '(version 1)(allow default)(deny file-read* (subpath "%s"))' "$1"; }
"$SB" -p "$(prof "$t/d")" /bin/cat "$tp/d/f" > /dev/null 2>&1
ok $((! $?)) "a deny of the /private path holds for a read through the alias ($tp)"
if [ "$tp" != "$t" ]; then
	"$SB" -p "$(prof "$tp/d")" /bin/cat "$t/d/f" > /dev/null 2>&1
	rc=$?
	ok $((rc == 0 ? 0 : 1)) "a deny naming the alias does not hold: Seatbelt matches the resolved path (why cordon lowers to /private)"
fi
mkdir -p "$HOME/.cordon-verify-fl" && echo s > "$HOME/.cordon-verify-fl/f"
"$SB" -p "$(prof "$HOME/.cordon-verify-fl")" /bin/cat "/System/Volumes/Data$HOME/.cordon-verify-fl/f" \
	> /dev/null 2>&1
ok $((! $?)) "a deny of $HOME/... holds for a read through /System/Volumes/Data$HOME/..."
rm -rf "$HOME/.cordon-verify-fl"

# The shipped profiles are accepted by the real Seatbelt compiler.
for preset in read-only workspace-write; do
	"$C" compile --preset "$preset" --emit sbpl --context "workspace=$t" --context "cwd=$t" \
		--context "tmp=$t/call" > "$t/$preset.sb" && "$SB" -f "$t/$preset.sb" /usr/bin/true
	ok $? "the $preset profile compiles and runs /usr/bin/true under sandbox-exec"
done

# ---- 3. the runner's contract ----------------------------------------------------
"$C" probe > "$t/probe" 2>&1
rc=$?
note < "$t/probe"
ok $((rc == 0 ? 0 : 1)) "cordon probe says the Seatbelt sandbox is ready"

mkdir -p "$t/ws"
out=$(cd "$t/ws" && env CORDON_VERIFY_SECRET=x "$C" run --preset workspace-write -- /bin/sh -c \
	'echo "tmp=$TMPDIR"; env | cut -d= -f1 | sort | tr "\n" " "; echo; echo hi > "$TMPDIR/f" && echo wrote' 2>&1)
rc=$?
printf '%s\n' "$out" | note
ok $rc "cordon run runs a command under workspace-write"
tmp=$(printf '%s\n' "$out" | sed -n 's/^tmp=//p')
case $tmp in "$(getconf DARWIN_USER_TEMP_DIR | sed 's|/$||; s|^/var|/private/var|')"/cordon-call-*) r=0 ;; *) r=1 ;; esac
ok $r "the private temp dir is under the user's temp dir (/private/var/folders/...): $tmp"
printf '%s\n' "$out" | grep -qx wrote
ok $? "the command can write in its temp dir"
test -n "$tmp" && test ! -e "$tmp"
ok $? "the temp dir is gone after the call"
printf '%s\n' "$out" | grep -q CORDON_VERIFY_SECRET
ok $((! $?)) "a variable outside the env allowlist does not reach the command"

(cd "$t/ws" && "$C" run --preset workspace-write -- /bin/sh -c "echo x > '$HOME/.cordon-verify-out'") \
	> /dev/null 2>&1
test ! -e "$HOME/.cordon-verify-out"
ok $? "a write outside the workspace is refused inside the sandbox"
rm -f "$HOME/.cordon-verify-out"

start=$(date +%s)
(cd "$t/ws" && "$C" run --preset workspace-write --timeout 1 -- /bin/sh -c \
	'/bin/sleep 97 & /bin/sleep 97') > /dev/null 2>&1
rc=$?
took=$(($(date +%s) - start))
ok $((rc == 124 ? 0 : 1)) "a timeout ends the call with 124 (got $rc, after ${took}s)"
sleep 1
ps -axo command | grep -q '^/bin/sleep 97$'
ok $((! $?)) "no process of the timed-out call's group is left"

# A profile that lets nothing start: the runner stops before the command.
cat > "$t/none.cordon" << 'P'
cordon 1;

preset "none" {
  sandbox required;
  exec "*" allow;
}

default "none";
P
(cd "$t/ws" && "$C" run -p "$t/none.cordon" -- /usr/bin/true) > "$t/none.out" 2>&1
rc=$?
note < "$t/none.out"
grep -q SANDBOX_UNAVAILABLE "$t/none.out" && [ $rc -eq 125 ]
ok $? "a profile under which no program starts fails closed (125, SANDBOX_UNAVAILABLE)"

echo "1..$n"
[ "$failed" -eq 0 ]
