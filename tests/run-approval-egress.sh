#!/bin/sh
# An approved net ask opens its host in the egress proxy of the one call the
# approval was taken for, and nothing else: real bwrap, a real proxy, a
# server on the host's 127.0.0.1 (the test names map to it through the
# runner's --egress-hosts file; nothing leaves the machine).  Every check
# runs as root and again as an unprivileged user (nobody).
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
server=$srcdir/tests/egress-server.py
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi
for tool in curl python3; do
	if ! command -v $tool > /dev/null; then
		skip "approved egress" "no $tool here"
		done_testing
		exit
	fi
done
"$cordon_bin" probe > "$tmpdir/probe" 2>&1
if [ $? -ne 0 ]; then
	diag < "$tmpdir/probe"
	skip "approved egress under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi

# curl's spec says it may reach a host named only at run time: "*" asks, so
# that a curl can be approved at all.  good.test puts the call's network
# behind its own egress proxy.
cat > "$tmpdir/p.cordon" << 'POLICY'
cordon 1;
include "commands.cordon";

preset "asks" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" ask "each host is approved";
  net "good.test" allow;
  net "asked.test" ask;
  net "other.test" ask;
  net "bad.test" deny "never this host";
  net "asked.test:9" deny "never this port";
}

# A host known only at run time is allowed, but may be asked.test, which
# asks: the preview shows that ask, and approving it opens no host.
preset "wide" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" allow;
  net "good.test" allow;
  net "asked.test" ask;
}

# No net rule allows a host ("unix" names local sockets, not a host): the
# call's network stays closed unless its approval grants a host.
preset "closed" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "unix" allow;
  net "*" ask "each host is approved";
  net "asked.test" ask;
  net "other.test" ask;
  net "bad.test" deny "never this host";
  net "asked.test:9" deny "never this port";
}

default "asks";
POLICY
chmod 644 "$tmpdir/p.cordon"
printf '127.0.0.1 good.test asked.test other.test bad.test unix\n' > "$tmpdir/hosts"
chmod 644 "$tmpdir/hosts"

: > "$tmpdir/srv.log"
: > "$tmpdir/srv2.log"
python3 "$server" "$tmpdir/srv.port" "$tmpdir/srv.log" &
srv=$!
# A second server: the approved host on a port the approval does not name.
python3 "$server" "$tmpdir/srv2.port" "$tmpdir/srv2.log" &
srv2=$!
at_exit 'kill $srv $srv2 2> /dev/null'
i=0
while { [ ! -s "$tmpdir/srv.port" ] || [ ! -s "$tmpdir/srv2.port" ]; } && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
port=$(cat "$tmpdir/srv.port")
port2=$(cat "$tmpdir/srv2.port")
conns() { echo $(($(wc -l < "$tmpdir/srv.log") + $(wc -l < "$tmpdir/srv2.log"))); }

# U CMD...: CMD as the pass's user in the workspace, bounded in time.
U() {
	(cd "$WS" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}
ctx() {
	echo "-p $tmpdir/p.cordon --preset ${preset:-asks} --workspace $WS --context home=$H --context agent_dir=$P/agent --context session_dir=$P/agent/s"
}
# run ARGS...: cordon run ARGS; $rc, $out, stderr in $errf.
run() {
	out=$(U "$C" run $(ctx) --egress-hosts "$tmpdir/hosts" --audit "$LOG" "$@" 2> "$errf")
	rc=$?
}
# approve COMMAND: $id (the last line), $rc, $out.
approve() {
	out=$(U "$C" approve exec $(ctx) -- "$1" 2> "$errf")
	rc=$?
	id=$(printf '%s\n' "$out" | tail -n 1)
}
has() { # has TEXT PATTERN DESCRIPTION
	printf '%s\n' "$1" | grep -q -- "$2"
	ok $? "$3"
	[ $? -eq 0 ] || { printf '%s\n' "$1" | diag; diag < "$errf"; }
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home LOG=$P/audit.log
	mkdir -p "$WS" "$H" "$P/agent"
	# The hosts the command reaches that its words do not name: known to
	# the analysis only as "a host known only at run time".
	printf 'other.test:%s\nbad.test:%s\nasked.test:9\n' "$port" "$port" > "$WS/targets"
	printf 'curl -sS -m 10 http://asked.test:%s/x\n' "$port" > "$WS/fetch.sh"
	runner_own "$P"
	cmd="curl -sS -m 10 http://asked.test:$port/x; for t in \$(cat targets); do curl -sS -m 10 -i http://\$t/x | sed -n '1p;\$p'; done"

	# ---- without an approval: nothing runs, nothing connects ------------------------------
	before=$(conns)
	run --shell "$cmd"
	is "$rc" $RUN_ASK "$t the command that asks for a host exits $RUN_ASK without an approval"
	has "$(cat "$errf")" "the proxy lets the command reach exactly this host and port" \
		"$t the preview says approving opens the host"
	has "$(cat "$errf")" "no host is opened for it" \
		"$t and that a host known only at run time is not opened"

	# ---- approved: that host, in that call, and nothing else --------------------------------
	approve "$cmd"
	is "$rc" 0 "$t cordon approve exec issues an approval"
	has "$out" "ask   net   asked.test:$port" "$t it shows the host it covers"
	has "$out" "approved, the proxy lets the command reach exactly this host and port" \
		"$t and says the host will be opened"
	run --approval "$id" --shell "$cmd"
	is "$(printf '%s\n' "$out" | head -n 1)" "hello from asked.test:$port" \
		"$t the approved host is reached through the proxy (exit $rc)"
	is "$(printf '%s\n' "$out" | grep -c '^HTTP/1.1 403 Forbidden')" 3 \
		"$t in the same call: another asked host, a denied host and a denied port get 403"
	printf '%s\n' "$out" | grep -q "net other.test:$port: needs approval, which this call does not have" &&
		printf '%s\n' "$out" | grep -q "net bad.test:$port: never this host" &&
		printf '%s\n' "$out" | grep -q "net asked.test:9: never this port"
	ok $? "$t each refusal says why"
	is "$(($(conns) - before))" 1 "$t the server saw exactly the approved contact"
	grep -q '"target":"asked.test:'"$port"'","decision":"ask".*"approval":"'"$id"'","outcome":"approved"' "$LOG" &&
		grep -q '"target":"asked.test:'"$port"'","decision":"ask".*"approval":"'"$id"'","outcome":"connecting"' "$LOG"
	ok $? "$t the audit log says the contact was allowed by approval $id"
	grep -q '"target":"other.test:'"$port"'","decision":"ask".*"approval":null,"outcome":"refused"' "$LOG"
	ok $? "$t and records the other asked host as refused"

	# ---- the approval is this call's alone ---------------------------------------------------
	before=$(conns)
	run --approval "$id" --shell "$cmd"
	is "$rc" $RUN_ASK "$t the approval used once is refused again"
	has "$(cat "$errf")" "unknown or was already used" "$t and says why"
	run -- sh fetch.sh
	has "$out$(cat "$errf")" "net asked.test:$port: needs approval, which this call does not have" \
		"$t a call without the approval is refused the host by its proxy"
	approve "curl -sS -m 10 http://asked.test:$port/y"
	run --approval "$id" --shell "$cmd"
	is "$rc" $RUN_ASK "$t an approval taken for a different command does not open the host"
	has "$(cat "$errf")" "was given for the shell command" "$t and says it was given for another command"
	is "$(($(conns) - before))" 0 "$t the server saw no contact from any of them"

	# ---- a host the preview only says the command may reach is not opened ---------------
	printf 'asked.test:%s\n' "$port" > "$WS/one"
	wide="curl -sS -m 10 http://good.test:$port/x; curl -sS -m 10 -i http://\$(cat one)/x | sed -n 1p"
	out=$(U "$C" approve exec $(ctx | sed 's/--preset asks/--preset wide/') -- "$wide" 2> "$errf")
	id=$(printf '%s\n' "$out" | tail -n 1)
	has "$out" "ask   net   asked.test \[network (curl" \
		"$t the preview says a host known only at run time may be an asked one"
	before=$(conns)
	out=$(U "$C" run $(ctx | sed 's/--preset asks/--preset wide/') --egress-hosts "$tmpdir/hosts" \
		--approval "$id" --shell "$wide" 2> "$errf")
	is "$(echo $out | tr -d '\r')" "hello from good.test:$port HTTP/1.1 403 Forbidden" \
		"$t approved, that host is still refused: only a host the preview names is opened"
	is "$(($(conns) - before))" 1 "$t (the server saw only the allowed contact)"

	# ---- --approved: this preview, approved now, the same way ----------------------------
	before=$(conns)
	run --approved --shell "$cmd"
	is "$(printf '%s\n' "$out" | sed -n 1p):$(($(conns) - before))" "hello from asked.test:$port:1" \
		"$t --approved opens the approved host for this call, and only it"

	# ---- a preset that allows no host: the approval alone opens the way out ------------
	preset=closed
	printf 'other.test:%s\nbad.test:%s\nasked.test:%s\nasked.test:9\nunix:%s\n' \
		"$port" "$port" "$port2" "$port" > "$WS/targets"
	before=$(conns)
	run --shell "$cmd"
	is "$rc" $RUN_ASK "$t [closed] without an approval the command does not run"
	run -- sh fetch.sh
	is "$(printf '%s\n' "$out" | grep -c 'hello from'):$(($(conns) - before))" 0:0 \
		"$t [closed] a call without an approval reaches no host (no egress proxy)"
	approve "$cmd"
	is "$rc" 0 "$t [closed] cordon approve exec issues an approval"
	has "$out" "ask   net   asked.test:$port" "$t [closed] it shows the host it covers"
	run --approval "$id" --shell "$cmd"
	is "$(printf '%s\n' "$out" | head -n 1)" "hello from asked.test:$port" \
		"$t [closed] the approved host is reached through the call's egress proxy (exit $rc)"
	has "$(cat "$errf")" "asked.test:$port is reachable for this call through its egress proxy" \
		"$t [closed] cordon run says the approved host is reachable"
	is "$(printf '%s\n' "$out" | grep -c '^HTTP/1.1 403 Forbidden')" 5 \
		"$t [closed] another host, a denied host, the approved host on another port, a denied port and a host no approval names get 403"
	printf '%s\n' "$out" | grep -q "net other.test:$port: needs approval, which this call does not have" &&
		printf '%s\n' "$out" | grep -q "net bad.test:$port: never this host" &&
		printf '%s\n' "$out" | grep -q "net asked.test:$port2: needs approval, which this call does not have" &&
		printf '%s\n' "$out" | grep -q "net asked.test:9: never this port" &&
		printf '%s\n' "$out" | grep -q "net unix:$port: .*only the hosts approval $id grants"
	ok $? "$t [closed] each refusal says why"
	is "$(($(conns) - before))" 1 "$t [closed] the servers saw exactly the approved contact"
	grep -q '"target":"asked.test:'"$port"'","decision":"ask".*"approval":"'"$id"'","outcome":"connecting"' "$LOG"
	ok $? "$t [closed] the audit log says the contact was allowed by approval $id"
	before=$(conns)
	run --approval "$id" --shell "$cmd"
	is "$rc:$(($(conns) - before))" $RUN_ASK:0 "$t [closed] a second use of the approval is refused and reaches nothing"
	has "$(cat "$errf")" "unknown or was already used" "$t [closed] and says why"
	preset=
}

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
