#!/bin/sh
# Signed policy bundles (docs/fleet.md, "Signed bundles"), signed with the
# real ssh-keygen: cordon bundle create writes one and its manifest, verify
# takes a good one (ed25519, RSA) and refuses a tampered source, a
# tampered manifest, no signature, an expired bundle, another namespace,
# an untrusted key, a key restricted to other namespaces, an include the
# manifest does not list and a malformed keys file, each with its reason.
# Installed (a private mount namespace puts SYSCONFDIR/cordon on a tmpfs,
# the machine's untouched), a good bundle is the managed layer and decides,
# and each bad one, and a rollback below the recorded version, fails
# closed: cordon eval exits 1 without a decision, cordon run exits 125
# without running the command and cordon hook blocks the call, each naming
# the reason, as root and as nobody.
# A refused install leaves the installed bundle in place.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"
if ! command -v ssh-keygen > /dev/null; then
	skip "signed bundles" "no ssh-keygen here (Debian: openssh-client)"
	done_testing
	exit
fi

K=$tmpdir/keys
B=$tmpdir/b
mkdir -p "$K" "$B"
for k in admin other; do
	ssh-keygen -q -t ed25519 -N '' -C "$k" -f "$K/$k" || echo "Bail out! ssh-keygen"
done
ssh-keygen -q -t rsa -b 2048 -N '' -C rsa -f "$K/rsa"
key() { cut -d' ' -f1,2 "$K/$1.pub"; }
{
	echo '# who may sign the policy of this machine'
	echo "admin@example.com $(key admin)"
	echo "rsa@example.com namespaces=\"cordon-policy,file\" $(key rsa)"
} > "$K/allowed_signers"
printf 'git@example.com namespaces="git" %s\n' "$(key other)" > "$K/git_only"
chmod 755 "$K"
chmod 644 "$K/allowed_signers"

# sign DIR [NAMESPACE] [KEY]
sign() {
	rm -f "$1/manifest.sig"
	ssh-keygen -q -Y sign -n "${2:-cordon-policy}" -f "$K/${3:-admin}" "$1/manifest" < /dev/null
}
verify() { # verify DIR [KEYS]: the status, stderr in $tmpdir/err
	"$CORDON" bundle verify --keys "${2:-$K/allowed_signers}" "$1" > "$tmpdir/out" \
		2> "$tmpdir/err"
}

cat > "$tmpdir/managed.cordon" << 'EOF'
cordon 1;
include "team.cordon";

preset "workspace-write" {
  description "the fleet's";
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  write "/etc" deny "system files";
  write "/**" ask;
  net "*" deny;
  exec "*" allow;
}
default "workspace-write";
EOF
printf 'cordon 1;\nlet team_dirs = "/srv/team";\n' > "$tmpdir/team.cordon"

# ---- create --------------------------------------------------------------------

"$CORDON" bundle create -o "$B/good" --version 3 --expires 2099-01-01 \
	"$tmpdir/managed.cordon" "$tmpdir/team.cordon" > "$tmpdir/out" 2> "$tmpdir/err"
is "$?" 0 "create writes a bundle"
grep -q 'ssh-keygen -Y sign -n cordon-policy -f KEY' "$tmpdir/out"
ok $? "... and says how to sign it"
want="cordon-bundle 1
version 3
expires 2099-01-01T00:00:00Z
source $(sha256sum < "$tmpdir/managed.cordon" | cut -c1-64) managed.cordon
source $(sha256sum < "$tmpdir/team.cordon" | cut -c1-64) team.cordon"
is "$(cat "$B/good/manifest")" "$want" "the manifest: version, expiry and each source's SHA-256"
cmp -s "$B/good/team.cordon" "$tmpdir/team.cordon"
ok $? "... and the sources beside it"

"$CORDON" bundle create -o "$B/good" --version 3 "$tmpdir/managed.cordon" 2> "$tmpdir/err"
is "$?" 2 "create refuses a directory that exists"
"$CORDON" bundle create -o "$B/x" --version 0 "$tmpdir/managed.cordon" 2> /dev/null
is "$?" 2 "create refuses version 0"
"$CORDON" bundle create -o "$B/x" --version 1 --expires 2099-02-30 \
	"$tmpdir/managed.cordon" 2> /dev/null
is "$?" 2 "create refuses a date that does not exist"
"$CORDON" bundle create -o "$B/x" --version 1 --expires 2001-01-01 \
	"$tmpdir/managed.cordon" 2> "$tmpdir/err"
is "$?" 2 "create refuses an expiry already past"
cp "$tmpdir/team.cordon" "$tmpdir/manifest"
"$CORDON" bundle create -o "$B/x" --version 1 "$tmpdir/managed.cordon" "$tmpdir/manifest" \
	2> "$tmpdir/err"
is "$?" 2 "create refuses a source named like the manifest"
"$CORDON" bundle create -o "$B/lone" --version 1 "$tmpdir/managed.cordon" 2> "$tmpdir/err"
is "$?" 1 "create refuses a policy whose include is left out of the bundle"
grep -q "cannot include 'team.cordon'\|team.cordon.*No such file" "$tmpdir/err"
ok $? "... naming the include"
"$CORDON" bundle install 2> /dev/null
is "$?" 2 "install without a bundle is a usage error"
"$CORDON" bundle create --keys x -o "$B/x" --version 1 "$tmpdir/managed.cordon" 2> "$tmpdir/err"
is "$?" 2 "--keys belongs to verify, not to create"

# ---- verify --------------------------------------------------------------------

verify "$B/good"
is "$?" 1 "an unsigned bundle is refused"
grep -q 'the bundle is not signed' "$tmpdir/err"
ok $? "... saying so"
sign "$B/good"
verify "$B/good"
is "$?" 0 "a bundle signed by a trusted ed25519 key verifies"
grep -q "version 3, expires 2099-01-01T00:00:00Z, signed by admin@example.com (ssh-ed25519 SHA256:" \
	"$tmpdir/out"
ok $? "... naming its version, expiry and signer"
ssh-keygen -Y verify -f "$K/allowed_signers" -I admin@example.com -n cordon-policy \
	-s "$B/good/manifest.sig" < "$B/good/manifest" > /dev/null 2>&1
ok $? "... and ssh-keygen -Y verify agrees"
cp -r "$B/good" "$B/rsa"
sign "$B/rsa" cordon-policy rsa
verify "$B/rsa"
is "$?" 0 "a bundle signed by an RSA key (rsa-sha2-512) verifies"
rm "$B/rsa/manifest.sig"
ssh-keygen -q -Y sign -O hashalg=sha256 -n cordon-policy -f "$K/rsa" "$B/rsa/manifest" < /dev/null
verify "$B/rsa"
is "$?" 0 "... and with the message hashed by sha256"

# Each bad bundle, made from the good one: NAME, how, and the reason.
cp -r "$B/good" "$B/source"
echo 'let more = "/";' >> "$B/source/team.cordon"
cp -r "$B/good" "$B/manifest"
sed -i 's/^version 3$/version 30/' "$B/manifest/manifest"
cp -r "$B/good" "$B/unsigned"
rm "$B/unsigned/manifest.sig"
cp -r "$B/good" "$B/expired"
sed -i 's/^expires .*/expires 2001-01-01T00:00:00Z/' "$B/expired/manifest"
sign "$B/expired"
cp -r "$B/good" "$B/namespace"
sign "$B/namespace" file
cp -r "$B/good" "$B/untrusted"
sign "$B/untrusted" cordon-policy other
cp -r "$B/good" "$B/garbage"
printf -- '-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAg==\n-----END SSH SIGNATURE-----\n' \
	> "$B/garbage/manifest.sig"
# A source in the directory that the manifest does not list: the manifest
# is rewritten without team.cordon and signed, so only the check of what
# the load read can find it.
cp -r "$B/good" "$B/unlisted"
grep -v ' team.cordon$' "$B/good/manifest" > "$B/unlisted/manifest"
sign "$B/unlisted"

reason_source='team.cordon has SHA-256 [0-9a-f]*, and the manifest says'
reason_manifest='the signature does not verify: .*manifest is not what was signed'
reason_unsigned='the bundle is not signed: .*manifest.sig does not exist'
reason_expired='expired at 2001-01-01T00:00:00Z'
reason_namespace="the signature is for namespace 'file', not 'cordon-policy'"
reason_untrusted='the key that signed it (ssh-ed25519 SHA256:[^ ]*) is not one of the trusted keys'
reason_garbage='signature version 2 is not supported'
reason_unlisted='reads .*/team.cordon, which is not one of its sources'
bad="source manifest unsigned expired namespace untrusted garbage unlisted"
for b in $bad; do
	verify "$B/$b"
	rc=$?
	eval "reason=\$reason_$b"
	[ "$rc" -eq 1 ] && grep -q "bundle refused: .*$reason" "$tmpdir/err"
	ok $? "verify refuses: $b ($reason)"
	[ "$rc" -eq 1 ] || diag < "$tmpdir/err"
done
verify "$B/namespace" "$K/git_only"
grep -q 'is not one of the trusted keys' "$tmpdir/err"
ok $? "a key the keys file does not list is untrusted"
printf 'git@example.com namespaces="git" %s\n' "$(key admin)" > "$K/admin_git"
verify "$B/good" "$K/admin_git"
grep -q 'namespaces="git" leave out cordon-policy' "$tmpdir/err"
ok $? "a key restricted to namespaces=\"git\" is not trusted for bundles"
printf 'a@example.com valid-before="20010101Z" %s\n' "$(key admin)" > "$K/admin_old"
verify "$B/good" "$K/admin_old"
grep -q 'it was valid before 20010101Z only' "$tmpdir/err"
ok $? "a key whose valid-before has passed is not trusted"
printf 'a@example.com cert-authority %s\n' "$(key admin)" > "$K/admin_ca"
verify "$B/good" "$K/admin_ca"
grep -q 'certificate authority' "$tmpdir/err"
ok $? "a cert-authority line trusts no plain signature"
printf 'admin@example.com ssh-ed25519 AAAA!!!!\n' > "$K/broken"
verify "$B/good" "$K/broken"
is "$?" 1 "a malformed keys file is refused"
grep -q "broken:1: expected the key in base64" "$tmpdir/err"
ok $? "... naming its line"

# ---- installed: the managed layer, verified on every load ------------------------
# The installed paths are compiled in; a private mount namespace puts a
# tmpfs over SYSCONFDIR with the keys and bundles, as root, and then runs
# the checks as root or as nobody (who can set nothing there).

sysconf=$("$CORDON" --help | sed -n 's|.*uses \(/.*\)/cordon/policy.cordon.*|\1|p')
NB=$(as_nobody_cordon "$tmpdir/nb")
# cordon run finds its in-sandbox helper beside it.
cp "$(dirname "$cordon_bin")/cordon-exec" "$tmpdir/nb/" && chmod 755 "$tmpdir/nb/cordon-exec"
WS=$tmpdir/ws
H=$tmpdir/home
OUT=$tmpdir/results
mkdir -p "$WS" "$H" "$OUT"
chmod 777 "$WS" "$H" "$OUT"
chmod -R a+rX "$B"
sandbox=yes
"$cordon_bin" probe > /dev/null 2>&1 || sandbox=
# A bundle of version 5, for the rollback.
"$CORDON" bundle create -o "$B/v5" --version 5 "$tmpdir/managed.cordon" "$tmpdir/team.cordon" \
	> /dev/null && sign "$B/v5"
chmod -R a+rX "$B"

# The checks a pass runs, as WHO, in the workspace: a decision with eval and
# a command with run, their statuses and output in $OUT/TAG.*.
cat > "$tmpdir/check.sh" << 'EOF'
tag=$1
"$C" eval --context workspace="$WS" --context cwd="$WS" --json write /etc/hosts \
	> "$OUT/$tag.eval" 2> "$OUT/$tag.eval.err"
echo $? > "$OUT/$tag.eval.rc"
"$C" run --workspace "$WS" -- touch "$WS/ran-$tag" > /dev/null 2> "$OUT/$tag.run.err"
echo $? > "$OUT/$tag.run.rc"
"$C" hook claude < "$EVENT" > "$OUT/$tag.hook" 2> "$OUT/$tag.hook.err"
echo $? > "$OUT/$tag.hook.rc"
EOF
EVENT=$tmpdir/event
printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/etc/hosts","content":"x"},"tool_use_id":"t1"}\n' \
	"$WS" > "$EVENT"
chmod 644 "$tmpdir/check.sh" "$EVENT"

# in_ns WHO TAG SETUP: a tmpfs over SYSCONFDIR with the trusted keys, SETUP
# run there as root ($S the conf dir, $C the cordon nobody can run, $CI
# the cordon under test (under valgrind in that pass), $B the bundles),
# then check.sh as WHO.
in_ns() {
	as=
	[ "$1" = nobody ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	env C="$NB" CI="$CORDON" EVENT="$EVENT" WS="$WS" OUT="$OUT" B="$B" HOME="$H" unshare -m sh -c '
		S=$1/cordon
		mount -t tmpfs -o mode=755 tmpfs "$1" && mkdir -m 755 "$S" &&
			cp "$2" "$S/allowed_signers" && chmod 644 "$S/allowed_signers" || exit 99
		eval "$4" > "$OUT/$3.setup" 2>&1 || exit 98
		cd "$WS" && exec $5 sh "$6" "$3"' \
		sh "$sysconf" "$K/allowed_signers" "$2" "$3" "$as" "$tmpdir/check.sh"
}

if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null || ! unshare -m true 2> /dev/null ||
	! command -v setpriv > /dev/null || [ ! -d "$sysconf" ]; then
	skip "installed bundles, as root and as nobody" \
		"needs root, setpriv and a private mount namespace to install one"
	done_testing
	exit
fi

for who in root nobody; do
	t=$who-good
	# Under root's strictest umask: what is installed is for every user.
	in_ns $who $t 'umask 077 && "$CI" bundle install "$B/good"'
	is "$?" 0 "[$who] a good bundle installs"
	grep -q '"decision":"deny"' "$OUT/$t.eval" &&
		grep -q '"reason":"system files"' "$OUT/$t.eval" &&
		grep -q "$sysconf/cordon/bundles/3/managed.cordon" "$OUT/$t.eval"
	ok $? "[$who] the installed bundle's policy decides, from the bundle"
	[ "$(cat "$OUT/$t.hook.rc")" -eq 0 ] && grep -q '"permissionDecision": *"deny"' "$OUT/$t.hook"
	ok $? "[$who] ... and answers the hook"
	if [ -n "$sandbox" ]; then
		[ "$(cat "$OUT/$t.run.rc")" -eq 0 ] && [ -e "$WS/ran-$t" ]
		ok $? "[$who] cordon run runs a command under it"
	else
		skip "[$who] cordon run runs a command under it" "cordon probe says the sandbox is not ready"
	fi

	# Each bad bundle put in the installed one's place, as a tampering
	# administrator or a broken copy would: fails closed.
	for b in $bad; do
		t=$who-$b
		in_ns $who $t '"$C" bundle install "$B/good" && rm -f "$S/bundles/3"/* &&
			cp "$B/'$b'"/* "$S/bundles/3"/'
		eval "reason=\$reason_$b"
		[ "$(cat "$OUT/$t.eval.rc")" -eq 1 ] && [ ! -s "$OUT/$t.eval" ] &&
			grep -q "POLICY BUNDLE REFUSED: .*$reason" "$OUT/$t.eval.err"
		ok $? "[$who] installed, $b: cordon eval decides nothing (exit 1), naming the reason"
		[ "$(cat "$OUT/$t.run.rc")" -eq 125 ] && [ ! -e "$WS/ran-$t" ] &&
			grep -q "POLICY BUNDLE REFUSED: .*$reason" "$OUT/$t.run.err"
		ok $? "[$who] installed, $b: cordon run exits 125 and the command never runs"
		[ "$(cat "$OUT/$t.hook.rc")" -eq 2 ] &&
			grep -q "POLICY BUNDLE REFUSED: .*$reason" "$OUT/$t.hook.err"
		ok $? "[$who] installed, $b: cordon hook blocks the call (exit 2)"
	done

	# A rollback: version 5 installed, then the link put back on the
	# version 3 that install kept.
	t=$who-rollback
	in_ns $who $t '"$C" bundle install "$B/good" && "$C" bundle install "$B/v5" &&
		test -d "$S/bundles/3" && ln -sfn bundles/3 "$S/bundle"'
	reason='version 3, older than version 5, the highest installed here'
	[ "$(cat "$OUT/$t.eval.rc")" -eq 1 ] && grep -q "REFUSED: .*$reason" "$OUT/$t.eval.err"
	ok $? "[$who] a rolled-back bundle: cordon eval decides nothing, naming the rollback"
	[ "$(cat "$OUT/$t.run.rc")" -eq 125 ] && [ ! -e "$WS/ran-$t" ]
	ok $? "[$who] a rolled-back bundle: cordon run exits 125, the command never runs"

	# Signatures required and nothing installed.
	t=$who-none
	in_ns $who $t 'true'
	[ "$(cat "$OUT/$t.eval.rc")" -eq 1 ] && grep -q "none is installed" "$OUT/$t.eval.err" &&
		[ "$(cat "$OUT/$t.run.rc")" -eq 125 ] && [ ! -e "$WS/ran-$t" ]
	ok $? "[$who] keys without a bundle: nothing decides, nothing runs"

	# A recorded version anyone may write is not trusted.
	t=$who-state
	in_ns $who $t '"$C" bundle install "$B/good" && chmod 666 "$S/bundle.version"'
	grep -q "bundle.version must belong to root and be writable by no one else" \
		"$OUT/$t.eval.err" && [ "$(cat "$OUT/$t.run.rc")" -eq 125 ]
	ok $? "[$who] a recorded version others may write fails closed"
done
rm -f "$WS"/ran-*

# ---- installing: a refused bundle leaves the installed one ------------------------
# Version 3, then 5; then what must be refused, each leaving version 5 in
# place; then version 6 over what an interrupted install left.

for v in 6 7; do
	"$CORDON" bundle create -o "$B/v$v" --version $v "$tmpdir/managed.cordon" \
		"$tmpdir/team.cordon" > /dev/null && sign "$B/v$v"
done
cp -r "$B/v7" "$B/broken"
printf 'cordon 1;\nlet team_dirs = ;\n' > "$B/broken/team.cordon"
sed -i "s/^source [0-9a-f]* team.cordon$/source $(sha256sum < "$B/broken/team.cordon" | cut -c1-64) team.cordon/" \
	"$B/broken/manifest"
sign "$B/broken"
cp -r "$B/v7" "$B/expired7"
sed -i 's/^version 7$/version 7\nexpires 2001-01-01T00:00:00Z/' "$B/expired7/manifest"
sign "$B/expired7"
cp -r "$B/v7" "$B/untrusted7"
sign "$B/untrusted7" cordon-policy other
chmod -R a+rX "$B"
t=install
in_ns root $t 'try() { what=$1; shift; "$@"; echo "$what $?"; }
	"$CI" bundle install "$B/good" && "$CI" bundle install "$B/v5" &&
	try rollback "$CI" bundle install "$B/good" &&
	try broken "$CI" bundle install "$B/broken" &&
	try expired "$CI" bundle install "$B/expired7" &&
	try untrusted "$CI" bundle install "$B/untrusted7" &&
	try nobody setpriv --reuid=65534 --regid=65534 --clear-groups -- "$C" bundle install "$B/v6" &&
	try again "$CI" bundle install "$B/v5" &&
	echo "link $(readlink "$S/bundle") version $(cat "$S/bundle.version") kept" $(ls -A "$S/bundles") &&
	mkdir "$S/bundles/.new-cut" "$S/bundles/6" && echo cut > "$S/bundles/6/manifest" &&
	try v6 "$CI" bundle install "$B/v6" &&
	echo "link $(readlink "$S/bundle") version $(cat "$S/bundle.version") kept" $(ls -A "$S/bundles") &&
	cmp "$S/bundles/6/manifest" "$B/v6/manifest" &&
	try loaded "$CI" eval --context workspace="$WS" --context cwd="$WS" write /etc/hosts &&
	ln -sfn bundles/5 "$S/bundle" && try rolledback "$CI" eval write /etc/hosts'
setup=$OUT/$t.setup
grep -qx 'rollback 1' "$setup" && grep -q 'good is version 3, older than version 5.*(rollback)' "$setup"
ok $? "install refuses a version below the one installed"
grep -qx 'broken 1' "$setup" && grep -q 'team.cordon:2:' "$setup"
ok $? "install refuses a bundle whose policy has errors"
grep -qx 'expired 1' "$setup" && grep -q 'expired7 expired at' "$setup"
ok $? "install refuses an expired bundle"
grep -qx 'untrusted 1' "$setup" && grep -q 'is not one of the trusted keys' "$setup"
ok $? "install refuses a bundle an untrusted key signed"
grep -qx 'nobody 1' "$setup"
ok $? "nobody cannot install a bundle"
grep -qx 'again 0' "$setup" && grep -q 'version 5 is already installed' "$setup"
ok $? "installing the installed bundle again changes nothing"
grep -qx 'link bundles/5 version 5 kept 3 5' "$setup"
ok $? "after every refusal, version 5 is installed and version 3 kept, nothing else written"
grep -qx 'v6 0' "$setup" && grep -qx 'link bundles/6 version 6 kept 5 6' "$setup"
ok $? "an install over what an interrupted one left: version 6, version 5 kept, the rest removed"
grep -qx 'loaded 0' "$setup" && grep -q '^deny: system files' "$setup"
ok $? "... and it decides"
grep -qx 'rolledback 1' "$setup" && grep -q 'REFUSED: .*version 5, older than version 6' "$setup"
ok $? "... and the link put back on version 5 is a rollback"

# CORDON_MANAGED cannot stand in for the signed bundle.
printf 'cordon 1;\npreset "workspace-write" { read "/**" allow; write "/**" allow; exec "*" allow; net "*" allow; }\ndefault "workspace-write";\n' \
	> "$tmpdir/open.cordon"
chmod 644 "$tmpdir/open.cordon"
t=env
export CORDON_MANAGED="$tmpdir/open.cordon"
in_ns nobody $t '"$C" bundle install "$B/good"'
unset CORDON_MANAGED
grep -q '"decision":"deny"' "$OUT/$t.eval" && grep -q 'CORDON_MANAGED is ignored' "$OUT/$t.eval.err"
ok $? "[nobody] CORDON_MANAGED is ignored where signed bundles are required"

done_testing
