#!/bin/sh
# The command line of every verb, from the one option table: options before
# or after the operands, "--" ends them, a command's words are never
# cordon's, every usage error names the option and exits 2 with a hint, and
# every verb's --help prints its option list.
. "$srcdir/tests/lib.sh"

cd "$tmpdir" || exit 1
printf 'cordon 1;\ndefault "p";\npreset "p" {\n  read "/**" allow;\n  write "/**" ask;\n}\n' > pol.cordon
touch target.txt

# ---- options after the operands --------------------------------------------------
"$CORDON" eval read /etc/hosts --json > out 2> err
is "$?" 0 "eval OP TARGET --json: exit 0"
grep -q '^{"decision":"allow",' out
ok $? "  ... and the decision is JSON"
"$CORDON" eval read /etc/hosts -p pol.cordon --preset p --json > out 2> err
grep -q '"preset":"p"' out
ok $? "eval: -p and --preset after the operands are read"
"$CORDON" explain read /etc/hosts -p pol.cordon > out 2> err
grep -q '^decision: allow$' out
ok $? "explain: -p after the operands is read"
"$CORDON" check pol.cordon --bogus > out 2> err
is "$?" 2 "check FILE --bogus: the trailing option is read (exit 2)"
"$CORDON" lint pol.cordon --format json > out 2> err
grep -q '^\[' out
ok $? "lint FILE --format json: the trailing option is read"
"$CORDON" fmt pol.cordon --check > out 2> err
is "$?:$(cat err)" "1:pol.cordon: not formatted" "fmt FILE --check: the trailing option is read"
test ! -s out
ok $? "  ... and nothing is printed"
"$CORDON" write "$tmpdir/target.txt" -p pol.cordon --context workspace="$tmpdir" < /dev/null > out 2> err
is "$?" 3 "write PATH -p FILE: the trailing policy asks (exit 3)"
"$CORDON" approve write "$tmpdir/target.txt" -p pol.cordon --ttl 30 \
	--context workspace="$tmpdir" --context session_dir="$tmpdir/s" < /dev/null > out 2> err
is "$?" 0 "approve write PATH --ttl S: exit 0"
grep -q '^approved: write .*, once, for 30 s$' out
ok $? "  ... and the trailing --ttl is read"

# ---- "--" ends the options; a command's words are never cordon's -------------------
"$CORDON" eval -p pol.cordon read -- -odd > out 2> err
grep -q '^  read .*/-odd: allow' out
ok $? "eval read -- -odd: a target after -- is an operand"
"$CORDON" eval exec -- 'ls -la' > out 2> err
is "$?" 0 "eval exec -- 'ls -la': exit 0"
grep -q '^  analysed: shell$' out
ok $? "  ... decided as a shell string"
"$CORDON" eval exec --argv git push -f > out 2> err
is "$(head -n 1 out)" "deny: force pushes rewrite shared history" \
	"eval exec --argv git push -f: -f is the command's, not cordon's"
"$CORDON" eval exec --argv -- timeout 5 git push --force -p x > out 2> err
is "$(head -n 1 out)" "deny: force pushes rewrite shared history" \
	"eval exec --argv -- ...: --force and -p x are the command's"
"$CORDON" eval --json exec --argv -- ls -la > out 2> err
grep -q '"decision":"allow"' out
ok $? "options before exec --argv are still cordon's"

# cordon run: the options end at the command (or at --).
if "$CORDON" run --preset danger-full-access -- true 2> err; then
	"$CORDON" run --preset danger-full-access -- printf '%s\n' a -p --json -- b > out 2> err
	printf '%s\n' a -p --json -- b > want
	check_golden out want "run --preset P -- CMD ARGS: every word after -- is the command's"
	"$CORDON" run --preset danger-full-access printf '%s\n' --preset x -h > out 2> err
	printf '%s\n' --preset x -h > want
	check_golden out want "run --preset P CMD ARGS: the options end at the command"
else
	skip "the options of cordon run end at the command" "cordon run cannot run here: $(head -n 1 err)"
fi

# ---- usage errors: the option named, exit 2, a hint ----------------------------------
usage_case() { # usage_case DESCRIPTION VERB EXPECTED-MESSAGE ARGS...
	desc=$1 verb=$2 want=$3
	shift 3
	"$CORDON" "$verb" "$@" > out 2> err < /dev/null
	rc=$?
	is "$rc" 2 "$desc: exit 2"
	printf '%s\n' "$want" "Try 'cordon $verb --help'." > want
	check_golden err want "$desc: the message"
	test ! -s out
	ok $? "$desc: nothing on stdout"
}
usage_case "an unknown option" check "cordon: unknown option '--bogus'" --bogus pol.cordon
usage_case "an unknown option after the operands" eval "cordon: unknown option '--bogus'" \
	read /etc/hosts --bogus
usage_case "an unknown short option" eval "cordon: unknown option '-z'" -z read x
usage_case "an option without its argument" eval \
	"cordon: option '--preset' needs an argument (--preset P)" read x --preset
usage_case "a short option without its argument" compile \
	"cordon: option '-p' needs an argument (-p FILE)" --emit ir -p
usage_case "a flag given an argument" eval "cordon: option '--json' takes no argument" \
	--json=yes read x
usage_case "an ambiguous abbreviation" run \
	"cordon: option '--pre' is ambiguous (--preset, --preview)" --pre x -- true
usage_case "a value the option does not take" lint \
	"cordon: unknown format 'xml': use text, json or sarif" --format xml pol.cordon
usage_case "a value of audit --decision" audit \
	"cordon: unknown decision 'maybe': use allow, ask or deny" --decision maybe log
usage_case "an option of other verbs" write \
	"cordon: unknown option '--old' for 'cordon write' (an option of edit, approve)" \
	"$tmpdir/target.txt" --old x --new y
usage_case "an option of explain's sibling" explain \
	"cordon: unknown option '--json' for 'cordon explain' (an option of eval, probe)" \
	--json read x
usage_case "an option of another form of approve" approve \
	"cordon: --old is not an option of 'cordon approve write' (it belongs to edit)" \
	--old x write "$tmpdir/target.txt"
usage_case "an option of another form of hook" hook \
	"cordon: --no-rewrite is not an option of 'cordon hook install' (it belongs to AGENT)" \
	install claude --no-rewrite --dir "$tmpdir"

# ---- every verb's --help is printed from its rows ------------------------------------
"$CORDON" --help | sed -n '/^Verbs:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' > verbs
[ "$(wc -l < verbs)" -ge 10 ]
ok $? "cordon --help lists the verbs"
while read -r verb; do
	"$CORDON" "$verb" --help > out 2> err
	rc=$?
	grep -q "^usage: cordon $verb" out && grep -q '^Options:$' out &&
		grep -q '^  -h, --help           print this help$' out
	ok $? "cordon $verb --help: usage and the option list (exit $rc)"
	"$CORDON" "$verb" -h > out2 2> err
	cmp -s out out2
	ok $? "cordon $verb -h prints the same"
done < verbs
"$CORDON" write --help > out
grep -q '^  --audit LOG ' out && grep -q '^  --actor NAME ' out
ok $? "write --help lists --audit and --actor"

done_testing
