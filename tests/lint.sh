#!/bin/sh
# cordon lint.  Every check ID has one file, tests/lint/ID.check, with a case
# that must find something and one that must not, each run with that check
# alone; whole policies run with every check and are pinned as text, JSON
# and SARIF.  Every SARIF log is checked for the properties cordon writes
# and, where the official SARIF 2.1.0 schema is installed
# (CORDON_SARIF_MODULES, see docs/lint.md), validated against it.
#
# ID.check is three sections, each begun by a line "=== NAME" and holding
# the lines up to the next such line, byte for byte (no blank line between
# sections):
#
#   === ID-yes.cordon     a policy the check must report
#   === findings          what `cordon lint --disable all --enable ID
#                         ID-yes.cordon` prints (the golden)
#   === ID-no.cordon      the nearest policy it must not report
#
# Lines before the first section are a comment.  The sections are written
# to a directory of their own as ID-yes.cordon, ID-yes.out and ID-no.cordon
# (the findings name ID-yes.cordon:LINE:COL) beside a copy of tests/lint/inc/,
# which a case may include.  CORDON_ACCEPT=1 rewrites the findings section
# in place when it differs (a new check's may start empty), and leaves the
# other sections as they are.  A check without ID.check fails, and so does
# an ID.check of no check.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/lint" || exit 1
version=$("$CORDON" --version | sed -n 's/^cordon \([^ ]*\) .*/\1/p')

have_python=false
command -v python3 > /dev/null && have_python=true
schema_ok=false
if [ -n "${CORDON_SARIF_MODULES:-}" ] && command -v node > /dev/null &&
	[ -f "$CORDON_SARIF_MODULES/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" ]; then
	schema_ok=true
fi

check_sarif() { # check_sarif FILE DESCRIPTION
	if $have_python; then
		python3 sarif-check.py "$1" > "$tmpdir/sarif-err" 2>&1
		ok $? "$2: SARIF properties"
		diag < "$tmpdir/sarif-err"
	else
		skip "$2: SARIF properties" "python3 is missing"
	fi
	if $schema_ok; then
		node sarif-validate.js "$CORDON_SARIF_MODULES" "$1" > "$tmpdir/sarif-err" 2>&1
		ok $? "$2: valid against the SARIF 2.1.0 schema"
		diag < "$tmpdir/sarif-err"
	else
		skip "$2: valid against the SARIF 2.1.0 schema" "schema not installed (CORDON_SARIF_MODULES)"
	fi
}

# A SARIF golden is the log as sarif-norm.py writes it, once it has
# verified the rules and every ruleIndex: the driver's version as VERSION
# (it changes with every release), of the rules only those a result names,
# and the index of a policy error's rule as "checks+K", so that a check
# appended to the table changes none of them.
"$CORDON" lint --list-checks | cut -d' ' -f1 > "$tmpdir/check-ids"
sarif_golden() { # sarif_golden FILE WANT DESCRIPTION
	if ! $have_python; then
		skip "$3" "python3 is missing"
	elif python3 sarif-norm.py "$1" "$tmpdir/check-ids" "$version" > "$1.norm" 2> "$tmpdir/norm-err"; then
		check_golden "$1.norm" "$2" "$3"
	else
		ok 1 "$3"
		diag < "$tmpdir/norm-err"
	fi
}

# ---- each check, one case that finds and one that must not ------------------
cases=$tmpdir/cases
mkdir "$cases" && cp -R inc "$cases/"

# split_check ID: the sections of ID.check as $cases/ID-yes.cordon,
# ID-yes.out and ID-no.cordon, and an empty ID-no.out; false, saying why on
# stderr, unless the three are there in that order.
split_check() {
	rm -f "$cases/$1"-*
	awk -v id="$1" -v dir="$cases" '
	BEGIN { want[1] = id "-yes.cordon"; want[2] = "findings"; want[3] = id "-no.cordon" }
	/^=== / {
		name = substr($0, 5)
		if (++n > 3 || name != want[n]) {
			printf "%s.check:%d: \"=== %s\" where %s belongs\n", id, NR, name,
				(n > 3 ? "no section" : "\"=== " want[n] "\"") > "/dev/stderr"
			bad = 1
			exit 1
		}
		if (file != "")
			close(file)
		file = dir "/" (n == 2 ? id "-yes.out" : name)
		printf "" > file
		next
	}
	n > 0 { print > file }
	END {
		if (!bad && n < 3)
			printf "%s.check: no \"=== %s\" section\n", id, want[n + 1] > "/dev/stderr"
		exit bad || n < 3
	}' "$1.check" && : > "$cases/$1-no.out"
}

# accept_findings ID: the findings section of ID.check replaced by
# $cases/ID-yes.out, the lines around it kept as they are.
accept_findings() {
	awk -v new="$cases/$1-yes.out" '
	/^=== / {
		print
		section = substr($0, 5)
		if (section == "findings") {
			while ((getline line < new) > 0)
				print line
			close(new)
		}
		next
	}
	section != "findings" { print }' "$1.check" > "$tmpdir/check.new" &&
		cp "$tmpdir/check.new" "$1.check"
}

for id in $("$CORDON" lint --list-checks | cut -d' ' -f1); do
	if [ ! -f "$id.check" ]; then
		ok 1 "$id-yes: a test case exists"
		ok 1 "$id-no: a test case exists"
		continue
	fi
	if ! split_check "$id" 2> "$tmpdir/split"; then
		ok 1 "$id.check: the sections $id-yes.cordon, findings and $id-no.cordon"
		diag < "$tmpdir/split"
		continue
	fi
	cp "$cases/$id-yes.out" "$tmpdir/findings"
	for kind in yes no; do
		name=$id-$kind
		(cd "$cases" && "$CORDON" lint --disable all --enable "$id" "$name.cordon") > "$tmpdir/out" 2> "$tmpdir/err"
		rc=$?
		# a finding at level error fails the run
		want=0
		[ $kind = yes ] && [ "$("$CORDON" lint --list-checks | awk -v id="$id" '$1 == id { print $2 }')" = error ] && want=1
		ok $((rc != want)) "$name: exit status $want (got $rc)"
		check_golden "$tmpdir/out" "$cases/$name.out" "$name: findings"
		ok $(test -s "$tmpdir/err"; echo $((! $?))) "$name: nothing on stderr"
		if [ $kind = yes ]; then
			# CORDON_ACCEPT=1 wrote the extracted golden: put it back in ID.check
			cmp -s "$cases/$name.out" "$tmpdir/findings" || accept_findings "$id"
			grep -q "\[$id\]\$" "$tmpdir/out"
			ok $? "$name: reports $id"
			(cd "$cases" && "$CORDON" lint --werror --disable all --enable "$id" "$name.cordon") > /dev/null 2>&1
			ok $(($? != 1)) "$name: --werror exits 1"
			(cd "$cases" && "$CORDON" lint --format sarif --disable all --enable "$id" "$name.cordon") > "$tmpdir/sarif"
			check_sarif "$tmpdir/sarif" "$name"
		else
			ok $(test -s "$tmpdir/out"; echo $((! $?))) "$name: finds nothing"
		fi
	done
done

# A file whose check was renamed or removed would never run.
"$CORDON" lint --list-checks | awk '{ print $1 ".check" }' > "$tmpdir/check-files"
for f in *.check; do
	grep -qxF "$f" "$tmpdir/check-files" || echo "$f is the test of no check"
done > "$tmpdir/stray"
test ! -s "$tmpdir/stray"
ok $? "every tests/lint/*.check is the test of a check"
diag < "$tmpdir/stray"

# ---- whole policies: text, JSON and SARIF -------------------------------------
for name in policy suppress errors; do
	want=0
	[ $name = errors ] && want=1
	"$CORDON" lint "$name.cordon" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != want)) "$name: exit status $want (got $rc)"
	check_golden "$tmpdir/out" "$name.out" "$name: text"
	"$CORDON" lint --format json "$name.cordon" > "$tmpdir/json"
	check_golden "$tmpdir/json" "$name.json" "$name: JSON"
	"$CORDON" lint --format sarif "$name.cordon" > "$tmpdir/sarif"
	sarif_golden "$tmpdir/sarif" "$name.sarif" "$name: SARIF"
	check_sarif "$tmpdir/sarif" "$name"
done

# An error of `cordon check` is the same text in both.
"$CORDON" check errors.cordon 2> "$tmpdir/check" > /dev/null
"$CORDON" lint errors.cordon > "$tmpdir/lint"
cmp -s "$tmpdir/check" "$tmpdir/lint"
ok $? "errors: lint prints check's diagnostics as check does"

# ---- options and exit statuses -------------------------------------------------
run() { # run WANT_STATUS DESCRIPTION ARGS...
	want=$1 desc=$2
	shift 2
	"$CORDON" "$@" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != want)) "$desc (exit $want, got $rc)"
}

run 0 "lint --help" lint --help
grep -q '^usage: cordon lint ' "$tmpdir/out"
ok $? "lint --help shows its usage"
run 0 "lint --list-checks" lint --list-checks
# The checks, as the table of lib/tools/lint.c gives them, are the rows of
# docs/lint.md's "The checks", in the same order with the same level.
awk '{ print $1, $2 }' "$tmpdir/out" > "$tmpdir/checks"
sed -n '/^## The checks/,/^## /p' "$srcdir/docs/lint.md" |
	sed -n 's/^| `\([a-z-]*\)` | \([a-z]*\) |.*/\1 \2/p' > "$tmpdir/checks.md"
[ "$(wc -l < "$tmpdir/checks")" -ge 10 ] && cmp -s "$tmpdir/checks" "$tmpdir/checks.md"
ok $? "--list-checks lists the $(wc -l < "$tmpdir/checks") checks of docs/lint.md, in its order, at its levels"
diff "$tmpdir/checks.md" "$tmpdir/checks" | diag
run 2 "lint without files" lint
run 2 "lint with an unknown option" lint --bogus policy.cordon
run 2 "lint --format xml" lint --format xml policy.cordon
grep -q "unknown format 'xml'" "$tmpdir/err"
ok $? "an unknown format is named"
run 2 "lint --disable of an unknown check" lint --disable shadowed-rules policy.cordon
grep -q "unknown check 'shadowed-rules'; did you mean 'shadowed-rule'?" "$tmpdir/err"
ok $? "an unknown check gets a suggestion"
run 2 "lint of a missing file" lint missing.cordon
grep -q "^cordon: error: cannot read 'missing.cordon': No such file or directory \[io\]\$" "$tmpdir/out"
ok $? "a missing file is an io finding"
run 0 "warnings alone exit 0" lint policy.cordon
run 1 "--werror makes warnings fail" lint --werror policy.cordon
run 0 "--werror with every check disabled" lint --werror --disable all policy.cordon
test ! -s "$tmpdir/out"
ok $? "--disable all prints nothing for a valid policy"
run 1 "errors fail even with every check disabled" lint --disable all errors.cordon
run 1 "several files: the worst status" lint policy.cordon errors.cordon
grep -q '^2 errors, 7 warnings, 4 info$' "$tmpdir/out"
ok $? "several files: one summary line"
"$CORDON" lint --format json policy.cordon errors.cordon > "$tmpdir/json"
if $have_python; then
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); sys.exit(len(a) != 13)' "$tmpdir/json"
	ok $? "several files: one JSON array of every finding"
else
	skip "several files: one JSON array" "python3 is missing"
fi
run 2 "a missing file among others exits 2" lint policy.cordon missing.cordon
run 0 "--disable then --enable" lint --disable all --enable no-description,unused-let policy.cordon
ok $(($(grep -c '^policy.cordon:' "$tmpdir/out") != 2)) "--enable runs exactly the checks named"

# The shipped policies are clean under their own checks.
for policy in "$srcdir"/rules/*.cordon "$srcdir"/rules/examples/*.cordon; do
	"$CORDON" lint --werror "$policy" > "$tmpdir/out" 2>&1
	st=$?
	ok $st "lint --werror $(basename "$policy"): no finding"
	[ $st -eq 0 ] || diag < "$tmpdir/out"
done

# ---- shipped files a policy includes -------------------------------------------
# Read from cordon's own copy (no default.cordon beside the includer), they
# are not the user's: their own findings are left out unless asked for.
mkdir "$tmpdir/user"
printf 'cordon 1;\ninclude "default.cordon";\n' > "$tmpdir/user/only-default.cordon"
run 0 "--werror: a policy that only includes the shipped default" \
	lint --werror "$tmpdir/user/only-default.cordon"
test ! -s "$tmpdir/out"
ok $? "a policy that only includes the shipped default: nothing reported"
run 0 "--include-shipped --werror" lint --include-shipped --werror "$tmpdir/user/only-default.cordon"
grep -qx '4 suppressed' "$tmpdir/out"
ok $? "--include-shipped: the default's own findings are there, silenced in it"
# A finding the includer causes in a shipped rule is the includer's.
cat > "$tmpdir/user/unsandboxed.cordon" <<'EOF'
cordon 1;
include "default.cordon";
preset "mine" extends "read-only" {
  description "read-only without the sandbox";
  sandbox none;
}
test "mine reads" {
  preset "mine";
  expect allow read "/etc/hosts";
}
EOF
run 1 "--werror: a preset that unsandboxes a shipped grant" lint --werror "$tmpdir/user/unsandboxed.cordon"
grep -q "^rules/default.cordon:[0-9]*:3: warning: 'exec \"\*\" allow' runs every command without a sandbox in preset 'mine'" "$tmpdir/out" &&
	grep -q "^In file included from $tmpdir/user/unsandboxed.cordon:2:1:" "$tmpdir/out"
ok $? "the finding the includer causes in a shipped file is reported"
"$CORDON" lint --format sarif "$tmpdir/user/unsandboxed.cordon" > "$tmpdir/sarif"
check_sarif "$tmpdir/sarif" "a finding in a shipped file"
if $have_python; then
	python3 - "$tmpdir/sarif" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
art = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
base = run["originalUriBaseIds"][art["uriBaseId"]]["uri"]
sys.exit(not (art["uri"] == "default.cordon" and base.startswith("file:///") and base.endswith("/cordon/")))
EOF
	ok $? "SARIF: a shipped file is named below the installed copy, not as rules/default.cordon"
else
	skip "SARIF: a shipped file's location" "python3 is missing"
fi
sed 's/^include "default.cordon";$/# cordon: ignore[broad-grant] mine runs in a throwaway VM\n&/' \
	"$tmpdir/user/unsandboxed.cordon" > "$tmpdir/user/silenced.cordon"
run 0 "--werror: silenced above the include" lint --werror "$tmpdir/user/silenced.cordon"
grep -qx '1 suppressed' "$tmpdir/out"
ok $? "a comment above the include silences a finding in the shipped file"

done_testing
