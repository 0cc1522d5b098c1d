#!/bin/sh
# Session grants for named tools: approve --session records a grant for
# exactly one tool name, which then decides allow where the preset asks;
# no other name (a prefix, a case variant, a longer name, one with a
# slash), no other operation, no deny and no `approval never` preset is
# affected; revoke removes it.  Real files in a real session dir.
. "$srcdir/tests/lib.sh"

policy=$srcdir/tests/grant/tools.cordon
cd "$tmpdir" || exit 1
S=$tmpdir/session
ctx="--context session_dir=$S --context workspace=$tmpdir --context cwd=$tmpdir"

mode_of() {
	stat -c %a "$1" 2> /dev/null || stat -f %Lp "$1"
}

# decide [PRESET] OP TARGET: the decision word
decide() {
	preset=asks
	case $1 in asks | never) preset=$1; shift ;; esac
	"$CORDON" eval -p "$policy" --preset "$preset" $ctx "$1" "$2" | head -n 1 | cut -d: -f1
}

T=mcp:github/create_issue
is "$(decide tool "$T")" ask "before a grant the tool asks"

"$CORDON" approve -p "$policy" --session $ctx --actor ana --audit "$tmpdir/audit.log" \
	tool "$T" > out 2> err
ok $? "approve --session tool NAME: exit 0"
grep -q "^granted tool '$T' for session $S\$" out
ok $? "  ... says what was granted"
is "$(mode_of "$S/grants")" 700 "the grants dir is 0700"
hex=$(printf '%s' "$T" | od -An -tx1 | tr -d ' \n')
is "$(mode_of "$S/grants/$hex")" 600 "one 0600 file, named by the hex of the tool name"
is "$(ls "$S/grants" | wc -l | tr -d ' ')" 1 "  ... and nothing else"
grep -q '"op":"tool","target":"mcp:github/create_issue","decision":"ask",.*"outcome":"granted"' \
	"$tmpdir/audit.log"
ok $? "the grant is audited"

is "$(decide tool "$T")" allow "the granted tool now decides allow"
"$CORDON" eval -p "$policy" --preset asks $ctx --json tool "$T" > out
# The rule that asks, found by its text.
asks_at=tools.cordon:$(grep -n -F -- '  tool  "*"   ask;' "$policy" | head -1 | cut -d: -f1):3
grep -q "\"reason\":\"granted for this session by ana at 20[0-9-]*T[0-9:.]*Z (needs approval by .*$asks_at)\"" out
ok $? "  ... with the reason: granted for this session by whom, when, and the rule that asks"

for other in "mcp:github/create_issu" "mcp:github/create_issue2" "mcp:github/Create_issue" \
	"MCP:GITHUB/CREATE_ISSUE" "mcp:github/create_issue/x" "mcp:github/create_issue " \
	"mcp:github" "mcp:github/*"; do
	is "$(decide tool "$other")" ask "no other name: '$other' still asks"
done

# Grants do not reach other operations, even spelled like the tool.
"$CORDON" approve -p "$policy" --session $ctx tool "$tmpdir/file" > /dev/null
"$CORDON" approve -p "$policy" --session $ctx tool "make" > /dev/null
is "$(decide tool "$tmpdir/file")" allow "a tool named like a path is granted as a tool"
is "$(decide write "$tmpdir/file")" ask "  ... but a write to that path still asks"
is "$(decide tool make)" allow "a tool named make is granted"
is "$(decide exec make)" ask "  ... but exec make still asks"
is "$(decide net make)" ask "  ... and net make still asks"
"$CORDON" approve -p "$policy" --session $ctx write "$tmpdir/file" > /dev/null 2> err
is "$?" 2 "approve --session write PATH is refused"
grep -q "session grants are for named tools only" err
ok $? "  ... with a message saying why"

# A deny stays deny: approving it is refused, and even a grant file made by
# hand (as the session's owner could) does not turn it.
D=mcp:danger/drop_tables
"$CORDON" approve -p "$policy" --session $ctx tool "$D" > /dev/null 2> err
is "$?" 1 "approving a denied tool: exit 1"
grep -q "tool '$D' is denied by preset 'asks': this server deletes things at .*; a session grant cannot allow it" err
ok $? "  ... with the reason and the rule"
dhex=$(printf '%s' "$D" | od -An -tx1 | tr -d ' \n')
ok $(test ! -e "$S/grants/$dhex"; echo $?) "  ... and no grant is recorded"
printf '{"tool":"%s","actor":"x","time":"2026-01-01T00:00:00.000Z"}\n' "$D" > "$S/grants/$dhex"
chmod 600 "$S/grants/$dhex"
is "$(decide tool "$D")" deny "a grant file for a denied tool changes nothing"
rm -f "$S/grants/$dhex"

# approval never: ask becomes deny, and the grant does not apply.
is "$(decide never tool "$T")" deny "an 'approval never' preset ignores the grant"
"$CORDON" approve -p "$policy" --preset never --session $ctx tool web_fetch > /dev/null 2> err
is "$?" 1 "approving in an 'approval never' preset: exit 1"

# A grant file that is not sound is no grant: fail closed.
F=mcp:files/read
fhex=$(printf '%s' "$F" | od -An -tx1 | tr -d ' \n')
printf '{"tool":"%s"}\n' "$F" > "$S/grants/$fhex"
chmod 660 "$S/grants/$fhex"
is "$(decide tool "$F")" ask "a group-readable grant file is ignored"
chmod 600 "$S/grants/$fhex"
is "$(decide tool "$F")" allow "  ... and honoured once it is private"
printf '{"tool":"mcp:files/other"}\n' > "$S/grants/$fhex"
is "$(decide tool "$F")" ask "a grant file naming another tool is ignored"
rm -f "$S/grants/$fhex"
ln -s "$S/grants/$hex" "$S/grants/$fhex"
is "$(decide tool "$F")" ask "a symlink as grant file is ignored"
rm -f "$S/grants/$fhex"

# Names cannot traverse: the file stays in grants/.
"$CORDON" approve -p "$policy" --session $ctx tool "../../escape" > /dev/null
ok $? "a tool name with ../ is granted"
ok $(test ! -e "$tmpdir/escape" && test ! -e "$S/escape"; echo $?) "  ... inside grants/, nowhere else"
is "$(decide tool "../../escape")" allow "  ... and matches only itself"
is "$(decide tool "../escape")" ask "  ... not a shorter spelling"
long=$(head -c 200 /dev/zero | tr '\0' 'a')
"$CORDON" approve -p "$policy" --session $ctx tool "$long" > /dev/null 2> err
is "$?" 2 "a tool name over 127 bytes cannot be granted"

# Another session does not see the grant.
is "$("$CORDON" eval -p "$policy" --preset asks --context session_dir="$tmpdir/other" tool "$T" | head -n 1 | cut -d: -f1)" \
	ask "another session dir has no grant"

# The session dir is protected: the agent cannot write a grant itself.
is "$(decide write "$S/grants/$hex")" deny "the grants dir is protected from writes"

# Revoke.
"$CORDON" revoke --session $ctx --audit "$tmpdir/audit.log" tool "$T" > out
ok $? "revoke --session tool NAME: exit 0"
grep -q "^revoked tool '$T' in session $S\$" out
ok $? "  ... says so"
is "$(decide tool "$T")" ask "after revoke the tool asks again"
tail -n 1 "$tmpdir/audit.log" | grep -q '"outcome":"revoked"'
ok $? "  ... and the revoke is audited"
"$CORDON" audit "$tmpdir/audit.log" | grep -q '^by decision: allow 0, ask 1, deny 0, none 1$'
ok $? "  ... which cordon audit counts as deciding nothing"
"$CORDON" revoke --session $ctx tool "$T" > out
ok $? "revoking again: exit 0"
grep -q "had no grant" out
ok $? "  ... saying there was none"
"$CORDON" revoke --session $ctx --all > out
grep -q "^revoked 3 grants in session $S\$" out
ok $? "revoke --all removes every grant"
is "$(decide tool make)" ask "  ... after which no grant applies"
is "$(ls -A "$S/grants" | wc -l | tr -d ' ')" 0 "  ... and the grants dir is empty"
"$CORDON" revoke --session --context session_dir="$tmpdir/never-made" --all > /dev/null
ok $? "revoke --all without a grants dir: exit 0"

# Usage errors.
"$CORDON" approve -p "$policy" $ctx tool "$T" > /dev/null 2> err
is "$?" 2 "approve without --session: exit 2"
grep -q "approve of a tool needs --session" err
ok $? "  ... with the message"
"$CORDON" revoke $ctx tool "$T" > /dev/null 2> err
is "$?" 2 "revoke without --session: exit 2"
"$CORDON" revoke --session $ctx --all tool "$T" > /dev/null 2> err
is "$?" 2 "revoke --all with a tool: exit 2"
"$CORDON" approve -p "$policy" --session --context session_dir=relative tool x > /dev/null 2> err
is "$?" 2 "a relative session dir: exit 2"

done_testing
