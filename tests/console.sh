#!/bin/sh
# The approval console (cordon serve) and the hook that waits for it: the
# server's checks with curl (the token on every request, the Host and the
# Origin, answers by POST alone, with JSON and the token in a header), and
# real `cordon hook claude` calls under a preset's `approval console`: a
# yes allows exactly that call, and a deny, a timeout, no console, a
# console that closes, a replayed answer and an answer for another preview
# all deny.  A yes for the session covers a second write below the same
# directory and nothing else.  The setting's syntax, its errors and its
# layout.  No sandbox is launched here (tests/console-run.sh does).
. "$srcdir/tests/lib.sh"

if ! command -v curl > /dev/null || ! command -v python3 > /dev/null; then
	skip "the approval console" "no curl or python3 here"
	done_testing
	exit
fi

console_home
mkdir -p "$OUT/sub" "$tmpdir/other"
SD=$H/.cordon/sessions/claude-s-1
console_policy 60s

serve_pid=
stop_console() {
	kill "$serve_pid" 2> /dev/null
	wait "$serve_pid"
	serve_rc=$?
}
at_exit 'kill $serve_pid 2> /dev/null'

# code ARGS...: the HTTP status of curl ARGS (the body in $tmpdir/body).
code() {
	curl -s -o "$tmpdir/body" -w '%{http_code}' "$@"
}
# post JSON [HEADER...]: an answer as the page sends it.
post() {
	body=$1
	shift
	code -X POST -H "X-Cordon-Token: $token" -H "Origin: $base" \
		-H 'Content-Type: application/json' "$@" -d "$body" "$base/api/answer"
}
# wait_ask: the first pending ask's id and digest, once there is one.
wait_ask() {
	id= digest=
	i=0
	while [ $i -lt 400 ]; do
		curl -s -H "X-Cordon-Token: $token" "$base/api/asks" > "$tmpdir/asks.json"
		id=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(a[0]["id"] if a else "")' "$tmpdir/asks.json" 2> /dev/null)
		[ -n "$id" ] && break
		sleep 0.05
		i=$((i + 1))
	done
	digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["digest"])' "$tmpdir/asks.json" 2> /dev/null)
}
ask_field() { # ask_field EXPR: a Python expression of the first ask (a)
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))[0]; print('"$1"')' "$tmpdir/asks.json"
}
# hook_write PATH: Claude Code's Write of PATH, in the background.
hook_write() {
	printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"new line\\n"},"tool_use_id":"t"}\n' \
		"$WS" "$1" > "$tmpdir/event"
	(cd "$WS" && "$CORDON" hook claude -p "${POLICY:-$tmpdir/p.cordon}" --audit "$tmpdir/audit.log" ${HOOK_ARGS:---timeout 300} \
		< "$tmpdir/event" > "$tmpdir/hook.out" 2> "$tmpdir/hook.err"; echo $? > "$tmpdir/hook.rc") &
	hook_pid=$!
}
hook_done() {
	wait "$hook_pid"
	hook_rc=$(cat "$tmpdir/hook.rc")
	decision=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hookSpecificOutput"]["permissionDecision"])' "$tmpdir/hook.out" 2> /dev/null)
}

# ---- the server: URL, token file, one console ------------------------------------
console_start
case $url in
http://127.0.0.1:*/?token=*) ok 0 "serve prints its URL with the token first" ;;
*) ok 1 "serve prints its URL with the token first ($url)" ;;
esac
is "${#token}" 64 "the token is 32 random bytes in hex"
is "$(stat -c %a "$H/.cordon/console/url")" 600 "the URL is kept in a 0600 file"
is "$(cat "$H/.cordon/console/url")" "$url" "the file holds the URL with its token"
is "$(stat -c %a "$H/.cordon/console/pending")" 700 "the spool is private"
"$CORDON" serve > /dev/null 2> "$tmpdir/err2"
is $? 2 "a second console for the same agent dir is refused"
grep -q 'already runs' "$tmpdir/err2"
ok $? "and says a console already runs"
"$CORDON" serve --listen 0.0.0.0:0 > /dev/null 2> "$tmpdir/err3"
is $? 2 "--listen beyond loopback is a usage error"
grep -q 'loopback only' "$tmpdir/err3"
ok $? "that names loopback"
"$CORDON" serve --listen 127.0.0.1:http > /dev/null 2>&1
is $? 2 "--listen with a port that is no number is a usage error"

# ---- every request: token, Host, Origin, method ----------------------------------
is "$(code "$url")" 200 "the page with the token"
grep -q 'cordon: approvals' "$tmpdir/body"
ok $? "is the console's page"
curl -s -D "$tmpdir/headers" -o /dev/null "$url"
grep -qi "^content-security-policy: default-src 'none'; script-src 'nonce-" "$tmpdir/headers"
ok $? "the page runs only its own script (CSP with a nonce)"
is "$(code "$base/")" 403 "the page without the token is refused"
is "$(code "$base/?token=$(echo "$token" | tr 0-9a-f a-f0-9)")" 403 "the page with a wrong token of the same length is refused"
is "$(code "$base/api/asks")" 403 "the asks without the token are refused"
is "$(code -H "X-Cordon-Token: x$token" "$base/api/asks")" 403 "the asks with a longer token are refused"
is "$(code "$base/api/asks?token=$token")" 403 "the asks take the token only in the header"
is "$(code -H "X-Cordon-Token: $token" "$base/api/asks")" 200 "the asks with the token"
is "$(cat "$tmpdir/body")" "[]" "none is pending"
# The ask of a hook killed while it waited, long expired.
stale=$H/.cordon/console/pending/0123456789abcdef0123456789abcdef.json
(umask 077 && echo '{"id":"0123456789abcdef0123456789abcdef","digest":"d","created":1,"expires":2}' > "$stale")
is "$(code -H "X-Cordon-Token: $token" "$base/api/asks")" 200 "an expired ask"
is "$(cat "$tmpdir/body")" "[]" "is not listed"
[ ! -e "$stale" ]
ok $? "and is swept from the spool"
is "$(code -H "Host: attacker.example:$port" "$url")" 421 "a Host that is a name (DNS rebinding) is refused"
is "$(code -H "Host: localhost:$port" "$url")" 421 "so is localhost"
is "$(code -H "Host: 127.0.0.1:1" "$url")" 421 "and another port"
is "$(code -H "X-Cordon-Token: $token" -H 'Origin: http://attacker.example' "$base/api/asks")" 403 "a request from another Origin is refused"
is "$(code -H "X-Cordon-Token: $token" -H 'Sec-Fetch-Site: cross-site' "$base/api/asks")" 403 "a cross-site fetch is refused"
is "$(code -H "X-Cordon-Token: $token" "$base/api/answer?id=x&answer=once")" 405 "an answer by GET is refused"
is "$(code "$base/nothing")" 404 "an unknown page is 404"
is "$(code -X POST -H "X-Cordon-Token: $token" -H 'Origin: http://attacker.example' -H 'Content-Type: application/json' -d '{}' "$base/api/answer")" 403 "an answer from another Origin is refused"
is "$(code -X POST -H "X-Cordon-Token: $token" -H 'Content-Type: application/json' -d '{}' "$base/api/answer")" 403 "an answer without an Origin is refused"
is "$(code -X POST -H "Origin: $base" -H 'Content-Type: application/json' -d '{}' "$base/api/answer")" 403 "an answer without the token is refused"
is "$(code -X POST -H "X-Cordon-Token: $token" -H "Origin: $base" -H 'Content-Type: application/x-www-form-urlencoded' -d 'id=x' "$base/api/answer")" 415 "an answer as a form is refused"

# ---- a yes allows exactly that call ------------------------------------------------
printf 'old line\n' > "$OUT/a.txt"
hook_write "$OUT/a.txt"
wait_ask
ok "$([ -n "$id" ]; echo $?)" "the hook's ask is pending in the console"
is "$(ask_field 'a["agent"], a["session"], a["tool"], a["workspace"]')" "claude s-1 Write $WS" "with the agent, session, tool and workspace"
is "$(ask_field '[(o["decision"], o["op"], o["target"]) for o in a["ops"]]')" "[('ask', 'write', '$OUT/a.txt')]" "with its operations and decisions"
is "$(ask_field 'a["ops"][0]["rule"]')" "$tmpdir/p.cordon:8:3" "with the deciding rule"
ask_field 'a["diff"]' 2> /dev/null | grep -q '^+new line$'
ok $? "with the diff of the write"
is "$(post "{\"id\":\"$id\",\"digest\":\"0$digest\",\"answer\":\"once\"}")" 412 "an answer for another preview is refused"
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"yes\"}")" 400 "an answer that is not once, deny or session is refused"
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"once\"}")" 200 "approve once"
hook_done
is "$hook_rc" 0 "the hook answers"
is "$decision" allow "and allows the call"
grep -q 'approved by console' "$tmpdir/hook.out"
ok $? "saying the console approved it"
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"once\"}")" 404 "the same answer again is refused (replay)"
is "$(ls "$H/.cordon/console/pending" "$H/.cordon/console/answers" | grep -c json)" 0 "the ask and its answer are gone"
grep -q '"actor":"console".*"outcome":"approved"' "$tmpdir/audit.log"
ok $? "the audit record names the console as the actor"

# ---- a deny, a second answer -------------------------------------------------------
hook_write "$OUT/a.txt"
wait_ask
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"deny\"}")" 200 "deny"
# Refused as answered (409), or as gone once the hook took the deny (404).
case $(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"once\"}") in
409 | 404) ok 0 "a yes after the deny is refused" ;;
*) ok 1 "a yes after the deny is refused" ;;
esac
hook_done
is "$decision" deny "the hook denies"
grep -q 'denied by console' "$tmpdir/hook.out"
ok $? "saying the console denied it"
grep -q '"actor":"console".*"outcome":"denied"' "$tmpdir/audit.log"
ok $? "the denial is audited with its actor"

# ---- for the session -------------------------------------------------------------
hook_write "$OUT/sub/one.txt"
wait_ask
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"session\"}")" 200 "approve for the session"
hook_done
is "$decision" allow "the hook allows the call"
grep -q '"outcome":"granted-session"' "$tmpdir/audit.log"
ok $? "the session grant is audited"
ls "$SD/grants" | grep -q '^effect-'
ok $? "the grant is kept in the session's grants"
stop_console
is "$serve_rc" 0 "the console stops on SIGTERM"
hook_write "$OUT/sub/two.txt"
hook_done
is "$decision" allow "a second write below the same directory is allowed without asking"
grep -q 'approved by session-grant' "$tmpdir/hook.out"
ok $? "by the session grant"
hook_write "$tmpdir/other/x.txt"
hook_done
is "$decision" deny "a write elsewhere still asks (and no console runs: deny)"
grep -q 'no approval console runs' "$tmpdir/hook.out"
ok $? "saying no console runs"
"$CORDON" grants --context session_dir="$SD" > "$tmpdir/grants.out"
is $? 0 "cordon grants lists the session's grants"
is "$(cut -f1,2 "$tmpdir/grants.out")" "$(printf 'write-under %s	console' "$OUT/sub")" "the write below the directory, granted by the console"
hook_write "$SD/grants/forged"
hook_done
is "$decision" deny "the session dir stays protected"

# ---- a console that closes, a timeout ---------------------------------------------
console_start
hook_write "$OUT/a.txt"
wait_ask
stop_console
hook_done
is "$decision" deny "a console that closes while the hook waits: deny"
grep -q 'closed before it answered' "$tmpdir/hook.out"
ok $? "saying the console closed"
console_start
HOOK_ARGS="--timeout 3"
hook_write "$OUT/a.txt"
hook_done
HOOK_ARGS=
is "$decision" deny "the hook's own --timeout bounds the wait too: deny before it"
grep -q 'no answer from the approval console within 1 s' "$tmpdir/hook.out"
ok $? "saying the time ran out (--timeout 3, less 2 s)"
console_policy 1s
hook_write "$OUT/a.txt"
hook_done
is "$decision" deny "no answer in the policy's time: deny"
grep -q 'no answer from the approval console within 1 s' "$tmpdir/hook.out"
ok $? "saying the time ran out"
is "$(ls "$H/.cordon/console/pending" | grep -c json)" 0 "the ask is withdrawn"

# ---- a shell command: the same single-use approval the terminal mints --------------
console_policy 60s
printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo x > %s/b.txt"},"tool_use_id":"t"}\n' \
	"$WS" "$OUT" > "$tmpdir/event"
(cd "$WS" && "$CORDON" hook claude -p "$tmpdir/p.cordon" --timeout 300 < "$tmpdir/event" > "$tmpdir/hook.out" 2> "$tmpdir/hook.err"
echo $? > "$tmpdir/hook.rc") &
hook_pid=$!
wait_ask
is "$(post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"once\"}")" 200 "approve a shell command once"
hook_done
is "$decision" allow "the hook allows it"
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hookSpecificOutput"]["updatedInput"]["command"])' "$tmpdir/hook.out")
approval=$(echo "$cmd" | sed -n 's/.* --approval \([0-9a-f]*\) .*/\1/p')
is "${#approval}" 32 "rewritten to consume a single-use approval"
ls "$SD/approvals" | grep -q "$approval"
ok $? "kept in the session's approvals, as cordon approve exec keeps it"
stop_console

# ---- with --no-ask nobody is there: the console is not waited on -------------------
console_start
HOOK_ARGS="--timeout 300 --no-ask"
hook_write "$OUT/a.txt"
hook_done
HOOK_ARGS=
is "$decision" deny "with --no-ask an ask is denied at once, though a console runs"
grep -q 'no person answers.*--no-ask' "$tmpdir/hook.out"
ok $? "saying no person answers"
grep -q 'approval console' "$tmpdir/hook.out"
ok "$((! $?))" "without asking the console"
is "$(ls "$H/.cordon/console/pending" | grep -c json)" 0 "nothing was posted to the console"

# ---- remember for the project: the diff shown is what is written -------------------
# post_to PATH JSON: a POST to the console as the page sends it.
post_to() {
	code -X POST -H "X-Cordon-Token: $token" -H "Origin: $base" \
		-H 'Content-Type: application/json' -d "$2" "$base$1"
}
json_of() { # json_of EXPR: a Python expression of the last body (j)
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print('"$1"')' "$tmpdir/body"
}
PROJ=$tmpdir/proj.cordon
cp "$tmpdir/p.cordon" "$PROJ"
cp "$PROJ" "$tmpdir/proj.before"
mkdir -p "$OUT/r" "$OUT/m"
POLICY=$PROJ
hook_write "$OUT/r/one.txt"
wait_ask
is "$(ask_field 'a["policy"]')" "$PROJ" "the ask names the policy file the hook was given"
is "$(post_to /api/remember "{\"id\":\"$id\",\"digest\":\"$digest\"}")" 200 "remember: the preview"
json_of 'j["diff"]' > "$tmpdir/shown.diff"
change=$(json_of 'j["change"]')
is "$(json_of 'j["file"]')" "$PROJ" "names the file it writes"
is "$(json_of 'j["rules"]')" "['write \"$OUT/r\" allow;']" "the rule of the write: below its directory"
grep -qxF "+  write \"$OUT/r\" allow;" "$tmpdir/shown.diff"
ok $? "the diff shows the rule added to the preset"
cmp -s "$PROJ" "$tmpdir/proj.before"
ok $? "a preview writes nothing"
is "$(code -X POST -H "Origin: $base" -H 'Content-Type: application/json' -d "{\"id\":\"$id\",\"digest\":\"$digest\"}" "$base/api/remember")" 403 "a preview without the token is refused"
is "$(code -X POST -H "X-Cordon-Token: $token" -H 'Origin: http://attacker.example' -H 'Content-Type: application/json' -d "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}" "$base/api/remember/confirm")" 403 "a confirm from another Origin is refused"
is "$(code -X POST -H "X-Cordon-Token: $token" -H "Host: localhost:$port" -H "Origin: $base" -H 'Content-Type: application/json' -d "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}" "$base/api/remember/confirm")" 421 "a confirm with another Host is refused"
is "$(code -H "X-Cordon-Token: $token" "$base/api/remember/confirm")" 405 "a confirm by GET is refused"
forged=$(echo "$change" | tr 0-9a-f a-f0-9)
is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$forged\"}")" 412 "a confirm of another change is refused"
is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"0$digest\",\"change\":\"$change\"}")" 412 "a confirm for another preview of the ask is refused"
cmp -s "$PROJ" "$tmpdir/proj.before"
ok $? "and neither writes anything"
is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}")" 200 "the confirm of the change shown"
hook_done
is "$decision" allow "the waiting call is approved once"
is "$hook_rc" 0 "the hook exits 0"
grep -q 'remembered for the project' "$tmpdir/hook.out"
ok $? "saying it was remembered for the project"
grep -q '"actor":"console".*"outcome":"remembered-project"' "$tmpdir/audit.log"
ok $? "audited as remembered-project, with the actor"
if command -v patch > /dev/null; then
	cp "$tmpdir/proj.before" "$tmpdir/proj.patched"
	patch -s "$tmpdir/proj.patched" < "$tmpdir/shown.diff"
	cmp -s "$tmpdir/proj.patched" "$PROJ"
	ok $? "the file written is the old one with the diff shown applied"
else
	skip "the diff applied" "no patch here"
fi
"$CORDON" fmt --check "$PROJ"
ok $? "the file is in cordon fmt's layout"
"$CORDON" check "$PROJ" > /dev/null
ok $? "and checks"
cp "$PROJ" "$tmpdir/proj.after"
is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}")" 404 "the same confirm again is refused (replay)"
cmp -s "$PROJ" "$tmpdir/proj.after"
ok $? "and writes nothing"
stop_console
is "$serve_rc" 0 "the console stops cleanly (1)"
hook_write "$OUT/r/two.txt"
hook_done
is "$decision" allow "a second write below the directory is allowed with no console"
grep -q 'approval console' "$tmpdir/hook.out"
ok "$((! $?))" "by the rule written, not by a console"
hook_write "$OUT/m/x.txt"
hook_done
is "$decision" deny "a write elsewhere still asks (and no console runs: deny)"
"$CORDON" grants --context session_dir="$SD" > "$tmpdir/grants.out"
grep -qF "project write \"$OUT/r\" allow; (in $PROJ)" "$tmpdir/grants.out"
ok $? "cordon grants lists the rule remembered, and its file"

# A shell command: the rules allow it in cordon run, which decides it
# again with the file as it is now (an approval would be bound to the old).
mkdir -p "$OUT/s"
console_start
printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo x > %s/s/b.txt"},"tool_use_id":"t"}\n' \
	"$WS" "$OUT" > "$tmpdir/event"
(cd "$WS" && "$CORDON" hook claude -p "$PROJ" --timeout 300 < "$tmpdir/event" > "$tmpdir/hook.out" 2> "$tmpdir/hook.err"
echo $? > "$tmpdir/hook.rc") &
hook_pid=$!
wait_ask
is "$(post_to /api/remember "{\"id\":\"$id\",\"digest\":\"$digest\"}")" 200 "remember a shell command's write: the preview"
is "$(json_of 'j["rules"]')" "['write \"$OUT/s\" allow;']" "the rule of its write"
change=$(json_of 'j["change"]')
is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}")" 200 "and its confirm"
hook_done
is "$decision" allow "the hook allows the command"
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hookSpecificOutput"]["updatedInput"]["command"])' "$tmpdir/hook.out")
case $cmd in
*" run -p "*" -- bash -c "*) ok 0 "rewritten to run under cordon run with the policy file" ;;
*) ok 1 "rewritten to run under cordon run with the policy file ($cmd)" ;;
esac
case $cmd in
*--approval* | *--approved*) ok 1 "with no approval: the rules decide it ($cmd)" ;;
*) ok 0 "with no approval: the rules decide it" ;;
esac
"$CORDON" eval -p "$PROJ" --context workspace="$WS" --context cwd="$WS" --sandboxed exec "echo x > $OUT/s/b.txt" > "$tmpdir/eval.out"
is "$(head -n 1 "$tmpdir/eval.out" | cut -d: -f1)" allow "which cordon run now decides allow"
stop_console
is "$serve_rc" 0 "the console stops cleanly (shell)"

# ---- remember for the project: what is refused, and writes nothing -----------------
remember_refused() { # remember_refused PATH CODE WHAT WHY: a write's ask, remembered
	hook_write "$1"
	wait_ask
	is "$(post_to /api/remember "{\"id\":\"$id\",\"digest\":\"$digest\"}")" "$2" "$3: refused"
	grep -q "$4" "$tmpdir/body"
	ok $? "$3: saying why ($4)"
	is "$(post_to /api/remember/confirm "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$(printf '%064d' 0)\"}")" "$2" "$3: the confirm too"
	cmp -s "$POLICY" "$tmpdir/before"
	ok $? "$3: the file is unchanged"
	post "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"deny\"}" > /dev/null
	hook_done
}
# The managed layer asks below $OUT/m: an allow there would widen it.
sed "s|  write \"/\*\*\" ask;|  write \"/**\" ask;\n  write \"$OUT/m/**\" ask;|" "$tmpdir/p.cordon" > "$tmpdir/managed.cordon"
POLICY=$tmpdir/lower.cordon
cp "$tmpdir/p.cordon" "$POLICY"
cp "$POLICY" "$tmpdir/before"
CORDON_MANAGED=$tmpdir/managed.cordon
export CORDON_MANAGED
console_start
remember_refused "$OUT/m/x.txt" 422 "a rule that widens the managed layer" "managed layer"
POLICY=$tmpdir/managed.cordon
cp "$POLICY" "$tmpdir/before"
remember_refused "$OUT/m/x.txt" 403 "the managed layer's own file" "administrator"
stop_console
is "$serve_rc" 0 "the console stops cleanly (2)"
unset CORDON_MANAGED
# A deny of everything but one exact file: a rule for the directory would
# turn the deny of its neighbours into an allow.
cat > "$tmpdir/narrow.cordon" << EOF
cordon 1;
protect "\${agent_dir}", "\${session_dir}";
preset "c" {
  approval console 60s;
  read "/**" allow;
  write "/**" deny;
  write exact "$OUT/r/one.txt" ask;
  exec "*" allow;
}
default "c";
EOF
POLICY=$tmpdir/narrow.cordon
cp "$POLICY" "$tmpdir/before"
console_start
remember_refused "$OUT/r/one.txt" 422 "a rule that would cover a denied path" "deny -> allow"
stop_console
is "$serve_rc" 0 "the console stops cleanly (3)"
POLICY=

# ---- the setting --------------------------------------------------------------------
cat > "$tmpdir/bad.cordon" << 'EOF'
cordon 1;
preset "a" { approval never 5; read "/**" allow; }
preset "b" { approval consol; read "/**" allow; }
preset "c" { approval console 2d; read "/**" allow; }
preset "d" { approval console 2h; read "/**" allow; }
preset "e" { sandbox required 3; read "/**" allow; }
EOF
"$CORDON" check "$tmpdir/bad.cordon" > "$tmpdir/check.out" 2>&1
is $? 1 "bad console settings are errors"
for want in "2:29: error: only 'approval console' takes a time, not 'approval never'" \
	"did you mean 'console'?" "4:31: error: '2d' is not a time" "5:31: error: '2h' is not a time" \
	"6:31: error: only 'approval console' takes a time, not 'sandbox'"; do
	grep -qF "$want" "$tmpdir/check.out"
	ok $? "check: $want"
done
printf 'cordon 1;\npreset "a" {\n  approval   console   2m ;\n  read "/**" allow;\n}\n' > "$tmpdir/fmt.cordon"
is "$("$CORDON" fmt "$tmpdir/fmt.cordon" | sed -n 3p)" "  approval console 2m;" "fmt lays out the setting with its time"
"$CORDON" compile -p "$tmpdir/fmt.cordon" --preset a --emit ir | grep -q '^  approval console 120s$'
ok $? "the IR says the time in seconds"
"$CORDON" compile -p "$tmpdir/fmt.cordon" --preset a --emit json | grep -q '"approval_timeout": 120'
ok $? "and so does its JSON"
sed 's/approval   console   2m ;/approval console 10m;/' "$tmpdir/fmt.cordon" > "$tmpdir/fmt2.cordon"
"$CORDON" diff "$tmpdir/fmt.cordon" "$tmpdir/fmt2.cordon" > "$tmpdir/diff.out"
grep -q 'approval: console 120s -> console 600s  (widened)' "$tmpdir/diff.out"
ok $? "diff: a longer time to answer widens"
sed 's/approval   console   2m ;/approval ask;/' "$tmpdir/fmt.cordon" > "$tmpdir/fmt3.cordon"
"$CORDON" diff "$tmpdir/fmt.cordon" "$tmpdir/fmt3.cordon" > "$tmpdir/diff.out"
grep -q 'approval: console -> ask  (widened)' "$tmpdir/diff.out"
ok $? "diff: ask is wider than console (which denies when no console answers)"

done_testing
