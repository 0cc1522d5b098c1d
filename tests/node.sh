#!/bin/sh
# The Node client (bindings/node) under node's own test runner, against
# the cordon just built: as the user running the suite, and when that is
# root, again as nobody (from a copy nobody can read); each of node's
# top-level results becomes one TAP line here.  Then the package as a host
# gets it: `npm pack` of the tree, `npm install` of the tarball into an
# empty directory, and a program that requires it by name.  Skipped where
# node 18 or later is not installed; the package step where npm is not.
. "$srcdir/tests/lib.sh"

major=$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null)
if [ -z "$major" ] || [ "$major" -lt 18 ]; then
	echo "1..0 # SKIP node 18 or later is not installed"
	exit 0
fi
# The real binary: the client's runs go through cordon run, which valgrind
# cannot follow (it does not know Landlock's system calls).
bin=${CORDON_REAL:-$CORDON}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
helper=$(dirname "$bin")/cordon-exec
pkg=$(cd "$srcdir/bindings/node" && pwd)
chmod 755 "$tmpdir"

# node_pass NAME CORDON TESTDIR [RUNAS...]: node --test, its results as ours.
node_pass() {
	name=$1 cbin=$2 dir=$3
	shift 3
	"$@" env CORDON="$cbin" TMPDIR="$tmpdir/$name-tmp" \
		node --test --test-reporter=tap "$dir/" > "$tmpdir/$name.tap" 2>&1
	rc=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "[$name] ${line#ok * - }" ;;
		"not ok "*) ok 1 "[$name] ${line#not ok * - }" ;;
		*) continue ;;
		esac
		n=$((n + 1))
	done < "$tmpdir/$name.tap"
	[ "$rc" -eq 0 ] && [ "$n" -gt 20 ]
	ok $? "[$name] node --test ran $n tests and passed"
	[ "$rc" -eq 0 ] || diag < "$tmpdir/$name.tap"
}

mkdir -p "$tmpdir/self-tmp"
node_pass self "$bin" "$pkg/test"

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	# The tree the tests read (their policy, the schema), cordon and its
	# helper, all nobody's.
	N=$tmpdir/nobody
	mkdir -p "$N/tree/bindings" "$N/tree/tests/hook" "$N/tree/docs" "$N/build" "$N/home" \
		"$tmpdir/nobody-tmp"
	cp -R "$pkg" "$N/tree/bindings/node"
	cp "$srcdir/tests/hook/policy.cordon" "$N/tree/tests/hook/"
	cp "$srcdir/docs/decision.schema.json" "$N/tree/docs/"
	cp "$bin" "$helper" "$N/build/"
	chown -R 65534:65534 "$N" "$tmpdir/nobody-tmp"
	node_pass nobody "$N/build/cordon" "$N/tree/bindings/node/test" \
		setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME="$N/home"
fi

# ---- the package, installed as a host installs it ----------------------------------
if ! command -v npm > /dev/null; then
	skip "npm pack, npm install and use of the tarball" "npm is not installed"
	done_testing
	exit
fi
export npm_config_cache="$tmpdir/npm-cache" npm_config_update_notifier=false
mkdir -p "$tmpdir/dist" "$tmpdir/app"
# From a copy: the source tree may be read-only (make distcheck).
cp -R "$pkg" "$tmpdir/pkg"
tarball=$(cd "$tmpdir/pkg" && npm pack --silent --pack-destination "$tmpdir/dist" 2> "$tmpdir/err" | tail -1)
[ -f "$tmpdir/dist/$tarball" ]
ok $? "npm pack makes a tarball of bindings/node ($tarball)"
diag < "$tmpdir/err"
tar -tzf "$tmpdir/dist/$tarball" | sort > "$tmpdir/files"
is "$(tr '\n' ' ' < "$tmpdir/files")" \
	"package/README.md package/index.d.ts package/index.js package/package.json " \
	"the tarball holds the client, its types, its README and package.json alone"
(cd "$tmpdir/app" && npm init -y > /dev/null 2>&1 &&
	npm install --offline --no-audit --no-fund --silent "$tmpdir/dist/$tarball") > "$tmpdir/err" 2>&1
ok $? "npm install of the tarball into an empty project"
diag < "$tmpdir/err"

cat > "$tmpdir/app/host.js" << 'EOF_JS'
// A host: requires the package by its name, as its README says.
const { Cordon, DeniedError, PolicyError } = require('cordon-client');
const [bin, policy, ws, home, sandbox] = process.argv.slice(2);
(async () => {
  const c = new Cordon({ bin, policy, preset: 'agent', context: { workspace: ws, cwd: ws, home } });
  const d = await c.decide({ op: 'read', target: `${home}/.ssh/id_ed25519` });
  console.log(`decide ${d.decision}`);
  if (sandbox === 'yes') {
    const r = await c.run(['sh', '-c', 'echo hello'], { workspace: ws, cwd: ws });
    console.log(`run ${r.status} ${r.stdout.trim()}`);
    await c.run('git push origin main', { workspace: ws, cwd: ws })
      .then(() => console.log('push ran'), (e) => console.log(`push ${e instanceof DeniedError ? 'denied' : e.name}`));
  }
  await new Cordon({ bin, policy: `${ws}/missing-dir/p.cordon` }).decide({ op: 'read', target: '/' })
    .then(() => console.log('missing policy allowed'), (e) => console.log(`missing policy ${e.name}`));
  c.close();
})().catch((e) => { console.log(`failed: ${e.stack}`); process.exit(1); });
EOF_JS
mkdir -p "$tmpdir/app/ws" "$tmpdir/app/home/.ssh"
sandbox=no want="decide deny
missing policy UsageError"
if "$bin" probe > /dev/null 2>&1; then
	sandbox=yes want="decide deny
run 0 hello
push denied
missing policy UsageError"
fi
got=$(cd "$tmpdir/app" && node host.js "$bin" "$srcdir/tests/hook/policy.cordon" \
	"$tmpdir/app/ws" "$tmpdir/app/home" "$sandbox" 2>&1)
is "$got" "$want" "a program that requires the installed package decides and runs (sandbox: $sandbox)"
[ -f "$tmpdir/app/node_modules/cordon-client/index.d.ts" ]
ok $? "the installed package has its types"

done_testing
