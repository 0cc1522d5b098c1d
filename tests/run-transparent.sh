#!/bin/sh
# Programs that ignore the proxy variables under `cordon run`, with the
# variables unset: real bwrap, real processes, the real proxy.  Inside the
# sandbox cordon-exec answers DNS on 127.0.0.1:53 with a loopback address
# of each name's own and relays connections to those addresses to the
# egress proxy, which decides, audits and reports them as proxied ones.
# The server is the test's own on the host's 127.0.0.1; the names the
# sandbox asks for map to it through the runner's --egress-hosts file.
# Every check runs as root and again as an unprivileged user (nobody):
# - the command has no capability at all (bwrap's --cap-add is cordon-exec's);
# - an A query gets a 127.x address, AAAA none; malformed queries get no
#   answer that carries one, and the stub goes on answering;
# - Node's http.get and fetch, Python's urllib without proxies and
#   curl --noproxy '*' reach the allowed name on its port;
# - the same to a name the policy does not allow fails, nothing reaches the
#   server, and cordon's report names the host and the rule.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
server=$srcdir/tests/egress-server.py
chmod 755 "$tmpdir"

passes=$(runner_passes)
for tool in curl python3; do
	if ! command -v $tool > /dev/null; then
		skip "programs that ignore the proxy variables" "no $tool here"
		done_testing
		exit
	fi
done
skip_unless_sandbox "$cordon_bin" "programs that ignore the proxy variables"
node=$(command -v node)

: > "$tmpdir/srv.log"
python3 "$server" "$tmpdir/srv.port" "$tmpdir/srv.log" 1024 &
srv_pid=$!
at_exit 'kill $srv_pid 2> /dev/null'
i=0
while [ ! -s "$tmpdir/srv.port" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
port=$(cat "$tmpdir/srv.port")
conns() { grep -c . "$tmpdir/srv.log"; }

cat > "$tmpdir/t.cordon" << EOF
cordon 1;

preset "t" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "\${tmp}" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test:$port" allow;
}
default "t";
EOF
printf '127.0.0.1 good.test bad.test\n' > "$tmpdir/hosts"

# The DNS checks, from inside: a query's answer, then malformed packets,
# then a query again (the stub still answers).
cat > "$tmpdir/dns.py" << 'EOF'
import socket, struct, sys

def ask(name, qtype, raw=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    q = raw
    if q is None:
        q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
        q += b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"
        q += struct.pack(">HH", qtype, 1)
    s.sendto(q, ("127.0.0.1", 53))
    try:
        r = s.recv(600)
    except socket.timeout:
        return None
    rcode, an = r[3] & 15, struct.unpack(">H", r[6:8])[0]
    addr = socket.inet_ntoa(r[-4:]) if an == 1 and qtype == 1 else ""
    return "rcode=%d answers=%d %s" % (rcode, an, addr)

what = sys.argv[1]
if what == "a":
    print(ask("good.test", 1))
elif what == "aaaa":
    print(ask("good.test", 28))
else:
    bad = [b"", b"\x00", b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01",
           b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x3f\x61", b"\xff" * 300,
           b"\x12\x34\x01\x00\x00\x02\x00\x00\x00\x00\x00\x00\x01\x61\x00\x00\x01\x00\x01"]
    carried = [ask(None, 1, raw=b) for b in bad]
    print("malformed:", "ok" if all(c is None or "answers=0" in c for c in carried) else carried)
    print("after:", ask("good.test", 1))
EOF
cat > "$tmpdir/fetch.js" << 'EOF'
const http = require('http');
const url = process.argv[2];
http.get(url, r => {
  let body = '';
  r.on('data', d => body += d);
  r.on('end', () => {
    console.log('http.get ' + r.statusCode + ' ' + body.trim());
    fetch(url).then(r => r.text().then(t => console.log('fetch ' + r.status + ' ' + t.trim())))
      .catch(e => console.log('fetch error ' + ((e.cause && e.cause.code) || e)));
  });
}).on('error', e => console.log('http.get error ' + e.code));
EOF
chmod 644 "$tmpdir/t.cordon" "$tmpdir/hosts" "$tmpdir/dns.py" "$tmpdir/fetch.js"

UNSET="env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy -u NO_PROXY -u no_proxy"
pass() { # pass NAME
	runner_pass "$1"
	H=$P/home
	mkdir -p "$H"
	runner_own "$P"
	errf=$P/stderr
	# call ARGV...: ARGV under the test's preset, without the proxy variables.
	# From the pass's own directory: the build tree may be closed to nobody.
	call() {
		(cd "$P" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
			"$C" run -p "$tmpdir/t.cordon" --egress-hosts "$tmpdir/hosts" -- \
			$UNSET "$@") > "$P/out" 2> "$errf" < /dev/null
		rc=$?
		[ $rc -ne 125 ] || diag < "$errf"
	}

	call sh -c 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status'
	[ "$(grep -c ':[[:space:]]*0000000000000000$' "$P/out")" = 5 ]
	ok $? "$t the command has no capability: CapInh, CapPrm, CapEff, CapBnd, CapAmb all zero"
	[ $? -eq 0 ] || diag < "$P/out"

	call sh -c 'env | grep -ci "_proxy="; getent hosts localhost'
	[ "$(head -1 "$P/out")" = 0 ] && grep -q '^\(127.0.0.1\|::1\) .*localhost' "$P/out"
	ok $? "$t no proxy variable is set, and /etc/hosts still names localhost"

	call python3 "$tmpdir/dns.py" a
	grep -q '^rcode=0 answers=1 127\.' "$P/out"
	ok $? "$t an A query for an allowed name gets a 127.x address ($(cat "$P/out"))"
	call python3 "$tmpdir/dns.py" aaaa
	is "$(cat "$P/out")" "rcode=0 answers=0 " "$t an AAAA query gets NOERROR and no address"
	call python3 "$tmpdir/dns.py" malformed
	grep -q '^malformed: ok$' "$P/out" && grep -q '^after: rcode=0 answers=1 127\.' "$P/out"
	ok $? "$t malformed queries carry no answer, and the stub answers after them"
	[ $? -eq 0 ] || diag < "$P/out"

	url=http://good.test:$port/
	if [ -n "$node" ]; then
		call "$node" "$tmpdir/fetch.js" "$url"
		grep -qx "http.get 200 hello from good.test:$port" "$P/out" &&
			grep -qx "fetch 200 hello from good.test:$port" "$P/out"
		ok $? "$t Node's http.get and fetch reach the allowed name (status $rc)"
		[ $? -eq 0 ] || diag < "$P/out"
	else
		skip "$t Node's http.get and fetch" "no node here"
	fi
	call python3 -c 'import sys, urllib.request
o = urllib.request.build_opener(urllib.request.ProxyHandler({}))
print(o.open(sys.argv[1], timeout=20).read().decode().strip())' "$url"
	is "$(cat "$P/out")" "hello from good.test:$port" "$t Python's urllib without proxies reaches it"
	call curl -sS --noproxy '*' "$url"
	is "$(cat "$P/out")" "hello from good.test:$port" "$t curl --noproxy '*' reaches it"

	bad=http://bad.test:$port/
	before=$(conns)
	call curl -sS --noproxy '*' "$bad"
	[ $rc -ne 0 ] && grep -q "refused net bad.test:$port: deny by .*t.cordon:9:3" "$errf" &&
		[ "$(conns)" = "$before" ]
	ok $? "$t curl to a name the policy does not allow fails, and the report names host and rule (status $rc)"
	[ $? -eq 0 ] || diag < "$errf"
	if [ -n "$node" ]; then
		call "$node" "$tmpdir/fetch.js" "$bad"
		! grep -q 'EAI_AGAIN\|ENOTFOUND\|200' "$P/out" &&
			grep -q "refused net bad.test:$port: deny by .*t.cordon:9:3" "$errf" &&
			[ "$(conns)" = "$before" ]
		ok $? "$t Node to that name fails with no DNS error; the report names host and rule"
		[ $? -eq 0 ] || { diag < "$P/out"; diag < "$errf"; }
	else
		skip "$t Node to a name the policy does not allow" "no node here"
	fi
}

for p in $passes; do
	pass "$p"
done
done_testing
