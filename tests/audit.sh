#!/bin/sh
# The audit log: records cordon eval and cordon run append (valid JSON, one
# line each, secrets redacted, 0600), lines of concurrent writers that never
# interleave, and `cordon audit` summaries over a log with a bad line and a
# partial last line (golden files in tests/audit).
. "$srcdir/tests/lib.sh"

golden=$srcdir/tests/audit
cd "$tmpdir" || exit 1
have_python=false
command -v python3 > /dev/null && have_python=true

mode_of() {
	stat -c %a "$1" 2> /dev/null || stat -f %Lp "$1"
}

# ---- records of cordon eval ------------------------------------------------------
log=$tmpdir/eval.log
"$CORDON" eval --preset read-only --context home=/home/u --actor ana --audit "$log" \
	read /home/u/.ssh/id_rsa > /dev/null
ok $? "eval --audit decides as before"
is "$(mode_of "$log")" 600 "the log is created 0600"
is "$(wc -l < "$log" | tr -d ' ')" 1 "one decision, one line"
grep -q '^{"time":"[0-9-]*T[0-9:]*\.[0-9][0-9][0-9]Z","actor":"ana","preset":"read-only","op":"read","target":"/home/u/.ssh/id_rsa","decision":"deny","rule":"rules/default.cordon:[0-9:]*","reason":"[^"]*","approval":null,"outcome":"decided","errno":null,"args":\[\]}$' "$log"
ok $? "the record: RFC 3339 ms time, actor, preset, op, canonical target, decision, rule, reason, outcome"
tail -c 1 "$log" | od -An -c | grep -q '\\n'
ok $? "the record ends with a newline"

# The canonical target, not the spelling asked for.
mkdir -p ws/sub
"$CORDON" eval --preset read-only --context workspace="$tmpdir/ws" --context cwd="$tmpdir/ws" \
	--audit "$log" read "$tmpdir/ws/sub/../sub/./f" > /dev/null
grep -q "\"target\":\"$tmpdir/ws/sub/f\"" "$log"
ok $? "the target is recorded canonical"

# $CORDON_AUDIT_LOG is the default; secrets in the command and in the
# escalation's justification are redacted.
CORDON_AUDIT_LOG=$log "$CORDON" eval --preset read-only --actor ana \
	--escalate 'use token ghp_1234567890abcdefghijABCDEFGHIJ123456' \
	exec 'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig" https://x' > /dev/null
is "$(wc -l < "$log" | tr -d ' ')" 3 "CORDON_AUDIT_LOG names the log when --audit is not given"
last=$(tail -n 1 "$log")
case $last in
*eyJhbGciOiJIUzI1NiJ9* | *ghp_1234567890* | *'"args":[]'*) ok 1 "secrets in target and args are redacted"; echo "$last" | diag ;;
*'Bearer [REDACTED:bearer-token]'*'"args":["use token [REDACTED:github-token]"]'*) ok 0 "secrets in target and args are redacted" ;;
*) ok 1 "secrets in target and args are redacted"; echo "$last" | diag ;;
esac

# A stream records every decision it makes.
printf '%s\n' '{"op":"net","target":"example.com:443"}' 'not json' \
	'{"op":"tool","target":"mcp:x/y","actor":"bot-7"}' |
	"$CORDON" eval --preset read-only --stdin --audit "$log" > /dev/null
is "$(wc -l < "$log" | tr -d ' ')" 5 "eval --stdin appends a record for each decision, none for a bad line"
tail -n 1 "$log" | grep -q '"actor":"bot-7","preset":"read-only","op":"tool","target":"mcp:x/y"'
ok $? "  ... a request's \"actor\" names who asked"

# The log must be a regular file the user can open.
"$CORDON" eval --preset read-only --audit "$tmpdir" read /etc/hosts > /dev/null 2> err
is "$?" 2 "a directory as the log: exit 2"
grep -q "cannot open the audit log $tmpdir: " err
ok $? "  ... with a message naming it"
"$CORDON" eval --preset read-only --audit /dev/null read /etc/hosts > /dev/null 2> err
is "$?" 2 "a device as the log: exit 2"
grep -q "the audit log /dev/null is not a regular file" err
ok $? "  ... with a message naming it"
"$CORDON" eval --preset read-only --audit "$tmpdir/no/such/dir/log" read /etc/hosts > /dev/null 2> err
is "$?" 2 "a log in a missing directory: exit 2"
grep -q "cannot open the audit log $tmpdir/no/such/dir/log" err
ok $? "  ... with a message naming the path"

# ---- concurrent writers --------------------------------------------------------------
# 8 processes each append 1000 records through the real CLI at once; a
# third of the records are larger than PIPE_BUF (4096 bytes).
log=$tmpdir/race.log
pad=$(head -c 5000 /dev/zero | tr '\0' 'x')
w=0
while [ $w -lt 8 ]; do
	awk -v w=$w -v pad="$pad" 'BEGIN {
		for (i = 0; i < 1000; i++)
			printf "{\"op\":\"tool\",\"target\":\"w%d-%d%s\"}\n", w, i, (i % 3 == 0 ? "-" pad : "")
	}' > req$w
	w=$((w + 1))
done
pids=
w=0
while [ $w -lt 8 ]; do
	"$CORDON" eval --preset read-only --stdin --audit "$log" < req$w > /dev/null &
	pids="$pids $!"
	w=$((w + 1))
done
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
ok $rc "8 concurrent writers finish"
is "$(wc -l < "$log" | tr -d ' ')" 8000 "exactly 8000 lines"
is "$(grep -c '^{"time":.*"args":\[\]}$' "$log")" 8000 "every line is one whole record"
is "$(grep -o '"target":"w[0-7]-[0-9]*' "$log" | sort -u | wc -l | tr -d ' ')" 8000 \
	"every record appears once"
is "$(awk 'length($0) > 4096' "$log" | wc -l | tr -d ' ')" 2672 "2672 records are larger than PIPE_BUF"
"$CORDON" audit "$log" --format json > summary 2> err
ok $? "cordon audit reads the raced log"
grep -q '"records":8000,"skipped":0,' summary
ok $? "  ... 8000 records, none skipped"
ok $(test ! -s err; echo $?) "  ... without a warning"
if $have_python; then
	python3 - "$log" <<'PY'
import json, sys
seen = set()
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    rec = json.loads(line)
    assert rec["op"] == "tool" and rec["decision"] == "ask", n
    seen.add(rec["target"].split("-x")[0])
assert len(seen) == 8000, len(seen)
PY
	ok $? "every line parses as JSON (python3)"
else
	skip "every line parses as JSON (python3)" "no python3"
fi

# ---- cordon audit: summaries, filters, bad lines -------------------------------------
cp "$golden/sample.jsonl" sample.jsonl
"$CORDON" audit sample.jsonl > out 2> err
ok $? "audit: exit 0 over a log with a bad line and a partial last line"
check_golden out "$golden/summary.txt" "audit: text summary"
check_golden err "$golden/summary.err" "audit: a warning for each skipped line, naming file and line"
"$CORDON" audit sample.jsonl --decision deny > out 2> /dev/null
check_golden out "$golden/deny.txt" "audit --decision deny"
"$CORDON" audit sample.jsonl --since 2026-03-01T10:30:00Z --format json > out 2> /dev/null
check_golden out "$golden/since.json" "audit --since RFC 3339 (offsets honoured) --format json"
"$CORDON" audit sample.jsonl --since 2026-03-02T09:50:00+01:00 --decision allow > out 2> /dev/null
check_golden out "$golden/since-allow.txt" "audit --since with an offset and --decision allow"

# A relative --since: an old record and a new one.
head -n 1 sample.jsonl > mixed.log
"$CORDON" eval --preset read-only --audit mixed.log net example.org > /dev/null
"$CORDON" audit mixed.log --since 10m --format json > out
grep -q '"records":1,' out && grep -q '"target":"example.org"' out
ok $? "audit --since 10m keeps only the recent record"
"$CORDON" audit mixed.log --since 4000d --format json > out
grep -q '"records":2,' out
ok $? "audit --since 4000d keeps both"

# A crash mid-write: the partial last line is skipped, and a record written
# after it still counts (it shares the broken line, which is skipped).
printf '%s' '{"time":"2026-03-03T00:00:00.000Z","actor":"x","op":"re' > crash.log
"$CORDON" audit crash.log > out 2> err
ok $? "a log of one partial line: exit 0"
grep -q '^cordon: warning: crash.log:1: skipping a partial last line (no newline at its end)$' err
ok $? "  ... a warning naming file and line"
grep -q '^0 records match in crash.log (1 line read, 1 skipped)$' out
ok $? "  ... and nothing counted"

for bad in "--since yesterday" "--since 10y" "--decision maybe" "--format xml"; do
	"$CORDON" audit sample.jsonl $bad > /dev/null 2> err
	is "$?" 2 "audit $bad: usage error"
done
"$CORDON" audit "$tmpdir/none.log" > /dev/null 2> err
is "$?" 2 "audit of a missing log: exit 2"
grep -q "cannot read the audit log $tmpdir/none.log" err
ok $? "  ... naming it"

done_testing
