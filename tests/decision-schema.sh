#!/bin/sh
# The decision JSON against its one schema, docs/decision.schema.json: the
# requests and answers of every case of tests/decide/ through the stream
# (each exec case asked again with "approve"), every tenth through
# `cordon eval --json`, and the rest of what the cases do not reach (argv
# requests, grants of a tree and a host, seatbelt, stream errors).  Checked
# by a standard-library validator that also requires every member and enum
# value of the schema to have been seen (tests/decision-schema/validate.py),
# and by ajv where it is installed (CORDON_SARIF_MODULES, as in CI).  Both
# must also reject decisions the schema does not allow, so that neither
# passes by accepting anything.
. "$srcdir/tests/lib.sh"

if ! command -v python3 > /dev/null; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
case $CORDON in
/*) ;;
*) CORDON=$PWD/$CORDON ;;
esac
one_shot=${CORDON_REAL:-$CORDON}
case $one_shot in
/*) ;;
*) one_shot=$PWD/$one_shot ;;
esac
schema=$srcdir/docs/decision.schema.json
here=$srcdir/tests/decision-schema
cd "$tmpdir" || exit 1
mkdir -p work out

python3 "$here/gen.py" "$CORDON" "$one_shot" "$srcdir/tests/decide" "$tmpdir/work" out 2> err
ok $? "the cases of tests/decide/ decided through the stream and eval --json"
diag < err
is "$(wc -l < out/stream.jsonl | tr -d ' ')" "$(wc -l < out/requests.jsonl | tr -d ' ')" \
	"one answer a request"

# What the cases do not reach: a policy that asks for writes outside the
# workspace and for every host, so that approvals grant a tree and a host.
cp "$srcdir/rules/commands.cordon" .
cat > p.cordon << 'EOP'
cordon 1;
include "commands.cordon";
preset "p" {
  approval ask;
  sandbox required;
  read  "/**" allow;
  write "/**" ask;
  write "${workspace}" allow;
  net   "*" ask;
  exec  "*" allow;
}
default "p";
EOP
mkdir -p ws/data outdir
W=$tmpdir/ws
cat > extra.jsonl << EOR
{"id":"tree","op":"exec","target":"cp -r data $tmpdir/outdir","approve":true}
{"id":"host","op":"exec","target":"curl -sS https://example.org/x","approve":true}
{"id":"argv","op":"exec","argv":["git","push","-f"],"actor":"ci","canonical":false,"context":{"workspace":"$W","user":"u"}}
{"op":"read","target":"$W/a","canonical":true}
EOR
"$CORDON" eval -p p.cordon --context "workspace=$W" --context "cwd=$W" --stdin \
	< extra.jsonl > out/extra.jsonl 2> err
ok $? "grants of a tree and a host, an argv request"
diag < err
cat extra.jsonl >> out/requests.jsonl
printf '%s\n' 'not json' '{"id":7,"op":"read","target":"/a","colour":"red"}' '' \
	'{"id":"x","op":"frobnicate","target":"/a"}' |
	"$CORDON" eval --stdin > out/errors.jsonl 2> err
is "$?:$(grep -c '"error"' out/errors.jsonl)" 0:4 "stream errors are answers too"
"$CORDON" eval --host macos --json read /etc/hosts >> out/eval.jsonl 2> err
ok $? "a decision on macOS (seatbelt)"
diag < err
# Under a managed layer (docs/fleet.md), decisions name their layer: p.cordon
# with a read deny of its own under p.cordon with a regex read deny (which
# the widening check has no target to ask about, so the lower layer passes):
# the user layer decides the first two reads, the managed layer the third.
sed -e 's|^  write "${workspace}" allow;|&\n  read "${workspace}/keep" deny;|' \
	-e '/^default/d' p.cordon > lower.cordon
sed -e 's|^  read  "/\*\*" allow;|&\n  read /^.secret.*[.]key$/ deny;|' p.cordon > managed.cordon
for t in "$W/a" "$W/keep/x" /secret/a.key; do
	CORDON_MANAGED=$tmpdir/managed.cordon "$CORDON" eval -p lower.cordon \
		--context "workspace=$W" --context "cwd=$W" --json read "$t" >> out/eval.jsonl 2> err
done
grep -q '"layer":"managed"' out/eval.jsonl && grep -q '"layer":"user"' out/eval.jsonl
ok $? "decisions under a managed layer name theirs"
diag < err

all="Request=out/requests.jsonl =out/stream.jsonl =out/extra.jsonl =out/errors.jsonl =out/eval.jsonl"
# shellcheck disable=SC2086
python3 "$here/validate.py" "$schema" --coverage $all > res 2>&1
ok $? "$(tail -1 res | cut -c 3-) against the schema; every member and value seen"
diag < res

# The validators tell: a member the schema lacks, a wrong value, a missing
# one.  Each altered line must be refused.
head -n 1 out/eval.jsonl > one.jsonl
sed 's/^{/{"novel":1,/' one.jsonl > bad-member.jsonl
sed 's/"decision":"[a-z]*"/"decision":"maybe"/' one.jsonl > bad-value.jsonl
sed 's/"preset":"[^"]*",//' one.jsonl > bad-missing.jsonl
sed 's/"rule":\("[^"]*"\|null\)/"rule":3/' one.jsonl > bad-type.jsonl
for b in bad-member bad-value bad-missing bad-type; do
	python3 "$here/validate.py" "$schema" "=$b.jsonl" > res 2>&1
	is "$?" 1 "the validator refuses a decision with $b"
done

modules=${CORDON_SARIF_MODULES:-}
if [ -n "$modules" ] && [ -f "$modules/ajv/package.json" ] && command -v node > /dev/null; then
	# shellcheck disable=SC2086
	node "$here/validate-ajv.js" "$modules" "$schema" $all > res 2>&1
	ok $? "ajv: $(tail -1 res | cut -c 3-)"
	diag < res
	for b in bad-member bad-value bad-missing bad-type; do
		node "$here/validate-ajv.js" "$modules" "$schema" "=$b.jsonl" > res 2>&1
		is "$?" 1 "ajv refuses a decision with $b"
	done
else
	skip "ajv: the same lines against the schema" "ajv is not installed (CORDON_SARIF_MODULES)"
fi

done_testing
