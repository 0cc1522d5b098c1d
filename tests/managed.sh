#!/bin/sh
# The managed layer (docs/fleet.md): a policy under it can only narrow it.
# Each kind of widening a lower layer may try is a check error naming both
# rules and no verb decides with it; a lower layer's deny narrows; what the
# widening check cannot see is still decided by the managed layer, in eval,
# explain, the stream, run and hook; `lower_layers deny;` makes -p an
# error; CORDON_MANAGED cannot replace an installed managed layer.
. "$srcdir/tests/lib.sh"

chmod 755 "$tmpdir"
WS=$tmpdir/ws
mkdir -p "$WS/src"
WS=$(cd "$WS" && pwd -P)
M=$tmpdir/managed.cordon
export CORDON_MANAGED="$M"

cat > "$M" << 'EOF'
cordon 1;

preset "read-only" {
  description "Read; ask before writing";
  approval never;
  read "/**" allow;
  read "~/.ssh" deny "keys stay out";
  write "/dev/null" allow;
  write "/**" ask;
  net "*" deny;
  exec "*" allow;
  exec /(^|\s)rm\s+-rf\s+\/important(\s|$)/ deny "the important tree stays";
  env {
    keep PATH, HOME;
  }
  limits {
    processes 256;
  }
}

preset "workspace-write" extends "read-only" {
  description "Write the workspace";
  approval ask;
  write "${workspace}" allow;
  write "/etc" deny "system files";
  protect "${workspace}/.git";
}

default "workspace-write";
redact "ticket" /TICKET-[0-9]+/;
EOF

# The lower layer that passes: the managed presets, narrowed.
OK=$tmpdir/ok.cordon
sed -e 's|^  write "${workspace}" allow;|&\n  write "${workspace}/secret" deny "mine";|' \
	-e '/^default/d' "$M" > "$OK"
# The managed layer with a regex deny the lower layer leaves out: the
# diff's probes do not reach it (a bare regex names no target), so only
# the decision-time composition keeps it.
LOOSE=$tmpdir/loose.cordon
grep -v 'important' "$OK" > "$LOOSE"

ctx="--context workspace=$WS --context cwd=$WS"

# ---- each kind of widening is a check error naming both rules -------------------

# widens NAME SED-SCRIPT WANT-TEXT MANAGED-LINE: the lower layer $OK edited
# by SED-SCRIPT is refused by eval (status 1) with an error naming the lower
# layer's file:line:col, and a note at the managed layer's line.
widens() {
	sed -e "$2" "$OK" > "$tmpdir/$1.cordon"
	"$CORDON" eval -p "$tmpdir/$1.cordon" $ctx write "$WS/src/a.c" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	is "$rc" 1 "$1: the lower layer is a policy error"
	grep -q "^$tmpdir/$1.cordon:[0-9]*:[0-9]*: error: .*the managed layer: $3.*\[managed-layer\]" \
		"$tmpdir/err" || grep -q "^$tmpdir/$1.cordon:[0-9]*:[0-9]*: error: $3" "$tmpdir/err"
	ok $? "$1: the error names the lower layer's rule"
	[ -z "$4" ] || grep -q "^$M:$4:[0-9]*: note: " "$tmpdir/err"
	ok $? "$1: the note names the managed layer's rule"
	is "$(cat "$tmpdir/out")" "" "$1: nothing is decided"
	[ "$rc" -eq 1 ] || diag < "$tmpdir/err"
}

widens allow-over-deny 's|write "/etc" deny "system files";|write "/etc" allow;|' \
	'write /etc: deny -> allow' 25
widens allow-over-ask 's|^  write "${workspace}" allow;|&\n  write "/srv" allow;|' \
	'write /srv: ask -> allow' 9
widens removed-protection '/protect "${workspace}\/.git";/d' \
	"protect $tmpdir/ws/.git\\|protect /ws/.git" 26
widens unprotect 's|protect "${workspace}/.git";|unprotect;|' \
	'protect /ws/.git: present' 26
widens wider-env 's|keep PATH, HOME;|keep PATH, HOME, AWS_SECRET_ACCESS_KEY;|' \
	'env keep AWS_SECRET_ACCESS_KEY' 3
widens env-set 's|keep PATH, HOME;|&\n    set TMPDIR = "/var/tmp";|' \
	'env set TMPDIR: (none) -> /var/tmp' 3
widens higher-limit 's|processes 256;|processes 1024;|' \
	'setting limit processes: 256 -> 1024' 17
widens approval-ask-over-never 's|approval never;|approval ask;|' \
	'setting approval: never -> ask' 3
widens sandbox-none 's|description "Write the workspace";|&\n  sandbox none;|' \
	'setting sandbox: required -> none' 21
widens extra-preset '$a\
preset "danger-full-access" {\
  read "/**" allow;\
}' "preset 'danger-full-access' is not offered by the managed layer" ''
widens moved-default '$a\
default "read-only";' "the managed layer sets the default preset to 'workspace-write'" 29

# The same widening is what cordon diff --fail-on-widen reports: one
# comparison, two uses.
"$CORDON" diff --fail-on-widen --preset workspace-write "$M" "$tmpdir/allow-over-deny.cordon" \
	> /dev/null 2> "$tmpdir/err"
is "$?" 1 "cordon diff --fail-on-widen calls the same change widening"

# ---- a lower layer that only narrows ---------------------------------------------

decide() { # decide POLICY OP TARGET...: the decision's JSON (eval --json)
	pol=$1
	shift
	"$CORDON" eval -p "$pol" $ctx --json "$@" 2> "$tmpdir/err"
}
field() { # field NAME: the string member NAME of the JSON on stdin
	sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"
}

out=$(decide "$OK" write "$WS/secret/k")
is "$(echo "$out" | field decision)" deny "a lower layer's own deny narrows"
is "$(echo "$out" | field layer)" user "... and the user layer decided"
out=$(decide "$OK" write "$WS/src/a.c")
is "$(echo "$out" | field decision)" allow "what both allow is allowed"
out=$(decide "$OK" write /etc/passwd)
is "$(echo "$out" | field decision)" deny "a managed deny holds under -p"
is "$(echo "$out" | field layer)" managed "... decided by the managed layer"
out=$(decide "$OK" read "$HOME/.ssh/id_ed25519")
is "$(echo "$out" | field decision)" deny "a managed read deny holds under -p"

# ---- what the check cannot see, the composition still decides -------------------

cmd='rm -rf /important'
"$CORDON" eval -p "$LOOSE" $ctx exec "$cmd" > /dev/null 2> "$tmpdir/err"
ok $? "a lower layer without the managed regex deny passes the check"
out=$(decide "$LOOSE" exec "$cmd")
is "$(echo "$out" | field decision)" deny "eval: the managed deny holds where the check saw nothing"
is "$(echo "$out" | field layer)" managed "eval: ... by the managed layer"
"$CORDON" explain -p "$LOOSE" $ctx exec "$cmd" > "$tmpdir/out" 2>&1
grep -q '^layer: managed' "$tmpdir/out" && grep -q '^decision: deny' "$tmpdir/out"
ok $? "explain: the trace is the managed layer's, and it denies"
printf '{"id":1,"op":"exec","target":"%s"}\n{"id":2,"op":"write","target":"/etc/x"}\n' "$cmd" |
	"$CORDON" eval -p "$LOOSE" $ctx --stdin > "$tmpdir/out" 2> "$tmpdir/err"
is "$(field decision < "$tmpdir/out" | tr '\n' ' ')" "deny deny " "the stream: both denied"
is "$(field layer < "$tmpdir/out" | tr '\n' ' ')" "managed managed " "the stream: by the managed layer"

# cordon run: refused before the launch, whoever runs it.
(cd "$WS" && "$CORDON" run -p "$LOOSE" --preset workspace-write --workspace "$WS" \
	--shell "$cmd" > /dev/null 2> "$tmpdir/err")
rc=$?
refused_by policy "$rc" "$tmpdir/err"
ok $? "run: the managed deny stops the command before it runs (status $rc)"
(cd "$WS" && "$CORDON" run -p "$tmpdir/allow-over-deny.cordon" --preset workspace-write \
	--workspace "$WS" -- true > /dev/null 2> "$tmpdir/err")
is "$?" 1 "run: a widening lower layer is a policy error, nothing runs"

# cordon approve: a managed deny is never approvable.
(cd "$WS" && "$CORDON" approve exec -p "$LOOSE" --workspace "$WS" "$cmd" > /dev/null \
	2> "$tmpdir/err")
is "$?" 1 "approve: the managed deny cannot be approved"

# The managed layer's redactions: a lower layer cannot switch one off.
sed -e '$a\
redact "ticket" /(?!)/;' "$LOOSE" > "$tmpdir/unredact.cordon"
"$CORDON" eval -p "$tmpdir/unredact.cordon" $ctx --audit "$tmpdir/audit.log" \
	exec "echo TICKET-42" > /dev/null 2>&1
grep -q 'REDACTED:ticket' "$tmpdir/audit.log" && ! grep -q 'TICKET-42' "$tmpdir/audit.log"
ok $? "audit: the managed layer's redaction holds under a lower layer's"

# cordon hook: the agent's call is denied.
H=$tmpdir/home
mkdir -p "$H" && chmod 755 "$H"
printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"t1"}\n' \
	"$WS" "$cmd" > "$tmpdir/event"
out=$(cd "$WS" && HOME=$H "$CORDON" hook claude -p "$LOOSE" < "$tmpdir/event" 2> "$tmpdir/err")
rc=$?
is "$rc" 0 "hook: answered"
echo "$out" | grep -q '"permissionDecision": *"deny"'
ok $? "hook: the managed deny is the answer"
out=$(cd "$WS" && HOME=$H "$CORDON" hook claude -p "$tmpdir/allow-over-deny.cordon" \
	< "$tmpdir/event" 2> "$tmpdir/err")
is "$?" 2 "hook: a widening lower layer blocks the call (exit 2)"

# ---- the sandbox of a call is the layered one -------------------------------------
# A managed layer that lets only /ws be written, under a lower layer that
# allows ${workspace}: they agree under the check's fixed context (where
# the workspace is /ws), and a real workspace elsewhere is asked about by
# the managed layer, so the lowering binds it read-only.  One launch.

R=$tmpdir/rt
mkdir -p "$R/ws"
printf 'cordon 1;\npreset "p" {\n  read "/**" allow;\n  write "/dev/null" allow;\n  write "/**" ask;\n  write "/ws" allow;\n  net "*" deny;\n  exec "*" allow;\n}\ndefault "p";\n' > "$R/m.cordon"
sed -e 's|write "/ws" allow;|write "${workspace}" allow;|' -e '/^default/d' "$R/m.cordon" > "$R/l.cordon"
if ! "${CORDON_REAL:-$CORDON}" probe > /dev/null 2>&1; then
	skip "the workspace a managed layer does not allow is read-only in the sandbox" \
		"cordon probe says the sandbox is not ready"
else
	# A script: what it writes is known only when it runs, so the
	# sandbox, not the decision, is what stops it.
	echo 'echo x > a' > "$R/w.sh"
	(cd "$R/ws" && CORDON_MANAGED=$R/m.cordon "${CORDON_REAL:-$CORDON}" run -p "$R/l.cordon" \
		--workspace "$R/ws" -- sh "$R/w.sh" > /dev/null 2> "$tmpdir/err")
	refused_by sandbox "$?" "$tmpdir/err" 'Read-only file system'
	ok $? "the workspace a managed layer does not allow is read-only in the sandbox"
	[ ! -e "$R/ws/a" ]
	ok $? "... and nothing was written"
fi
env -u CORDON_MANAGED "$CORDON" compile -p "$R/l.cordon" --preset p --context "workspace=$R/ws" --emit bwrap \
	2> /dev/null | grep -q -- "\"--bind\",\"$R/ws\""
ok $? "without the managed layer, the lower layer alone binds it writable"

# ---- the managed layer pins the presets and the default --------------------------

out=$("$CORDON" eval -p "$OK" $ctx --preset danger-full-access read /etc/hosts 2>&1)
is "$?" 2 "a preset the managed layer does not offer cannot be chosen"
echo "$out" | grep -q "managed layer"
ok $? "... and the message says why"
out=$("$CORDON" eval -p "$OK" $ctx --json read /etc/hosts)
is "$(echo "$out" | field preset)" workspace-write "the managed layer's default is the default"

# ---- lower_layers deny -----------------------------------------------------------

F=$tmpdir/forbid.cordon
sed -e 's|^cordon 1;|&\nlower_layers deny;|' "$M" > "$F"
"$CORDON" check "$F" > /dev/null 2>&1
ok $? "lower_layers deny; checks"
printf 'cordon 1;\nlower_layers   deny ;\n' > "$tmpdir/fmt.cordon"
"$CORDON" fmt "$tmpdir/fmt.cordon" > "$tmpdir/fmt2.cordon" 2>&1 &&
	grep -qx 'lower_layers deny;' "$tmpdir/fmt2.cordon" &&
	"$CORDON" fmt --check "$tmpdir/fmt2.cordon" > /dev/null 2>&1 &&
	"$CORDON" lint "$tmpdir/fmt2.cordon" > /dev/null 2>&1
ok $? "... cordon fmt lays it out, once and for all, and cordon lint accepts it"
CORDON_MANAGED=$F "$CORDON" eval -p "$OK" $ctx read /etc/hosts > /dev/null 2> "$tmpdir/err"
is "$?" 1 "with lower_layers deny, -p FILE is an error"
grep -q "forbids lower layers" "$tmpdir/err" && grep -q "^$F:2:1: note:" "$tmpdir/err"
ok $? "... naming the managed layer's statement"
CORDON_MANAGED=$F "$CORDON" eval $ctx read /etc/hosts > /dev/null 2>&1
ok $? "... and without -p the managed layer stands alone"

# ---- a managed layer that cannot be used fails closed ----------------------------

CORDON_MANAGED=$tmpdir/missing.cordon "$CORDON" eval $ctx read /etc/hosts > /dev/null 2>&1
is "$?" 2 "a managed layer that cannot be read stops every verb"
printf 'cordon 1;\npreset "x" { read "/**" allwo; }\n' > "$tmpdir/broken.cordon"
CORDON_MANAGED=$tmpdir/broken.cordon "$CORDON" eval -p "$OK" $ctx read /etc/hosts \
	> /dev/null 2>&1
is "$?" 1 "a managed layer with errors stops every verb; -p does not stand in"

# cordon diff compares the files it is given, not the layered policy.
CORDON_MANAGED=$F "$CORDON" diff --preset workspace-write "$OK" "$OK" > /dev/null 2>&1
ok $? "diff compares files, even where lower layers are forbidden"

# ---- CORDON_MANAGED cannot replace an installed managed layer --------------------
# The installed path is compiled in; a private mount namespace puts a
# managed layer there without touching the machine's.  As root, and as
# nobody, who can set the variable but not write the file.

sysconf=$("$CORDON" --help | sed -n 's|.*uses \(/.*\)/cordon/policy.cordon.*|\1|p')
EMPTY=$tmpdir/empty.cordon
printf 'cordon 1;\npreset "workspace-write" {\n  read "/**" allow;\n  write "/**" allow;\n  exec "*" allow;\n  net "*" allow;\n}\ndefault "workspace-write";\n' > "$EMPTY"
NB=$(as_nobody_cordon "$tmpdir/nb")
chmod 755 "$tmpdir" && chmod 644 "$M" "$EMPTY" "$OK"
if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null ||
	! unshare -m true 2> /dev/null || [ ! -d "$sysconf" ]; then
	for who in root nobody; do
		skip "[$who] CORDON_MANAGED is ignored where a managed layer is installed" \
			"needs root and a private mount namespace to install one"
	done
else
	for who in root nobody; do
		as=
		[ "$who" = nobody ] &&
			as="setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=$H"
		CORDON_MANAGED=$EMPTY unshare -m sh -c '
			mount -t tmpfs tmpfs "$1" && mkdir "$1/cordon" &&
			cp "$2" "$1/cordon/managed.cordon" && chmod 644 "$1/cordon/managed.cordon" &&
			cd "$3" && $5 "$4" eval --context workspace="$3" --context cwd="$3" --json \
				write /etc/passwd' sh "$sysconf" "$M" "$WS" "$NB" "$as" \
			> "$tmpdir/out" 2> "$tmpdir/err"
		is "$(field decision < "$tmpdir/out")" deny \
			"[$who] CORDON_MANAGED is ignored where a managed layer is installed"
		grep -q "CORDON_MANAGED is ignored" "$tmpdir/err"
		ok $? "[$who] ... and cordon says so"
		CORDON_MANAGED=$EMPTY unshare -m sh -c '
			mount -t tmpfs tmpfs "$1" && mkdir -m 700 "$1/cordon" &&
			cp "$2" "$1/cordon/managed.cordon" &&
			cd "$3" && $5 "$4" eval --context workspace="$3" --context cwd="$3" \
				write /etc/passwd' sh "$sysconf" "$M" "$WS" "$NB" "$as" \
			> /dev/null 2> "$tmpdir/err"
		rc=$?
		if [ "$who" = nobody ]; then
			is "$rc" 2 "[$who] an installed managed layer it cannot read fails closed"
		else
			is "$rc" 0 "[$who] an installed managed layer closed to others is read"
		fi
	done
fi
# The widening check compares in made-up directories (/ws, /home/u): a
# /home/u that exists on this machine, closed to the caller, changes
# nothing.  A private mount namespace makes one without touching /home.
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2> /dev/null || ! command -v setpriv > /dev/null; then
	skip "[nobody] a closed /home/u on the machine does not stop the check" \
		"needs root and a private mount namespace"
else
	unshare -m sh -c '
		mount -t tmpfs -o mode=755 tmpfs /home && mkdir -m 700 /home/u &&
		cd "$1" && setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			env HOME=/ CORDON_MANAGED="$2" "$3" eval -p "$4" \
			--context workspace="$1" --context cwd="$1" write /etc/passwd' \
		sh "$WS" "$M" "$NB" "$tmpdir/allow-over-deny.cordon" > /dev/null 2> "$tmpdir/err"
	rc=$?
	grep -q 'widens the managed layer: write /etc: deny -> allow' "$tmpdir/err"
	ok $? "[nobody] a closed /home/u on the machine does not stop the check (exit $rc)"
	grep -q 'cannot be resolved' "$tmpdir/err" && diag < "$tmpdir/err"
fi

# Where none is installed, the variable adds a managed layer: it can only
# narrow what the policy in use grants.
out=$(cd "$WS" && env -u CORDON_MANAGED "$CORDON" eval -p "$EMPTY" $ctx --json write /etc/passwd)
is "$(echo "$out" | field decision)" allow "without a managed layer, -p FILE is the policy"
(cd "$WS" && "$CORDON" eval -p "$EMPTY" $ctx write /etc/passwd > /dev/null 2>&1)
is "$?" 1 "with none installed, CORDON_MANAGED adds a managed layer over it"

done_testing
