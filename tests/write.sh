#!/bin/sh
# cordon write, edit and approve on real files: edits, a killed large write,
# and every way an approval is voided, used up or refused.
. "$srcdir/tests/lib.sh"

root=$(cd "$tmpdir" && pwd -P)
ws=$root/ws
out=$root/out
sess=$root/sess
mkdir -p "$ws/ask" "$ws/.agent" "$out"

policy=$root/p.cordon
write_policy() { # write_policy EXTRA-RULE
	cat > "$policy" <<EOF
cordon 1;
protect "\${session_dir}", "\${workspace}/.agent";
preset "p" {
  approval ask;
  sandbox none;
  read "/**" allow;
  write "\${workspace}" allow;
  write "\${workspace}/ask" ask;
  write "/**" deny "outside the workspace";
  $1
}
default "p";
EOF
}
write_policy ""

cw() { # cw VERB ARGS... : cordon with this test's policy and context
	verb=$1
	shift
	"$CORDON" "$verb" -p "$policy" --context workspace="$ws" --context cwd="$ws" \
		--context session_dir="$sess" "$@"
}

# ---- write -------------------------------------------------------------------
printf 'hello\n' | cw write "$ws/a.txt"
ok $? "write creates a file"
[ "$(cat "$ws/a.txt")" = hello ] && [ "$(stat -c %a "$ws/a.txt")" = 600 ]
ok $? "with the content, mode 0600"

printf 'rel\n' | (cd "$ws" && cw write a.txt) && [ "$(cat "$ws/a.txt")" = rel ]
ok $? "a relative path resolves against cwd"

printf 'x' | cw write "$out/x.txt" 2> "$root/err"
[ $? -eq 1 ] && grep -q "write denied: outside the workspace (rule $policy:9:3)" "$root/err" &&
	[ ! -e "$out/x.txt" ]
ok $? "a denied write exits 1, names the reason and rule, writes nothing"

printf 'x' | cw write "$ws/ask/f" 2> "$root/err"
[ $? -eq 3 ] && grep -q "needs approval.*cordon approve" "$root/err" && [ ! -e "$ws/ask/f" ]
ok $? "an ask without approval exits 3 and points at 'cordon approve'"

printf 'x' | cw write "$ws/.agent/state" 2> "$root/err"
[ $? -eq 1 ] && grep -q "is protected" "$root/err"
ok $? "a protected path is denied"

printf 'x' | cw write "$ws/nodir/f" 2> "$root/err"
[ $? -eq 2 ] && grep -q "cannot open the directory '$ws/nodir'" "$root/err"
ok $? "a missing parent directory is an I/O error naming it"

printf 'x' | cw write "$ws/.cordon-tmp-0123456789abcdef" 2> "$root/err"
[ $? -eq 2 ] && grep -q "cordon's temp files" "$root/err"
ok $? "cordon's temp file names are not written"

cw write "$ws/a.txt" --old x --new y < /dev/null 2> "$root/err"
[ $? -eq 2 ] && grep -q -- "unknown option '--old' for 'cordon write'" "$root/err"
ok $? "write refuses the edit options"

# ---- edit --------------------------------------------------------------------
printf 'alpha beta alpha gamma\n' > "$ws/e.txt"
chmod 0640 "$ws/e.txt"
cw edit "$ws/e.txt" --old delta --new x 2> "$root/err"
[ $? -eq 1 ] && grep -q "does not occur" "$root/err" &&
	[ "$(cat "$ws/e.txt")" = "alpha beta alpha gamma" ]
ok $? "edit: no match is an error that changes nothing"
cw edit "$ws/e.txt" --old alpha --new x 2> "$root/err"
[ $? -eq 1 ] && grep -q "occurs 2 times" "$root/err" &&
	[ "$(cat "$ws/e.txt")" = "alpha beta alpha gamma" ]
ok $? "edit: two matches without --all is an error that changes nothing"
cw edit "$ws/e.txt" --old beta --new BETA && [ "$(cat "$ws/e.txt")" = "alpha BETA alpha gamma" ]
ok $? "edit: one match is replaced"
cw edit "$ws/e.txt" --old alpha --new A --all && [ "$(cat "$ws/e.txt")" = "A BETA A gamma" ]
ok $? "edit: --all replaces every match"
[ "$(stat -c %a "$ws/e.txt")" = 640 ]
ok $? "edit keeps the mode bits"
cw edit "$ws/e.txt" --old ' gamma' --new '' && [ "$(cat "$ws/e.txt")" = "A BETA A" ]
ok $? "edit: an empty --new deletes"
cw edit "$ws/missing.txt" --old a --new b 2> "$root/err"
[ $? -eq 1 ] && grep -q "does not exist" "$root/err"
ok $? "edit: a missing file is refused"
cw edit "$ws/e.txt" --old '' --new b 2> /dev/null
[ $? -eq 2 ]
ok $? "edit: an empty --old is a usage error"

# ---- concurrent writers of one path ------------------------------------------
# Four writers replace one file 25 times each with their own 64 KiB: the file
# always holds one writer's content whole.
for w in 1 2 3 4; do
	head -c 65536 /dev/zero | tr '\0' "$w" > "$root/content$w"
done
pids=
for w in 1 2 3 4; do
	(
		i=0
		while [ $i -lt 25 ]; do
			cw write "$ws/shared" < "$root/content$w" || exit 1
			i=$((i + 1))
		done
	) &
	pids="$pids $!"
done
fails=0
for job in $pids; do
	wait "$job" || fails=$((fails + 1))
done
[ $fails -eq 0 ]
ok $? "four concurrent writers of one path all succeed"
whole=1
for w in 1 2 3 4; do
	cmp -s "$ws/shared" "$root/content$w" && whole=0
done
[ $whole -eq 0 ] && [ "$(find "$ws" -maxdepth 1 -name '.cordon-tmp-*' | wc -l)" -eq 0 ]
ok $? "the file holds one writer's content whole, and no temp file is left"

# ---- a killed large write ------------------------------------------------------
printf 'original\n' > "$ws/big"
mkfifo "$root/fifo"
(exec "$CORDON" write -p "$policy" --context workspace="$ws" --context session_dir="$sess" \
	"$ws/big" < "$root/fifo") &
pid=$!
exec 3> "$root/fifo"
head -c 8388608 /dev/zero >&3
# The writer is copying into its temp file and waits for more: kill it there.
n=0
while [ -z "$(find "$ws" -maxdepth 1 -name '.cordon-tmp-*' -size +1M)" ] && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $pid
wait $pid 2> /dev/null
exec 3>&-
[ "$(head -c 9 "$ws/big")" = original ]
ok $? "kill -9 during a large write leaves the original intact"
[ "$(find "$ws" -maxdepth 1 -name '.cordon-tmp-*' | wc -l)" -eq 1 ]
ok $? "the killed writer's temp file is there, named .cordon-tmp-HEX"
printf 'next\n' | cw write "$ws/other" &&
	[ "$(find "$ws" -maxdepth 1 -name '.cordon-tmp-*' | wc -l)" -eq 0 ]
ok $? "the next write in that directory removes it"

head -c 209715200 /dev/zero | cw write "$ws/big" &&
	[ "$(stat -c %s "$ws/big")" -eq 209715200 ]
ok $? "a 200 MB write from a pipe completes"

# ---- approvals -----------------------------------------------------------------
approve() { # approve ARGS... < content : prints the id
	cw approve "$@" | tail -n 1
}

id=$(printf 'approved\n' | approve write "$ws/ask/f")
[ ${#id} -eq 32 ] && [ "$(stat -c %a "$sess/approvals")" = 700 ] &&
	[ "$(stat -c %a "$sess/approvals/$id.json")" = 600 ]
ok $? "approve prints a 128-bit id; the store is 0700, the approval 0600"
printf 'approved\n' | cw write --approval "$id" "$ws/ask/f" && [ "$(cat "$ws/ask/f")" = approved ]
ok $? "write --approval writes the approved content"
[ ! -e "$sess/approvals/$id.json" ]
ok $? "the approval is consumed"
printf 'approved\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "unknown or was already used" "$root/err"
ok $? "an approval is used once"

id=$(printf 'one\n' | approve write "$ws/ask/f")
printf 'two\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "content differs.*content SHA-256" "$root/err" &&
	[ "$(cat "$ws/ask/f")" = approved ]
ok $? "other content voids the approval, naming the content"

id=$(printf 'one\n' | approve write "$ws/ask/f")
printf 'changed meanwhile\n' > "$ws/ask/f"
printf 'one\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "changed since it was given (target identity" "$root/err" &&
	[ "$(cat "$ws/ask/f")" = "changed meanwhile" ]
ok $? "a changed target voids the approval, naming the target identity"

id=$(printf 'one\n' | approve write "$ws/ask/new")
printf 'x' > "$ws/ask/new"
printf 'one\n' | cw write --approval "$id" "$ws/ask/new" 2> "$root/err"
[ $? -eq 1 ] && grep -q "target identity: it was created" "$root/err"
ok $? "a target created after the approval of a new file voids it"
rm -f "$ws/ask/new"

id=$(printf 'one\n' | approve write "$ws/ask/f")
: > "$ws/ask/sibling"
printf 'one\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "parent directory .* changed since it was given (parent identity)" "$root/err"
ok $? "a changed parent directory voids the approval, naming the parent identity"

printf 'a b a\n' > "$ws/ask/e"
id=$(cw approve edit "$ws/ask/e" --old b --new c | tail -n 1)
cw edit --approval "$id" "$ws/ask/e" --old b --new d 2> "$root/err"
[ $? -eq 1 ] && grep -q "edit's arguments" "$root/err" && [ "$(cat "$ws/ask/e")" = "a b a" ]
ok $? "other edit arguments void the approval, naming the arguments"
id=$(cw approve edit "$ws/ask/e" --old b --new c | tail -n 1)
cw edit --approval "$id" "$ws/ask/e" --old b --new c && [ "$(cat "$ws/ask/e")" = "a c a" ]
ok $? "an approved edit is applied"
cw approve edit "$ws/ask/e" --old a --new z > /dev/null 2> "$root/err"
[ $? -eq 1 ] && grep -q "occurs 2 times" "$root/err"
ok $? "an ambiguous edit is not approvable"

id=$(printf 'one\n' | approve write "$ws/ask/f")
printf 'one\n' | cw write --approval "$id" "$ws/ask/g" 2> "$root/err"
[ $? -eq 1 ] && grep -q "was given for target '$ws/ask/f', not '$ws/ask/g'" "$root/err"
ok $? "an approval for another target is void, naming both"
printf 'one\n' | cw write --approval "$id" "$ws/ask/f" 2> /dev/null
[ $? -eq 1 ]
ok $? "and it was consumed by that attempt"

id=$(printf 'one\n' | approve write "$ws/ask/f")
write_policy 'write "/srv/unrelated" ask;'
printf 'one\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "preset 'p' changed since it was given" "$root/err"
ok $? "a changed preset voids the approval"
write_policy ""

# (A generous ttl: issuing the second must not find the first expired.)
id=$(printf 'one\n' | approve --ttl 3 write "$ws/ask/f")
unused=$(printf 'two\n' | approve --ttl 3 write "$ws/ask/f")
sleep 4
printf 'one\n' | cw write --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "expired" "$root/err"
ok $? "an expired approval is void"
[ -e "$sess/approvals/$unused.json" ] && id=$(printf 'x' | approve write "$ws/ask/f") &&
	[ ! -e "$sess/approvals/$unused.json" ]
ok $? "issuing an approval removes the expired ones"
rm -f "$sess/approvals/$id.json"

# A session dir that approve creates beside the target does not void the
# approval (the store is made before the identities are taken).
id=$(printf 'one\n' | "$CORDON" approve -p "$policy" --context workspace="$ws" \
	--context session_dir="$ws/ask/new-session" write "$ws/ask/h" | tail -n 1)
printf 'one\n' | "$CORDON" write -p "$policy" --context workspace="$ws" \
	--context session_dir="$ws/ask/new-session" --approval "$id" "$ws/ask/h" &&
	[ "$(cat "$ws/ask/h")" = one ]
ok $? "a session dir created by approve beside the target does not void the approval"

printf 'x' | cw write --approval "../../etc/passwd" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "is not an approval id" "$root/err"
ok $? "a malformed approval id is refused"

printf 'x' | cw approve write "$out/x" > "$root/stdout" 2> "$root/err"
[ $? -eq 1 ] && [ ! -s "$root/stdout" ] && grep -q "outside the workspace" "$root/err"
ok $? "a deny is not approvable"

printf 'x' | cw approve write "$ws/.agent/state" > "$root/stdout" 2> "$root/err"
[ $? -eq 1 ] && [ ! -s "$root/stdout" ] && grep -q "is protected" "$root/err"
ok $? "a protected path is not approvable"

# An approval given while the path was approvable does not pass a protection
# added afterwards.
id=$(printf 'one\n' | approve write "$ws/ask/f")
protected_id=$id
cat > "$root/p2.cordon" <<EOF
cordon 1;
protect "\${workspace}/ask";
preset "p" {
  approval ask;
  sandbox none;
  read "/**" allow;
  write "\${workspace}" allow;
  write "\${workspace}/ask" ask;
}
EOF
printf 'one\n' | "$CORDON" write -p "$root/p2.cordon" --preset p --context workspace="$ws" \
	--context session_dir="$sess" --approval "$id" "$ws/ask/f" 2> "$root/err"
[ $? -eq 1 ] && grep -q "is protected" "$root/err" && [ "$(cat "$ws/ask/f")" != one ]
ok $? "a protected path is refused even with an approval"

printf 'x' | cw approve write "$ws/allowed" > "$root/stdout" 2> "$root/err"
[ $? -eq 0 ] && [ ! -s "$root/stdout" ] && grep -q "no approval is needed" "$root/err"
ok $? "an allowed write needs no approval: exit 0, nothing on stdout"

# Two consumers race for one approval, 50 times: exactly one wins each time.
wins_ok=0
i=0
while [ $i -lt 50 ]; do
	id=$(printf 'race\n' | approve write "$ws/ask/race")
	rm -f "$root/w1" "$root/w2"
	(printf 'race\n' | cw write --approval "$id" "$ws/ask/race" 2> /dev/null && : > "$root/w1") &
	(printf 'race\n' | cw write --approval "$id" "$ws/ask/race" 2> /dev/null && : > "$root/w2") &
	wait
	n=0
	[ -e "$root/w1" ] && n=$((n + 1))
	[ -e "$root/w2" ] && n=$((n + 1))
	[ $n -eq 1 ] && wins_ok=$((wins_ok + 1))
	rm -f "$ws/ask/race"
	i=$((i + 1))
done
[ $wins_ok -eq 50 ]
ok $? "two racing consumers of one approval: exactly one wins ($wins_ok of 50 rounds)"
# Left: only the approval the protection refused before it was taken.
[ "$(ls -A "$sess/approvals")" = "$protected_id.json" ]
ok $? "no other approval and no consumed record is left behind"

# ---- the audit log ----------------------------------------------------------------
log=$root/audit.jsonl
printf 'a\n' | cw write --audit "$log" --actor ana "$ws/audited.txt"
printf 'b\n' | cw write --audit "$log" "$out/denied.txt" 2> /dev/null
aid=$(printf 'c\n' | cw approve --audit "$log" write "$ws/ask/audited" | tail -n 1)
printf 'c\n' | cw write --audit "$log" --approval "$aid" "$ws/ask/audited"
cw edit --audit "$log" "$ws/audited.txt" --old a --new 'password=hunter2'
field() { # field N NAME: a field of line N of the log
	sed -n "${1}p" "$log" | sed -n "s/.*\"$2\":\(\"[^\"]*\"\|null\|[0-9]*\).*/\1/p"
}
[ "$(wc -l < "$log")" -eq 5 ]
ok $? "audit: one line for each write, refusal, approval and edit"
[ "$(field 1 outcome)" = '"done"' ] && [ "$(field 1 actor)" = '"ana"' ] &&
	[ "$(field 1 target)" = "\"$ws/audited.txt\"" ] && [ "$(field 1 decision)" = '"allow"' ]
ok $? "audit: the write, its canonical target, decision and actor"
[ "$(field 2 outcome)" = '"denied"' ] && [ "$(field 2 decision)" = '"deny"' ]
ok $? "audit: the refused write"
[ "$(field 3 outcome)" = '"approval-issued"' ] && [ "$(field 3 approval)" = "\"$aid\"" ] &&
	[ "$(field 4 outcome)" = '"done"' ] && [ "$(field 4 approval)" = "\"$aid\"" ]
ok $? "audit: the approval issued, then consumed by the write it names"
[ "$(field 5 op)" = '"edit"' ] && ! grep -q hunter2 "$log"
ok $? "audit: the edit, its arguments redacted"

done_testing
