#!/bin/sh
# cordon run under a preset's `approval console`: a command that asks is
# put to the console (cordon serve) and waits; approved once, it runs in
# its sandbox with exactly the write the preview showed; denied, with no
# console, or approved for another preview it does not run (122).  A yes
# for the session lets a second command writing below the same directory
# run without asking, and not one writing elsewhere; a deny never reaches
# the console (121).  Remembered for the project, the rule goes into the
# file run was given, and the next command writing there runs in its
# sandbox with no console.  Real bwrap; as root and again as nobody.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"
for tool in curl python3; do
	if ! command -v $tool > /dev/null; then
		skip "cordon run and the approval console" "no $tool here"
		done_testing
		exit
	fi
done
skip_unless_sandbox "$cordon_bin" "cordon run and the approval console"

cat > "$tmpdir/p.cordon" << 'POLICY'
cordon 1;
protect "${agent_dir}", "${session_dir}";
preset "c" {
  approval console 60s;
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  write "/**" ask;
  write "/etc/**" deny "never the system's configuration";
  net "*" deny;
  exec "*" allow;
}
default "c";
POLICY
chmod 644 "$tmpdir/p.cordon"

serve_pid=
at_exit 'kill $serve_pid 2> /dev/null'

# U CMD...: CMD as the pass's user in the workspace.
U() {
	(cd "$WS" && $AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}
start_console() {
	: > "$P/url"
	# exec: the pid is the console's own, to stop it by.
	(cd "$WS" && exec $AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$C" serve) \
		> "$P/url" 2> "$P/serve.err" &
	serve_pid=$!
	i=0
	while ! grep -q '^http' "$P/url" && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	url=$(head -n 1 "$P/url")
	port=$(echo "$url" | sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p')
	token=${url#*token=}
}
stop_console() {
	kill "$serve_pid"
	wait "$serve_pid"
	ok $? "$t the console stops"
}
# run_bg COMMAND: cordon run --shell COMMAND in the background.
run_bg() {
	U "$C" run -p "$tmpdir/p.cordon" --audit "$P/audit.log" --shell "$1" > "$P/run.out" 2> "$P/run.err" &
	run_pid=$!
}
run_done() {
	wait "$run_pid"
	rc=$?
}
# answer_wait [DIGEST]: the first pending ask, once it is there: $id, $digest.
answer_wait() {
	i=0
	while [ $i -lt 400 ]; do
		curl -s -H "X-Cordon-Token: $token" "http://127.0.0.1:$port/api/asks" > "$P/asks.json"
		grep -q '"id"' "$P/asks.json" && break
		sleep 0.05
		i=$((i + 1))
	done
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$P/asks.json")
	digest=${1:-$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["digest"])' "$P/asks.json")}
}
# answer WORD [DIGEST]: answer the first pending ask once it is there.
answer() {
	answer_wait "${2:-}"
	curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Cordon-Token: $token" \
		-H "Origin: http://127.0.0.1:$port" -H 'Content-Type: application/json' \
		-d "{\"id\":\"$id\",\"digest\":\"$digest\",\"answer\":\"$1\"}" "http://127.0.0.1:$port/api/answer"
}

# remember: remember the first pending ask for the project (the preview,
# then the confirm of the change it showed); the confirm's HTTP status.
remember() {
	answer_wait
	curl -s -o "$P/remember.json" -X POST -H "X-Cordon-Token: $token" \
		-H "Origin: http://127.0.0.1:$port" -H 'Content-Type: application/json' \
		-d "{\"id\":\"$id\",\"digest\":\"$digest\"}" "http://127.0.0.1:$port/api/remember"
	change=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["change"])' "$P/remember.json" 2> /dev/null)
	curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Cordon-Token: $token" \
		-H "Origin: http://127.0.0.1:$port" -H 'Content-Type: application/json' \
		-d "{\"id\":\"$id\",\"digest\":\"$digest\",\"change\":\"$change\"}" \
		"http://127.0.0.1:$port/api/remember/confirm"
}

for name in $(runner_passes); do
	P=$tmpdir/$name
	AS=
	[ "$name" = nobody ] && AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	WS=$P/ws H=$P/home OUT=$P/out
	mkdir -p "$WS" "$H" "$OUT/sub" "$OUT/kept" "$P/other" "$P/build"
	cp "$cordon_bin" "${cordon_bin%/*}/cordon-exec" "$P/build/"
	C=$P/build/cordon
	t="[$name]"
	[ -n "$AS" ] && chown -R 65534:65534 "$P"

	start_console
	run_bg "echo once > $OUT/a.txt"
	is "$(answer once)" 200 "$t approve once"
	run_done
	is "$rc" 0 "$t the approved command runs"
	is "$(cat "$OUT/a.txt" 2> /dev/null)" once "$t and writes exactly the file the preview showed"
	grep -q '"actor":"console".*"outcome":"approval-consumed"' "$P/audit.log"
	ok $? "$t the runner's approval is audited with the console as actor"

	run_bg "echo no > $OUT/b.txt"
	is "$(answer deny)" 200 "$t deny"
	run_done
	is "$rc" 122 "$t the denied command does not run (its ask status)"
	[ ! -e "$OUT/b.txt" ]
	ok $? "$t and writes nothing"
	grep -q 'denied by console in the approval console' "$P/run.err"
	ok $? "$t saying the console denied it"

	run_bg "echo no > $OUT/b.txt"
	is "$(answer once 0000000000000000000000000000000000000000000000000000000000000000)" 412 "$t an answer for another preview is refused"
	is "$(answer deny)" 200 "$t and the ask is still there to deny"
	run_done
	is "$rc" 122 "$t the command does not run"

	run_bg "echo s > $OUT/sub/one.txt"
	is "$(answer session)" 200 "$t approve for the session"
	run_done
	is "$rc" 0 "$t the command runs"
	stop_console
	U "$C" run -p "$tmpdir/p.cordon" --audit "$P/audit.log" --shell "echo t > $OUT/sub/two.txt" > /dev/null 2> "$P/run.err"
	is $? 0 "$t a second command writing below the same directory runs without asking"
	is "$(cat "$OUT/sub/two.txt" 2> /dev/null)" t "$t and writes its file"
	U "$C" run -p "$tmpdir/p.cordon" --shell "echo x > $P/other/x.txt" > /dev/null 2> "$P/run.err"
	is $? 122 "$t a command writing elsewhere still asks: no console runs, so it does not run"
	grep -q 'no approval console runs' "$P/run.err"
	ok $? "$t saying no console runs"
	U "$C" run -p "$tmpdir/p.cordon" --shell "echo x > /etc/cordon-console-test" > /dev/null 2> "$P/run.err"
	is $? 121 "$t a denied command is refused without asking anyone"

	# Remember for the project: the console writes the write's rule into
	# the policy file cordon run was given; the call runs approved once,
	# and the next command writing there runs with no console, in the
	# sandbox, by that rule (a rule the sandbox did not bind writable
	# would be refused there).
	cp "$tmpdir/p.cordon" "$P/proj.cordon"
	[ -n "$AS" ] && chown 65534:65534 "$P/proj.cordon"
	start_console
	U "$C" run -p "$P/proj.cordon" --audit "$P/audit.log" --shell "echo r > $OUT/kept/one.txt" \
		> "$P/run.out" 2> "$P/run.err" &
	run_pid=$!
	is "$(remember)" 200 "$t remember for the project"
	run_done
	is "$rc" 0 "$t the remembered command runs"
	is "$(cat "$OUT/kept/one.txt" 2> /dev/null)" r "$t and writes its file"
	grep -qxF "  write \"$OUT/kept\" allow;" "$P/proj.cordon"
	ok $? "$t the rule is in the policy file cordon run was given"
	grep -q '"actor":"console".*"outcome":"remembered-project"' "$P/audit.log"
	ok $? "$t audited as remembered-project, with the console as actor"
	stop_console
	U "$C" run -p "$P/proj.cordon" --shell "echo s > $OUT/kept/two.txt" > /dev/null 2> "$P/run.err"
	is $? 0 "$t with no console, the next command writing there runs in the sandbox by the rule"
	is "$(cat "$OUT/kept/two.txt" 2> /dev/null)" s "$t and writes its file"
done

done_testing
