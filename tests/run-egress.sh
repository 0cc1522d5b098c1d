#!/bin/sh
# Egress by domain under cordon run: real bwrap, real processes, a real
# proxy.  Nothing leaves the machine: the servers are the test's own on the
# host's 127.0.0.1, and the names the sandbox asks for are mapped to it by
# the runner's --egress-hosts file (loopback is refused unless a rule names
# the host exactly, so the test policy names its hosts; a name that maps to
# 127.0.0.1 through a wildcard rule is refused).  Every check runs as root
# and again as an unprivileged user (nobody).
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
		skip "egress" "no $tool here"
		done_testing
		exit
	fi
done

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
  net "*.wild.test" allow;
  net "asked.test" ask;
}

preset "anyhost" extends "egress" {
  net "*" allow;
}

preset "only-a" extends "egress" {
  net "good.test" deny;
  net "a.test" allow;
}

preset "only-b" extends "egress" {
  net "good.test" deny;
  net "b.test" allow;
}

preset "offline" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${tmp}" allow;
  exec "*" allow;
  net "*" deny;
}

default "egress";
POLICY
chmod 644 "$tmpdir/egress.cordon"
POL=$tmpdir/egress.cordon
cat > "$tmpdir/hosts" << 'HOSTS'
# the test's names, all on the host's loopback
127.0.0.1 good.test bad.test x.wild.test asked.test a.test b.test
HOSTS
chmod 644 "$tmpdir/hosts"

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
if [ $? -ne 0 ]; then
	diag < "$tmpdir/probe"
	skip "egress under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi

# ---- the servers ---------------------------------------------------------------
# start_server NAME: a test server; $NAME_port, its connections in $tmpdir/NAME.log.
servers=
start_server() {
	: > "$tmpdir/$1.log"
	python3 "$server" "$tmpdir/$1.port" "$tmpdir/$1.log" 4194304 &
	servers="$servers $!"
	i=0
	while [ ! -s "$tmpdir/$1.port" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	eval "$1_port=\$(cat \"\$tmpdir/\$1.port\")"
}
stop_servers() {
	for p in $servers; do kill "$p" 2> /dev/null; done
}
at_exit stop_servers
start_server srv
start_server srva
start_server srvb
port=$srv_port
conns() { wc -l < "$tmpdir/$1.log" | tr -d ' '; }

# U CMD...: CMD as the pass's user in a fixed environment.
U() {
	$AS env -i PATH="/usr/bin:/bin" HOME="$H" LANG=C.UTF-8 "$@"
}
# run PRESET SCRIPT [ARG...]: sh -c SCRIPT under cordon run as the pass's user,
# bounded in time; $rc, $out, stderr in $errf.
run() {
	preset=$1
	shift
	out=$(U timeout -s KILL 60 "$C" run -p "$POL" --preset "$preset" --workspace "$WS" \
		--egress-hosts "$tmpdir/hosts" --audit "$LOG" -- sh -c "$@" 2> "$errf")
	rc=$?
}
# has TEXT PATTERN DESCRIPTION
has() {
	printf '%s\n' "$1" | grep -q -- "$2"
	ok $? "$3"
	[ $? -eq 0 ] || { printf '%s\n' "$1" | diag; diag < "$errf"; }
}

# proxy_of PID: the egress proxy process of the cordon run at PID (within 5 s).
proxy_of() {
	i=0
	while [ $i -lt 100 ]; do
		px=$(pgrep -P "$1" -x cordon-egress)
		[ -n "$px" ] && { echo "$px"; return 0; }
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
# dead PID: the process is gone within 2 s.
dead() {
	i=0
	while kill -0 "$1" 2> /dev/null && [ $i -lt 40 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	! kill -0 "$1" 2> /dev/null
}
# bg PRESET CMD...: cordon run in the background, as the pass's user; $bgpid is
# cordon's own pid (setpriv and env exec).
bg() {
	preset=$1
	shift
	$AS env -i PATH="/usr/bin:/bin" HOME="$H" "$C" run -p "$POL" --preset "$preset" \
		--workspace "$WS" --egress-hosts "$tmpdir/hosts" "$@" > "$tmpdir/bg.out" \
		2> "$tmpdir/bg.err" &
	bgpid=$!
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home LOG=$P/audit.log
	mkdir -p "$WS" "$H"
	runner_own "$P"

	# ---- an allowed name, three ways ---------------------------------------------------
	before=$(conns srv)
	run egress 'curl -sS -m 10 "http://good.test:$1/x"' sh "$port"
	is "$out" "hello from good.test:$port" "$t HTTP through the proxy reaches an allowed name (exit $rc)"
	run egress 'curl -sS -m 10 -p "http://good.test:$1/x"' sh "$port"
	is "$out" "hello from good.test:$port" "$t CONNECT through the proxy reaches an allowed name"
	run egress 'curl -sS -m 10 --proxy "$ALL_PROXY" "http://good.test:$1/x"' sh "$port"
	is "$out" "hello from good.test:$port" "$t SOCKS5 (socks5h) through the proxy reaches an allowed name"
	is "$(($(conns srv) - before))" 3 "$t the server saw exactly those three connections"
	run egress 'printf "GET /x HTTP/1.0\r\nHost: good.test\r\n\r\n" | "$2" --connect good.test "$1"' \
		sh "$port" "$C-exec"
	has "$out" "hello from good.test" "$t cordon-exec --connect (the ssh ProxyCommand) reaches an allowed name"
	run egress 'echo "$GIT_SSH_COMMAND"'
	has "$out" "ProxyCommand=.*--connect %h %p" "$t GIT_SSH_COMMAND takes ssh (and git over ssh) through the proxy"
	if command -v git > /dev/null && command -v ssh > /dev/null; then
		# The server speaks HTTP, not ssh: that ssh got there and read
		# its answer is the point.
		before=$(conns srv)
		run egress 'git ls-remote "ssh://git@good.test:$1/x" 2>&1' sh "$port"
		has "$out" "kex_exchange_identification" "$t git over ssh reaches an allowed name through the proxy"
		is "$(($(conns srv) - before))" 1 "$t (the server saw its connection)"
		run egress 'git ls-remote "ssh://git@bad.test:$1/x" 2>&1' sh "$port"
		has "$out" "egress proxy refused bad.test:$port" "$t git over ssh to a denied name is refused"
		is "$(($(conns srv) - before))" 1 "$t (and the server saw nothing more)"
	else
		skip "$t git over ssh through the proxy" "no git or ssh here"
	fi

	# ---- refused names: 403 with cordon's reason, nothing connected -------------------
	before=$(conns srv)
	run egress 'curl -sS -m 10 -i "http://bad.test:$1/x"' sh "$port"
	has "$out" "^HTTP/1.1 403" "$t a denied name gets 403"
	has "$out" "only the named hosts" "$t and the rule's reason"
	run egress 'curl -sS -m 10 -p "http://bad.test:$1/x" 2>&1; echo "exit $?"' sh "$port"
	has "$out" "403" "$t CONNECT to a denied name is refused with 403"
	run egress 'curl -sS -m 10 --proxy "$ALL_PROXY" "http://bad.test:$1/x" 2>&1; echo "exit $?"' sh "$port"
	has "$out" "exit 97" "$t SOCKS5 to a denied name fails (curl exit 97)"
	run egress 'curl -sS -m 10 -i "http://asked.test:$1/x"' sh "$port"
	has "$out" "needs approval" "$t a name that asks is refused without an approval"
	run egress 'curl -sS -m 10 -i -H "Host: bad.test" "http://good.test:$1/x"' sh "$port"
	has "$out" "^HTTP/1.1 400" "$t a Host header that names another host than the URI is refused"
	run egress 'printf "GET /x HTTP/1.0\r\n\r\n" | "$2" --connect bad.test "$1"; echo "exit $?"' \
		sh "$port" "$C-exec"
	has "$out" "exit 1" "$t cordon-exec --connect to a denied name fails"
	is "$(($(conns srv) - before))" 0 "$t the server saw no connection for any refused contact"
	grep -q '"target":"bad.test:'"$port"'","decision":"deny".*"outcome":"refused"' "$LOG"
	ok $? "$t the audit log records the refused contact"
	grep -q '"target":"good.test:'"$port"'","decision":"allow".*"outcome":"connecting"' "$LOG"
	ok $? "$t and the allowed ones"
	run egress 'curl -sS -m 10 -i "http://good.test:1/x"'
	has "$out" "^HTTP/1.1 502" "$t an allowed name whose port takes no connection gets 502"
	grep -q '"target":"good.test:1","decision":"allow".*"outcome":"unreachable"' "$LOG"
	ok $? "$t and the audit log says it was unreachable"

	# ---- internal addresses: loopback, metadata, a name that maps to them ------------
	before=$(conns srv)
	run egress 'curl -sS -m 10 -i "http://x.wild.test:$1/x"' sh "$port"
	has "$out" "loopback address, which only a rule naming the host" \
		"$t a wildcard-allowed name that resolves to 127.0.0.1 is refused"
	for host in 127.0.0.1 2130706433 0x7f000001 "[::1]" "[::ffff:127.0.0.1]" bad.test; do
		run anyhost 'NO_PROXY= no_proxy= curl -sS -m 10 -i "http://$2:$1/x"' sh "$port" "$host"
		printf '%s\n' "$out" | grep -q '^HTTP/1.1 403'
		ok $? "$t net \"*\" allow: $host is refused ($(printf '%s' "$out" | tail -n 1))"
	done
	for host in 169.254.169.254 "[fd00:ec2::254]" "[::ffff:169.254.169.254]" 10.1.2.3 192.168.1.1; do
		run anyhost 'NO_PROXY= no_proxy= curl -sS -m 10 -i "http://$1/latest/meta-data/"' sh "$host"
		has "$out" "^HTTP/1.1 403" "$t net \"*\" allow: $host (metadata, private) is refused"
	done
	# Without --egress-hosts the proxy asks the system's resolver, in a
	# process of its own: localhost comes from /etc/hosts, nothing leaves.
	out=$(U timeout -s KILL 60 "$C" run -p "$POL" --preset anyhost --workspace "$WS" -- \
		sh -c 'NO_PROXY= no_proxy= curl -sS -m 10 -i "http://localhost:$1/x"' sh "$port" 2> "$errf")
	has "$out" "localhost resolves to .*loopback" \
		"$t net \"*\" allow: localhost, looked up by the system's resolver, is refused"
	is "$(($(conns srv) - before))" 0 "$t the server saw no connection for any internal address"

	# ---- no other way out --------------------------------------------------------------
	before=$(conns srv)
	run egress 'curl -sS -m 5 --noproxy "*" "http://127.0.0.1:$1/x" 2>&1; echo "exit $?"' sh "$port"
	has "$out" "exit 7" "$t a direct connection to the host's loopback fails"
	run egress 'unset http_proxy HTTP_PROXY all_proxy ALL_PROXY; curl -sS -m 5 "http://good.test:$1/x" 2>&1; echo "exit $?"' sh "$port"
	# The sandbox's DNS stub names it (a loopback address of its own), but
	# the relay listens on 80, 443 and the ports the rules name: not this one.
	has "$out" "exit 7" "$t without the proxy variables, a port no rule names reaches nothing"
	is "$(($(conns srv) - before))" 0 "$t the server saw no connection from either"
	is "$(($(conns srv) - before))" 0 "$t the server saw no direct connection"
	run egress 'python3 -c "
import errno, socket
def tcp(port):
    s = socket.socket()
    try:
        s.connect((\"127.0.0.1\", port)); return \"connected\"
    except OSError as e:
        return errno.errorcode[e.errno]
def fam(f):
    try:
        socket.socket(f, socket.SOCK_RAW); return \"made\"
    except OSError as e:
        return errno.errorcode[e.errno]
b = socket.socket()
try:
    b.bind((\"127.0.0.1\", 4000)); bound = \"bound\"
except OSError as e:
    bound = errno.errorcode[e.errno]
print(tcp(3128), tcp(9), bound, fam(socket.AF_NETLINK), fam(socket.AF_PACKET))
"'
	is "$out" "connected EACCES EACCES EAFNOSUPPORT EAFNOSUPPORT" \
		"$t inside: TCP connects to the proxy's port only, binds nothing, no netlink or packet sockets"
	run offline 'env | grep -ci proxy; curl -sS -m 5 "http://good.test:$1/x" > /dev/null 2>&1; echo "exit $?"' sh "$port"
	is "$(echo $out)" "0 exit 6" "$t a preset that allows no host gets no proxy and no variables"

	# ---- a slow or idle client cannot exhaust the proxy -----------------------------------
	run egress 'python3 -c "
import socket, subprocess, sys
idle = [socket.create_connection((\"127.0.0.1\", 3128)) for _ in range(150)]
big = socket.create_connection((\"127.0.0.1\", 3128))
big.sendall(b\"GET http://good.test/ HTTP/1.1\r\n\" + b\"X: \" + b\"y\" * 9000)
print(big.recv(100).split(b\"\r\n\")[0].decode())
r = subprocess.run([\"curl\", \"-sS\", \"-m\", \"10\", \"http://good.test:\" + sys.argv[1] + \"/x\"],
                   capture_output=True, text=True)
print(r.stdout.strip())
" "$1"' sh "$port"
	is "$(echo $out)" "HTTP/1.1 431 Request Header Fields Too Large hello from good.test:$port" \
		"$t 150 idle connections and an endless head: the head is cut off, a request still gets through"

	# ---- the proxy's lifetime -------------------------------------------------------------
	bg egress -- sleep 1
	px=$(proxy_of "$bgpid")
	ok $? "$t the call has its own proxy process ($px)"
	wait "$bgpid"
	dead "$px"
	ok $? "$t and it is gone when the call ends"
	bg egress --timeout 1 -- sleep 30
	px=$(proxy_of "$bgpid")
	wait "$bgpid"
	rc=$?
	[ $rc -eq 124 ] && dead "$px"
	ok $? "$t after a timeout (exit $rc) the proxy is gone"
	bg egress -- sleep 30
	px=$(proxy_of "$bgpid")
	sleep 0.3
	kill -TERM "$bgpid"
	wait "$bgpid"
	dead "$px"
	ok $? "$t after SIGTERM to cordon run the proxy is gone"
	bg egress -- sleep 30
	px=$(proxy_of "$bgpid")
	sleep 0.3
	kill -KILL "$bgpid"
	{ wait "$bgpid"; } 2> /dev/null
	dead "$px"
	ok $? "$t after SIGKILL to cordon run the proxy is gone too"

	# ---- two calls at once, each with its own proxy ---------------------------------------
	U "$C" run -p "$POL" --preset only-a --workspace "$WS" --egress-hosts "$tmpdir/hosts" -- \
		sh -c 'sleep 0.5; curl -sS -m 10 "http://a.test:$1/"; curl -sS -m 10 -o /dev/null -w "%{http_code}\n" "http://b.test:$2/"' \
		sh "$srva_port" "$srvb_port" > "$P/a.out" 2> "$P/a.err" &
	apid=$!
	U "$C" run -p "$POL" --preset only-b --workspace "$WS" --egress-hosts "$tmpdir/hosts" -- \
		sh -c 'sleep 0.5; curl -sS -m 10 "http://b.test:$1/"; curl -sS -m 10 -o /dev/null -w "%{http_code}\n" "http://a.test:$2/"' \
		sh "$srvb_port" "$srva_port" > "$P/b.out" 2> "$P/b.err" &
	bpid=$!
	wait "$apid" "$bpid"
	is "$(cat "$P/a.out" | tr '\n' ' ')" "hello from a.test:$srva_port 403 " \
		"$t two calls at once: the first reaches its host and is refused the other's"
	is "$(cat "$P/b.out" | tr '\n' ' ')" "hello from b.test:$srvb_port 403 " \
		"$t and the second the same the other way round"
	is "$(grep '^cordon: refused' "$P/a.err" | cut -d' ' -f4):$(grep '^cordon: refused' "$P/b.err" | cut -d' ' -f4)" \
		"b.test:$srvb_port::a.test:$srva_port:" "$t each call reports the one host its own proxy refused"
}

# A hosts file the proxy cannot read stops the call before it starts.
printf '127.0.0.1 good.test\nnot-an-address bad.test\n' > "$tmpdir/bad-hosts"
mkdir -p "$tmpdir/bad-ws"
"$cordon_bin" run -p "$POL" --workspace "$tmpdir/bad-ws" --egress-hosts "$tmpdir/bad-hosts" -- \
	touch "$tmpdir/bad-ws/ran" > /dev/null 2> "$errf"
rc=$?
[ $rc -eq 125 ] && [ ! -e "$tmpdir/bad-ws/ran" ] &&
	grep -q "bad-hosts:2: 'not-an-address' is not an IPv4 or IPv6 address" "$errf"
ok $? "a bad --egress-hosts line is refused with its file:line, and nothing runs (exit $rc)"
[ $rc -eq 125 ] || diag < "$errf"

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
