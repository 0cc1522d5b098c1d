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
	claude-unknown-tool claude-glob claude-webfetch-port claude-enter-worktree; do
	answers claude "$fx" 0
done
for fx in codex-bash-ws codex-bash-key codex-bash-opaque codex-apply-patch codex-mcp \
	codex-permission-allow codex-permission-network codex-permission-ask \
	codex-bash-workdir-outside; do
	answers codex "$fx" 0
done
for fx in gemini-shell-ws gemini-shell-push gemini-read-key gemini-write-outside \
	gemini-read-many gemini-web-fetch gemini-mcp gemini-shell-dir-path; do
	answers gemini "$fx" 0
done

# Codex starts its hook in the session's directory and puts a call's workdir
# in the event's cwd: the workdir is judged like any directory outside the
# workspace, never taken as the workspace (issue 28, item 3).
hook codex codex-bash-workdir-outside
echo "$out" | grep -q '"permissionDecision":"deny"' && echo "$out" | grep -q "write $H/outside-wd.txt"
ok $? "codex: a call whose workdir is outside the workspace is judged against the session's workspace"
# With no person to answer (--no-ask), an ask is a deny that says so.
hook gemini gemini-write-outside --no-ask
echo "$out" | grep -q '"decision":"deny"' && echo "$out" | grep -q -- '--no-ask'
ok $? "gemini --no-ask: an ask becomes a deny that says why"

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
# No decision in time: the event does not end for a minute, and the hook
# answers while its writer still waits (an order, not a measured time).
mkfifo "$tmpdir/slow-event"
(sleep 60 && cat "$tmpdir/good.json") > "$tmpdir/slow-event" 2> /dev/null &
writer=$!
HOME="$H" "$CORDON" hook claude -p "$pol" --timeout 1 < "$tmpdir/slow-event" \
	> "$tmpdir/out" 2> "$tmpdir/err"
rc=$? out=$(cat "$tmpdir/out") err=$(cat "$tmpdir/err")
kill -0 "$writer" 2> /dev/null
waited=$?
pkill -P "$writer" sleep 2> /dev/null
kill "$writer" 2> /dev/null
blocked "when no decision is made in time" "no decision in time"
ok $waited "and does not wait for the event to end"
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
	# Gemini CLI's dir_path: the rewritten command runs there.
	hook gemini gemini-shell-dir-path
	cmd=$(printf '%s\n' "$out" | sed -n 's/.*"tool_input":{"command":"\([^"]*\)".*/\1/p')
	res=$(cd "$WS/src" && HOME="$H" sh -c "$cmd" 2>&1)
	is "$res" "$WS/src" "Gemini CLI's dir_path is where the rewritten command runs"
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

# ---- what the real agents showed (issue 28) ----
# Claude Code 2.1.197 offers tools no list of names keeps up with: the
# matcher is every tool, and doctor names the tools an old matcher misses.
echo '{}' > "$D/.claude/settings.json"
"$REAL" hook install claude --dir "$D" -p "$pol" > /dev/null 2>&1
grep -q '"matcher": "\*"' "$D/.claude/settings.json"
ok $? "claude: the installed matcher is every tool"
sed -i 's/"matcher": "\*"/"matcher": "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS|WebFetch|WebSearch|mcp__.*"/' \
	"$D/.claude/settings.json"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL its matcher .*EnterWorktree.*Skill' "$tmpdir/doc"
ok $? "doctor fails on a matcher that misses the agent's tools, naming them"
# Without --preset, install says which preset decides and what a headless
# agent makes of its asks.
"$REAL" hook install claude --dir "$D" -p "$pol" > /dev/null 2> "$tmpdir/err"
grep -q "default preset 'agent'.*headless.*--preset workspace-write.*--no-ask" "$tmpdir/err"
ok $? "install without --preset leads to a preset a headless agent can work under"
# A policy that no longer compiles, or a binary that is gone: every call
# is blocked, and doctor fails loudly.
mkdir -p "$tmpdir/pol2" "$tmpdir/bin2"
cp "$pol" "$tmpdir/pol2/"
cp "$REAL" "$(dirname "$REAL")/cordon-exec" "$tmpdir/bin2/" 2> /dev/null || cp "$REAL" "$tmpdir/bin2/"
"$tmpdir/bin2/cordon" hook install claude --dir "$D" -p "$tmpdir/pol2/policy.cordon" > /dev/null 2>&1
"$REAL" hook doctor claude --dir "$D" > /dev/null 2>&1
is "$?" 0 "doctor: a hook with its own policy file and binary works"
echo 'this is not cordon' >> "$tmpdir/pol2/policy.cordon"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL the policy it uses' "$tmpdir/doc" &&
	grep -q '^FAIL a well-formed call is answered (status 2)' "$tmpdir/doc"
ok $? "doctor fails when the installed policy does not compile"
cp "$pol" "$tmpdir/pol2/policy.cordon"
rm "$tmpdir/bin2/cordon"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL the cordon binary it runs' "$tmpdir/doc"
ok $? "doctor fails when the cordon binary is gone"
# Gemini CLI reads settings.json with comments; so do install, doctor and
# uninstall, and they say the comments are not kept (the backup has them).
G=$tmpdir/gem
mkdir -p "$G/.gemini"
cat > "$G/.gemini/settings.json" << 'EOS'
{
  // the user's own settings
  "security": { "auth": { "selectedType": "gemini-api-key" } }, /* "hooks": {} */
  "url": "http://x//y"
}
EOS
"$REAL" hook install gemini --dir "$G" -p "$pol" > /dev/null 2> "$tmpdir/err"
[ $? -eq 0 ] && grep -q 'had comments' "$tmpdir/err" && grep -q '"url": "http://x//y"' "$G/.gemini/settings.json" &&
	grep -q 'BeforeTool' "$G/.gemini/settings.json" && grep -q '// the user' "$G/.gemini/settings.json.cordon-backup-"*
ok $? "gemini: install reads settings.json with comments, keeps strings, backs the comments up"
"$REAL" hook doctor gemini --dir "$G" > /dev/null 2>&1
is "$?" 0 "gemini: doctor on the merged file"
# Settings under which the agent runs no hook: doctor fails and says which.
sed -i 's/^{/{ "hooksConfig": { "enabled": false },/' "$G/.gemini/settings.json"
"$REAL" hook doctor gemini --dir "$G" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL Gemini CLI runs the hooks of this file: "hooksConfig": {"enabled": false}' "$tmpdir/doc"
ok $? "gemini: doctor fails when hooksConfig turns hooks off"
"$REAL" hook install claude --dir "$D" -p "$pol" > /dev/null 2>&1
sed -i 's/^{/{ "disableAllHooks": true,/' "$D/.claude/settings.json"
"$REAL" hook doctor claude --dir "$D" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL Claude Code runs the hooks of this file: "disableAllHooks": true' "$tmpdir/doc"
ok $? "claude: doctor fails when disableAllHooks is set"
# Codex runs a hooks.json entry only when config.toml trusts its hash:
# install records it, doctor compares it.  The hashes below are the ones
# Codex 0.171.0 itself computed for these entries (codex app-server,
# hooks/list), so cordon's computation is checked against Codex's.
X=$tmpdir/codexhome
mkdir -p "$X/.codex"
X=$(cd "$X" && pwd -P)
cat > "$X/.codex/hooks.json" << 'EOS'
{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"prettier --check","timeout":5}]},{"hooks":[{"type":"command","command":"'/opt/cordon test/bin/cordon' hook codex --preset 'workspace-write' || exit 2","timeout":30}]}],"PermissionRequest":[{"hooks":[{"type":"command","command":"'/opt/cordon test/bin/cordon' hook codex --preset 'workspace-write' || exit 2","timeout":30}]}]}}
EOS
cat > "$X/.codex/config.toml" << EOS
[hooks.state."$X/.codex/hooks.json:pre_tool_use:1:0"]
trusted_hash = "sha256:dd23c5b334d860b66be4e233c6032482fb8ecaaa5c41b0d1481fd8e9b08c3679"

[hooks.state."$X/.codex/hooks.json:permission_request:0:0"]
trusted_hash = "sha256:f3c18fc52b2527cf7c2641f6890bb26d8da353f3d71c56878c949cb9489fbc83"
EOS
"$REAL" hook doctor codex --dir "$X" > "$tmpdir/doc" 2>&1
grep -q '^ok   Codex trusts its PreToolUse entry' "$tmpdir/doc" &&
	grep -q '^ok   Codex trusts its PermissionRequest entry' "$tmpdir/doc"
ok $? "codex: cordon's hash of an entry is the one Codex computes"
sed -i 's/dd23c5b3/00000000/' "$X/.codex/config.toml"
"$REAL" hook doctor codex --dir "$X" > "$tmpdir/doc" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL Codex trusts its PreToolUse entry.*changed since' "$tmpdir/doc"
ok $? "codex: doctor fails on a stale trusted hash"
"$REAL" hook install codex --dir "$X" -p "$pol" > /dev/null 2> "$tmpdir/err"
[ $? -eq 0 ] && grep -q "records hook PreToolUse as trusted in $X/.codex/config.toml" "$tmpdir/err" &&
	grep -q 'prettier --check' "$X/.codex/hooks.json" &&
	[ "$(grep -c '^\[hooks.state\.' "$X/.codex/config.toml")" -eq 2 ]
ok $? "codex: install records the trust in place, keeping the other hooks, saying so"
"$REAL" hook doctor codex --dir "$X" > "$tmpdir/doc" 2>&1
is "$?" 0 "codex: doctor after install"
# A config.toml whose hooks.state is an inline table cannot take one more
# table: install leaves both files as they were and says so.
Y=$tmpdir/codexinline
mkdir -p "$Y/.codex"
printf '[hooks]\nstate = { }\n' > "$Y/.codex/config.toml"
cp "$Y/.codex/config.toml" "$tmpdir/inline.toml"
"$REAL" hook install codex --dir "$Y" -p "$pol" > /dev/null 2> "$tmpdir/err"
[ $? -eq 2 ] && cmp -s "$Y/.codex/config.toml" "$tmpdir/inline.toml" && [ ! -e "$Y/.codex/hooks.json" ] &&
	grep -q "/hooks screen" "$tmpdir/err"
ok $? "codex: install refuses a config.toml it cannot edit safely, changing nothing"
grep -q '^ok   Codex trusts its PreToolUse entry' "$tmpdir/doc"
ok $? "codex: doctor sees the trust install recorded"
done_testing
