#!/bin/sh
# The system log (--syslog, docs/audit.md): records reach the real daemons.
# rsyslogd, with an imuxsock socket and an output file of its own, gets an
# allow, an ask and a deny of cordon eval with their fields and the target
# redacted exactly as the audit file redacts it, the refusal of cordon run
# and a hook's agent and session (the command the hook rewrites carries
# --syslog); $CORDON_SYSLOG is the default and --syslog off silences it.  With nothing listening cordon decides as before and
# warns once.  As root the same runs again as nobody (rsyslogd too), and
# systemd-journald, started in a mount namespace of its own (a tmpfs on
# /run), gets the journal's fields through --syslog auto, a value with a
# newline and an entry bigger than a datagram (a memfd).
. "$srcdir/tests/lib.sh"

cd "$tmpdir" || exit 1
chmod 755 "$tmpdir"

rsyslogd=$(command -v rsyslogd 2> /dev/null || { [ -x /usr/sbin/rsyslogd ] && echo /usr/sbin/rsyslogd; })
secret=sk-live-123456789012345678901234
cmd="curl -H 'Authorization: Bearer $secret' https://x"

# field NAME LINE: the value of NAME="..." in a syslog line, as written.
field() {
	printf '%s\n' "$2" | grep -o " $1=\"\([^\"\\\\]\|\\\\.\)*\"" | head -1 |
		sed -e "s/^ $1=\"//" -e 's/"$//'
}

# wait_lines FILE N: until FILE has N lines (10 s at most).
wait_lines() {
	i=0
	while [ "$(cat "$1" 2> /dev/null | wc -l)" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# ---- syslog: rsyslogd --------------------------------------------------------------
# syslog_pass NAME: the checks, with rsyslogd and cordon run as $AS.
syslog_pass() {
	name=$1
	dir=$tmpdir/$name
	mkdir -p "$dir/ws"
	[ "$name" = nobody ] && chown -R 65534:65534 "$dir"
	sock=$dir/log.sock
	out=$dir/out.log
	HOME=$dir
	export HOME
	cat > "$dir/rsyslog.conf" << EOF
global(workDirectory="$dir")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$sock")
template(name="fields" type="string"
         string="%syslogfacility-text%.%syslogseverity-text% %programname%[%procid%]:%msg%\n")
if \$programname == "cordon" then action(type="omfile" file="$out" template="fields")
EOF
	$AS "$rsyslogd" -n -f "$dir/rsyslog.conf" -i "$dir/rsyslogd.pid" > "$dir/rsyslogd.out" 2>&1 &
	rs_pid=$!
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -S "$sock" ]; then
		diag < "$dir/rsyslogd.out"
		ok 1 "[$name] rsyslogd listens on its socket"
		kill "$rs_pid" 2> /dev/null
		return
	fi
	uid=$($AS id -u)

	(cd "$dir/ws" && $AS "$C" eval --syslog "$sock" --preset read-only read /etc/hosts) \
		> "$dir/allow.out" 2>&1
	st_allow=$?
	(cd "$dir/ws" && $AS "$C" eval --syslog "$sock" --preset read-only write /etc/hosts) \
		> "$dir/ask.out" 2>&1
	st_ask=$?
	(cd "$dir/ws" && $AS "$C" eval --syslog "$sock" --audit "$dir/audit.jsonl" --actor ana \
		--preset read-only exec "$cmd") > "$dir/deny.out" 2>&1
	st_deny=$?
	[ $st_allow -eq 0 ] && [ $st_ask -eq 0 ] && [ $st_deny -eq 0 ] &&
		grep -q '^allow:' "$dir/allow.out" && grep -q '^ask:' "$dir/ask.out" &&
		grep -q '^deny:' "$dir/deny.out" && ! grep -q 'cordon: warning' "$dir"/*.out
	ok $? "[$name] eval --syslog decides as before, without a warning"
	wait_lines "$out" 3
	allow=$(grep 'decision="allow"' "$out")
	ask=$(grep 'decision="ask"' "$out")
	deny=$(grep 'decision="deny"' "$out")
	is "$(wc -l < "$out" | tr -d ' ')" 3 "[$name] three decisions, three syslog lines"

	case $allow in
	"authpriv.info cordon[$(field pid "$allow")]: decision=\"allow\" outcome=\"decided\" preset=\"read-only\" rule=\"rules/default.cordon:"[0-9]*:[0-9]*'" layer="rules/default.cordon" op="read" target="/etc/hosts" '*) ok 0 "[$name] allow: authpriv.info, decision, outcome, preset, rule, layer, op, target" ;;
	*) ok 1 "[$name] allow: authpriv.info, decision, outcome, preset, rule, layer, op, target"
		printf '%s\n' "$allow" | diag ;;
	esac
	case $ask in
	'authpriv.notice cordon['*'decision="ask" outcome="decided" preset="read-only" rule="rules/default.cordon:'*'op="write" target="/etc/hosts" '*) ok 0 "[$name] ask: authpriv.notice, op write" ;;
	*) ok 1 "[$name] ask: authpriv.notice, op write"
		printf '%s\n' "$ask" | diag ;;
	esac
	case $deny in
	'authpriv.warning cordon['*'decision="deny" outcome="decided" preset="read-only" rule="rules/default.cordon:'*'op="exec" target="curl -H '\''Authorization: Bearer [REDACTED:bearer-token]'\'' https://x" reason="no rule of this preset allows this host'*' actor="ana" '*) ok 0 "[$name] deny: authpriv.warning, the command's secret redacted, the reason, the actor" ;;
	*) ok 1 "[$name] deny: authpriv.warning, the command's secret redacted, the reason, the actor"
		printf '%s\n' "$deny" | diag ;;
	esac
	json_target=$(sed -n 's/.*"target":"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$dir/audit.jsonl")
	[ -n "$json_target" ]
	ok $? "[$name] the audit file has the record too"
	is "$(field target "$deny")" "$json_target" "[$name] the target is redacted exactly as in the audit file"
	! grep -q "$secret" "$out" "$dir/audit.jsonl"
	ok $? "[$name] the secret is in neither log"
	is "$(field uid "$deny")" "$uid" "[$name] uid is cordon's"
	[ -n "$(field pid "$deny")" ] && [ "$(field pid "$deny")" != "$(field pid "$allow")" ]
	ok $? "[$name] pid is each cordon's own"

	# cordon run: a refusal before anything runs.
	# (session=s is a word of the command: an arg, not a hook's session.)
	(cd "$dir/ws" && $AS "$C" run --syslog "$sock" --preset workspace-write \
		-- env session=s git push --force) > "$dir/run.out" 2>&1
	is $? "$RUN_DENIED" "[$name] run --syslog refuses the force push as before"
	wait_lines "$out" 4
	run=$(grep 'op="exec" target="env session=s git push --force"' "$out")
	case $run in
	'authpriv.warning cordon['*'decision="deny" outcome="denied" preset="workspace-write" rule="rules/default.cordon:'*'reason="force pushes rewrite shared history" '*'arg="env" arg="session=s" arg="git" arg="push" arg="--force" '*) ok 0 "[$name] run's refusal: outcome denied, the rule, the reason, the argv" ;;
	*) ok 1 "[$name] run's refusal: outcome denied, the rule, the reason, the argv"
		printf '%s\n' "$run" | diag ;;
	esac

	# cordon hook: the agent, the tool and the session.
	printf '{"session_id":"s-42","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hosts"},"tool_use_id":"t"}\n' \
		"$dir/ws" > "$dir/event.json"
	(cd "$dir/ws" && HOME=$dir $AS "$C" hook claude --syslog "$sock" < "$dir/event.json") \
		> "$dir/hook.out" 2>&1
	hook_st=$?
	wait_lines "$out" 5
	hook=$(grep 'agent=' "$out")
	[ $hook_st -eq 0 ] && case $hook in
	*' op="read" target="/etc/hosts" '*' agent="claude" tool="Read" session="s-42" '*) true ;;
	*) false ;;
	esac
	ok $? "[$name] hook --syslog: the agent, the tool and the session"
	[ $hook_st -eq 0 ] || diag < "$dir/hook.out"
	sed -e 's/"tool_name":"Read"/"tool_name":"Bash"/' \
		-e 's/"tool_input":{[^}]*}/"tool_input":{"command":"echo hi"}/' "$dir/event.json" |
		(cd "$dir/ws" && $AS "$C" hook claude --syslog "$sock") > "$dir/hook-bash.out" 2>&1
	grep -qF -- "--syslog '$sock' -- bash -c 'echo hi'" "$dir/hook-bash.out"
	ok $? "[$name] hook --syslog: the command it rewrites to cordon run is given --syslog"
	wait_lines "$out" 6

	# $CORDON_SYSLOG is the default; --syslog off wins over it.
	(cd "$dir/ws" && CORDON_SYSLOG=$sock $AS "$C" eval --preset read-only read /etc/services) \
		> /dev/null 2>&1
	(cd "$dir/ws" && CORDON_SYSLOG=$sock $AS "$C" eval --syslog off --preset read-only \
		read /etc/protocols) > /dev/null 2>&1
	wait_lines "$out" 7
	sleep 0.3
	grep -q 'target="/etc/services"' "$out" && ! grep -q 'target="/etc/protocols"' "$out"
	ok $? "[$name] \$CORDON_SYSLOG is the default; --syslog off silences it"

	# Nothing listening: the decisions are made as before, and said once.
	kill "$rs_pid"
	wait "$rs_pid" 2> /dev/null
	printf '%s\n' '{"id":1,"op":"read","target":"/etc/hosts"}' \
		'{"id":2,"op":"exec","target":"git push --force"}' |
		(cd "$dir/ws" && $AS "$C" eval --stdin --syslog "$sock" --preset read-only) \
			> "$dir/gone.out" 2> "$dir/gone.err"
	st=$?
	[ $st -eq 0 ] && [ "$(wc -l < "$dir/gone.out")" -eq 2 ] &&
		grep -q '"id":1,"decision":"allow"' "$dir/gone.out" &&
		grep -q '"id":2,"decision":"deny"' "$dir/gone.out"
	ok $? "[$name] with rsyslogd gone, both stream requests are decided as before"
	is "$(grep -c 'cordon: warning: the system log' "$dir/gone.err")" 1 \
		"[$name] ... and the lost system log is said once"
	diag < "$dir/gone.err"
	(cd "$dir/ws" && $AS "$C" run --syslog "$dir/none.sock" --preset workspace-write \
		-- git push --force) > "$dir/run-gone.out" 2>&1
	st=$?
	[ $st -eq "$RUN_DENIED" ] && grep -q 'cordon: DENIED' "$dir/run-gone.out" &&
		[ "$(grep -c 'cordon: warning: the system log' "$dir/run-gone.out")" -eq 1 ]
	ok $? "[$name] run with no socket refuses as before and warns once"
}

if [ -z "$rsyslogd" ]; then
	skip "every syslog check" "rsyslogd is missing (Debian package rsyslog)"
else
	for pass in $(runner_passes); do
		case $pass in
		nobody)
			AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
			C=$(as_nobody_cordon "$tmpdir/bin") || {
				ok 1 "[nobody] a cordon nobody can run"
				continue
			}
			;;
		*) AS= C=$CORDON ;;
		esac
		syslog_pass "$pass"
	done
fi

"$CORDON" eval --syslog nowhere read /etc/hosts > /dev/null 2> "$tmpdir/bad.err"
st=$?
[ $st -eq 2 ] && grep -q "unknown system log 'nowhere'" "$tmpdir/bad.err"
ok $? "a misspelt --syslog is a usage error (exit 2)"

# ---- the journal: systemd-journald in a mount namespace ----------------------------
journald=
for j in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do
	[ -x "$j" ] && journald=$j && break
done
if [ "$(id -u)" -ne 0 ]; then
	skip "every journal check" "journald runs here only as root"
elif [ -z "$journald" ] || ! command -v journalctl > /dev/null; then
	skip "every journal check" "systemd-journald or journalctl is missing (Debian package systemd)"
elif ! unshare -m true 2> /dev/null; then
	skip "every journal check" "unshare -m does not work here"
else
	printf '{"id":1,"op":"exec","target":"echo %s"}\n' "$(head -c 300000 /dev/zero | tr '\0' a)" \
		> "$tmpdir/big.json"
	cat > "$tmpdir/journal.sh" << 'EOF'
set -u
mount -t tmpfs tmpfs /run || exit 3
mkdir -p /run/systemd/journal /run/log/journal
"$JOURNALD" > "$T/journald.out" 2>&1 &
jpid=$!
i=0
while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S /run/systemd/journal/socket ] || { kill $jpid; exit 4; }
cd "$T" || exit 5
"$CORDON" eval --syslog auto --audit "$T/j.jsonl" --actor ana --preset read-only exec "$CMD" \
	> "$T/j-deny.out" 2>&1 || exit 6
"$CORDON" eval --syslog journal --preset read-only exec 'echo one
echo two' > /dev/null 2>&1 || exit 7
"$CORDON" eval --syslog journal --stdin --preset read-only < "$T/big.json" > "$T/j-big.out" \
	2> "$T/j-big.err" || exit 8
i=0
while [ "$(journalctl -D /run/log/journal -q SYSLOG_IDENTIFIER=cordon -o cat | wc -l)" -lt 3 ] &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
journalctl -D /run/log/journal -q --all -o json SYSLOG_IDENTIFIER=cordon > "$T/journal.json"
kill $jpid
wait $jpid
EOF
	T=$tmpdir JOURNALD=$journald CORDON=$CORDON CMD=$cmd unshare -m sh "$tmpdir/journal.sh"
	st=$?
	is $st 0 "journald in a namespace of its own takes the records"
	[ $st -eq 0 ] || diag < "$tmpdir/journald.out"
	is "$(wc -l < "$tmpdir/journal.json" | tr -d ' ')" 3 "three journal entries"
	deny=$(grep '"CORDON_DECISION":"deny"' "$tmpdir/journal.json" | grep 'Authorization')
	for kv in '"SYSLOG_IDENTIFIER":"cordon"' '"SYSLOG_FACILITY":"10"' '"PRIORITY":"4"' \
		'"CORDON_OUTCOME":"decided"' '"CORDON_PRESET":"read-only"' \
		'"CORDON_RULE":"rules/default.cordon:[0-9]*:[0-9]*"' \
		'"CORDON_LAYER":"rules/default.cordon"' '"CORDON_OP":"exec"' '"CORDON_ACTOR":"ana"' \
		'"CORDON_UID":"0"' '"_TRANSPORT":"journal"'; do
		printf '%s\n' "$deny" | grep -q "$kv"
		ok $? "journal: the deny has $kv"
	done
	json_target=$(sed -n 's/.*"target":"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$tmpdir/j.jsonl")
	printf '%s\n' "$deny" | grep -qF "\"CORDON_TARGET\":\"$json_target\""
	ok $? "journal: the target is redacted exactly as in the audit file ($json_target)"
	# journald adds _CMDLINE itself, from /proc, when cordon still runs as
	# it reads the entry (as it does under valgrind): the command line as
	# ps shows it (docs/audit.md).  What cordon sends has no secret.
	! sed 's/"_CMDLINE":"\([^"\\]\|\\.\)*"//' "$tmpdir/journal.json" | grep -q "$secret"
	ok $? "journal: the secret is in no field cordon sends"
	printf '%s\n' "$deny" | grep -q '"MESSAGE":"decision=\\"deny\\" outcome=\\"decided\\"'
	ok $? "journal: MESSAGE has the fields as name=\"value\" pairs"
	grep -q '"CORDON_TARGET":"echo one\\necho two"' "$tmpdir/journal.json"
	ok $? "journal: a value with a newline arrives whole (the binary form)"
	is "$(grep -o '"CORDON_TARGET":"echo a*"' "$tmpdir/journal.json" | wc -c | tr -d ' ')" \
		$((300000 + 24)) "journal: the big entry's target is all there"
	grep -q '"id":1,"decision":"allow"' "$tmpdir/j-big.out" && [ ! -s "$tmpdir/j-big.err" ]
	ok $? "journal: an entry bigger than a datagram is sent (a memfd), without a warning"
fi

done_testing
