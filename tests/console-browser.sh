#!/bin/sh
# The approval console in a real browser: headless Chromium, driven over
# the DevTools protocol (tests/console-browser.py), loads the console that
# `cordon serve` prints, sees the ask a real `cordon hook claude` call
# raised (its operations, decisions in colour, the diff), and a real mouse
# click on "Approve once" makes the waiting hook allow exactly that call.
# A key press denies the next; a page of another origin cannot answer,
# with or without the token; the same answer again, a Host that is not
# 127.0.0.1:PORT and a timeout fail closed.  "Remember for the project"
# shows the change of the policy file, and its confirm writes that change
# and allows the call.  Screenshots are kept in the
# test's temporary directory (or $CORDON_ARTEFACTS when set).  Skips
# where Chromium is not installed.
. "$srcdir/tests/lib.sh"

chromium=$(command -v chromium || command -v chromium-browser)
for tool in "$chromium" curl python3; do
	if [ -z "$tool" ] || ! command -v "$tool" > /dev/null; then
		skip "the approval console in a browser" "no chromium, curl or python3 here (apt-get install chromium)"
		done_testing
		exit
	fi
done

console_home
ART=${CORDON_ARTEFACTS:-$tmpdir/artefacts}
mkdir -p "$ART"
console_policy 60s

console_start
mkfifo "$tmpdir/cmd" "$tmpdir/res"
python3 "$srcdir/tests/console-browser.py" "$chromium" "$tmpdir/profile" < "$tmpdir/cmd" > "$tmpdir/res" 2> "$tmpdir/browser.err" &
browser_pid=$!
exec 7> "$tmpdir/cmd" 8< "$tmpdir/res"
at_exit 'exec 7>&-; kill $serve_pid 2> /dev/null; wait $browser_pid 2> /dev/null'

# b JSON: one command to the browser; its answer in $reply.
b() {
	printf '%s\n' "$1" >&7
	read -r reply <&8
}
# js EXPRESSION: its value, as JSON, in $reply.
js() {
	b "$(python3 -c 'import json,sys; print(json.dumps(["eval", sys.argv[1]]))' "$1")"
}
# wait_for EXPRESSION: evaluate it until it is truthy (at most 20 s).
wait_for() {
	b "$(python3 -c 'import json,sys; print(json.dumps(["wait", sys.argv[1], 400]))' "$1")"
}
hook_write() { # hook_write PATH: Claude Code's Write of PATH, in the background
	printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"new line\\n"},"tool_use_id":"t"}\n' \
		"$WS" "$1" > "$tmpdir/event"
	# --timeout: the hook's own time bounds its wait too; a loaded
	# machine may take a while to show the page.
	(cd "$WS" && "$CORDON" hook claude -p "$tmpdir/p.cordon" --audit "$tmpdir/audit.log" --timeout 300 \
		< "$tmpdir/event" > "$tmpdir/hook.out" 2> "$tmpdir/hook.err"; echo $? > "$tmpdir/hook.rc") &
	hook_pid=$!
}
hook_done() {
	wait "$hook_pid"
	decision=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hookSpecificOutput"]["permissionDecision"])' "$tmpdir/hook.out" 2> /dev/null)
}
pending() { # the ids of the pending asks, by curl
	curl -s -H "X-Cordon-Token: $token" "$base/api/asks" |
		python3 -c 'import json,sys; print(" ".join(a["id"] for a in json.load(sys.stdin)))'
}
png() { # png FILE: whether it is a PNG image
	[ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
}

# ---- the ask in the page, and a click -------------------------------------------
b "[\"open\", \"$url\"]"
is "$reply" true "Chromium loads the console"
hook_write "$OUT/a.txt"
wait_for 'document.querySelectorAll(".card").length'
is "$reply" 1 "the page shows the pending ask"
js 'document.querySelector(".card").innerText'
for want in "$OUT/a.txt" claude s-1 Write "$WS" "$tmpdir/p.cordon:8:3"; do
	case $reply in
	*"$want"*) ok 0 "the ask shows $want" ;;
	*) ok 1 "the ask shows $want ($reply)" ;;
	esac
done
js 'getComputedStyle(document.querySelector(".decision.ask")).color'
is "$reply" '"rgb(198, 70, 0)"' "an ask is in its colour"
js 'document.querySelector("pre.diff .add").textContent'
is "$reply" '"+new line\n"' "the diff of the write, its added line in colour"
js 'document.activeElement === document.body || document.activeElement.tagName'
b "[\"shot\", \"$ART/console-ask.png\"]"
png "$ART/console-ask.png"
ok $? "a screenshot of the ask ($ART/console-ask.png)"
id=$(pending)
is "${#id}" 32 "one ask is pending"

# ---- another origin cannot answer ---------------------------------------------------
b '["open", "data:text/html,<p>another site</p>"]'
digest=$(curl -s -H "X-Cordon-Token: $token" "$base/api/asks" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["digest"])')
body="{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"once\"}"
js "fetch('$base/api/answer', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '$body'}).then(r => r.type, e => 'blocked')"
js "fetch('$base/api/answer', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Cordon-Token': '$token'}, body: '$body'}).then(r => r.status, e => 'blocked')"
is "$reply" '"blocked"' "another origin's answer with the token is blocked (no CORS preflight passes)"
is "$(pending)" "$id" "the ask is still pending after both"
b "[\"open\", \"http://localhost:$port/?token=$token\"]"
js 'document.body.innerText'
case $reply in
*"Host must be"*) ok 0 "the console under another host name (DNS rebinding) is refused" ;;
*) ok 1 "the console under another host name (DNS rebinding) is refused ($reply)" ;;
esac

# ---- approve once by a click -------------------------------------------------------
b "[\"open\", \"$url\"]"
wait_for 'document.querySelectorAll(".card button.once").length'
b '["click", ".card button.once"]'
is "$reply" true "click 'Approve once'"
hook_done
is "$decision" allow "the waiting hook allows the call"
grep -q "\"target\":\"$OUT/a.txt\".*\"actor\":\"console\"\\|\"actor\":\"console\".*\"target\":\"$OUT/a.txt\"" "$tmpdir/audit.log"
ok $? "the approval of exactly that call is audited with the console as actor"
wait_for 'document.querySelector("#log li") && document.querySelector("#log li").textContent'
is "$reply" "\"answered: once ($OUT/a.txt)\"" "the page says it was answered"
b "[\"shot\", \"$ART/console-approved.png\"]"
png "$ART/console-approved.png"
ok $? "a screenshot after the answer"
js "fetch('/api/answer', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Cordon-Token': '$token'}, body: '$body'}).then(r => r.status)"
is "$reply" 404 "the same answer again is refused (replay)"
js "fetch('/api/asks').then(r => r.status)"
is "$reply" 403 "a request of the page without the token is refused"

# ---- deny by the keyboard ----------------------------------------------------------
hook_write "$OUT/b.txt"
wait_for 'document.querySelectorAll(".card").length == 1 && document.querySelector(".card").innerText.includes("b.txt")'
is "$reply" true "the next ask appears without reloading"
b '["key", "d"]'
hook_done
is "$decision" deny "the key d denies it"
grep -q 'denied by console' "$tmpdir/hook.out"
ok $? "the hook says the console denied it"

# ---- remember for the project: the diff, then the confirm ---------------------------
mkdir -p "$OUT/r"
cp "$tmpdir/p.cordon" "$tmpdir/p.before"
hook_write "$OUT/r/d.txt"
wait_for 'document.querySelectorAll(".card").length == 1 && document.querySelector(".card").innerText.includes("d.txt")'
is "$reply" true "the ask of a write below $OUT/r appears"
b '["click", ".card button.project"]'
is "$reply" true "click 'Remember for the project'"
wait_for 'document.querySelector(".card .change pre.diff") && document.querySelector(".card .change pre.diff").textContent'
case $reply in
*"+  write \\\"$OUT/r\\\" allow;"*) ok 0 "the page shows the diff that adds the rule" ;;
*) ok 1 "the page shows the diff that adds the rule ($reply)" ;;
esac
cmp -s "$tmpdir/p.cordon" "$tmpdir/p.before"
ok $? "nothing is written before the confirm"
b "[\"shot\", \"$ART/console-remember.png\"]"
png "$ART/console-remember.png"
ok $? "a screenshot of the change shown"
b '["click", ".card button.confirm"]'
is "$reply" true "click 'Write it, and approve this call once'"
hook_done
is "$decision" allow "the waiting hook allows the call once"
grep -qxF "  write \"$OUT/r\" allow;" "$tmpdir/p.cordon"
ok $? "the rule is in the policy file"
wait_for 'document.querySelector("#log li") && document.querySelector("#log li").textContent'
case $reply in
*"remembered in $tmpdir/p.cordon"*) ok 0 "the page says where it was remembered" ;;
*) ok 1 "the page says where it was remembered ($reply)" ;;
esac
hook_write "$OUT/r/e.txt"
hook_done
is "$decision" allow "the next write below $OUT/r is allowed by the rule"
grep -q 'approval console' "$tmpdir/hook.out"
ok "$((! $?))" "without the console"

# ---- a timeout ----------------------------------------------------------------------
console_policy 1s
hook_write "$OUT/c.txt"
hook_done
is "$decision" deny "no answer in the policy's time: deny"
wait_for 'document.querySelector(".empty") && document.querySelector(".empty").textContent'
is "$reply" '"No pending asks."' "the page no longer offers the withdrawn ask"

exec 7>&-
wait "$browser_pid"
ok $? "Chromium closed"
kill "$serve_pid"
wait "$serve_pid"
is $? 0 "the console stops"
done_testing
