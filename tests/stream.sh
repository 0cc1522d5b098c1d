#!/bin/sh
# The decision stream (`cordon eval --stdin`): one answer line for every
# input line, in order; ids echoed; a context per line; answers that come
# while the host waits.  And file targets read as the host means them:
# "~" and "~user", relative to the request's cwd, refused when they hold a
# NUL byte or are not UTF-8 text, in eval, explain, the stream, and test
# blocks.
. "$srcdir/tests/lib.sh"

# A rule of the default policy by its text, as "rules/default.cordon:LINE:3".
rule_at() {
	echo "rules/default.cordon:$(grep -n -F -- "$1" "$srcdir/rules/default.cordon" | head -1 | cut -d: -f1):3"
}
r_secrets=$(rule_at '  read  $secrets ')
r_ask=$(rule_at '  write "/**"              ask')
r_ws=$(rule_at '  write "${workspace}" ')
r_read=$(rule_at '  read  "/**"')

cd "$tmpdir" || exit 1
ws=$(pwd -P)/ws
mkdir -p "$ws/src" "$ws/home/.ssh" other
other=$(pwd -P)/other
ctx="--context workspace=$ws --context cwd=$ws --context home=$ws/home"

# stream FILE: answers of the default policy's read-only preset in out.
stream() {
	# shellcheck disable=SC2086
	"$CORDON" eval $ctx --stdin < "$1" > out 2> err
}
# line N: the Nth answer.
line() { sed -n "${1}p" out; }
# has N TEXT DESCRIPTION: the Nth answer holds TEXT.
has() {
	case $(line "$1") in
	*"$2"*) ok 0 "$3" ;;
	*) ok 1 "$3"; line "$1" | cut -c 1-400 | diag ;;
	esac
}

# ---- every line gets one answer, in order ------------------------------------------
{
	echo '{"op":"read","target":"/etc/hosts"}'
	echo ''
	printf ' \t \n'
	echo 'not json'
	echo '{"op":"read","target":"/etc/hosts"} trailing'
	echo '[1,2]'
	echo '{"op":"reed","target":"/x"}'
	echo '{"op":"read"}'
	echo '{"op":"read","target":7}'
	echo '{"op":"read","target":"/x","escalate":"yes"}'
	echo '{"op":"read","target":"/x","targt":"/y"}'
	echo '{"op":"read","target":"/x","op":"write"}'
	printf '{"op":"read","target":"/etc/hosts"}\r\n'
	printf '{"op":"read","target":"/etc/passwd"}'      # no newline at the end
} > req
stream req
is "$?" 0 "a stream of good and bad lines exits 0"
is "$(wc -l < out | tr -d ' ')" 14 "fourteen lines in, fourteen answers out"
has 1 '"decision":"allow"' "line 1 is decided"
has 2 '"line":2' "an empty line is an error naming line 2"
has 2 '"error":"the line is empty' "  ... saying it is empty"
has 3 '"line":3' "a line of blanks is an error naming line 3"
has 4 '"error":"line 4 is not a JSON object' "a line that is not JSON is an error"
has 4 '"line":4' "  ... naming line 4"
has 5 '"line":5' "JSON with text after it is one error, not a request"
has 6 '"line":6' "a JSON array is an error"
has 7 '"error":"\"op\" must be one of read, write, exec, net, tool","line":7' \
	"an unknown operation is an error naming line 7"
has 8 '"error":"the request has no \"target\"","line":8' "a request without a target is an error"
has 9 '"error":"\"target\" must be a string","line":9' "a target that is not a string is an error"
has 10 '"error":"\"escalate\" must be a boolean","line":10' "escalate that is not a boolean is an error"
has 11 '"error":"unknown key \"targt\" in the request' "an unknown key is an error, not ignored"
has 12 '"line":12' "a key given twice is an error"
has 13 '"target":"/etc/hosts","decision":"allow"' "a line ending in CRLF is decided"
has 14 '"target":"/etc/passwd","decision":"allow"' "a last line without a newline is decided"

# A NUL byte, raw or escaped, is an error for its line alone.
printf '{"op":"read","target":"/etc/hosts"\000}\n{"op":"read","target":"/a\\u0000b"}\n{"op":"read","target":"/etc/hosts"}\n' > req
stream req
is "$(wc -l < out | tr -d ' ')" 3 "a NUL byte does not split or end the stream"
has 1 '"error":"the line contains a NUL byte","line":1' "a raw NUL byte is an error for line 1"
has 2 '"line":2' "an escaped NUL (\\u0000) in the target is an error for line 2"
has 2 'NUL' "  ... naming the NUL"
has 3 '"decision":"allow"' "the line after them is decided"

# An unknown key of 40 three-byte characters is named by its first 21 (63 bytes).
printf '{"op":"read","target":"/x","%s":1}\n' "$(printf '\342\202\254%.0s' $(seq 40))" > req
stream req
has 1 "\"unknown key \\\"$(printf '\342\202\254%.0s' $(seq 21))\\\" in the request" \
	"a long unknown key is named in whole UTF-8 characters"

# A target that is not UTF-8 is an error line.
printf '{"op":"read","target":"/tmp/\377"}\n{"op":"read","target":"/etc/hosts"}\n' > req
stream req
has 1 '"line":1' "a target that is not UTF-8 is an error line"
has 2 '"decision":"allow"' "  ... and the stream goes on"

# ---- a line longer than any buffer --------------------------------------------------
# One request of 300,000 bytes: one answer, the whole command in it.
{
	printf '{"op":"exec","target":"echo '
	head -c 300000 /dev/zero | tr '\0' a
	printf '"}\n{"op":"read","target":"/etc/hosts"}\n'
} > req
stream req
is "$(wc -l < out | tr -d ' ')" 2 "a 300 kB line is one request: two lines in, two answers"
n=$(line 1 | tr -cd a | wc -c | tr -d ' ')
ok $((n < 300000)) "  ... and its answer holds the whole command ($n a's)"
has 2 '"target":"/etc/hosts"' "  ... the next line is answered next"
# Beyond the stream's bound: one error for the whole line, never two requests.
{
	printf '{"op":"exec","target":"echo '
	head -c 17000000 /dev/zero | tr '\0' a
	printf ' ; {\\"op\\":\\"write\\"}"}\n{"op":"read","target":"/etc/hosts"}\n'
} > req
stream req
is "$(wc -l < out | tr -d ' ')" 2 "a 17 MB line: two lines in, two answers"
has 1 '"error":"the line is longer than 16777216 bytes","line":1' "  ... the long line is one error"
has 2 '"target":"/etc/hosts"' "  ... and the next line is decided"

# ---- ids -------------------------------------------------------------------------------
{
	echo '{"id":"req-1","op":"read","target":"/etc/hosts"}'
	echo '{"op":"read","target":"/etc/hosts","id":42}'
	echo '{"id":-7,"op":"read","target":"/etc/hosts"}'
	echo '{"id":"x\"y","op":"reed","target":"/etc/hosts"}'
	echo '{"id":1.5,"op":"read","target":"/etc/hosts"}'
	echo '{"id":{"a":1},"op":"read","target":"/etc/hosts"}'
	echo '{"op":"read","target":"/etc/hosts"}'
} > req
stream req
has 1 '{"id":"req-1","decision":"allow"' "a string id is echoed"
has 2 '{"id":42,"decision":"allow"' "a number id is echoed"
has 3 '{"id":-7,"decision":"allow"' "a negative number id is echoed"
has 4 '{"id":"x\"y","error":"\"op\" must be one of' "an error line echoes the id it could read"
has 5 '{"error":"\"id\" must be a string or an integer","line":5}' "a fractional id is an error"
has 6 '"line":6' "an object as id is an error"
case $(line 7) in
*'"id"'*) ok 1 "a request without an id gets an answer without one" ;;
*) ok 0 "a request without an id gets an answer without one" ;;
esac

# ---- a context per line ------------------------------------------------------------
{
	echo '{"id":1,"op":"write","target":"src/a.c","preset":"workspace-write"}'
	echo "{\"id\":2,\"op\":\"write\",\"target\":\"a.c\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"$other\",\"cwd\":\"$other\"}}"
	echo "{\"id\":3,\"op\":\"write\",\"target\":\"b.c\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"$other\"}}"
	echo "{\"id\":4,\"op\":\"write\",\"target\":\"src/c.c\",\"preset\":\"workspace-write\",\"context\":{\"cwd\":\"$other\"}}"
	echo '{"id":5,"op":"write","target":"src/d.c","preset":"workspace-write"}'
	echo '{"id":6,"op":"read","target":"/etc/hosts","context":{"wrkspace":"/a"}}'
	echo '{"id":7,"op":"read","target":"/etc/hosts","context":{"cwd":"relative"}}'
	echo '{"id":8,"op":"read","target":"/etc/hosts","context":{"cwd":3}}'
	echo "{\"id\":9,\"op\":\"read\",\"target\":\"~/.ssh/id_rsa\",\"context\":{\"home\":\"$tmpdir/h9\"}}"
	echo "{\"id\":10,\"op\":\"write\",\"target\":\"~/.cordon/state\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"$other\",\"home\":\"$other\"}}"
	echo "{\"id\":11,\"op\":\"write\",\"target\":\"~/.cordon/state\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"$other\",\"home\":\"$other\",\"agent_dir\":\"$other/agent\"}}"
} > req
stream req
is "$(wc -l < out | tr -d ' ')" 11 "eleven requests with contexts, eleven answers"
has 1 "\"target\":\"$ws/src/a.c\",\"decision\":\"allow\"" "without a context: the command line's cwd and workspace"
has 2 "\"target\":\"$other/a.c\",\"decision\":\"allow\"" "a line's workspace and cwd decide that line"
has 3 "\"target\":\"$other/b.c\",\"decision\":\"allow\"" "a line's workspace without cwd: the line works in that workspace"
has 4 "\"target\":\"$other/src/c.c\",\"decision\":\"ask\"" "a line's cwd outside the command line's workspace: asks"
has 5 "\"target\":\"$ws/src/d.c\",\"decision\":\"allow\"" "the next line is back to the command line's context"
has 6 "{\"id\":6,\"error\":\"unknown context variable 'wrkspace'; did you mean 'workspace'?\",\"line\":6}" \
	"an unknown context key is an error for that line"
has 7 '"id":7,"error":"context variable '"'cwd'"' must be an absolute path' "a relative cwd is an error"
has 8 '"id":8,"error":"context value \"cwd\" must be a string"' "a context value that is not a string is an error"
has 9 "\"target\":\"$tmpdir/h9/.ssh/id_rsa\",\"decision\":\"deny\"" "a line's home is the home of its '~'"
has 10 "\"target\":\"$other/.cordon/state\",\"decision\":\"deny\"" \
	"a line's home without agent_dir: that home's agent dir is protected"
has 11 "\"target\":\"$other/.cordon/state\",\"decision\":\"ask\",\"reason\":\"the home directory's configuration is not the agent's to write\"" \
	"  ... and a line's own agent_dir is taken as given: not protected, the home's configuration asks"

# ---- answers while the host waits -----------------------------------------------------
# A coprocess: write one line, read its answer, only then write the next.
# Every read is bounded: cordon is killed after 30 s, which ends its output.
if command -v timeout > /dev/null && mkfifo to from; then
	# shellcheck disable=SC2086
	timeout 30 "$CORDON" eval $ctx --stdin < to > from 2> err &
	pid=$!
	trap '' PIPE # a cordon that died must fail the checks below, not end this script
	exec 3> to 4< from
	echo '{"id":"first","op":"read","target":"/etc/hosts"}' >&3
	IFS= read -r a1 <&4
	echo '{"id":"second","op":"write","target":"src/x.c"}' >&3 2> /dev/null
	IFS= read -r a2 <&4
	printf '\n' >&3 2> /dev/null
	IFS= read -r a3 <&4
	exec 3>&-
	IFS= read -r a4 <&4
	wait $pid
	rc=$?
	exec 4<&-
	trap - PIPE
	case $a1 in '{"id":"first","decision":"allow"'*) ok 0 "the first answer comes before the second request" ;;
	*) ok 1 "the first answer comes before the second request"; echo "$a1" | diag ;; esac
	case $a2 in '{"id":"second","decision":"ask"'*) ok 0 "  ... and so does the second" ;;
	*) ok 1 "  ... and so does the second"; echo "$a2" | diag ;; esac
	case $a3 in '{"error":"the line is empty'*'"line":3}') ok 0 "  ... and an error line at once too" ;;
	*) ok 1 "  ... and an error line at once too"; echo "$a3" | diag ;; esac
	is "$a4:$rc" ":0" "the stream ends with its input, exit 0 (124: it hung)"
else
	skip "the first answer comes before the second request" "no timeout or mkfifo"
fi

# ---- targets as the host means them --------------------------------------------------
rhome=$(getent passwd root 2> /dev/null | cut -d: -f6)
[ -n "$rhome" ] || rhome=/root
# check_eval DESCRIPTION WANT_LINE ARGS...: the first line of `cordon eval`
check_eval() {
	desc=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	$AS "$as_bin" eval $dirs "$@" > out 2> err
	rc=$?
	got=$(sed -n 4p out)
	is "$rc:$got" "0:$want" "$desc"
}

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi
chmod 755 "$tmpdir"
for who in $passes; do
	P=$tmpdir/pass-$who
	mkdir -p "$P/home/.ssh" "$P/w/sub"
	AS= as_bin=$CORDON
	if [ "$who" = nobody ]; then
		chown -R 65534:65534 "$P"
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
		as_bin=$(as_nobody_cordon "$tmpdir/bin")
	fi
	cd "$P" || exit 1
	# Where the agent keeps its state, so that a home of root's stays unread.
	dirs="--context agent_dir=$P/home/.cordon --context session_dir=$P/home/.cordon/s"
	# Before: "~" was a directory under the current one, and allowed.
	HOME=$P/home check_eval "[$who] eval read '~/.ssh/id_rsa' denies: '~' is \$HOME" \
		"  read $P/home/.ssh/id_rsa: deny by $r_secrets" read '~/.ssh/id_rsa'
	check_eval "[$who] '~' is the home context variable" \
		"  read $P/home/.ssh/id_ed25519: deny by $r_secrets" \
		--context "home=$P/home" read '~/.ssh/id_ed25519'
	# shellcheck disable=SC2086
	$AS "$as_bin" eval $dirs --context "home=$rhome" read '~root/.ssh/id_rsa' > out 2> err
	rc=$?
	# Root's home is closed to others: they are denied because it cannot be inspected.
	grep -q -e "^  read $rhome/.ssh/id_rsa: deny by $r_secrets$" \
		-e "^deny: cannot resolve the path: cannot inspect '$rhome/.ssh': " out
	ok $(($? + rc)) "[$who] '~root' is root's home directory, denied"
	[ $rc -eq 0 ] || diag < err
	check_eval "[$who] write '~' asks under read-only, at the home directory" \
		"  write $P/home: ask by $r_ask" --context "home=$P/home" write '~'
	# shellcheck disable=SC2086
	$AS "$as_bin" eval $dirs read '~no-such-user-cordon/x' > out 2> err
	is "$?:$(head -n 1 out)" "0:deny: cannot resolve the path: '~no-such-user-cordon': no such user" \
		"[$who] '~user' for an unknown user denies"
	check_eval "[$who] a relative target is under the cwd context" \
		"  write $P/w/sub/a.c: allow by $r_ws" --preset workspace-write \
		--context "workspace=$P/w" --context "cwd=$P/w/sub" write a.c
	check_eval "[$who] '../' from the cwd context" \
		"  write $P/w/b.c: allow by $r_ws" --preset workspace-write \
		--context "workspace=$P/w" --context "cwd=$P/w/sub" write ../b.c
	check_eval "[$who] a file named '~x' under the cwd is not a home" \
		"  read $P/w/~x: allow by $r_read" --context "cwd=$P/w" read './~x'
	# The stream: a line's home brings its own agent dir, protected.
	echo "{\"op\":\"write\",\"target\":\"~/.cordon/state\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"$P/home\",\"home\":\"$P/home\"}}" |
		$AS "$as_bin" eval --stdin > out 2> err
	has 1 "\"target\":\"$P/home/.cordon/state\",\"decision\":\"deny\"" \
		"[$who] stream: a line's '~/.cordon' is its home's protected agent dir"
	cd "$tmpdir" || exit 1
done

# A write through cordon lands where the decision was about: the home, not ./~.
mkdir -p "$ws/wh"
echo note | "$CORDON" write --preset workspace-write --context "workspace=$ws" \
	--context "cwd=$ws" --context "home=$ws/wh" '~/n.txt' > out 2> err
is "$?:$(cat "$ws/wh/n.txt" 2> /dev/null)" "0:note" "cordon write '~/n.txt' writes the home's n.txt"
test ! -e "$ws/~"
ok $? "  ... and no directory named '~' under the cwd"

# A target that is not UTF-8: exit 2 and a message, from eval and explain.
bad=$(printf '/tmp/a\303(')
"$CORDON" eval read "$bad" > out 2> err
is "$?" 2 "eval of a target that is not UTF-8: exit 2"
grep -q "^cordon: the target is not valid UTF-8 text (byte 0xc3 at offset 6)$" err
ok $? "  ... saying which byte"
test ! -s out
ok $? "  ... and no decision"
"$CORDON" eval exec "echo $(printf '\377')" > out 2> err
is "$?" 2 "an exec whose command is not UTF-8: exit 2"
"$CORDON" explain read "$bad" > out 2> err
is "$?" 2 "explain of a target that is not UTF-8: exit 2"
grep -q "not valid UTF-8" err
ok $? "  ... with the message"
"$CORDON" eval --context "workspace=/tmp/$(printf '\377')" read /etc/hosts > out 2> err
is "$?" 2 "a context value that is not UTF-8: exit 2"
grep -q "context variable 'workspace' is not valid UTF-8 text" err
ok $? "  ... naming the variable"

# explain traces the expanded path.
"$CORDON" explain --context "home=$ws/home" read '~/.ssh/id_rsa' > out 2> err
grep -q "^  read $ws/home/.ssh/id_rsa$" out
ok $? "explain shows '~' expanded"

# Test blocks: "~" in an expectation is the test's home.
# ---- a request that runs under cordon's sandbox ---------------------------------------
# What a command reaches only at run time is contained there; a host that
# runs it itself is asked.  --sandboxed is the stream's default, a line's
# "sandboxed" says otherwise for that line.
cat > sb.jsonl <<'EOF'
{"id":1,"op":"exec","target":"find . -name '*.c' | xargs wc -l","preset":"workspace-write"}
{"id":2,"op":"exec","target":"find . -name '*.c' | xargs wc -l","preset":"workspace-write","sandboxed":true}
{"id":3,"op":"exec","target":"cat ~/.ssh/id_rsa","preset":"workspace-write","sandboxed":true}
{"id":4,"op":"exec","target":"python3 -c 'print(1)'","preset":"workspace-write","sandboxed":false}
{"id":5,"op":"exec","target":"x","sandboxed":"yes"}
EOF
stream sb.jsonl
has 1 '"id":1,"decision":"ask"' "a run-time target that may be a credential asks for a host without the sandbox"
has 2 '"id":2,"decision":"allow"' "and is contained for a request that runs under the sandbox"
has 2 '"contained":true' "the contained operation stays in the preview, marked"
has 3 '"id":3,"decision":"deny"' "a credential named on the command line is denied either way"
has 4 '"id":4,"decision":"ask"' "code on the command line asks for a host without the sandbox"
has 5 '\"sandboxed\" must be a boolean' "a \"sandboxed\" that is not a boolean is an error for the line"
# shellcheck disable=SC2086
"$CORDON" eval $ctx --sandboxed --stdin < sb.jsonl > out 2> err
has 1 '"id":1,"decision":"allow"' "--sandboxed makes it the stream's default"
has 4 '"id":4,"decision":"ask"' "and a line's \"sandboxed\":false still says otherwise"

# ~USER is this user's own home: another user's may not be open to it.
# The context's home is a directory of this test's own, which no other
# user's leftovers on this machine can close.
me=$(id -un)
fake_home=$PWD/fake-home/u
cat > tilde.cordon << EOF
cordon 1;
preset "p" {
  read "/**" allow;
  read "~/.ssh" deny;
}
test "targets as a host writes them" {
  preset "p";
  context home = "$fake_home", cwd = "$fake_home/src";
  expect deny  read "~/.ssh/id_rsa";
  expect allow read "~$me/.ssh/id_rsa";
  expect deny  read "../.ssh/config";
  expect allow read "main.c";
}
EOF
"$CORDON" test tilde.cordon > out 2> err
is "$?" 0 "a test block's '~', '~$me' and relative targets decide as a host's"
grep -q '^not ok' out && diag < out

# Many contexts in turn, more than the stream keeps evaluators for (64):
# every line is decided in its own context, whichever evaluator was kept
# or dropped.  Each writes in its own workspace (allow) and in the one
# before it (ask).
awk -v o="$other" 'BEGIN { for (r = 0; r < 2; r++) for (k = 0; k < 70; k++) {
	p = (k + 69) % 70
	printf "{\"op\":\"write\",\"target\":\"%s/w%d/f\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"%s/w%d\"}}\n", o, k, o, k
	printf "{\"op\":\"write\",\"target\":\"%s/w%d/f\",\"preset\":\"workspace-write\",\"context\":{\"workspace\":\"%s/w%d\"}}\n", o, p, o, k } }' > req
stream req
sed 's/.*"operations":\[{"op":"write","target":"\([^"]*\)\/f","decision":"\([a-z]*\)".*/\1 \2/' out |
	sed "s#^$other/##" > got
awk 'BEGIN { for (r = 0; r < 2; r++) for (k = 0; k < 70; k++) printf "w%d allow\nw%d ask\n", k, (k + 69) % 70 }' > want
cmp -s got want
ok $? "280 lines over 70 contexts in turn: each decided in its own workspace"
diff want got | head -5 | diag

# A path marked canonical that is not spelled as one is denied, not taken.
printf '%s\n' '{"id":1,"op":"read","target":"/a//b","canonical":true}' \
	'{"id":2,"op":"write","target":"/a/../b","canonical":true}' \
	'{"id":3,"op":"read","target":"/a/b","canonical":true}' |
	"$CORDON" eval --stdin > out 2> err
is "$?:$(sed 's/^{"id":\([0-9]\),"decision":"\([a-z]*\)".*/\1 \2/' out | tr '\n' ' ')" "0:1 deny 2 deny 3 allow " \
	"a canonical-marked path spelled otherwise is denied; one spelled right is decided"
is "$(grep -c '"reason":"the path is marked canonical but is not spelled as one"' out)" 2 \
	"the denial says the path is not spelled as a canonical one"
diag < err

done_testing
