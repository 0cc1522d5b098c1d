#!/bin/sh
# Specificity by containment: the rule whose targets the other matches
# contain decides; incomparable matches go to the more severe.
. "$srcdir/tests/lib.sh"

d=$srcdir/tests/specificity
# the defaults of home and agent_dir come from HOME: one the test owns
HOME=$tmpdir; export HOME

# "allow the workspace, except keys" denies the keys
out=$("$CORDON" eval -p "$d/trap.cordon" --preset p read /ws/a/key.pem 2>&1)
is "$(printf '%s\n' "$out" | head -n 1)" "deny: keys" "the trap: a deny of keys inside a workspace allow decides"
out=$("$CORDON" eval -p "$d/trap.cordon" --preset p read /ws/a/key.c 2>&1)
is "$(printf '%s\n' "$out" | head -n 1 | cut -d: -f1)" "allow" "the trap: the rest of the workspace stays allowed"

while read -r op want target; do
	case $op in ''|'#'*) continue ;; esac
	# Exec is decided as under cordon run: the ranking is what is tested
	# here, not the caution for programs without a spec outside the sandbox.
	sb=
	[ "$op" = exec ] && sb=--sandboxed
	got=$("$CORDON" eval -p "$d/overlap.cordon" --preset p --context home=/home/u --json $sb \
		"$op" "$target" 2>&1 | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
	is "$got" "$want" "overlap: $op $target -> $want"
done < "$d/overlap.cases"

# explain names the relation it used
out=$("$CORDON" explain -p "$d/overlap.cordon" --preset p --context home=/home/u read /ws/src/a.pem 2>&1)
printf '%s\n' "$out" | grep -q 'more specific than read "/ws/\*\*" allow'
ok $? "explain: the winner is more specific than the workspace allow"
printf '%s\n' "$out" | grep -q 'incomparable with read "/ws/src/\*\*" allow .*, the more severe wins'
ok $? "explain: the winner is incomparable with the subtree allow, and more severe"

out=$("$CORDON" explain -p "$d/overlap.cordon" --preset p --context home=/home/u read /ws/src/b.pem 2>&1)
printf '%s\n' "$out" | grep -q 'more specific than read "/ws/\*\*/\*.pem" deny'
ok $? "explain: an exact path is more specific than the glob deny it lies in"
printf '%s\n' "$out" | grep -q 'more specific than read "/ws/src/\*\*" allow'
ok $? "explain: an exact path is more specific than the subtree allow it lies in"

# the benchmark's shape against its brute-force oracle
"$builddir/bench/spec_bench" -t -n 20000 > "$tmpdir/bench" 2>&1
st=$?
diag < "$tmpdir/bench"
ok $st "per-project allows with key and dotenv denies: no wrong answer against the oracle"

done_testing
