#!/bin/sh
# cordon diff: each case in tests/diff/ is base.cordon changed in one place.
# Diffing base -> case shows the change one way (widened, say) and
# case -> base the other way; both outputs are golden files.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/diff" || exit 1
# A kept variable's value would appear in the sandbox plan.
unset CORDON_DIFF_KEPT

for name in read exact write exec net tool settings sandbox env protect presets default limits; do
	"$CORDON" diff base.cordon "$name.cordon" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 0)) "$name: exit status 0 without --fail-on-widen (got $rc)"
	check_golden "$tmpdir/out" "$name.out" "$name: base -> $name"
	"$CORDON" diff "$name.cordon" base.cordon > "$tmpdir/out" 2> "$tmpdir/err"
	check_golden "$tmpdir/out" "$name.rev.out" "$name: $name -> base"
	ok $(test -s "$tmpdir/err"; echo $((! $?))) "$name: nothing on stderr"
done

# Each widening fails the gate; the reverse (only narrowing) passes it.
for name in read exact write net tool sandbox; do
	"$CORDON" diff --fail-on-widen base.cordon "$name.cordon" > /dev/null 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 1)) "$name: --fail-on-widen exits 1 on a widening (got $rc)"
	# With stdout thrown away, as a CI gate has it, stderr says why.
	[ "$(wc -l < "$tmpdir/err")" -eq 1 ] &&
		grep -q '^cordon: the change widens what the policy grants ([1-9][0-9]* widened; first, preset "[^"]*": .* -> .*)$' "$tmpdir/err"
	ok $? "$name: --fail-on-widen says on one stderr line what widened" || diag < "$tmpdir/err"
	"$CORDON" diff --fail-on-widen "$name.cordon" base.cordon > /dev/null 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 0)) "$name: --fail-on-widen exits 0 when the change only narrows (got $rc)"
	ok $(test -s "$tmpdir/err"; echo $((! $?))) "$name: a passing gate prints nothing on stderr"
done

"$CORDON" diff --fail-on-widen base.cordon base.cordon > "$tmpdir/out"
ok $? "a policy against itself: no widening, exit 0"
grep -q '^0 widened, 0 narrowed, 0 changed' "$tmpdir/out"
ok $? "a policy against itself: nothing changed"

# Only one preset, and the same diff as JSON.
"$CORDON" diff --preset dev --format json base.cordon write.cordon > "$tmpdir/out"
ok $? "json: exit status 0"
check_golden "$tmpdir/out" write.json "json: base -> write, preset dev"
"$CORDON" diff --format json base.cordon presets.cordon > "$tmpdir/out"
check_golden "$tmpdir/out" presets.json "json: presets added and removed"

# The context moves the fixed probes and the substituted patterns.
"$CORDON" diff --preset dev --context workspace=/srv/app base.cordon write.cordon > "$tmpdir/out"
grep -q '^  write /srv/app/.git/\.\.\.: ask -> allow  (widened' "$tmpdir/out"
ok $? "--context workspace=/srv/app: the region follows the workspace"
grep -q '^      /srv/app/.git/config$' "$tmpdir/out"
ok $? "--context workspace=/srv/app: so do the fixed probes"

# Options after the files, as GNU tools take them.
"$CORDON" diff base.cordon net.cordon --preset dev --fail-on-widen > /dev/null
ok $(($? != 1)) "options after the operands are read"

# Usage errors: exit 2 with a message.
usage_case() { # usage_case DESCRIPTION EXPECTED-MESSAGE ARGS...
	desc=$1 want=$2
	shift 2
	"$CORDON" diff "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 2)) "$desc: exit status 2 (got $rc)"
	printf '%s\n' "$want" "Try 'cordon diff --help'." > "$tmpdir/want"
	check_golden "$tmpdir/err" "$tmpdir/want" "$desc: message"
}
usage_case "one file" "cordon: give two policy files, OLD and NEW" base.cordon
usage_case "three files" "cordon: unexpected argument 'net.cordon'" base.cordon read.cordon net.cordon
usage_case "bad format" "cordon: unknown format 'xml': use text or json" --format xml base.cordon read.cordon
usage_case "--all with --preset" "cordon: --all and --preset exclude each other" --all --preset dev base.cordon read.cordon
usage_case "bad context" "cordon: context variable 'home' must be an absolute path, not 'u'" --context home=u base.cordon read.cordon

"$CORDON" diff --preset nope base.cordon read.cordon 2> "$tmpdir/err"
ok $(($? != 2)) "unknown preset: exit status 2"
grep -q "neither base.cordon nor read.cordon has a preset 'nope'" "$tmpdir/err"
ok $? "unknown preset: named in the message"

"$CORDON" diff base.cordon missing.cordon 2> "$tmpdir/err"
ok $(($? != 2)) "missing file: exit status 2"

# A policy with errors: its diagnostics, exit 1, no diff.
"$CORDON" diff base.cordon broken.cordon > "$tmpdir/out" 2> "$tmpdir/err"
ok $(($? != 1)) "policy with errors: exit status 1"
grep -q "^broken.cordon:3:14: error: " "$tmpdir/err"
ok $? "policy with errors: the diagnostic names file:line:col"
ok $(test -s "$tmpdir/out"; echo $((! $?))) "policy with errors: nothing on stdout"

# The shipped policy: the presets differ in the expected direction.
cd "$tmpdir" || exit 1
sed 's/^  approval never;/  approval ask;/' "$srcdir/rules/default.cordon" > changed.cordon
"$CORDON" diff --preset danger-full-access "$srcdir/rules/default.cordon" changed.cordon > out
grep -q '^  approval: never -> ask  (widened)$' out
ok $? "default policy: approval never -> ask is a widening"

done_testing
