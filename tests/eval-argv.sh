#!/bin/sh
# Exec requests given as argv: cordon eval and explain `exec --argv -- WORD...`
# and the JSONL stream's "argv" member, beside the shell string form.
. "$srcdir/tests/lib.sh"

# The default's `exec "*" allow` of read-only, by its location.
exec_rule=rules/default.cordon:$(grep -n '^  exec  *"\*"  *allow;' "$srcdir/rules/default.cordon" | head -1 | cut -d: -f1):3

ww="--preset workspace-write --context workspace=/srv/ws --context home=/home/u"

ev() { # ev ARGS...: cordon eval; $rc, stdout in $out, stderr in $tmpdir/err
	out=$("$CORDON" eval "$@" 2> "$tmpdir/err")
	rc=$?
}

# ---- cordon eval exec --argv ---------------------------------------------------------
ev $ww --json exec --argv -- env "A='" sh -c "git push --force ./r.git HEAD:master #'"
case $rc:$out in
0:'{"decision":"deny","reason":"force pushes rewrite shared history",'*'"analysed":"argv"}') ok 0 "eval --argv: the push behind env and sh -c is denied" ;;
*) ok 1 "eval --argv: the push behind env and sh -c is denied"; echo "$out" | diag ;;
esac
case $out in
*'"target":"git push --force ./r.git HEAD:master","detail":"runs (spec \"git\")","decision":"deny"'*) ok 0 "  ... the git command is an operation of its own" ;;
*) ok 1 "  ... the git command is an operation of its own"; echo "$out" | diag ;;
esac
ev $ww --json exec "env A=' sh -c git push --force ./r.git HEAD:master #'"
case $out in
'{"decision":"allow",'*'"analysed":"shell"}') ok 0 "the words joined into one shell string are a different request (allow, analysed as shell)" ;;
*) ok 1 "the words joined into one shell string are a different request"; echo "$out" | diag ;;
esac

ev $ww exec --argv -- printf '%s\n' 'x > /tmp/out'
is "$rc:$(echo "$out" | head -1):$(echo "$out" | grep analysed)" "0:allow: allowed by $exec_rule:  analysed: argv" \
	"printf '%s\\\\n' 'x > /tmp/out' as argv writes nothing: allow"
ev $ww exec "printf '%s\n' 'x > /tmp/out'"
is "$(echo "$out" | head -1 | cut -d: -f1):$(echo "$out" | grep analysed)" "allow:  analysed: shell" \
	"the same as a shell string: allow, analysed as shell"
ev $ww --sandboxed exec --argv python3 -c 'print("hi")'
is "$rc:$(echo "$out" | head -1 | cut -d: -f1)" "0:allow" "python3 -c 'print(\"hi\")' as argv, sandboxed: allow (no -- needed)"
ev $ww exec --argv python3 -c 'print("hi")'
is "$rc:$(echo "$out" | head -1 | cut -d: -f1)" "0:ask" "python3 -c 'print(\"hi\")' as argv, for a host without the sandbox: ask"
ev $ww --sandboxed exec --argv -- git commit -m 'fix: a (b); c'
is "$(echo "$out" | grep '^  exec')" "  exec git commit -m fix:\$'\\x20a\\x20(b);\\x20c' [runs (spec \"git\")]: allow by $exec_rule" \
	"the message is one word of the line exec rules match"
ev $ww exec --argv -- git push ./r.git "HEAD:master --force"
case $out in
*"force pushes"*) ok 1 "a word that only looks like --force is no force push"; echo "$out" | diag ;;
*) ok 0 "a word that only looks like --force is no force push" ;;
esac
ev $ww exec --argv -- timeout 5 nice -n 3 git push -f
is "$(echo "$out" | head -1)" "deny: force pushes rewrite shared history" "timeout and nice are looked through"

ev $ww exec --argv
is "$rc" 2 "exec --argv without words is a usage error"
grep -q "exec --argv expects the command's words" "$tmpdir/err"
ok $? "  ... that says what it expects"
ev $ww exec --argv --
is "$rc" 2 "exec --argv -- without words is a usage error"
ev $ww read --argv /etc/hosts
is "$rc" 2 "--argv on a read is a usage error"
grep -q -- "--argv belongs to exec requests, not 'read'" "$tmpdir/err"
ok $? "  ... that names the operation"
ev $ww exec git status extra
is "$rc" 2 "exec with three operands and no --argv is still a usage error"

"$CORDON" explain $ww exec --argv -- sudo -u bob git push --force > "$tmpdir/out" 2>&1
rc=$?
grep -q "^argv: 6 words, as the line exec rules match: sudo -u bob git push --force$" "$tmpdir/out" &&
	grep -q "behind: sudo" "$tmpdir/out" && grep -q "^decision: deny$" "$tmpdir/out"
ok $? "explain --argv shows the words, the wrapper and the decision (exit $rc)"

# ---- the JSONL stream ----------------------------------------------------------------
cat > "$tmpdir/in" << 'EOF'
{"op":"exec","argv":["git","push","-f"]}
{"op":"exec","target":"git push -f"}
{"op":"exec","argv":["env","A='","sh","-c","git push --force x #'"]}
{"op":"exec","target":"env A=' sh -c git push --force x #'"}
{"op":"exec","argv":["printf","%s\n","x > /tmp/out"]}
{"op":"exec","argv":[]}
{"op":"exec","argv":"git push"}
{"op":"exec","argv":["git",1]}
{"op":"exec","argv":["ls"],"target":"ls"}
{"op":"read","argv":["/etc/hosts"]}
EOF
"$CORDON" eval --stdin $ww < "$tmpdir/in" > "$tmpdir/out"
is "$?" 0 "the stream takes argv requests"
field() { # field LINE: decision and analysed, or the error, of the LINE-th answer
	sed -n "$1p" "$tmpdir/out" | sed -E 's/^\{"decision":"([a-z]+)".*"analysed":"([a-z]+)"\}$/\1 \2/; s/^\{"error":"(.*)","line":[0-9]+\}$/error: \1/'
}
is "$(field 1)" "deny argv" "stream: argv git push -f is denied, analysed as argv"
is "$(field 2)" "deny shell" "stream: the target form still works, analysed as shell"
is "$(field 3)" "deny argv" "stream: the push behind env and sh -c is denied"
is "$(field 4)" "allow shell" "stream: its joined string is another request"
is "$(field 5)" "allow argv" "stream: printf with a > in a word writes nothing"
is "$(field 6)" "deny argv" "stream: an empty argv is denied"
is "$(field 7)" 'error: \"argv\" must be an array of strings without NUL bytes' "stream: argv must be an array"
is "$(field 8)" 'error: \"argv\" must be an array of strings without NUL bytes' "stream: argv holds strings"
is "$(field 9)" 'error: \"argv\" belongs to exec requests, in place of \"target\"' "stream: argv and target at once are refused"
is "$(field 10)" 'error: \"argv\" belongs to exec requests, in place of \"target\"' "stream: argv on a read is refused"
sed -n 6p "$tmpdir/out" | grep -q '"reason":"the argv is empty"'
ok $? "stream: the empty argv's reason says so"

# A deny that names a program speaks for it run by a path; explain says so.
cat > "$tmpdir/byname.cordon" <<'EOF'
cordon 1;

preset "p" {
  description "rm by any path";
  read "/**" allow;
  exec "*" allow;
  exec "rm" deny "no deleting";
}
EOF
"$CORDON" explain -p "$tmpdir/byname.cordon" --preset p exec --argv -- /usr/bin/rm -rf x > "$tmpdir/out" 2>&1
grep -q "^    match    exec \"rm\" (by the program's name: the command runs it by a path) deny " "$tmpdir/out" &&
	grep -q '^decision: deny$' "$tmpdir/out"
ok $? "explain: a deny of rm matched /usr/bin/rm by the program's name, and says so" || diag < "$tmpdir/out"
"$CORDON" explain -p "$tmpdir/byname.cordon" --preset p exec --argv -- rm -rf x > "$tmpdir/out" 2>&1
grep -q '^    match    exec "rm" deny ' "$tmpdir/out"
ok $? "explain: rm run by its name matches without the note" || diag < "$tmpdir/out"

done_testing
