#!/bin/sh
# cordon run --redact on real output: secrets are scrubbed from what is
# passed through, on stdout and stderr, even when one arrives in two reads;
# the --output-file keeps the original, 0600; --audit records the call.
# The checks run unsandboxed (danger-full-access), and once under bwrap
# where the sandbox works here.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
cd "$tmpdir" || exit 1
mkdir ws
cd ws || exit 1

mode_of() {
	stat -c %a "$1" 2> /dev/null || stat -f %Lp "$1"
}

cat > secrets.txt <<'EOF2'
deploy with AKIAIOSFODNN7EXAMPLE
and ghp_1234567890abcdefghijABCDEFGHIJ123456 for the API
mysql --password=hunter22 prod
-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49
-----END EC PRIVATE KEY-----
nothing secret here: AKIA is a prefix, glpat-short is no token
EOF2
cat > want.txt <<'EOF2'
deploy with [REDACTED:aws-access-key]
and [REDACTED:github-token] for the API
mysql --password=[REDACTED:password] prod
[REDACTED:private-key]
nothing secret here: AKIA is a prefix, glpat-short is no token
EOF2

"$CORDON" run --preset danger-full-access --redact --output-file "$tmpdir/full.out" \
	-- cat secrets.txt > got.txt 2> err
ok $? "run --redact: exit status of the command"
if cmp -s got.txt want.txt; then ok 0 "stdout is redacted"; else
	ok 1 "stdout is redacted"; diff want.txt got.txt | diag; fi
cmp -s "$tmpdir/full.out" secrets.txt
ok $? "the output file keeps the original"
is "$(mode_of "$tmpdir/full.out")" 600 "the output file is 0600"

"$CORDON" run --preset danger-full-access --redact -- sh -c 'cat secrets.txt >&2; echo out' \
	> got.txt 2> err
ok $? "run --redact with output on stderr"
is "$(cat got.txt)" out "  ... stdout as it was"
# (cordon's own lines, and valgrind's under check-valgrind, are not the command's)
if grep -v -e '^cordon:' -e '^--[0-9]*--' -e '^==[0-9]*==' err | cmp -s - want.txt; then
	ok 0 "  ... stderr is redacted"
else
	ok 1 "  ... stderr is redacted"; diag < err; fi

# A token written in two pieces, a pause between them: two reads.
"$CORDON" run --preset danger-full-access --redact --shell \
	'printf "token ghp_1234567890abcdefghij"; sleep 0.3; printf "ABCDEFGHIJ123456 end\n"' > got.txt
is "$(cat got.txt)" "token [REDACTED:github-token] end" "a secret split across reads is redacted whole"

# A private key cut off by the end of the output is hidden to the end.
"$CORDON" run --preset danger-full-access --redact --shell \
	'printf "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"' > got.txt
is "$(cat got.txt)" "key:
[REDACTED:private-key]" "a key block without its END line is hidden to the end"

# --max-output bounds the redacted reply; the file keeps all.
"$CORDON" run --preset danger-full-access --redact --max-output 20 \
	--output-file "$tmpdir/full2.out" -- cat secrets.txt > got.txt 2> err
is "$(cat got.txt)" "deploy with [REDACTE" "--max-output cuts the redacted reply"
grep -q "output truncated after 20 bytes; the whole output is in $tmpdir/full2.out" err
ok $? "  ... and says where the whole output is"
cmp -s "$tmpdir/full2.out" secrets.txt
ok $? "  ... which is the original"

# Without --redact nothing changes.
"$CORDON" run --preset danger-full-access -- cat secrets.txt > got.txt
cmp -s got.txt secrets.txt
ok $? "without --redact the output passes unchanged"

# --audit: one record for the call, its arguments redacted.
"$CORDON" run --preset danger-full-access --audit "$tmpdir/run.log" --actor ana \
	-- sh -c 'exit 3' 'ghp_1234567890abcdefghijABCDEFGHIJ123456' > /dev/null 2>&1
is "$?" 3 "run --audit: the command's status"
rec=$(cat "$tmpdir/run.log")
case $rec in
*'"actor":"ana","preset":"danger-full-access","op":"exec","target":"sh -c exit$'"'"'\\x203'"'"' [REDACTED:github-token]","decision":"allow",'*'"outcome":"exit:3","errno":null,"args":["sh","-c","exit 3","[REDACTED:github-token]"]}')
	ok 0 "  ... one record: the decision, outcome exit:3, arguments redacted" ;;
*) ok 1 "  ... one record: the decision, outcome exit:3, arguments redacted"; echo "$rec" | diag ;;
esac
# A secret that spans blanks inside one word of the argv: the record's
# line writes those blanks as $'\x20', and the secret is redacted there too.
"$CORDON" run --preset danger-full-access --audit "$tmpdir/argv.log" \
	-- printf '%s' 'Authorization: Bearer abcdefgh12345678' > /dev/null 2>&1
case $(cat "$tmpdir/argv.log") in
*abcdefgh12345678*) ok 1 "run --audit: a bearer token inside one argv word is redacted in the target"; diag < "$tmpdir/argv.log" ;;
*'"target":"printf %s Authorization:$'"'"'\\x20Bearer\\x20[REDACTED:bearer-token]'"'"'"'*) ok 0 "run --audit: a bearer token inside one argv word is redacted in the target" ;;
*) ok 1 "run --audit: a bearer token inside one argv word is redacted in the target"; diag < "$tmpdir/argv.log" ;;
esac
"$CORDON" run --preset read-only --audit "$tmpdir/run.log" -- git push --force origin main \
	> /dev/null 2>&1
is "$?" $RUN_DENIED "a denied command is not run"
tail -n 1 "$tmpdir/run.log" | grep -q '"decision":"deny",.*"outcome":"denied",'
ok $? "  ... and its record says denied"

# Under the real sandbox, where it works.
if "$cordon_bin" probe > /dev/null 2>&1; then
	"$cordon_bin" run --preset workspace-write --workspace "$PWD" --redact \
		--output-file "$tmpdir/full3.out" -- cat secrets.txt > got.txt 2> err
	rc=$?
	[ $rc -eq 0 ] && cmp -s got.txt want.txt && cmp -s "$tmpdir/full3.out" secrets.txt
	ok $? "under bwrap: the reply is redacted, the output file is the original (exit $rc)"
	[ $rc -eq 0 ] || diag < err
else
	skip "under bwrap: the reply is redacted, the output file is the original" \
		"cordon probe says the sandbox is not ready"
fi

done_testing
