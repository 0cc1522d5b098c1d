#!/bin/sh
# What the egress proxy refused during a call is told after the call, by
# cordon and not by the command: each distinct refusal once, in order, with
# a count, the rule that decided it and its effect, and the change that
# would allow it (an allow in a preset extending the one in force, checked:
# the test adds the printed rule and the host is reached).  A host name the
# command sent with an ESC byte is printed escaped; a fake "cordon:" line
# the command prints comes before cordon's report, never inside it; the
# --status-fd line has the same refusals; --quiet-refusals leaves stderr
# alone.  Real bwrap, a real proxy, a server on the host's 127.0.0.1 (the
# names map to it through --egress-hosts; nothing leaves the machine).  As
# root and again as nobody.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
server=$srcdir/tests/egress-server.py
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

passes=$(runner_passes)
for tool in curl python3; do
	if ! command -v $tool > /dev/null; then
		skip "refusals after the call" "no $tool here"
		done_testing
		exit
	fi
done
skip_unless_sandbox "$cordon_bin" "refusals after the call"

cat > "$tmpdir/p.cordon" << 'POLICY'
cordon 1;
include "commands.cordon";

preset "web" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test" allow;
  net "asked.test" ask "a person says yes";
  net /evil/ deny "never evil";
}
default "web";
POLICY
printf '127.0.0.1 good.test bad.test asked.test evil.test\n' > "$tmpdir/hosts"
chmod 644 "$tmpdir/p.cordon" "$tmpdir/hosts"

# A SOCKS5 client that names a host with an ESC byte in it.
cat > "$tmpdir/socks.py" << 'EOF2'
import socket
host = b"a\x1b[31mred.test"
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"\x05\x01\x00")
s.recv(2)
s.sendall(b"\x05\x01\x00\x03" + bytes([len(host)]) + host + b"\x00\x50")
print("socks reply", s.recv(10)[1])
EOF2
chmod 644 "$tmpdir/socks.py"

: > "$tmpdir/srv.log"
python3 "$server" "$tmpdir/srv.port" "$tmpdir/srv.log" &
srv=$!
at_exit 'kill $srv 2> /dev/null'
port=$(port_of "$tmpdir/srv.port")

# U CMD...: CMD as the pass's user in the workspace, bounded in time.
U() {
	(cd "$WS" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}
ctx() {
	echo "-p ${policy:-$tmpdir/p.cordon} --preset ${preset:-web} --workspace $WS --context home=$H --context agent_dir=$P/agent --context session_dir=$P/agent/s"
}
# run ARGS...: cordon run ARGS with --status-fd 3; $rc, $out, stderr in
# $errf, the status line in $P/status.
run() {
	out=$(U "$C" run $(ctx) --egress-hosts "$tmpdir/hosts" --status-fd 3 "$@" 2> "$errf" 3> "$P/status")
	rc=$?
	cat "$P/status" >> "$P/statuses"
}
has() { # has FILE PATTERN DESCRIPTION: a fixed string
	grep -qF -- "$2" "$1"
	ok $? "$3"
	[ $? -eq 0 ] || diag < "$1"
}
# json EXPR: a Python expression of the status line (s) printed.
json() {
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print('"$1"')' "$P/status"
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS" "$H" "$P/agent"
	# The hosts are in a file: the command's words name none of them.
	printf 'good.test bad.test bad.test bad.test asked.test evil.test\n' > "$WS/hosts"
	cat > "$WS/fetch.sh" << EOF3
for h in \$(cat hosts); do curl -sS -m 10 -i http://\$h:$port/x | sed -n '1p;/^cordon:/p;/^hello/p'; done
echo "cordon: after the call: the egress proxy refused 1 contact (preset 'web'):" >&2
echo "cordon: refused net fake.test:1: deny by p.cordon:1:1: fake" >&2
EOF3
	runner_own "$P"

	# ---- the report: once each, in order, with counts and the change ----------------
	run -- sh fetch.sh
	is "$rc" 0 "$t the command's own status stands (a refusal is not the call's failure)"
	line=$(grep -n 'net "\*" deny' "$tmpdir/p.cordon" | cut -d: -f1)
	has "$errf" "cordon: refused net bad.test:$port (3 times): deny by $tmpdir/p.cordon:$line:3: only the named hosts" \
		"$t a denied host: host:port, count, effect, the deciding rule and its reason"
	has "$errf" "cordon:   to allow it, add to a preset that extends 'web':  net \"bad.test:$port\" allow;" \
		"$t and the rule that would allow it"
	has "$errf" "cordon: refused net asked.test:$port: ask (a person could approve) by $tmpdir/p.cordon:$((line + 2)):3: a person says yes" \
		"$t an asked host says a person could approve it"
	has "$errf" "no approval of this call opens it: an approval opens only the hosts its command names" \
		"$t and that an approval of this command cannot open a host its words do not name"
	has "$errf" "\`net \"evil.test:$port\" allow;\` in a preset that extends 'web' does not win over $tmpdir/p.cordon:$((line + 3)):3 (checked)" \
		"$t a deny a narrower allow cannot widen says so"
	is "$(grep -c '^cordon: refused net bad.test' "$errf")" 1 "$t each distinct refusal once"
	is "$(sed -n '/^cordon: after the call: the egress proxy refused 5 contacts/,$p' "$errf" | grep '^cordon: refused' | cut -d' ' -f4 | sed 's/:$//' | tr '\n' ' ')" \
		"bad.test:$port asked.test:$port evil.test:$port " "$t in the order they happened"
	# The command's fake lines come first: cordon's report is the last
	# thing on stderr, after the command's output ended.
	last=$(grep -n "^cordon: after the call: the egress proxy refused 5 contacts (preset 'web'):" "$errf" | cut -d: -f1)
	fake=$(grep -n 'fake.test' "$errf" | cut -d: -f1)
	[ -n "$last" ] && [ -n "$fake" ] && [ "$fake" -lt "$last" ] &&
		! sed -n "$last,\$p" "$errf" | grep -q fake.test &&
		! sed -n "$last,\$p" "$errf" | grep -v '^cordon: ' | grep -q .
	ok $? "$t the command's fake report line comes before cordon's, which is all 'cordon: ' lines"
	[ $? -eq 0 ] || diag < "$errf"

	# ---- the 403 body names the rule and the change ------------------------------------
	printf '%s\n' "$out" > "$P/out"
	has "$P/out" "cordon: net bad.test:$port: only the named hosts ($tmpdir/p.cordon:$line:3)" \
		"$t the 403 body names the rule"
	has "$P/out" "($tmpdir/p.cordon:$line:3); to allow it: add \`net \"bad.test:$port\" allow;\` to a preset that extends \"web\"" \
		"$t and the change, on the same line"
	has "$P/out" "no preset that extends \"web\" can allow it: $tmpdir/p.cordon:$((line + 3)):3 wins" \
		"$t and says when no preset extending this one can"

	# ---- the same, as JSON on --status-fd ----------------------------------------------
	is "$(json '[(r["target"], r["decision"], r["count"], r["fix"]["kind"]) for r in s["refusals"]]')" \
		"[('bad.test:$port', 'deny', 3, 'rule'), ('asked.test:$port', 'ask', 1, 'rule'), ('evil.test:$port', 'deny', 1, 'none')]" \
		"$t the status line has the refusals"
	is "$(json 's["refusals"][0]["fix"]["rule"] + " " + s["refusals"][0]["fix"]["extends"] + " " + s["refusals"][0]["rule"]')" \
		"net \"bad.test:$port\" allow; web $tmpdir/p.cordon:$line:3" "$t with the rule to add and the rule that refused"

	# ---- the printed change works ------------------------------------------------------
	add=$(sed -n "s/^cordon:   to allow it, add to a preset that extends 'web':  //p" "$errf" | head -n 1)
	printf 'cordon 1;\ninclude "%s";\npreset "web2" extends "web" {\n  %s\n}\n' "$tmpdir/p.cordon" "$add" > "$P/p2.cordon"
	chmod 644 "$P/p2.cordon"
	before=$(wc -l < "$tmpdir/srv.log")
	policy=$P/p2.cordon preset=web2 run -- curl -sS -m 10 "http://bad.test:$port/x"
	is "$out:$(($(wc -l < "$tmpdir/srv.log") - before))" "hello from bad.test:$port:1" \
		"$t a preset extending 'web' with the printed rule reaches the host"
	is "$(json 's["refusals"]')" "[]" "$t and the proxy refused nothing"
	policy= preset=

	# ---- an ESC byte in a host name is printed escaped ---------------------------------
	run -- python3 "$tmpdir/socks.py"
	is "$out" "socks reply 4" "$t a SOCKS request naming a host with an ESC byte is refused"
	is "$(grep -c "$(printf '\033')" "$errf")" 0 "$t no ESC byte reaches stderr"
	has "$errf" 'a\x1b[31mred.test' "$t the host is printed escaped"
	is "$(json 's["refusals"][0]["host"]')" 'a\x1b[31mred.test' "$t and escaped in the status line"

	# ---- many refusals: counted; --quiet-refusals ------------------------------------
	printf 'i=0; while [ $i -lt 20 ]; do curl -sS -m 10 -o /dev/null http://bad.test:%s/x; i=$((i+1)); done; true\n' \
		"$port" > "$WS/many.sh"
	runner_own "$WS/many.sh"
	run -- sh many.sh
	has "$errf" "cordon: refused net bad.test:$port (20 times): deny" "$t twenty refusals of one host are one line"
	run --quiet-refusals -- sh many.sh
	is "$(grep -c '^cordon: refused\|after the call' "$errf")" 0 "$t --quiet-refusals prints no report"
	is "$(json 's["refusals"][0]["count"]')" 20 "$t but the status line still has it"

	# ---- a host the command names asks before the call; approved, it passes ------------
	run -- curl -sS -m 10 "http://asked.test:$port/x"
	is "$rc" $RUN_ASK "$t a command naming an asked host needs approval before it runs"
	id=$(U "$C" approve exec $(ctx) --argv -- curl -sS -m 10 "http://asked.test:$port/x" 2> /dev/null | tail -n 1)
	run --approval "$id" -- curl -sS -m 10 "http://asked.test:$port/x"
	is "$rc:$out:$(json 's["refusals"]')" "0:hello from asked.test:$port:[]" \
		"$t approved, the host is reached and nothing is refused"

	# ---- every status line as the schema says ----------------------------------------
	python3 "$srcdir/tests/decision-schema/validate.py" "$srcdir/docs/decision.schema.json" \
		"RunStatus=$P/statuses" > "$P/valid" 2>&1
	ok $? "$t every --status-fd line is a RunStatus of docs/decision.schema.json"
	[ $? -eq 0 ] || diag < "$P/valid"
}

for p in $passes; do
	pass "$p"
done

# ---- reasons fit the preset: an inherited catch-all says nothing false ------------------
cat > "$tmpdir/web.cordon" << 'POLICY'
cordon 1;
include "default.cordon";
preset "web" extends "workspace-write" {
  net "github.com:443" allow;
}
POLICY
r=$("$cordon_bin" eval -p "$tmpdir/web.cordon" --preset web --json net example.com:443)
case $r in
*'"decision":"deny"'*) ! printf '%s' "$r" | grep -q 'network access is off' ;;
*) false ;;
esac
ok $? "a preset that allows a host does not answer another with 'network access is off'"
done_testing
