#!/bin/sh
# Ambiguous HTTP requests at the egress proxy, under cordon run with the
# real bwrap and the real proxy, as root and again as an unprivileged user
# (nobody).  A request that two HTTP parsers could read differently (two
# Host headers, a Host that is not the URI's, two Content-Lengths,
# Transfer-Encoding beside Content-Length, a folded or bare-LF header, a
# blank before a colon, a NUL in the head) is refused with 400 and its
# reason, audited, and reaches no server; a second request hidden after a
# body is not forwarded; a body of any bytes sent with its head passes.  The server is the test's own on the host's 127.0.0.1
# (tests/egress-raw-server.py, which reads requests as a lenient backend
# would and logs every Host it saw); the sandbox reaches it through
# --egress-hosts, and nothing leaves the machine.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
server=$srcdir/tests/egress-raw-server.py
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

passes=$(runner_passes)
if [ ! -x /usr/bin/python3 ]; then
	skip "ambiguous requests at the egress proxy" "no /usr/bin/python3 here"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "ambiguous requests at the egress proxy"

cat > "$tmpdir/egress.cordon" << 'POLICY'
cordon 1;
preset "egress" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test" allow;
}
POLICY
printf '127.0.0.1 good.test bad.test\n' > "$tmpdir/hosts"
chmod 644 "$tmpdir/egress.cordon" "$tmpdir/hosts"

# The client inside: each case on a connection of its own to the proxy,
# one line out: CASE STATUS-CODE LAST-LINE-OF-THE-BODY.
cat > "$tmpdir/client.py" << 'EOF2'
import socket, sys
port = sys.argv[1]
G = "http://good.test:%s/x" % port
H = "Host: good.test:%s\r\n" % port
cases = {
    "two-hosts": "GET %s HTTP/1.1\r\n%sHost: bad.test:%s\r\n\r\n" % (G, H, port),
    "two-hosts-lowercase": "GET %s HTTP/1.1\r\nhost:bad.test:%s\r\n%s\r\n" % (G, port, H),
    "host-not-uri": "GET %s HTTP/1.1\r\nHost: bad.test:%s\r\n\r\n" % (G, port),
    "two-lengths": "POST %s HTTP/1.1\r\n%sContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!" % (G, H),
    "length-list": "POST %s HTTP/1.1\r\n%sContent-Length: 5, 5\r\n\r\nhello" % (G, H),
    "te-and-length": "POST %s HTTP/1.1\r\n%sTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" % (G, H),
    "te-not-chunked": "POST %s HTTP/1.1\r\n%sTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" % (G, H),
    "te-blank-colon": "POST %s HTTP/1.1\r\n%sTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" % (G, H),
    "obs-fold": "GET %s HTTP/1.1\r\n%sX-A: a\r\n Host: bad.test\r\n\r\n" % (G, H),
    "bare-lf": "GET %s HTTP/1.1\r\n%sHost: bad.test:%s\n\r\n" % (G, H, port),
    "plain": "GET %s HTTP/1.1\r\n%sUser-Agent: t\r\n\r\n" % (G, H),
    "no-host": "GET %s HTTP/1.0\r\n\r\n" % G,
    "hidden-request": ("POST %s HTTP/1.1\r\n%sContent-Length: 5\r\n\r\nhello"
                       "GET http://bad.test:%s/ HTTP/1.1\r\nHost: bad.test:%s\r\n\r\n" % (G, H, port, port)),
    "chunked": ("POST %s HTTP/1.1\r\n%sTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                "GET http://bad.test:%s/ HTTP/1.1\r\nHost: bad.test:%s\r\n\r\n" % (G, H, port, port)),
    "bad-chunk": "POST %s HTTP/1.1\r\n%sTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n" % (G, H),
    "nul-in-head": "GET %s HTTP/1.1\r\nX-A: a\0b\r\n%s\r\n" % (G, H),
    # A body sent with its head (a git push's pack): any byte, NUL too.
    "binary-body": "POST %s HTTP/1.1\r\n%sContent-Length: 5\r\n\r\n\0\x01\0\xff\0" % (G, H),
}
for name in sys.argv[2:]:
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(cases[name].encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        more = s.recv(65536)
        if not more:
            break
        buf += more
    head, _, body = buf.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(body) < length:
        more = s.recv(65536)
        if not more:
            break
        body += more
    s.close()
    code = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") else "none"
    last = body.decode("latin-1").strip().split("\n")[-1] if body else ""
    print(name, code, last)
EOF2
chmod 644 "$tmpdir/client.py"

: > "$tmpdir/srv.log"
/usr/bin/python3 "$server" "$tmpdir/srv.port" "$tmpdir/srv.log" &
server_pid=$!
at_exit 'kill $server_pid 2> /dev/null'
port=$(port_of "$tmpdir/srv.port")

lines() { wc -l < "$tmpdir/srv.log" | tr -d ' '; }
# wait_lines N: until the server logged N requests, at most 5 s.
wait_lines() {
	i=0
	while [ "$(lines)" -lt "$1" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

refused="two-hosts two-hosts-lowercase host-not-uri two-lengths length-list te-and-length
	te-not-chunked te-blank-colon obs-fold bare-lf bad-chunk nul-in-head"

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws LOG=$P/audit.log
	mkdir -p "$WS" "$P/home"
	runner_own "$P"
	# call CASE...: the client inside, through the call's proxy.
	call() {
		out=$($AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$P/home" LANG=C.UTF-8 \
			"$P/build/cordon" run -p "$tmpdir/egress.cordon" --preset egress --workspace "$WS" \
			--egress-hosts "$tmpdir/hosts" --audit "$LOG" -- \
			/usr/bin/python3 "$tmpdir/client.py" "$port" "$@" 2> "$errf")
		rc=$?
	}

	before=$(lines)
	# shellcheck disable=SC2086
	call $refused
	[ $rc -eq 0 ] || diag < "$errf"
	for c in $refused; do
		is "$(echo "$out" | grep "^$c " | cut -d' ' -f1,2)" "$c 400" "$t $c: refused with 400"
	done
	echo "$out" | grep "^two-hosts " | grep -q "cordon: the proxy refuses an ambiguous request: the request has more than one Host header"
	ok $? "$t with the reason: $(echo "$out" | grep "^two-hosts " | cut -d' ' -f3-)"
	is "$(lines)" "$before" "$t the server saw none of the refused requests"
	n=$(grep -c '"decision":"deny".*ambiguous request.*"outcome":"refused"' "$LOG")
	is "$n" 12 "$t each refusal is in the audit log, with its reason"

	before=$(lines)
	call plain no-host hidden-request chunked binary-body
	is "$(echo "$out" | tr '\n' '|')" "plain 200 hello from good.test:$port|no-host 200 hello from good.test:$port|hidden-request 200 hello from good.test:$port|chunked 200 hello from good.test:$port|binary-body 200 hello from good.test:$port|" \
		"$t a plain request, one without Host (the proxy writes the URI's), a POST and a chunked one (each with a request hidden after its body), and a body of NUL bytes sent with its head pass"
	wait_lines $((before + 5))
	tail -n 5 "$tmpdir/srv.log" | sort > "$P/seen"
	is "$(tr '\n' '|' < "$P/seen")" "hosts=good.test:$port body=0 extra=0|hosts=good.test:$port body=0 extra=0|hosts=good.test:$port body=5 extra=0|hosts=good.test:$port body=5 extra=0|hosts=good.test:$port body=5 extra=0|" \
		"$t the server saw each once, with one Host, and nothing after a body (the hidden request)"
}

for p in $passes; do
	pass "$p"
done
done_testing
