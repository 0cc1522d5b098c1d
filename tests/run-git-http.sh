#!/bin/sh
# git over smart HTTP under `cordon run`, with the real git on both ends, as
# root and again as an unprivileged user (nobody).  The forge is git's own
# http-backend behind a small server on the host's 127.0.0.1, named
# forge.test through --egress-hosts; a second one, other.test, is a host
# the policy does not name.  The test's preset extends workspace-write with
# the forge's host and makes pushes ask, so an administrator's "fetches run,
# pushes ask" is what is tried.  Every command is given as an argv, so the
# analysis reads where git goes (the URL, or the remote in .git/config):
# - git clone, git fetch and git pull from the forge run without a prompt;
# - git push asks (exit 122, nothing reaches the forge), and runs with
#   --approved: the forge then has the commit;
# - git push --force is denied (121) before anything runs;
# - a fetch from other.test is denied before the run, by the host's rule;
# - the same fetch from a script, which the analysis cannot read, is
#   refused by the egress proxy, and cordon's report names the host and
#   the rule;
# - make, git add and git commit in the clone run without a prompt.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

passes=$(runner_passes)
backend=$(git --exec-path 2> /dev/null)/git-http-backend
for prog in /usr/bin/python3 /usr/bin/git "$backend"; do
	if [ ! -x "$prog" ]; then
		skip "git over smart HTTP under cordon run" "no $prog here"
		done_testing
		exit
	fi
done
skip_unless_sandbox "$cordon_bin" "git over smart HTTP under cordon run"

# The forge: git http-backend as a CGI program, every request logged.
cat > "$tmpdir/forge.py" << 'EOF'
import http.server, os, subprocess, sys
root, backend, port_file, log = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def cgi(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
        path, _, query = self.path.partition("?")
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        env = {"GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": path, "QUERY_STRING": query,
               "REQUEST_METHOD": self.command, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "PATH": "/usr/bin:/bin"}
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run([backend], input=body, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            k, _, v = line.decode().partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)
    do_GET = cgi
    do_POST = cgi
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(port_file + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
EOF

# A bare repository with one commit, open to anonymous pushes.
F=$tmpdir/forge
mkdir -p "$F"
git init -q --bare -b main "$F/r.git"
git -C "$F/r.git" config http.receivepack true
git init -q -b main "$tmpdir/seed"
echo 'all:; @echo built > built' > "$tmpdir/seed/Makefile"
git -C "$tmpdir/seed" add Makefile
git -C "$tmpdir/seed" -c user.name=t -c user.email=t@t commit -q -m seed
git -C "$tmpdir/seed" push -q "$F/r.git" main
chmod -R a+rwX "$F"

: > "$tmpdir/forge.log"
/usr/bin/python3 "$tmpdir/forge.py" "$F" "$backend" "$tmpdir/forge.port" "$tmpdir/forge.log" &
forge_pid=$!
at_exit 'kill $forge_pid 2> /dev/null'
port=$(port_of "$tmpdir/forge.port")
url=http://forge.test:$port/r.git

cat > "$tmpdir/forge.cordon" << EOF
cordon 1;
include "default.cordon";
preset "forge" extends "workspace-write" {
  description "workspace-write, plus the team's forge; pushes ask";
  net "forge.test:$port" allow;
  exec "git push" ask "pushes leave the machine: a person says yes";
}
EOF
# other.test is the same server: only the policy tells the two apart.
printf '127.0.0.1 forge.test other.test\n' > "$tmpdir/hosts"
# The fetch the analysis cannot see: git inside a script.
printf 'cd "$1" && git fetch "http://other.test:%s/r.git"\n' "$port" > "$tmpdir/hidden.sh"
chmod 644 "$tmpdir/forge.cordon" "$tmpdir/hosts" "$tmpdir/hidden.sh"

pass() { # pass NAME
	runner_pass "$1"
	H=$P/home WS=$P/ws
	mkdir -p "$H" "$WS"
	cp "$srcdir/rules/default.cordon" "$srcdir/rules/commands.cordon" \
		"$srcdir/rules/redact.cordon" "$tmpdir/forge.cordon" "$P/"
	printf '[user]\n\tname = T\n\temail = t@t\n' > "$H/.gitconfig"
	runner_own "$P"
	errf=$P/stderr
	# call [--cwd DIR] [--approved] ARGV...: the command under the test's preset.
	call() {
		cwd=$WS
		if [ "$1" = --cwd ]; then
			cwd=$2
			shift 2
		fi
		$AS timeout -s KILL 120 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
			"$P/build/cordon" run -p "$P/forge.cordon" --preset forge \
			--workspace "$WS" --cwd "$cwd" --egress-hosts "$tmpdir/hosts" "$@" \
			> "$P/out" 2> "$errf" < /dev/null
		rc=$?
	}
	pushes() { grep -c '^POST /r.git/git-receive-pack' "$tmpdir/forge.log"; }

	call -- git clone -q "$url" clone
	[ $rc -eq 0 ] || diag < "$errf"
	[ $rc -eq 0 ] && [ -f "$WS/clone/Makefile" ]
	ok $? "$t git clone from the forge runs without a prompt (status $rc)"
	call --cwd "$WS/clone" -- git fetch -q
	[ $rc -eq 0 ] || diag < "$errf"
	is "$rc" 0 "$t git fetch, the remote read from .git/config, runs"
	call --cwd "$WS/clone" -- git pull -q --ff-only
	is "$rc" 0 "$t git pull runs"

	call --cwd "$WS/clone" -- make
	[ $rc -eq 0 ] && [ "$(cat "$WS/clone/built" 2> /dev/null)" = built ]
	ok $? "$t make runs without a prompt (status $rc)"
	echo "$name" > "$WS/clone/$name.txt"
	call --cwd "$WS/clone" -- git add "$name.txt"
	is "$rc" 0 "$t git add runs without a prompt"
	call --cwd "$WS/clone" -- git commit -q -m "from $name"
	[ $rc -eq 0 ] || diag < "$errf"
	is "$rc" 0 "$t git commit runs without a prompt"

	before=$(pushes)
	call --cwd "$WS/clone" -- git push -q origin main
	[ $rc -eq $RUN_ASK ] && grep -q 'pushes leave the machine' "$errf" && [ "$(pushes)" = "$before" ]
	ok $? "$t git push asks (status $rc), with the policy's reason, and nothing reaches the forge"
	call --cwd "$WS/clone" --approved -- git push -q origin main
	[ $rc -eq 0 ] || diag < "$errf"
	[ $rc -eq 0 ] && git -C "$F/r.git" log --format=%s main | grep -qx "from $name"
	ok $? "$t approved, the push runs and the forge has the commit (status $rc)"

	before=$(pushes)
	call --cwd "$WS/clone" --approved -- git push -q --force origin main
	[ $rc -eq $RUN_DENIED ] && grep -q 'force pushes rewrite shared history' "$errf" &&
		[ "$(pushes)" = "$before" ]
	ok $? "$t git push --force is denied even when a person would approve (status $rc)"

	call --cwd "$WS/clone" -- git fetch -q "http://other.test:$port/r.git"
	[ $rc -eq $RUN_DENIED ] && grep -q 'other.test' "$errf"
	ok $? "$t a fetch from a host the policy does not name is denied before the run (status $rc)"

	before=$(grep -c . "$tmpdir/forge.log")
	call -- sh "$tmpdir/hidden.sh" "$WS/clone"
	[ $rc -ne 0 ] && grep -q "^cordon: .*other.test:$port" "$errf" &&
		grep -q 'no rule of this preset allows this host' "$errf" &&
		[ "$(grep -c . "$tmpdir/forge.log")" = "$before" ]
	ok $? "$t the same fetch from a script is refused by the proxy, which names the host and the rule (status $rc)"
	[ $rc -ne 0 ] || diag < "$errf"
}

for p in $passes; do
	pass "$p"
done
done_testing
