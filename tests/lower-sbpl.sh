#!/bin/sh
# The Seatbelt lowering (`--emit sbpl`, `--emit sbpl-argv`):
#  - goldens in tests/data/golden/ for fixed contexts of paths that need not
#    exist (POLICY.PRESET[.VARIANT].sbpl; the .args file of the same name
#    holds the compile arguments, one a line);
#  - every profile is well-formed by tests/sbpl-check;
#  - the checker's interpreter agrees with `cordon eval` on reads and writes
#    of the paths that matter, for the standard presets and several contexts
#    (an `ask` is not an allow: the sandbox does not grant it), on the macOS
#    host's facts (the default of --emit sbpl; the checker asks with the
#    paths as a Mac's kernel reports them) and on this machine's;
#  - presets without a sandbox and paths a profile cannot carry are refused.
. "$srcdir/tests/lib.sh"

check=$builddir/tests/sbpl-check
goldens=$srcdir/tests/data/golden

# ---- the checker itself ----------------------------------------------------
bad() { # bad DESCRIPTION PROFILE-TEXT
	printf '%s\n' "$2" > "$tmpdir/bad.sb"
	"$check" "$tmpdir/bad.sb" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 1)) "checker rejects $1"
	test -s "$tmpdir/err" || echo "no message" | diag
}
printf '(version 1)\n(deny default)\n(allow file-read* (subpath "/a \\"b\\" \\\\c"))  ; x\n' \
	> "$tmpdir/good.sb"
"$check" "$tmpdir/good.sb"
ok $? "checker accepts a small profile with escapes"
test "$("$check" "$tmpdir/good.sb" read '/a "b" \c/d')" = allow
ok $? "checker's interpreter reads an escaped path"
bad "an unbalanced '('" '(version 1) (deny default'
bad "an unbalanced ')'" '(version 1) (deny default))'
bad "an unterminated string" '(version 1) (allow file-read* (subpath "/a))'
bad "an unknown escape" '(version 1) (allow file-read* (subpath "/a\n"))'
bad "an unknown operation" '(version 1) (allow file-reed* (subpath "/a"))'
bad "an unknown filter" '(version 1) (allow file-read* (subtree "/a"))'
bad "a regex that does not compile" '(version 1) (deny file-read* (regex #"^/a("))'
bad "a missing version" '(deny default)'
bad "require-not with two filters" '(version 1) (allow file-read* (require-not (literal "/a") (literal "/b")))'
bad "a relative subpath" '(version 1) (allow file-read* (subpath "a"))'

wellformed() { # wellformed PROFILE DESCRIPTION
	"$check" "$1" 2> "$tmpdir/check.err"
	ok $? "$2"
	diag < "$tmpdir/check.err"
}

# ---- goldens ------------------------------------------------------------------
cd "$goldens" || exit 1
for args in "$goldens"/*.args; do
	name=$(basename "$args" .args)
	set --
	while IFS= read -r a; do set -- "$@" "$a"; done < "$args"
	"$CORDON" compile "$@" > "$tmpdir/got" 2> "$tmpdir/err"
	ok $? "$name: compiles"
	diag < "$tmpdir/err"
	check_golden "$tmpdir/got" "$goldens/$name.sbpl" "$name: profile"
	wellformed "$goldens/$name.sbpl" "$name: golden is well-formed"
done

# ---- sbpl-argv --------------------------------------------------------------------
ctx="--context workspace=/ws --context home=/home/u --context tmp=/t/call
--context agent_dir=/ws/.agent --context session_dir=/ws/.agent/s --context cwd=/ws"
# shellcheck disable=SC2086
"$CORDON" compile --preset workspace-write --emit sbpl $ctx > "$tmpdir/profile"
# shellcheck disable=SC2086
"$CORDON" compile --preset workspace-write --emit sbpl-argv $ctx > "$tmpdir/argv"
ok $? "sbpl-argv: compiles"
{ printf '/usr/bin/sandbox-exec\000-p\000'; cat "$tmpdir/profile"; printf '\000--\000'; } \
	> "$tmpdir/want"
cmp -s "$tmpdir/argv" "$tmpdir/want"
ok $? "sbpl-argv: sandbox-exec -p PROFILE --, NUL-separated"

# ---- refusals -------------------------------------------------------------------
for kind in sbpl sbpl-argv; do
	"$CORDON" compile --preset danger-full-access --emit $kind --context tmp=/t/call \
		> "$tmpdir/out" 2> "$tmpdir/err"
	ok $(($? != 2)) "$kind: danger-full-access is refused (exit 2)"
	grep -q "runs without a sandbox (sandbox none): there is no Seatbelt profile" "$tmpdir/err"
	ok $? "$kind: the refusal says there is no sandbox"
	test ! -s "$tmpdir/out"
	ok $? "$kind: nothing is written on refusal"
done
tab=$(printf '\tx')
"$CORDON" compile --preset workspace-write --emit sbpl --context tmp=/t/call \
	--context "workspace=/ws/a${tab}" > "$tmpdir/out" 2> "$tmpdir/err"
ok $(($? != 2)) "a control character in a path is refused (exit 2)"
grep -q 'path "[^"]*/ws/a\\tx[^"]*" contains the control character 0x09' "$tmpdir/err"
ok $? "the refusal names the path and the character"
diag < "$tmpdir/err"
"$CORDON" compile --preset workspace-write --emit sbpl --context tmp=/t/call \
	--context "workspace=/ws/$(printf 'a\303(')" > "$tmpdir/out" 2> "$tmpdir/err"
ok $(($? != 2)) "a path that is not UTF-8 is refused (exit 2)"

# ---- the interpreter agrees with the evaluator ------------------------------------
base=$(cd "$tmpdir" && pwd -P)
json_escape() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'
}

# agree LABEL POLICY-ARGS -- PATH...: for both presets given in $presets,
# and on both hosts, compile, check, and compare every read and write of
# the paths.
agree() {
	label=$1
	shift
	for host in macos linux; do
		agree_on "$label" "$@"
	done
}
agree_on() {
	label=$1
	shift
	if [ "$host" = macos ]; then
		mac=--macos-paths
		at=$label
	else
		mac=
		at="$label, host linux"
	fi
	for preset in $presets; do
		"$CORDON" compile "$@" --host $host --preset "$preset" --emit sbpl > "$tmpdir/p.sb" \
			2> "$tmpdir/err"
		if [ $? -ne 0 ]; then
			ok 1 "$at/$preset: compiles"
			diag < "$tmpdir/err"
			continue
		fi
		wellformed "$tmpdir/p.sb" "$at/$preset: well-formed"
		: > "$tmpdir/q"
		: > "$tmpdir/jsonl"
		while IFS= read -r path; do
			# Here /private/etc is another directory than /etc.
			case $host:$path in linux:/private/*) continue ;; esac
			for op in read write; do
				printf '%s %s\n' "$op" "$path" >> "$tmpdir/q"
				printf '{"op":"%s","target":"%s"}\n' "$op" "$(json_escape "$path")" \
					>> "$tmpdir/jsonl"
			done
		done < "$tmpdir/paths"
		# shellcheck disable=SC2086
		"$check" $mac "$tmpdir/p.sb" --queries < "$tmpdir/q" | cut -d' ' -f1 > "$tmpdir/sandbox"
		"$CORDON" eval "$@" --host $host --preset "$preset" --stdin < "$tmpdir/jsonl" |
			sed 's/^{"decision":"\([a-z]*\)".*/\1/; s/^ask$/deny/' > "$tmpdir/eval"
		if cmp -s "$tmpdir/sandbox" "$tmpdir/eval" && test -s "$tmpdir/eval"; then
			ok 0 "$at/$preset: sandbox agrees with eval on $(wc -l < "$tmpdir/q") requests"
		else
			ok 1 "$at/$preset: sandbox agrees with eval"
			paste -d' ' "$tmpdir/sandbox" "$tmpdir/eval" "$tmpdir/q" |
				awk '$1 != $2 { print "sandbox " $1 ", eval " $2 ": " $3 " " substr($0, index($0, $4)) }' |
				diag
		fi
	done
}

paths_for() { # paths_for WS HOME TMP AGENT
	cat > "$tmpdir/paths" <<EOF
$1
$1/src/main.c
$1/.git/config
$3
$3/build.o
$4
$4/state.json
$4/sessions/s1/log.jsonl
$2
$2/.bashrc
$2/.ssh
$2/.ssh/id_ed25519
$2/.aws/credentials
$2/.docker/config.json
$2/.docker/daemon.json
$2/.cordon/state.json
/etc
/etc/hosts
/private/etc/hosts
/etc/../etc/passwd
/tmp/cordon-x
/private/tmp/cordon-x
/var/db/x
/private/var/db/x
/System/Volumes/Data/private/etc/hosts
/usr/bin/env
/
/dev/null
EOF
}

presets="read-only workspace-write"

# A real tree, the agent's storage inside the workspace.
ws=$base/ws home=$base/home tmp=$base/call
mkdir -p "$ws/src" "$ws/.agent/sessions/s1" "$home/.ssh" "$tmp"
paths_for "$ws" "$home" "$tmp" "$ws/.agent"
agree "agent dir in the workspace" --context "workspace=$ws" --context "cwd=$ws" \
	--context "home=$home" --context "tmp=$tmp" --context "agent_dir=$ws/.agent" \
	--context "session_dir=$ws/.agent/sessions/s1"

# The agent's storage in the home directory; paths that do not exist.
paths_for /ws /home/u /t/call /home/u/.cordon
agree "agent dir in home" --context workspace=/ws --context cwd=/ws --context home=/home/u \
	--context tmp=/t/call --context agent_dir=/home/u/.cordon \
	--context session_dir=/home/u/.cordon/sessions/s1

# The workspace is the home directory: the credentials lie inside it.
paths_for /home/u /home/u /t/call /home/u/.cordon
agree "workspace is home" --context workspace=/home/u --context cwd=/home/u \
	--context home=/home/u --context tmp=/t/call --context agent_dir=/home/u/.cordon \
	--context session_dir=/home/u/.cordon/sessions/s1

# Spaces, quotes, a backslash and UTF-8 in the workspace path.
odd='/w s/"q" \b/ünï'
paths_for "$odd" /home/u /t/call "$odd/.agent"
agree "odd workspace path" --context "workspace=$odd" --context "cwd=$odd" \
	--context home=/home/u --context tmp=/t/call --context "agent_dir=$odd/.agent" \
	--context session_dir=/home/u/.cordon/s

# Glob and regex denies, ranked among the literal rules.
presets="globs online"
cat > "$tmpdir/paths" <<EOF
/ws/src/main.c
/ws/keys/private.pem
/ws/keys/public.pem
/ws/keys/public.pem/x
/ws/a/b/.env
/ws/.env
/ws/.env.local
/ws/.env.example
/ws/.envrc
/ws/sub/.envrc
/ws/build/x.lock
/ws/build/sub/x.lock
/ws/vendor/lib.c
/ws/vendor/patches/1.diff
/ws/.git/hooks/pre-commit
/ws/.agent/state.json
/home/u/.ssh/id_ed25519
/home/u/.ssh/id_ed25519.pub
/home/u/db.kdbx
/etc/master.passwd
/private/etc/master.passwd
/etc/hosts
/t/call/x
EOF
agree "deny-glob" -p "$goldens/deny-glob.cordon" --context workspace=/ws --context cwd=/ws \
	--context home=/home/u --context tmp=/t/call --context agent_dir=/ws/.agent \
	--context session_dir=/ws/.agent/s

# Exact paths: a deny of one path is (literal P); an allow of one path is
# (literal P) after the denies it lies in.
presets=exact
cat > "$tmpdir/paths" <<EOF
/ws/secrets
/ws/secrets/token
/ws/secrets/token/x
/ws/secrets/other
/ws/config/prod.env
/ws/config/prod.env/x
/ws/config/dev.env
/ws/.git/hooks
/ws/.git/hooks/pre-commit
/ws/src/generated.c
/ws/src/generated.c/x
/ws/src/main.c
/ws/.agent/state.json
/t/call/x
/etc/hosts
EOF
agree "exact" -p "$goldens/exact.cordon" --context workspace=/ws --context cwd=/ws \
	--context home=/home/u --context tmp=/t/call --context agent_dir=/ws/.agent \
	--context session_dir=/ws/.agent/s

# Characters that are wildcards in a glob are literal in a context value.
odd='/w[1]*x.y+(z)'
sed "s|^/ws|$odd|" "$tmpdir/paths" > "$tmpdir/paths.odd"
echo '/w1ax.y+(z)/keys/private.pem' >> "$tmpdir/paths.odd"
mv "$tmpdir/paths.odd" "$tmpdir/paths"
presets=globs
agree "deny-glob, glob characters in the workspace" -p "$goldens/deny-glob.cordon" \
	--context "workspace=$odd" --context "cwd=$odd" --context home=/home/u \
	--context tmp=/t/call --context "agent_dir=$odd/.agent" --context session_dir=/home/u/.s

# ---- on macOS: the profile runs ---------------------------------------------------
if [ "$(uname -s)" = Darwin ] && [ -x /usr/bin/sandbox-exec ]; then
	"$CORDON" compile --preset workspace-write --emit sbpl --context "workspace=$ws" \
		--context "cwd=$ws" --context "home=$home" --context "tmp=$tmp" \
		--context "agent_dir=$ws/.agent" --context "session_dir=$ws/.agent/sessions/s1" \
		> "$tmpdir/p.sb"
	sb() { /usr/bin/sandbox-exec -f "$tmpdir/p.sb" -- /bin/sh -c "$1" 2> "$tmpdir/sb.err"; }
	# refused_sb COMMAND DESCRIPTION: the profile ran and refused it (EPERM).
	refused_sb() {
		sb "$1"
		refused_by sandbox $? "$tmpdir/sb.err" 'Operation not permitted'
		ok $? "$2"
		diag < "$tmpdir/sb.err"
	}
	sb "echo hi > '$ws/out.txt'"
	ok $? "macOS: the workspace is writable"
	refused_sb "echo hi > '$ws/.agent/state.json'" "macOS: the agent's storage is not (EPERM)"
	refused_sb "echo hi > '$home/out.txt'" "macOS: the home directory is not (EPERM)"
	: > "$home/.ssh/id_test"
	refused_sb "cat '$home/.ssh/id_test'" "macOS: credentials are unreadable (EPERM)"
else
	skip "macOS: the profile runs under sandbox-exec" "not macOS"
fi

done_testing
