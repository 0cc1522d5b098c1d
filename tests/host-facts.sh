#!/bin/sh
# Host facts: a policy with rules under /etc, /tmp and /var decides the same
# on this machine's facts and on the macOS facts (where those are symlinks
# into /private, requests are resolved there, and the rules are rewritten
# to match), by the same rule, for every spelling of a path a Mac's kernel
# resolves alike; and the Seatbelt profiles lowered on either agree with
# their evaluator (tests/sbpl-check, with --macos-paths on the macOS facts).
# As root and as an unprivileged user.
. "$srcdir/tests/lib.sh"

policy=$srcdir/tests/host-facts/aliases.cordon
check=$builddir/tests/sbpl-check
ctx="--context workspace=/ws --context cwd=/ws --context home=/home/u --context tmp=/t/call
--context agent_dir=/ws/.agent --context session_dir=/ws/.agent/s"

# Paths as this machine names them; none exists here (a symlink on the way
# would make this machine's answer differ on purpose).
cat > "$tmpdir/paths" <<'LIST'
/etc/cordon-hf/secret
/etc/cordon-hf/secret/inner
/etc/cordon-hf/x/y.key
/etc/cordon-hf/x/y.pub
/etc/cordon-hf/ask
/etc/cordon-hf/ok
/tmp/cordon-hf
/tmp/cordon-hf/a.o
/tmp/cordon-hf/keep/b
/tmp/cordon-hf/.git/hooks/pre-commit
/tmp/cordon-hf-other
/var/cordon-hf/a.pem
/var/cordon-hf/log/x
/var/cordon-hf/private/y
/var/cordon-hf/z
LIST
for p in $(cat "$tmpdir/paths"); do
	test ! -e "$p" && test ! -L "$p" || { echo "$p exists here" | diag; exit 99; }
done

# The spellings a Mac's kernel resolves to the same place.
spellings() { # spellings PATH
	echo "$1"
	echo "/private$1"
	echo "/System/Volumes/Data/private$1"
	echo "$1" | sed 's|^/\([a-z]*\)/|/\1/../\1/|'
}

# decide HOST OP PATH: "decision rule" as eval --json says
decide() {
	# shellcheck disable=SC2086
	(cd "$tmpdir" && $as "$bin" eval -p "$policy" --host "$1" $ctx --json "$2" "$3") |
		sed 's/^{"decision":"\([a-z]*\)".*"rule":\("[^"]*"\|null\).*/\1 \2/'
}

# decide_all HOST: "decision rule" for each "OP PATH" line of stdin, in
# order, as eval --json says; one stream decides them all (a process per
# request made this test the slowest under valgrind).
decide_all() {
	awk '{ printf "{\"id\":%d,\"op\":\"%s\",\"target\":\"%s\"}\n", NR, $1, $2 }' |
		# shellcheck disable=SC2086
		(cd "$tmpdir" && $as "$bin" eval -p "$policy" --host "$1" $ctx --stdin) |
		sed 's/^{"id":[0-9]*,"decision":"\([a-z]*\)".*"rule":\("[^"]*"\|null\).*/\1 \2/'
}

bin=$CORDON
run_as() { # run_as WHO
	who=$1
	as= bin=$CORDON
	if [ "$who" = nobody ]; then
		as="setpriv --reuid=65534 --regid=65534 --clear-groups --"
		# The build tree may be closed to nobody: a copy it can run.
		if ! $as test -x "$CORDON"; then
			cp "${CORDON_REAL:-$CORDON}" "$tmpdir/cordon"
			chmod 755 "$tmpdir/cordon"
			bin=$tmpdir/cordon
		fi
		if ! $as test -r "$policy"; then
			cp "$policy" "$tmpdir/aliases.cordon"
			chmod 644 "$tmpdir/aliases.cordon"
			policy=$tmpdir/aliases.cordon
		fi
	fi
	: > "$tmpdir/qhere"
	: > "$tmpdir/qmac"
	for p in $(cat "$tmpdir/paths"); do
		for op in read write; do
			for s in $(spellings "$p"); do
				echo "$op $p" >> "$tmpdir/qhere"
				echo "$op $s" >> "$tmpdir/qmac"
			done
		done
	done
	decide_all linux < "$tmpdir/qhere" > "$tmpdir/here"
	decide_all macos < "$tmpdir/qmac" > "$tmpdir/mac"
	n=$(wc -l < "$tmpdir/qmac")
	# A missing answer is a difference too: the lists are compared by line.
	paste -d'|' "$tmpdir/here" "$tmpdir/mac" "$tmpdir/qhere" "$tmpdir/qmac" |
		awk -F'|' -v n="$n" '$1 != $2 || $1 == "" { print $3 ": here \047" $1 "\047, on macOS " $4 " \047" $2 "\047" }
			END { if (NR != n) print "answers: " NR " lines for " n " requests" }' > "$tmpdir/diff"
	bad=$(wc -l < "$tmpdir/diff")
	ok $bad "[$who] every path decides on the macOS facts as here, by the same rule, in every spelling ($n requests)"
	diag < "$tmpdir/diff"

	# The rules that would stop deciding without the facts: spelled out.
	is "$(decide macos read /private/etc/cordon-hf/secret)" "deny \"$policy:9:3\"" \
		"[$who] on macOS, a literal read deny under /etc denies its /private target"
	is "$(decide macos read /etc/cordon-hf/a/b.key)" "deny \"$policy:10:3\"" \
		"[$who] on macOS, a glob read deny under /etc denies what it matches"
	is "$(decide macos read /var/cordon-hf/k.pem)" "deny \"$policy:15:3\"" \
		"[$who] on macOS, an anchored regex deny under /var denies what it matches"
	is "$(decide macos write /tmp/cordon-hf/.git/hooks/x)" "deny \"$policy:14:11\"" \
		"[$who] on macOS, a protection under /tmp protects its /private target"
	is "$(decide macos write /tmp/cordon-hf/keep/x)" "deny \"$policy:13:3\"" \
		"[$who] on macOS, a write deny under a /tmp write root holds"

	# The profiles: on the macOS facts the paths a Mac reports, and the
	# interpreter agrees with the evaluator; on this machine's, likewise.
	for host in macos linux; do
		# shellcheck disable=SC2086
		(cd "$tmpdir" && $as "$bin" compile -p "$policy" --host $host $ctx --emit sbpl) > "$tmpdir/$host.sb" \
			2> "$tmpdir/err"
		ok $? "[$who] $host: lowers to a Seatbelt profile"
		diag < "$tmpdir/err"
		: > "$tmpdir/q"
		for p in $(cat "$tmpdir/paths"); do
			if [ $host = macos ]; then set -- $(spellings "$p"); else set -- "$p"; fi
			for s in "$@"; do
				for op in read write; do
					echo "$op $s" >> "$tmpdir/q"
				done
			done
		done
		decide_all $host < "$tmpdir/q" | sed 's/^allow.*/allow/; t; s/.*/deny/' > "$tmpdir/want"
		mac=
		[ $host = macos ] && mac=--macos-paths
		# shellcheck disable=SC2086
		"$check" $mac "$tmpdir/$host.sb" --queries < "$tmpdir/q" | cut -d' ' -f1 > "$tmpdir/got"
		if cmp -s "$tmpdir/got" "$tmpdir/want"; then
			ok 0 "[$who] $host: the profile decides as eval on $(wc -l < "$tmpdir/q") requests"
		else
			ok 1 "[$who] $host: the profile decides as eval"
			paste -d' ' "$tmpdir/got" "$tmpdir/want" "$tmpdir/q" | awk '$1 != $2' | diag
		fi
	done
	# On the macOS facts no rule names a path the kernel never reports.
	grep -E '(subpath|literal) "/(etc|tmp|var)(/|")|regex #"\^/(etc|tmp|var)[/(]' "$tmpdir/macos.sb" |
		diag
	grep -qE '(subpath|literal) "/(etc|tmp|var)(/|")|regex #"\^/(etc|tmp|var)[/(]' "$tmpdir/macos.sb"
	ok $((! $?)) "[$who] macos: the profile names no path under /etc, /tmp or /var"
	grep -q '(deny file-read\* (regex #"^/private/var/cordon-hf/' "$tmpdir/macos.sb" &&
		grep -q '(deny file-read\* (regex #"^/private/etc/cordon-hf(/.\*)?/\[^/\]\*\\.key\$"))' \
			"$tmpdir/macos.sb" &&
		grep -q '(subpath "/private/tmp/cordon-hf/.git/hooks")' "$tmpdir/macos.sb"
	ok $? "[$who] macos: the regex, the glob and the protection are lowered for their /private targets"
	grep -q '(subpath "/tmp/cordon-hf") (subpath "/private/tmp/cordon-hf")' "$tmpdir/linux.sb" &&
		grep -q '(regex #"^/etc/cordon-hf(/.\*)?/\[^/\]\*\\.key\$") (regex #"^/private/etc/cordon-hf(/.\*)?/\[^/\]\*\\.key\$")' \
			"$tmpdir/linux.sb"
	ok $? "[$who] linux: a path and a glob under an alias are listed with their macOS targets too"
}

run_as "$(id -un)"
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	chmod 755 "$tmpdir"
	chmod 644 "$tmpdir"/* 2> /dev/null
	run_as nobody
else
	skip "as an unprivileged user" "not root, or setpriv is missing"
fi

# A path a host vouches for as canonical is still named by an alias's target.
echo '{"op":"read","target":"/etc/cordon-hf/secret","canonical":true}' |
	"$CORDON" eval -p "$policy" --host macos --stdin > "$tmpdir/out"
grep -q "^{\"decision\":\"deny\".*\"rule\":\"$policy:9:3\"" "$tmpdir/out"
ok $? "on macOS, a canonical-marked path under /etc is decided by the rule under /etc"
diag < "$tmpdir/out"

# A Linux layer is not made of a Mac's paths.
for kind in bwrap bwrap-args landlock seccomp seccomp-bpf; do
	# shellcheck disable=SC2086
	"$CORDON" compile -p "$policy" --host macos $ctx --emit $kind > "$tmpdir/out" 2> "$tmpdir/err"
	is "$?:$(head -1 "$tmpdir/err")" \
		"2:cordon: $kind is a linux sandbox layer; the paths were resolved as on macos (give --host linux)" \
		"--emit $kind --host macos is refused"
done

# --emit facts: the snapshot of the host facts, symlinks of this machine
# read on linux, nothing of it on macos.
mkdir -p "$tmpdir/fh/dot/ssh"
ln -s dot/ssh "$tmpdir/fh/.ssh"
fh=$(cd "$tmpdir/fh" && pwd -P)
printf '%s\n' 'cordon 1;' '' 'preset "p" {' '  sandbox required;' '  read "/**" allow;' \
	"  read \"$fh/.ssh\" deny;" '}' > "$tmpdir/fh.cordon"
# shellcheck disable=SC2086
"$CORDON" compile -p "$tmpdir/fh.cordon" --preset p --host linux $ctx --emit facts > "$tmpdir/out" 2>&1
grep -qx "link \"$fh/.ssh\" -> \"$fh/dot/ssh\"  # $tmpdir/fh.cordon:6:3" "$tmpdir/out" &&
	grep -q '^host linux  # this machine' "$tmpdir/out"
ok $? "--emit facts on linux lists the symlink a rule's path crosses, with the rule"
diag < "$tmpdir/out"
# shellcheck disable=SC2086
"$CORDON" compile -p "$tmpdir/fh.cordon" --preset p --host macos $ctx --emit facts > "$tmpdir/out" 2>&1
grep -qx 'alias "/etc" -> "/private/etc"  # a symlink the system keeps' "$tmpdir/out" &&
	! grep -q '^link' "$tmpdir/out"
ok $? "--emit facts on macos lists the aliases built in and reads no symlink of this machine"
diag < "$tmpdir/out"

# The shipped policies' own test blocks hold on the macOS facts too.
for f in "$srcdir/rules/default.cordon" "$srcdir"/rules/examples/*.cordon; do
	"$CORDON" test --include-shipped --host macos "$f" > "$tmpdir/out" 2>&1
	rc=$?
	ok $rc "$(basename "$f"): its test blocks pass with --host macos ($(grep -c '^ok' "$tmpdir/out") expectations)"
	[ $rc -eq 0 ] || grep -v '^ok' "$tmpdir/out" | diag
done
printf '%s\n' 'cordon 1;' '' 'preset "p" {' '  sandbox required;' '  read "/**" allow;' \
	'  read "/etc/cordon-hf" deny;' '}' '' 'test "t" {' '  preset "p";' \
	'  expect deny read "/private/etc/cordon-hf/x";' '}' > "$tmpdir/t.cordon"
"$CORDON" test --host macos "$tmpdir/t.cordon" > /dev/null 2>&1
r1=$?
"$CORDON" test --host linux "$tmpdir/t.cordon" > /dev/null 2>&1
is "$r1:$?" "0:1" "a test of the /private spelling holds on macos and not on linux, where it is another path"

# explain says which alias a rule was written under.
# shellcheck disable=SC2086
"$CORDON" explain -p "$policy" --host macos $ctx read /etc/cordon-hf/secret > "$tmpdir/out"
grep -q 'match    read "/private/etc/cordon-hf/secret" (written under /etc, which is /private/etc here) deny' \
	"$tmpdir/out"
ok $? "explain names the alias a rule was written under"
diag < "$tmpdir/out"

# The facts decide what a decision runs under, and an unknown host is refused.
is "$("$CORDON" eval -p "$policy" --host macos --json read /etc/hosts |
	sed 's/.*"sandbox":"\([a-z]*\)".*/\1/')" seatbelt "on macOS, a decision runs under seatbelt"
"$CORDON" eval -p "$policy" --host windows read /etc/hosts > /dev/null 2> "$tmpdir/err"
is "$?:$(head -1 "$tmpdir/err")" "2:cordon: --host: unknown host 'windows' (expected one of: linux, macos)" \
	"an unknown host is refused, naming the hosts there are"

# A workspace under one of the host's own aliases is named by its target,
# not refused as a symlink: no command can retarget /tmp on a Mac.
"$CORDON" eval -p "$policy" --host macos --context workspace=/tmp/cordon-hf --json write \
	/tmp/cordon-hf/src/a.c > "$tmpdir/out" 2> "$tmpdir/err"
grep -q '"decision":"allow".*"target":"/private/tmp/cordon-hf/src/a.c"' "$tmpdir/out"
ok $? "on macOS, a workspace under /tmp is the /private/tmp directory it names"
diag < "$tmpdir/err"

done_testing
