#!/bin/sh
# The writes the kernel refused during a call are told after it, by cordon
# (refusal_watch.h): each refused path once with a count, the call that
# tried it, the rule that decided it and the change that would allow it
# (checked: the test adds the printed rule and the write lands).  A write
# to a read-only home path, to a protected path inside the workspace, a
# mkdir, a rename, a write through a relative path after a chdir; a write
# that succeeds, a read-only open and a mkdir of a directory that is there
# report nothing; --no-watch-writes reports nothing; a storm of 20,000
# refused writes ends, and its report is capped.  The --status-fd line has
# the same refusals.  Real bwrap, as root and again as nobody.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"
passes=$(runner_passes)
if ! command -v python3 > /dev/null; then
	skip "refused writes after the call" "no python3 here"
	done_testing
	exit
fi
skip_unless_sandbox "$cordon_bin" "refused writes after the call"

cat > "$tmpdir/p.cordon" << 'POLICY'
cordon 1;
include "default.cordon";
preset "w" extends "workspace-write" {
  write "~/.cache" deny "caches stay read-only here";
}
default "w";
POLICY
chmod 644 "$tmpdir/p.cordon"

# U CMD...: CMD as the pass's user in the workspace, bounded in time.
U() {
	(cd "$WS" && $AS timeout -s KILL 120 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}
ctx() {
	echo "-p ${policy:-$tmpdir/p.cordon} --preset ${preset:-w} --workspace $WS --context home=$H --context agent_dir=$P/agent --context session_dir=$P/agent/s"
}
run() { # run ARGS...: $rc, stderr in $errf, the status line in $P/status
	U "$C" run $(ctx) --status-fd 3 "$@" > "$P/out" 2> "$errf" 3> "$P/status"
	rc=$?
	cat "$P/status" >> "$P/statuses"
}
has() { # has FILE PATTERN DESCRIPTION: a fixed string
	grep -qF -- "$2" "$1"
	ok $? "$3"
	[ $? -eq 0 ] || diag < "$1"
}
json() { # json EXPR: a Python expression of the status line (s) printed
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print('"$1"')' "$P/status"
}
# script NAME: the workspace's NAME.sh from stdin (the command's words name
# no path: what it writes is seen only as it runs).
script() {
	cat > "$WS/$1.sh"
	runner_own "$WS/$1.sh"
}

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS/.git/hooks" "$WS/sub" "$H/.npm" "$H/.cache" "$P/agent"
	echo keep > "$WS/a.txt"
	echo there > "$H/.npm/there"
	runner_own "$P"

	# ---- a read-only home path, a protected one, mkdir, rename, a relative path --
	script writes << 'EOF'
echo x > "$HOME/.npm/x" 2> /dev/null
echo x > "$HOME/.npm/x" 2> /dev/null
mkdir "$HOME/.npm/d" 2> /dev/null
echo x > .git/hooks/pre-commit 2> /dev/null
mv a.txt .git/hooks/a 2> /dev/null
cd sub && echo x > ../.git/hooks/rel 2> /dev/null
echo x > "$HOME/.cache/c" 2> /dev/null
echo ok > ok.txt
exit 0
EOF
	run -- sh writes.sh
	is "$rc" 0 "$t the command's own status stands"
	has "$errf" "cordon: after the call: the sandbox refused 7 writes to the file system (preset 'w'):" \
		"$t a header with the count and the preset"
	has "$errf" "cordon: refused write ~/.npm/x (2 times): read-only (openat) by rules/default.cordon:" \
		"$t a read-only home path: once, with its count, the call and the rule"
	has "$errf" "cordon:   to allow it, add to a preset that extends 'w':  write \"~/.npm\" allow;" \
		"$t and the rule that would allow it"
	has "$errf" "cordon: refused write ~/.npm/d: read-only (mkdir)" "$t a mkdir"
	has "$errf" "cordon: refused write $WS/.git/hooks/pre-commit: read-only (openat) by rules/default.cordon:" \
		"$t a protected path inside the workspace"
	has "$errf" "in a preset that extends 'w' does not win over rules/default.cordon:" \
		"$t which no preset extending this one can open"
	has "$errf" "cordon: refused write $WS/.git/hooks/a: read-only (rename" "$t a rename into it"
	has "$errf" "cordon: refused write $WS/.git/hooks/rel: read-only (openat)" \
		"$t a write through a relative path after a chdir, made absolute"
	line=$(grep -n '"~/.cache" deny' "$tmpdir/p.cordon" | cut -d: -f1)
	has "$errf" "cordon: refused write ~/.cache/c: read-only (openat) by $tmpdir/p.cordon:$line:3: caches stay read-only here" \
		"$t a deny of the policy's own, with its reason"
	! grep -q 'ok.txt\|a.txt:' "$errf"
	ok $? "$t a write that lands is not reported"
	last=$(grep -n "^cordon: after the call: the sandbox refused" "$errf" | cut -d: -f1)
	[ -n "$last" ] && ! sed -n "$last,\$p" "$errf" | grep -v '^cordon: ' | grep -q .
	ok $? "$t the report is the last thing on stderr, all 'cordon: ' lines"
	[ $? -eq 0 ] || diag < "$errf"

	# ---- the same on --status-fd -----------------------------------------------------
	is "$(json '[(r["op"], r["target"], r["call"], r["kind"], r["count"], r["fix"]["kind"]) for r in s["refusals"]][:2]')" \
		"[('write', '~/.npm/x', 'openat', 'read-only', 2, 'rule'), ('write', '~/.npm/d', 'mkdir', 'read-only', 1, 'rule')]" \
		"$t the status line has the refused writes"
	is "$(json 's["refusals"][0]["fix"]["rule"] + " " + s["refusals"][0]["path"]')" \
		"write \"~/.npm\" allow; $H/.npm/x" "$t with the rule to add and the whole path"

	# ---- the printed change works --------------------------------------------------
	add=$(sed -n "s/^cordon:   to allow it, add to a preset that extends 'w':  //p" "$errf" | head -n 1)
	printf 'cordon 1;\ninclude "%s";\npreset "w2" extends "w" {\n  %s\n}\n' "$tmpdir/p.cordon" "$add" > "$P/p2.cordon"
	chmod 644 "$P/p2.cordon"
	script npm << 'EOF'
echo landed > "$HOME/.npm/x"
EOF
	policy=$P/p2.cordon preset=w2 run -- sh npm.sh
	is "$rc:$(cat "$H/.npm/x" 2> /dev/null):$(json 's["refusals"]')" "0:landed:[]" \
		"$t a preset extending 'w' with the printed rule writes there, and nothing is refused"
	policy= preset=

	# ---- outside the home: a file that is there by itself, a new one by its directory
	mkdir -p "$P/outside"
	echo there > "$P/outside/f"
	runner_own "$P/outside"
	script outside << EOF
echo more >> "$P/outside/f" 2> /dev/null
echo new > "$P/outside/g" 2> /dev/null
exit 0
EOF
	run -- sh outside.sh
	grep -qxF "cordon:   to allow it, add to a preset that extends 'w':  write \"$P/outside/f\" allow;" "$errf"
	ok $? "$t a file that is there: the rule names that file alone"
	has "$errf" "cordon:   to allow it, add to a preset that extends 'w':  write \"$P/outside\" allow;  (every file in $P/outside becomes writable, not only this one)" \
		"$t a new file: its directory, saying that all of it becomes writable"
	add=$(grep -F "write \"$P/outside/f\" allow;" "$errf" | sed -n "s/^cordon:   to allow it, add to a preset that extends 'w':  //p")
	printf 'cordon 1;\ninclude "%s";\npreset "w3" extends "w" {\n  %s\n}\n' "$tmpdir/p.cordon" "$add" > "$P/p3.cordon"
	chmod 644 "$P/p3.cordon"
	policy=$P/p3.cordon preset=w3 run -- sh outside.sh
	is "$rc:$(cat "$P/outside/f" | tr '\n' ' ')$(ls "$P/outside" | tr '\n' ' ')" "0:there more f " \
		"$t with the file's rule the file is written, and the directory stays closed"
	policy= preset=

	# ---- nothing refused, nothing reported -------------------------------------------
	script quiet << 'EOF'
cat "$HOME/.npm/there" > /dev/null
mkdir -p "$HOME/.npm"
python3 -c 'import os; os.close(os.open(os.path.expanduser("~/.npm/there"), os.O_RDONLY | os.O_CREAT))'
echo fine > sub/f
EOF
	run -- sh quiet.sh
	is "$rc:$(grep -c 'refused' "$errf"):$(json 's["refusals"]')" "0:0:[]" \
		"$t reads, an O_CREAT open of a file that is there, mkdir -p of a dir that is: no report"
	run --no-watch-writes -- sh writes.sh
	is "$rc:$(grep -c 'refused' "$errf"):$(json 's["refusals"]')" "0:0:[]" \
		"$t --no-watch-writes: nothing reported"

	# ---- a storm: 20,000 refused writes end, the report capped ------------------------
	script storm << 'EOF'
python3 -c '
import os
n = 0
for i in range(20000):
    try:
        os.close(os.open(os.path.expanduser("~/.npm/s%d" % i), os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError:
        n += 1
print(n)'
EOF
	run -- sh storm.sh
	is "$rc:$(cat "$P/out")" "0:20000" "$t 20,000 refused creations end, each refused"
	has "$errf" "cordon: after the call: the sandbox refused 20000 writes to the file system" \
		"$t the report counts every one"
	has "$errf" "cordon: and 19936 more refused writes to other paths (not listed)" \
		"$t and counts the others"
	is "$(grep -c '^cordon: refused write' "$errf")" 64 "$t 64 lines of refused paths"

	python3 "$srcdir/tests/decision-schema/validate.py" "$srcdir/docs/decision.schema.json" \
		"RunStatus=$P/statuses" > "$P/valid" 2>&1
	ok $? "$t every --status-fd line is a RunStatus of docs/decision.schema.json"
	[ $? -eq 0 ] || diag < "$P/valid"
}

for p in $passes; do
	pass "$p"
done
done_testing
