#!/bin/sh
# The command-line contract: help, version, exit statuses, usage errors.
. "$srcdir/tests/lib.sh"

run() { # run WANT_STATUS DESCRIPTION ARGS...
	want=$1 desc=$2
	shift 2
	"$CORDON" "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != want)) "$desc (exit $want, got $rc)"
}

run 0 "--version" --version
grep -q '^cordon [0-9][0-9.]* (language version 1)$' "$tmpdir/out"
ok $? "--version names the program and the language version"
run 0 "--help" --help
grep -q '^  check ' "$tmpdir/out" && grep -q '^  compile ' "$tmpdir/out"
ok $? "--help lists the verbs"
run 0 "check --help" check --help
grep -q '^usage: cordon check FILE' "$tmpdir/out"
ok $? "check --help shows its usage"
run 0 "compile --help" compile --help
grep -q -- '--emit KIND' "$tmpdir/out"
ok $? "compile --help shows --emit"
run 0 "help compile" help compile
run 2 "no verb" 
run 2 "unknown verb" frobnicate
grep -q "unknown verb 'frobnicate'" "$tmpdir/err"
ok $? "unknown verb is named"
run 2 "check without files" check
run 2 "check with an unknown option" check --bogus x
run 0 "check the shipped default policy" check "$srcdir/rules/default.cordon"
test ! -s "$tmpdir/out" && test ! -s "$tmpdir/err"
ok $? "a valid policy checks silently"

# compile without -p uses the embedded default policy.
run 0 "compile the embedded default" compile --preset workspace-write --emit ir
grep -q '^preset "workspace-write"$' "$tmpdir/out" && grep -q '^  extends "read-only"$' "$tmpdir/out"
ok $? "workspace-write extends read-only"
run 0 "compile the default preset" compile --emit ir
grep -q '^preset "read-only"$' "$tmpdir/out"
ok $? "without --preset the policy's default is compiled"
run 2 "compile without --emit" compile --preset read-only
run 2 "compile with an unknown --emit" compile --preset read-only --emit yaml
grep -q "unknown --emit kind 'yaml'" "$tmpdir/err"
ok $? "unknown --emit kind is named"
run 2 "compile an unknown preset" compile --preset read-olny --emit ir
grep -q "unknown preset 'read-olny'; did you mean 'read-only'?" "$tmpdir/err"
ok $? "unknown preset gets a hint"
run 2 "--context without =" compile --emit ir --context workspace
run 2 "--context with an unknown name" compile --emit ir --context wrkspace=/ws
grep -q "did you mean 'workspace'" "$tmpdir/err"
ok $? "unknown context variable gets a hint"
run 2 "--context with a relative directory" compile --emit ir --context workspace=ws
run 2 "--all with --preset" compile --all --preset read-only --emit ir

run 0 "--context substitutes" compile --preset workspace-write --emit ir --context workspace=/srv/ws/
grep -q '^  write "/srv/ws" allow' "$tmpdir/out"
ok $? "substituted directory is normalised"
grep -q '"${tmp}"' "$tmpdir/out"
ok $? "unset context variables stay symbolic"

run 0 "--emit json" compile --preset read-only --emit json
if command -v python3 > /dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["preset"]=="read-only" and d["rules"]' "$tmpdir/out"
	ok $? "--emit json is valid JSON with rules"
else
	grep -q '"preset": "read-only"' "$tmpdir/out"
	ok $? "--emit json names the preset"
fi

# -p with an invalid policy: diagnostics and exit 1; a missing one: exit 2.
printf 'cordon 1;\npreset "p" { read "x" allow; }\n' > "$tmpdir/bad.cordon"
run 1 "compile an invalid policy" compile -p "$tmpdir/bad.cordon" --preset p --emit ir
test ! -s "$tmpdir/out"
ok $? "nothing is printed for an invalid policy"
run 2 "compile a missing policy" compile -p "$tmpdir/none.cordon" --preset p --emit ir

# check keeps going over several files and reports each.
printf 'cordon 1;\n' > "$tmpdir/good.cordon"
run 1 "check good and bad files" check "$tmpdir/good.cordon" "$tmpdir/bad.cordon"
grep -q "bad.cordon:2:19: error: path pattern 'x' is not absolute" "$tmpdir/err"
ok $? "the bad file's error is reported"
run 2 "an I/O error outranks a policy error" check "$tmpdir/bad.cordon" "$tmpdir/none.cordon"

# ---- compile --emit offline: the per-call temp dir is shown as ${tmp} ----------
mkdir "$tmpdir/tmpbase"
TMPDIR="$tmpdir/tmpbase" "$CORDON" compile --preset workspace-write --emit bwrap-args \
	> "$tmpdir/out" 2> "$tmpdir/err"
ok $? "compile --emit bwrap-args without --context tmp=DIR"
tr '\0' '\n' < "$tmpdir/out" > "$tmpdir/args"
grep -q -x -- '--bind' "$tmpdir/args" && grep -A2 -x -- '--bind' "$tmpdir/args" | grep -q -x '${tmp}' &&
	grep -A2 -x -- '--setenv' "$tmpdir/args" | grep -A1 -x TMPDIR | grep -q -x '${tmp}'
ok $? "bwrap-args: the temp dir is bound and TMPDIR set, both shown as \${tmp}"
[ "$(wc -l < "$tmpdir/err")" -eq 1 ] &&
	grep -q '^cordon: note: ${tmp} stands for the private temp dir that cordon run makes for each call' "$tmpdir/err"
ok $? "bwrap-args: one note on stderr says what \${tmp} stands for"
ok $(ls -A "$tmpdir/tmpbase" | wc -l) "the stand-in temp dir is removed"
for kind in landlock seccomp sbpl; do
	"$CORDON" compile --preset workspace-write --emit "$kind" > "$tmpdir/out" 2> "$tmpdir/err"
	ok $? "compile --emit $kind without --context tmp=DIR"
	if grep -q 'tmp}' "$tmpdir/out"; then
		# (valgrind's own lines, "--PID-- ..." or "==PID== ...", are not cordon's)
		sed -n 2p "$tmpdir/out" | grep -q '^\(# \|;; \)${tmp} stands for the private temp dir' &&
			! grep -qv '^\(--\|==\)[0-9]*\(--\|==\)' "$tmpdir/err"
		ok $? "$kind: a comment, not stderr, says what \${tmp} stands for"
	else
		test ! -s "$tmpdir/err" && ! grep -q 'stands for' "$tmpdir/out"
		ok $? "$kind: no \${tmp} in the output, and no note"
	fi
done
"$CORDON" compile --preset workspace-write --emit bwrap-args --context tmp=/var/tmp \
	> "$tmpdir/out" 2> "$tmpdir/err"
! tr '\0' '\n' < "$tmpdir/out" | grep -q 'tmp}' && test ! -s "$tmpdir/err" &&
	tr '\0' '\n' < "$tmpdir/out" | grep -q -x /var/tmp
ok $? "with --context tmp=DIR the plan names DIR and no note is printed"

done_testing
