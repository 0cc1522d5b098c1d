#!/bin/sh
# cordon test --coverage: which rules decided an expectation, per file and
# in total, the uncovered ones by location, and the --threshold gate.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/coverage" || exit 1

cover() { # cover NAME EXPECTED-STATUS ARGS...
	name=$1 want=$2
	shift 2
	"$CORDON" test --coverage "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != want)) "$name: exit status $want (got $rc)"
	check_golden "$tmpdir/out" "$name.out" "$name: report"
}

cover app 0 app.cordon
cover full-and-none 0 full.cordon none.cordon
cover failing 1 failing.cordon

# The threshold: 6 of 9 rules is 66.7%.
cover threshold-below 1 --threshold 70 app.cordon
"$CORDON" test --coverage --threshold 66.6 app.cordon > /dev/null
ok $? "threshold 66.6 against 66.7%: exit status 0"
"$CORDON" test --coverage --threshold 100 full.cordon > /dev/null
ok $? "threshold 100 with every rule covered: exit status 0"

# A file reached by two spellings counts once.
"$CORDON" test --coverage app.cordon ../coverage/app.cordon > "$tmpdir/out"
grep -q '^# total: 6/9 rules (66.7%)$' "$tmpdir/out"
ok $? "the same file under two names is one file"

# Without --coverage the output is the plain TAP of before.
"$CORDON" test app.cordon > "$tmpdir/out"
ok $(grep -c '^# ' "$tmpdir/out") "no report without --coverage"

# A policy on the shipped default: its own rules and tests, unless asked.
"$CORDON" test --coverage --threshold 80 team.cordon > "$tmpdir/out"
rc=$?
ok $((rc != 1)) "2 of the team's 3 rules is below 80%, whatever the default's rules (exit 1, got $rc)"
grep -q '^# total: 2/3 rules (66.7%)$' "$tmpdir/out" && ! grep -q 'default.cordon' "$tmpdir/out"
ok $? "coverage counts the includer's rules, not the shipped default's"
grep -q '^1\.\.2$' "$tmpdir/out" &&
	grep -q '^# team.cordon: [1-9][0-9]* test blocks of the shipped policies it includes not run (--include-shipped runs them)$' "$tmpdir/out"
ok $? "the shipped default's tests do not run in the includer's TAP, and a comment says so"
"$CORDON" test --coverage --include-shipped team.cordon > "$tmpdir/out"
ok $? "--include-shipped: the shipped tests pass too"
grep -q '^# rules/default.cordon: [0-9]*/[0-9]* rules' "$tmpdir/out" &&
	[ "$(grep -c '^ok ' "$tmpdir/out")" -gt 2 ] && ! grep -q 'not run' "$tmpdir/out"
ok $? "--include-shipped runs the shipped tests and counts their rules"
"$CORDON" eval -p team.cordon --context workspace=/ws read /srv/data > "$tmpdir/out"
grep -q '^  preset: team ' "$tmpdir/out"
ok $? "a policy's own default overrides the one of the shipped file it includes"

usage_case() { # usage_case DESCRIPTION EXPECTED-MESSAGE ARGS...
	desc=$1 want=$2
	shift 2
	"$CORDON" test "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 2)) "$desc: exit status 2 (got $rc)"
	printf '%s\n' "$want" "Try 'cordon test --help'." > "$tmpdir/want"
	check_golden "$tmpdir/err" "$tmpdir/want" "$desc: message"
}
usage_case "threshold not a number" \
	"cordon: --threshold expects a percentage from 0 to 100, not 'most'" \
	--coverage --threshold most app.cordon
usage_case "threshold over 100" \
	"cordon: --threshold expects a percentage from 0 to 100, not '101'" \
	--coverage --threshold 101 app.cordon
usage_case "threshold without coverage" "cordon: --threshold needs --coverage" \
	--threshold 50 app.cordon

done_testing
