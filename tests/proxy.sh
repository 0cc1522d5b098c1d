#!/bin/sh
# cordon proxy: the egress proxy served alone, as a container or a Pod
# reaches it.  A host a rule allows is reached (HTTP and SOCKS5), one the
# preset denies gets a 403 and a line on stderr with the rule, a host a
# glob allows whose name resolves to loopback is refused (only a rule
# naming the host exactly reaches an internal address), and every contact
# is audited.  Only 127.0.0.1: the names map to it through --egress-hosts.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
for tool in curl python3; do
	if ! command -v $tool > /dev/null; then
		skip "cordon proxy" "no $tool here"
		done_testing
		exit
	fi
done

"$CORDON" proxy > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "without --listen: a usage error (exit 2)"
"$CORDON" proxy --listen localhost:3128 > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "a listen address that is a name: exit 2"
grep -q "not an IPv4 or IPv6 literal" "$tmpdir/err"
ok $? "and says why"
# fd:N serves a listening TCP socket handed down (tests/oci-proxy.sh
# serves one); anything else is refused before the proxy starts.
"$CORDON" proxy --listen fd:x > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "fd: without a number: exit 2"
"$CORDON" proxy --listen fd:0 < /dev/null > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "fd:0 that is not a socket: exit 2"
grep -q "cannot listen on fd:0: the descriptor is not a socket" "$tmpdir/err"
ok $? "and says why"
python3 -c 'import socket, os, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
os.dup2(s.fileno(), 5)
os.execvp(sys.argv[1], sys.argv[1:])' "$CORDON" proxy --listen fd:5 > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "fd:5 a TCP socket that does not listen: exit 2"
grep -q "the descriptor is not a listening TCP socket" "$tmpdir/err"
ok $? "and says why"

cat > "$tmpdir/p.cordon" << 'EOF'
cordon 1;
preset "web" {
  sandbox required;
  read "/**" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test" allow;
  net "*.wild" allow;
}
default "web";
EOF
printf '127.0.0.1 good.test bad.test x.wild\n' > "$tmpdir/hosts"

egress_server_start
"$cordon_bin" proxy -p "$tmpdir/p.cordon" --listen 127.0.0.1:0 --egress-hosts "$tmpdir/hosts" \
	--audit "$tmpdir/audit.log" 2> "$tmpdir/proxy.err" &
proxy=$!
at_exit 'kill $server $proxy 2> /dev/null'
# The proxy says where it listens once it does.
wait_for_file "$tmpdir/proxy.err" listening
pport=$(sed -n 's/^cordon: proxy: listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmpdir/proxy.err")
[ -n "$port" ] && [ -n "$pport" ]
ok $? "the server and the proxy listen"
diag < "$tmpdir/proxy.err"

out=$(curl -sS -m 20 -x "http://127.0.0.1:$pport" "http://good.test:$port/x" 2>&1)
is "$out" "hello from good.test:$port" "an allowed host is reached over HTTP"
out=$(curl -sS -m 20 -x "socks5h://127.0.0.1:$pport" "http://good.test:$port/y" 2>&1)
is "$out" "hello from good.test:$port" "and over SOCKS5"
code=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$pport" \
	"http://bad.test:$port/x")
is "$code" 403 "a denied host gets 403"
code=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$pport" \
	"http://x.wild:$port/x")
is "$code" 403 "a host a glob allows is refused where it resolves to loopback"
n=0
while [ "$(grep -c 'refused' "$tmpdir/proxy.err")" -lt 2 ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
grep -q "^cordon: proxy: refused bad.test:$port by $tmpdir/p.cordon:6:3: only the named hosts" \
	"$tmpdir/proxy.err"
ok $? "the refusal is told on stderr with its rule"
grep -q "^cordon: proxy: refused x.wild:$port" "$tmpdir/proxy.err"
ok $? "and so is the internal address"
grep -c . "$tmpdir/srv.log" > "$tmpdir/count"
is "$(cat "$tmpdir/count")" 2 "the server saw the two allowed requests alone"
python3 - "$tmpdir/audit.log" << 'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
seen = {(r["target"].split(":")[0], r["decision"]) for r in recs if r["op"] == "net"}
want = {("good.test", "allow"), ("bad.test", "deny")}
sys.exit(0 if want <= seen else 1)
EOF
ok $? "every contact is audited with its decision"

kill "$proxy"
wait "$proxy" 2> /dev/null
curl -sS -m 5 -x "http://127.0.0.1:$pport" "http://good.test:$port/z" > /dev/null 2>&1
ok $(($? == 0)) "once it is killed, nothing is served"
done_testing
