#!/bin/sh
# cordon hook: fixture events of each agent's documented hook protocol
# (tests/hook/*.json) answered as tests/hook/*.out pins; every failure
# blocks (exit 2); a rewritten shell command really runs under cordon run;
# install, uninstall and doctor merge, back up and check the agent's file.
. "$srcdir/tests/lib.sh"

dir=$srcdir/tests/hook
pol=$dir/policy.cordon
chmod 755 "$tmpdir"
WS=$tmpdir/ws H=$tmpdir/home
mkdir -p "$WS/src" "$H/.ssh"
WS=$(cd "$WS" && pwd -P) H=$(cd "$H" && pwd -P)
echo secret > "$H/.ssh/id_ed25519"
# Answers that name cordon's own path (a rewritten shell command) and the
# runs of those commands use the real binary: under valgrind, the path a
# process finds for itself is valgrind's.  Everything else runs as $CORDON.
REAL=${CORDON_REAL:-$CORDON}
self=$(readlink -f "$REAL")

# hook AGENT FIXTURE [ARGS...]: the fixture through cordon hook; $rc, $out, $err.
hook() {
	agent=$1 fx=$2
	shift 2
	bin=$CORDON
	case $fx in *bash* | *shell*) bin=$REAL ;; esac
	sed -e "s|@WS@|$WS|g" -e "s|@HOME@|$H|g" "$dir/$fx.json" > "$tmpdir/event"
	out=$(cd "$WS" && env -u CLAUDE_PROJECT_DIR -u GEMINI_PROJECT_DIR HOME="$H" \
		"$bin" hook "$agent" -p "$pol" "$@" < "$tmpdir/event" 2> "$tmpdir/err")
	rc=$?
	err=$(cat "$tmpdir/err")
}

# answers AGENT FIXTURE STATUS: the answer is the golden one, with the status.
answers() {
	hook "$1" "$2"
	is "$rc" "$3" "$2: exit $3"
	printf '%s\n' "$out" | sed -e "s|$self|@CORDON@|g" -e "s|$WS|@WS@|g" -e "s|$H|@HOME@|g" \
		-e "s|$(readlink -f "$pol")|@POLICY@|g" -e "s|$pol|@POLICY@|g" \
		-e "s|--preview [0-9a-f]\{64\}|--preview @DIGEST@|g" > "$tmpdir/$2.out"
	check_golden "$tmpdir/$2.out" "$dir/$2.out" "$2: the answer"
}

for fx in claude-read-key claude-read-ws claude-write-outside claude-edit-ws \
	claude-multiedit-relative claude-bash-ws claude-bash-push claude-bash-outside \
	claude-webfetch-allowed claude-webfetch-denied claude-mcp-allowed claude-mcp-ask \
	claude-unknown-tool claude-glob; do
	answers claude "$fx" 0
done
for fx in codex-bash-ws codex-bash-key codex-bash-opaque codex-apply-patch codex-mcp \
	codex-permission-allow codex-permission-network codex-permission-ask; do
	answers codex "$fx" 0
done
for fx in gemini-shell-ws gemini-shell-push gemini-read-key gemini-write-outside \
	gemini-read-many gemini-web-fetch gemini-mcp; do
	answers gemini "$fx" 0
done

# ---- every failure blocks: exit 2, the reason on stderr, nothing on stdout ----
blocked() { # blocked DESCRIPTION PATTERN
	[ "$rc" -eq 2 ] && [ -z "$out" ] && echo "$err" | grep -q -- "$2"
	ok $? "blocks $1"
	[ "$rc" -eq 2 ] || echo "exit $rc, stdout: $out, stderr: $err" | diag
}
printf 'not json' > "$tmpdir/bad.json"
sed -e "s|@WS@|$WS|g" "$dir/claude-bash-ws.json" > "$tmpdir/good.json"
run_hook() { # run_hook STDIN-FILE AGENT ARGS...
	f=$1
	shift
	out=$(cd "$WS" && HOME="$H" "$CORDON" hook "$@" < "$f" 2> "$tmpdir/err")
	rc=$?
	err=$(cat "$tmpdir/err")
}
run_hook "$tmpdir/bad.json" claude -p "$pol"
blocked "an event that is not JSON" "not a JSON object"
run_hook /dev/null claude -p "$pol"
blocked "an empty event" "not a JSON object"
sed 's/"PreToolUse"/"PostToolUse"/' "$tmpdir/good.json" > "$tmpdir/post.json"
run_hook "$tmpdir/post.json" claude -p "$pol"
blocked "an event it does not answer" "cannot answer the event 'PostToolUse'"
sed 's/"tool_input":{[^}]*}/"tool_input":"x"/' "$tmpdir/good.json" > "$tmpdir/noinput.json"
run_hook "$tmpdir/noinput.json" claude -p "$pol"
blocked "a tool_input that is not an object" "tool_input is not an object"
sed 's/"cwd":"[^"]*"/"cwd":"relative"/' "$tmpdir/good.json" > "$tmpdir/nocwd.json"
run_hook "$tmpdir/nocwd.json" claude -p "$pol"
blocked "an event without an absolute cwd" "no absolute cwd"
printf 'cordon 1;\npreset "p" { read "/**" allw; }\n' > "$tmpdir/broken.cordon"
run_hook "$tmpdir/good.json" claude -p "$tmpdir/broken.cordon"
blocked "a policy that does not compile" "the policy cannot be used"
run_hook "$tmpdir/good.json" claude -p "$tmpdir/missing.cordon"
blocked "a policy that cannot be read" "the policy cannot be used"
run_hook "$tmpdir/good.json" claude -p "$pol" --preset nosuch
blocked "an unknown preset" "nosuch"
run_hook "$tmpdir/good.json" cursor -p "$pol"
blocked "an unknown agent" "unknown agent 'cursor'"
run_hook "$tmpdir/good.json" claude -p "$pol" --bogus
blocked "an unknown option" "unknown option"
run_hook "$tmpdir/good.json" gemini -p "$pol"
blocked "another agent's event" "cannot answer the event 'PreToolUse'"
sed 's/"command":"[^"]*"/"command":""/' "$tmpdir/good.json" > "$tmpdir/nocmd.json"
run_hook "$tmpdir/nocmd.json" claude -p "$pol"
blocked "a shell call without a command" "has no command"
# No decision in time: the event does not end for 5 s.
start=$(date +%s)
(sleep 5; cat "$tmpdir/good.json") | (HOME="$H" "$CORDON" hook claude -p "$pol" --timeout 1 \
	> "$tmpdir/out" 2> "$tmpdir/err"; echo $? > "$tmpdir/rc"; date +%s > "$tmpdir/end")
rc=$(cat "$tmpdir/rc") out=$(cat "$tmpdir/out") err=$(cat "$tmpdir/err")
blocked "when no decision is made in time" "no decision in time"
[ $(($(cat "$tmpdir/end") - start)) -lt 4 ]
ok $? "and does not wait for the event to end"
run_hook "$tmpdir/good.json" claude -p "$pol" --audit "$tmpdir/nodir/audit.log"
blocked "when the audit log cannot be written" "audit"

# ---- the audit log names the agent, its tool and the session ----
hook claude claude-bash-ws --audit "$tmpdir/audit.log"
grep -q '"agent=claude","tool=Bash","session=s-1"' "$tmpdir/audit.log"
ok $? "the audit record names the agent, the tool and the session"

# ---- the rewritten command runs under cordon run ----
if "$REAL" probe > /dev/null 2>&1; then
	hook claude claude-bash-ws
	cmd=$(printf '%s\n' "$out" | sed -n 's/.*"updatedInput":{"command":"\([^"]*\)".*/\1/p')
	[ -n "$cmd" ]
	ok $? "Claude Code's Bash comes back rewritten"
	res=$(cd "$WS" && HOME="$H" sh -c "$cmd" 2>&1)
	is "$res" sandboxed "the rewritten command runs, and writes the workspace"
	# An ask goes to the person; approved, exactly the preview's writes
	# widen for the call (the command aimed at a file of the test's own).
	hook claude claude-bash-outside
	cmd=$(printf '%s\n' "$out" | sed -n 's/.*"updatedInput":{"command":"\([^"]*\)".*/\1/p')
	printf '%s\n' "$cmd" | grep -q -- ' --approved --preview [0-9a-f]\{64\} -- bash -c '
	ok $? "an ask comes back rewritten with --approved and its preview's digest, for after the person's yes"
	# Approved, exactly the preview's writes widen for the call, and only
	# if the run's preview is the one the person saw.
	O=$tmpdir/outside
	mkdir -p "$O"
	echo "touch $O/sibling" > "$O/s.sh"
	# bash_event NAME COMMAND: a Bash event of Claude Code, and its answer's command in $cmd.
	bash_event() {
		printf '{"session_id":"s-1","cwd":"@WS@","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"t"}\n' \
			"$2" > "$tmpdir/$1.json"
		dir0=$dir dir=$tmpdir
		hook claude "$1"
		dir=$dir0
		cmd=$(printf '%s\n' "$out" | sed -n 's/.*"updatedInput":{"command":"\([^"]*\)".*/\1/p')
	}
	bash_event ev-approved "touch $O/approved; sh $O/s.sh; true"
	res=$(cd "$WS" && HOME="$H" sh -c "$cmd" 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ -f "$O/approved" ]
	ok $? "approved, it writes the file its preview showed"
	[ ! -e "$O/sibling" ] && echo "$res" | grep -q 'Read-only file system'
	ok $? "and nothing its preview did not show: the sandbox refuses that"
	bash_event ev-swapped "touch $O/swapped"
	: > "$O/other"
	ln -s "$O/other" "$O/swapped"
	res=$(cd "$WS" && HOME="$H" sh -c "$cmd" 2>&1)
	[ $? -eq $RUN_ASK ] && echo "$res" | grep -q 'the preview changed since it was shown'
	ok $? "a target that became a link since the person saw it voids the yes"
	fresh=$(printf '%s\n' "$cmd" | sed "s|$O/swapped|$O/fresh|")
	res=$(cd "$WS" && HOME="$H" sh -c "$fresh" 2>&1)
	[ $? -eq $RUN_ASK ] && [ ! -e "$O/fresh" ]
	ok $? "and so does a command other than the one shown"
	hook gemini gemini-shell-ws
	cmd=$(printf '%s\n' "$out" | sed -n 's/.*"tool_input":{"command":"\([^"]*\)".*/\1/p')
	rm -f "$WS/out.txt"
	(cd "$WS" && HOME="$H" sh -c "$cmd") > /dev/null 2>&1
	is "$(cat "$WS/out.txt" 2> /dev/null)" sandboxed "Gemini CLI's shell command runs under cordon run"
	# The sandbox is real: the secret the policy denies is hidden inside.
	printf '%s\n' "$(sed -e "s|@WS@|$WS|g" "$dir/claude-bash-ws.json")" |
		sed 's/"command":"[^"]*"/"command":"sh .\/probe.sh"/' > "$tmpdir/probe.json"
	printf 'cat "$HOME/.ssh/id_ed25519" 2>/dev/null || echo hidden\n' > "$WS/probe.sh"
	out=$(cd "$WS" && HOME="$H" "$REAL" hook claude -p "$pol" < "$tmpdir/probe.json")
	cmd=$(printf '%s\n' "$out" | sed -n 's/.*"updatedInput":{"command":"\([^"]*\)".*/\1/p')
	res=$(cd "$WS" && HOME="$H" sh -c "$cmd" 2>&1)
	is "$res" hidden "inside, a script cannot read the key the policy denies"
else
	skip "the rewritten command runs under cordon run" "cordon probe: no sandbox here"
fi

# ---- install, uninstall, doctor ----
D=$tmpdir/proj
mkdir -p "$D/.claude"
cat > "$D/.claude/settings.json" << 'EOS'
{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Write", "hooks": [ { "type": "command", "command": "prettier --check" } ] }
    ]
  }
}
EOS
"$REAL" hook install claude --dir "$D" -p "$pol" > "$tmpdir/inst" 2>&1
is "$?" 0 "install claude: exit 0"
f=$D/.claude/settings.json
grep -q '"model": "opus"' "$f" && grep -q 'prettier --check' "$f"
ok $? "install keeps the settings and hooks it found"
grep -q "hook claude -p '$(readlink -f "$pol")' || exit 2" "$f"
ok $? "install adds cordon by its absolute path, ending in || exit 2"
ls "$D/.claude/" | grep -q '^settings.json.cordon-backup-'
ok $? "install keeps the old file as a backup"
"$REAL" hook install claude --dir "$D" -p "$pol" > /dev/null 2>&1
is "$(grep -c 'hook claude' "$f")" 1 "installing again does not add a second entry"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
is "$?" 0 "doctor: the installed hook works"
diag < "$tmpdir/doc"
grep -q '^ok   a malformed event is blocked' "$tmpdir/doc"
ok $? "doctor runs the installed command on a malformed event"
# The installed command with cordon gone blocks rather than allows.
cmd=$(sed -n 's/.*"command": "\(.*hook claude.*\)".*/\1/p' "$f" | sed 's/\\"/"/g')
gone=$(printf '%s\n' "$cmd" | sed "s|$self|$tmpdir/no-such-cordon|")
printf '%s' "$(cat "$tmpdir/good.json")" | sh -c "$gone" > /dev/null 2>&1
is "$?" 2 "the installed command blocks (exit 2) when the cordon binary is missing"
"$REAL" hook uninstall claude --dir "$D" > /dev/null 2>&1
is "$?" 0 "uninstall: exit 0"
! grep -q 'hook claude' "$f" && grep -q 'prettier --check' "$f" && grep -q '"model": "opus"' "$f"
ok $? "uninstall removes cordon's entry and keeps the rest"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
is "$?" 1 "doctor after uninstall: exit 1"
printf '{ "hooks": ' > "$D/.claude/settings.json"
cp "$D/.claude/settings.json" "$tmpdir/broken-settings"
"$REAL" hook install claude --dir "$D" > /dev/null 2> "$tmpdir/err"
[ $? -eq 2 ] && cmp -s "$D/.claude/settings.json" "$tmpdir/broken-settings"
ok $? "install refuses a file that does not parse and leaves it as it was"
grep -q 'settings.json:1:' "$tmpdir/err"
ok $? "and names the file and line"
for agent in codex gemini; do
	"$REAL" hook install "$agent" --dir "$D" -p "$pol" > /dev/null 2>&1
	is "$?" 0 "install $agent: exit 0"
	"$REAL" hook doctor "$agent" --dir "$D" > "$tmpdir/doc" 2>&1
	is "$?" 0 "doctor $agent: the installed hook works"
done
grep -q '"PermissionRequest"' "$D/.codex/hooks.json" && grep -q '"PreToolUse"' "$D/.codex/hooks.json"
ok $? "codex: installed for PreToolUse and PermissionRequest"
grep -q '"BeforeTool"' "$D/.gemini/settings.json" && grep -q '"timeout": 30000' "$D/.gemini/settings.json"
ok $? "gemini: installed for BeforeTool, its timeout in milliseconds"
"$REAL" hook install claude --dir "$D" --preset nosuch -p "$pol" > /dev/null 2> "$tmpdir/err"
is "$?" 2 "install refuses a preset the policy does not have"
done_testing
