#!/bin/sh
# Package managers under `cordon run`, with the real npm and pip, as root
# and again as an unprivileged user (nobody).  The shipped workspace-write
# preset points their caches at a directory of the workspace's own outside
# it (let workspace_caches in rules/default.cordon), which the runner makes
# when the call starts; a preset of the test's extends it with the two
# registries it serves on the host's 127.0.0.1 (a minimal npm registry and
# a PEP 503 simple index, built here: nothing leaves the machine), reached
# through the call's egress proxy with --egress-hosts.
# - npm install PKG succeeds, writes node_modules in the workspace and the
#   workspace's npm cache; npm ci from the lockfile succeeds again and
#   takes the tarball from that cache;
# - pip install PKG into a venv in the workspace succeeds, and fills the
#   workspace's pip cache;
# - the host's own caches (~/.npm, ~/.cache/pip) are not written, and
#   neither is another workspace's;
# - from inside, the credentials and configuration beside the caches
#   (~/.npmrc, ~/.yarnrc.yml, ~/.cargo/credentials.toml,
#   ~/.cargo/config.toml, ~/.m2/settings.xml, ~/.gradle/gradle.properties,
#   ~/.config/pip/pip.conf, ~/.pip/pip.conf) cannot be written.
# npm and pip are called as an agent would call them, by argv: the analysis
# reads --registry and --index-url and predicts the test's registries, so
# each call is decided before it runs and then bounded by the sandbox.  The
# writes to what lies beside the caches are made from a script, which the
# analysis cannot read: every refusal checked there is the sandbox's.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

passes=$(runner_passes)
for prog in /usr/bin/python3 /usr/bin/npm; do
	if [ ! -x "$prog" ]; then
		skip "package managers under cordon run" "no $prog here"
		done_testing
		exit
	fi
done
if ! /usr/bin/python3 -c 'import venv, ensurepip' 2> /dev/null; then
	skip "package managers under cordon run" "python3 has no venv or ensurepip here"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "package managers under cordon run"

# What the registries serve, built here.
R=$tmpdir/registry
mkdir -p "$R/pkg/package" "$R/pypi/simple/cordon-probe" "$R/pypi/packages"
cat > "$R/pkg/package/package.json" << 'EOF'
{"name": "cordon-probe", "version": "1.0.0", "main": "index.js", "license": "MIT"}
EOF
echo 'module.exports = "probe";' > "$R/pkg/package/index.js"
(cd "$R/pkg" && tar -czf "$R/cordon-probe-1.0.0.tgz" package)
/usr/bin/python3 - "$R" << 'EOF'
import base64, hashlib, os, sys, zipfile
r = sys.argv[1]
# A pure-Python wheel, written by hand: no build backend to download.
name, ver = "cordon_probe", "1.0"
files = {
    "cordon_probe.py": "VALUE = 'probe'\n",
    "%s-%s.dist-info/METADATA" % (name, ver): "Metadata-Version: 2.1\nName: cordon-probe\nVersion: 1.0\n",
    "%s-%s.dist-info/WHEEL" % (name, ver): "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "%s-%s.dist-info/RECORD" % (name, ver)
lines = []
for f, text in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    lines.append("%s,sha256=%s,%d" % (f, d, len(text)))
lines.append(record + ",,")
whl = "%s-%s-py3-none-any.whl" % (name, ver)
with zipfile.ZipFile(os.path.join(r, "pypi", "packages", whl), "w") as z:
    for f, text in files.items():
        z.writestr(f, text)
    z.writestr(record, "\n".join(lines) + "\n")
digest = hashlib.sha256(open(os.path.join(r, "pypi", "packages", whl), "rb").read()).hexdigest()
with open(os.path.join(r, "pypi", "simple", "cordon-probe", "index.html"), "w") as f:
    f.write('<!DOCTYPE html><html><body><a href="../../packages/%s#sha256=%s">%s</a></body></html>\n'
            % (whl, digest, whl))
with open(os.path.join(r, "pypi", "simple", "index.html"), "w") as f:
    f.write('<!DOCTYPE html><html><body><a href="cordon-probe/">cordon-probe</a></body></html>\n')
EOF

# The npm registry: the packument of cordon-probe, with the tarball's
# sha512 integrity and its URL on this server, and the tarball; every
# request logged.  The PEP 503 index is a directory served by Python's
# http.server, with the Cache-Control PyPI sends (pip caches only what a
# server lets it).
cat > "$tmpdir/npm-registry.py" << 'EOF'
import base64, hashlib, http.server, json, os, sys
tgz_path, port_file, log = sys.argv[1:4]
tgz = open(tgz_path, "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.path + "\n")
        port = self.server.server_address[1]
        if self.path.split("?")[0] == "/cordon-probe":
            url = "http://registry.test:%d/cordon-probe/-/cordon-probe-1.0.0.tgz" % port
            integrity = "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
            body = json.dumps({
                "name": "cordon-probe", "dist-tags": {"latest": "1.0.0"},
                "versions": {"1.0.0": {
                    "name": "cordon-probe", "version": "1.0.0", "main": "index.js",
                    "dist": {"tarball": url, "integrity": integrity,
                             "shasum": hashlib.sha1(tgz).hexdigest()}}}}).encode()
            kind = "application/json"
        elif self.path == "/cordon-probe/-/cordon-probe-1.0.0.tgz":
            body, kind = tgz, "application/octet-stream"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(port_file + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
EOF
: > "$tmpdir/npm.log"
/usr/bin/python3 "$tmpdir/npm-registry.py" "$R/cordon-probe-1.0.0.tgz" "$tmpdir/npm.port" \
	"$tmpdir/npm.log" &
npm_pid=$!
cat > "$tmpdir/pypi-index.py" << 'EOF'
import functools, http.server, os, sys
root, port_file = sys.argv[1:3]
class H(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cache-Control", "max-age=365000000, immutable, public")
        super().end_headers()
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=root))
with open(port_file + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
EOF
/usr/bin/python3 "$tmpdir/pypi-index.py" "$R/pypi" "$tmpdir/pypi.port" &
pypi_pid=$!
at_exit 'kill $npm_pid $pypi_pid 2> /dev/null'
npm_port=$(port_of "$tmpdir/npm.port")
pypi_port=$(port_of "$tmpdir/pypi.port")

cat > "$tmpdir/registries.cordon" << EOF
cordon 1;
include "default.cordon";
preset "registries" extends "workspace-write" {
  description "workspace-write, plus the test's registries";
  net "registry.test:$npm_port" allow;
  net "pypi.test:$pypi_port" allow;
}
EOF
printf '127.0.0.1 registry.test pypi.test\n' > "$tmpdir/hosts"
chmod -R a+rX "$tmpdir/registries.cordon" "$tmpdir/hosts" "$R"

# The attack: append to each path given, relative to the home directory
# (making its directory), report what was written.
cat > "$tmpdir/plant.sh" << 'EOF'
cd "$HOME" || exit 9
st=0
for f in "$@"; do
	if echo planted >> "$f"; then echo "WROTE $f"; else st=1; fi
done
exit $st
EOF
chmod 644 "$tmpdir/plant.sh"

pass() { # pass NAME
	runner_pass "$1"
	H=$P/home WS=$P/ws
	mkdir -p "$H" "$WS"
	cp "$srcdir/rules/default.cordon" "$srcdir/rules/commands.cordon" \
		"$srcdir/rules/redact.cordon" "$tmpdir/registries.cordon" "$P/"
	runner_own "$P"
	C=$H/.cache/cordon/workspaces$WS/caches
	errf=$P/stderr
	# call ARGV...: the command inside, in the workspace, under the test's preset.
	call() {
		$AS timeout -s KILL 120 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
			"$P/build/cordon" run -p "$P/registries.cordon" --preset registries \
			--workspace "$WS" --egress-hosts "$tmpdir/hosts" -- \
			"$@" > "$P/out" 2> "$errf" < /dev/null
		rc=$?
	}
	npm_reg=http://registry.test:$npm_port/

	call npm install cordon-probe --registry "$npm_reg" --no-audit --no-fund
	[ $rc -eq 0 ] || diag < "$errf"
	[ $rc -eq 0 ] && [ "$(cat "$WS/node_modules/cordon-probe/index.js" 2> /dev/null)" = \
		'module.exports = "probe";' ] && [ -s "$WS/package-lock.json" ]
	ok $? "$t npm install from the test's registry succeeds and writes node_modules and the lockfile in the workspace (status $rc)"
	[ -n "$(find "$C/npm/_cacache/content-v2" -type f 2> /dev/null)" ]
	ok $? "$t … and its tarball is in the workspace's npm cache, outside the workspace"
	grep -c 'cordon-probe-1.0.0.tgz' "$tmpdir/npm.log" > "$P/tgz-before"
	rm -rf "$WS/node_modules"
	call npm ci --registry "$npm_reg" --no-audit --no-fund
	[ $rc -eq 0 ] || diag < "$errf"
	[ $rc -eq 0 ] && [ -f "$WS/node_modules/cordon-probe/index.js" ]
	ok $? "$t npm ci from the lockfile succeeds again (status $rc)"
	is "$(grep -c 'cordon-probe-1.0.0.tgz' "$tmpdir/npm.log")" "$(cat "$P/tgz-before")" \
		"$t … taking the tarball from the workspace's cache: the registry served it no second time"
	[ ! -e "$H/.npm" ]
	ok $? "$t … and the host's own ~/.npm was not made"

	call /usr/bin/python3 -m venv .venv
	[ $rc -eq 0 ] || diag < "$errf"
	call .venv/bin/python -m pip install --disable-pip-version-check \
		--index-url "http://pypi.test:$pypi_port/simple/" --trusted-host pypi.test cordon-probe
	[ $rc -eq 0 ] || diag < "$errf"
	call .venv/bin/python -c 'import cordon_probe; print(cordon_probe.VALUE)'
	is "$(tail -n 1 "$P/out")" probe \
		"$t pip install from the test's simple index into a venv in the workspace succeeds (status $rc)"
	[ -n "$(find "$C/pip" -type f 2> /dev/null)" ] && [ ! -e "$H/.cache/pip" ]
	ok $? "$t … the workspace's pip cache was written, the host's ~/.cache/pip was not"

	# The host's caches and another workspace's, and the directories of
	# the files beside them, made beforehand as the user would have them.
	other=.cache/cordon/workspaces$P/other/caches/npm/_cacache/index
	for d in .npm/_cacache .cache/pip/wheels .cargo/registry .m2/repository .gradle/caches \
		.config/pip .pip "$(dirname "$other")"; do
		mkdir -p "$H/$d"
	done
	runner_own "$H"
	creds=".npmrc .yarnrc.yml .cargo/credentials.toml .cargo/config.toml .m2/settings.xml
		.gradle/gradle.properties .config/pip/pip.conf .pip/pip.conf"
	# shellcheck disable=SC2086
	call sh "$tmpdir/plant.sh" $creds .npm/_cacache/index .cache/pip/wheels/x.whl \
		.cargo/registry/x .m2/repository/x.jar .gradle/caches/x "$other"
	is "$(cat "$P/out")" "" \
		"$t from inside, no credential or configuration beside the caches is written (~/.npmrc, ~/.yarnrc.yml, cargo's credentials and config, ~/.m2/settings.xml, gradle.properties, pip.conf), nor the host's caches, nor another workspace's (status $rc)"
	refused_by sandbox "$rc" "$errf" 'Read-only file system' &&
		[ "$(grep -c 'Read-only file system' "$errf")" -eq 14 ]
	ok $? "$t … each of the 14 refused by the sandbox: read-only file system"
	[ "$(grep -c 'Read-only file system' "$errf")" -eq 14 ] || diag < "$errf"
	# shellcheck disable=SC2086
	(cd "$H" && for f in $creds; do [ -e "$f" ] && echo "$f"; done) > "$P/found"
	is "$(cat "$P/found")" "" "$t … and none of them exists on the host"
}

for p in $passes; do
	pass "$p"
done
done_testing
