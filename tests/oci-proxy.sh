#!/bin/sh
# `cordon proxy` as the only way out of a container run by crun from the
# preset's own OCI config.  The test makes a network namespace with only
# its loopback, and in it the listener 127.0.0.1:3128, which it hands to
# `cordon proxy --listen fd:N` running outside it (tests/oci/handoff.py):
# the proxy's contacts leave from the test's namespace, where the upstream
# server is, and the container, its config's network namespace that one
# (linux.namespaces path), reaches the proxy and nothing else.  A host the
# preset allows is reached through it; one the preset denies gets a 403,
# told on the proxy's stderr with the rule and audited; the upstream
# server, straight and not through the proxy, is not there at all.  As
# root (the container as nobody) and as nobody (crun rootless, joining the
# user namespace that owns the network namespace nobody made, its user
# that namespace's root: nobody on the host, without capabilities).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
for tool in crun curl python3 ip unshare setpriv; do
	if ! command -v $tool > /dev/null; then
		skip "cordon proxy for a crun container" "no $tool here"
		done_testing
		exit
	fi
done
skip_unless_sandbox "$cordon_bin" "cordon proxy for a crun container"
chmod 755 "$tmpdir"
crun=$(command -v crun)

cat > "$tmpdir/p.cordon" << 'EOF'
cordon 1;
preset "web" {
  sandbox required;
  read "/**" allow;
  exec "*" allow;
  net "*" deny "only the named hosts";
  net "good.test" allow;
}
default "web";
EOF
printf '127.0.0.1 good.test bad.test\n' > "$tmpdir/hosts"

# What runs in the container: one line a check.
cat > "$tmpdir/check.sh" << 'EOF'
port=$1
echo "allowed=$(curl -sS -m 20 "http://good.test:$port/x" 2>&1)"
echo "denied=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' "http://bad.test:$port/x" 2>&1)"
if curl -sS -m 5 --noproxy '*' "http://127.0.0.1:$port/x" > /dev/null 2>&1; then
	echo "straight=reached"
else
	echo "straight=refused"
fi
EOF
chmod 644 "$tmpdir/check.sh" "$tmpdir/p.cordon" "$tmpdir/hosts"

egress_server_start
at_exit 'kill $server $proxy $holder 2> /dev/null'
# The straight check is not blind: from the test's own namespace the
# server is reached without any proxy.
curl -sS -m 20 --noproxy '*' "http://127.0.0.1:$port/x" > /dev/null 2>&1
ok $? "the server is reached straight from outside the container's namespace"

# As in tests/oci.sh: crun refuses a hybrid cgroup hierarchy whose v2 part
# has controllers; without its cgroup manager it runs where that part is
# hidden.
hybrid=false
if [ "$(stat -f -c %T /sys/fs/cgroup 2> /dev/null)" = tmpfs ] &&
	grep -q . /sys/fs/cgroup/unified/cgroup.controllers 2> /dev/null; then
	hybrid=true
fi
crun_run() { # crun_run T: run the bundle T/bundle as the pass's user
	set -- $as env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$1/crun" "$crun" --root "$1/crun" \
		--cgroup-manager=disabled run -b "$1/bundle" "cordon-proxy-$$-$(basename "$1")"
	if $hybrid; then
		unshare -m sh -c 'umount /sys/fs/cgroup/unified && exec "$@"' sh "$@"
	else
		"$@"
	fi
}

ran=0
for pass in $(runner_passes); do
	T=$tmpdir/$pass
	mkdir -p "$T/ws" "$T/call" "$T/bundle/rootfs" "$T/crun" "$T/build"
	: > "$T/call.mask"
	cp "$cordon_bin" "${cordon_bin%/*}/cordon-exec" "$srcdir/tests/oci/handoff.py" "$T/build/"
	chmod 755 "$T" "$T/build" "$T/build/cordon" "$T/build/cordon-exec"
	as= py=python3
	# The namespace the container joins: root makes a network namespace;
	# nobody a user namespace with the network namespace it owns, which
	# crun rootless joins too (it may enter only a network namespace of a
	# user namespace it is in).  crun must be root there, and nobody can
	# map its own id alone: the container's user is that namespace's root
	# (nobody on the host) without capabilities, not nobody.
	holder_ns="unshare -n"
	[ "$pass" = root ] || holder_ns="unshare --map-root-user -n"
	if [ "$pass" = nobody ]; then
		as="setpriv --reuid nobody --regid nogroup --clear-groups"
		# A python3 nobody can run (root's may be in a directory of its own).
		py=/usr/bin/python3
		chown -R nobody:nogroup "$T"
	fi
	if $hybrid && [ "$(id -u)" -ne 0 ]; then
		skip "$pass: crun" "crun refuses this host's hybrid cgroup hierarchy, and only root can hide it"
		continue
	fi

	mkfifo "$T/hold"
	[ "$pass" = nobody ] && chown nobody:nogroup "$T/hold"
	# From the pass's own directory, its workspace: the build tree may be
	# closed to nobody.
	(cd "$T" && exec $as env HOME="$T" $py "$T/build/handoff.py" recv "$T/handoff.sock" \
		"$T/build/cordon" proxy -p "$tmpdir/p.cordon" --listen 'fd:{fd}' \
		--egress-hosts "$tmpdir/hosts" --audit "$T/audit.log") 2> "$T/proxy.err" &
	proxy=$!
	n=0
	while [ ! -S "$T/handoff.sock" ] && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	$as $holder_ns sh -c 'ip link set lo up && exec "$1" "$2" send "$3" 127.0.0.1 3128' sh \
		"$(command -v $py)" "$T/build/handoff.py" "$T/handoff.sock" < "$T/hold" 2> "$T/holder.err" &
	holder=$!
	exec 9> "$T/hold"
	n=0
	while ! grep -q listening "$T/proxy.err" && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	grep -q '^cordon: proxy: listening on 127\.0\.0\.1:3128 (fd [0-9]*)' "$T/proxy.err"
	ok $? "$pass: cordon proxy serves the listener made in the container's namespace"
	diag < "$T/proxy.err"
	diag < "$T/holder.err"

	(cd "$T/ws" && $as env -i PATH=/usr/bin:/bin HOME="$T" LANG=C.UTF-8 "$T/build/cordon" compile \
		-p "$tmpdir/p.cordon" --emit oci --context workspace="$T/ws" --context cwd="$T/ws" \
		--context home="$T" --context tmp="$T/call") > "$T/bundle/config.orig" 2> "$T/err"
	ok $? "$pass: the preset's OCI config"
	python3 - "$T/bundle/config.orig" "$T/bundle/config.json" "$tmpdir/check.sh" "$port" \
		"/proc/$holder/ns" "$pass" << 'EOF'
import json, sys
orig, out, check, port, ns, who = sys.argv[1:7]
c = json.load(open(orig))
c["process"]["args"] = ["/bin/sh", check, port]
c["process"]["env"] += ["http_proxy=http://127.0.0.1:3128"]
linux = c["linux"]
for n in linux["namespaces"]:
    if n["type"] == "network" or (n["type"] == "user" and who != "root"):
        n["path"] = "%s/%s" % (ns, "net" if n["type"] == "network" else "user")
if who != "root":
    linux.pop("uidMappings", None)
    linux.pop("gidMappings", None)
    c["process"]["user"] = {"uid": 0, "gid": 0}
json.dump(c, open(out, "w"))
EOF
	ok $? "$pass: the bundle, joined to that namespace"
	[ "$pass" = nobody ] && chown -R nobody:nogroup "$T/bundle"

	crun_run "$T" > "$T/crun.out" 2> "$T/crun.err"
	ran=$((ran + 1))
	ok $? "$pass: crun ran the checks"
	diag < "$T/crun.err"
	is "$(sed -n 's/^allowed=//p' "$T/crun.out")" "hello from good.test:$port" \
		"$pass: the allowed host is reached through the proxy"
	is "$(sed -n 's/^denied=//p' "$T/crun.out")" 403 "$pass: the denied host gets 403"
	is "$(sed -n 's/^straight=//p' "$T/crun.out")" refused \
		"$pass: the server is not reached straight, without the proxy"
	n=0
	while ! grep -q refused "$T/proxy.err" && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	grep -q "^cordon: proxy: refused bad.test:$port by $tmpdir/p.cordon:6:3: only the named hosts" \
		"$T/proxy.err"
	ok $? "$pass: the refusal is told with its rule"
	python3 - "$T/audit.log" << 'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
seen = {(r["target"].split(":")[0], r["decision"]) for r in recs if r["op"] == "net"}
sys.exit(0 if {("good.test", "allow"), ("bad.test", "deny")} <= seen else 1)
EOF
	ok $? "$pass: both contacts are audited with their decisions"

	exec 9>&-
	kill $proxy 2> /dev/null
	wait $proxy $holder 2> /dev/null
done
is "$(grep -c . "$tmpdir/srv.log")" "$((1 + ran))" \
	"the server saw the straight request and the allowed ones alone, one a pass"
done_testing
