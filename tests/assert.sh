#!/bin/sh
# assert never: policies whose assertions hold pass `cordon check`, and the
# evaluator agrees: every literal target of every assertion is denied in
# every preset it names.  (Failing assertions pin their diagnostics in
# tests/bad/assert-*.)
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/assert" || exit 1
ctx="--context workspace=/ws --context home=/home/u --context agent_dir=/home/u/.cordon"

for policy in *.cordon; do
	"$CORDON" check "$policy" 2> "$tmpdir/err"
	ok $? "$policy: the assertions hold"
	diag < "$tmpdir/err"
	presets=$(sed -n 's/^preset "\([^"]*\)".*/\1/p' "$policy")
	# assert never OP "T", ... [in "P", ...] ["REASON"];
	sed -n 's/^assert never \([a-z]*\) \(.*\);$/\1 \2/p' "$policy" |
		sed 's/\(.*"\) "[^"]*"$/\1/' > "$tmpdir/asserts"
	# An empty scrape would check nothing below and still pass.
	grep -c '^assert never ' "$policy" > "$tmpdir/n"
	is "$(wc -l < "$tmpdir/asserts" | tr -d ' ')" "$(cat "$tmpdir/n")" \
		"$policy: every assertion is read ($(cat "$tmpdir/n"))"
	test -n "$presets"
	ok $? "$policy: its presets are read"
	while read -r op rest; do
		case $rest in
		*' in "'*)
			targets=${rest%% in \"*}
			named=$(printf '%s\n' "${rest#* in }" | tr ',' '\n' | sed 's/^ *"//; s/"$//')
			;;
		*) targets=$rest named=$presets ;;
		esac
		printf '%s\n' "$targets" | tr ',' '\n' | sed 's/^ *"//; s/"$//' |
			sed 's|^~|/home/u|; s|\${agent_dir}|/home/u/.cordon|; s|\*\*|x/y|g; s|\*|x|g' \
				> "$tmpdir/targets"
		test -s "$tmpdir/targets" && test -n "$named"
		ok $? "$policy: assert never $op names targets and presets"
		for preset in $named; do
			while read -r target; do
				# shellcheck disable=SC2086
				got=$("$CORDON" eval -p "$policy" --preset "$preset" $ctx "$op" "$target" \
					< /dev/null | head -1)
				case $got in
				deny*) ok 0 "$policy: $preset denies $op $target" ;;
				*) ok 1 "$policy: $preset denies $op $target (got: $got)" ;;
				esac
			done < "$tmpdir/targets"
		done
	done < "$tmpdir/asserts"
done

# The shipped policy: credentials and the agent's storage are out of reach
# of the restricted presets.
cp "$srcdir/rules/default.cordon" "$tmpdir/default.cordon"
cat >> "$tmpdir/default.cordon" <<'ASSERTS'
assert never read "~/.ssh/**", "~/.aws" in "read-only", "workspace-write";
assert never write "${agent_dir}/**", "${session_dir}" in "read-only", "workspace-write";
assert never net "example.com:443" in "read-only", "workspace-write";
ASSERTS
"$CORDON" check "$tmpdir/default.cordon" 2> "$tmpdir/err"
ok $? "default policy: its restricted presets keep credentials and agent storage"
diag < "$tmpdir/err"

# A workspace rule may land anywhere: the assertion over /etc fails, and
# the evaluator shows why, with the workspace at /etc.
echo 'assert never write "/etc/hosts" in "workspace-write";' >> "$tmpdir/default.cordon"
"$CORDON" check "$tmpdir/default.cordon" 2> "$tmpdir/err"
ok $(($? != 1)) "default policy: writes to /etc/hosts are not ruled out in workspace-write"
grep -q 'by this rule (write "${workspace}" allow), whose context variable may take any value' "$tmpdir/err"
ok $? "default policy: the workspace rule is named"
got=$("$CORDON" eval -p "$srcdir/rules/default.cordon" --preset workspace-write \
	--context workspace=/etc --context home=/home/u write /etc/hosts | head -1)
case $got in allow*) ok 0 "with workspace=/etc the evaluator allows the write" ;;
*) ok 1 "with workspace=/etc the evaluator allows the write (got: $got)" ;; esac

# Each violation in tests/bad/assert-violated.cordon is real: without its
# assertions the policy loads, and the evaluator lets each through (a
# decision of allow or ask: no answer at all is no violation).
bad="$tmpdir/violated.cordon"
sed '/^assert /d' "$srcdir/tests/bad/assert-violated.cordon" > "$bad"
"$CORDON" check "$bad" 2> "$tmpdir/err"
ok $? "without its assertions, assert-violated.cordon loads"
diag < "$tmpdir/err"
for req in "base read /home/u/.ssh/id_ed25519" "dev net api.example.com:443" \
	"base write /srv/data/db" "dev exec rm -rf /"; do
	set -- $req
	preset=$1 op=$2
	shift 2
	got=$("$CORDON" eval -p "$bad" --preset "$preset" $ctx "$op" "$*" 2> "$tmpdir/err" | head -1)
	case $got in allow* | ask*) ok 0 "violation is real: $preset $op $* is $got" ;;
	*) ok 1 "violation is real: $preset $op $* (got: ${got:-no decision})" ;; esac
	diag < "$tmpdir/err"
done

done_testing
