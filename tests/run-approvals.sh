#!/bin/sh
# Approvals of commands under the real bwrap, as root and again as an
# unprivileged user (nobody) with trees of its own: `cordon approve exec`
# binds the preview, `cordon run --approval ID` grants exactly its writes
# for one call, and every change in between voids it with the reason.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

# U CMD...: CMD as the pass's user, bounded in time.
U() {
	# In the workspace: the build tree may be closed to the pass's user, and
	# a script named by a relative path is the workspace's.
	(cd "$P/ws" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
		TZ=UTC USER=tester XDG_RUNTIME_DIR="$P/rt" "$@")
}

# ctx: the options that give every call the same preset and context.
ctx() {
	echo "--preset workspace-write --workspace $P/ws --context home=$H --context agent_dir=$P/agent --context session_dir=$P/agent/s"
}

# run ARGS...: cordon run ARGS; $rc, $out, stderr in $errf.
run() {
	out=$(U "$C" run $(ctx) "$@" 2> "$errf")
	rc=$?
}

# approve ARGS...: cordon approve exec ARGS; $id (the last line), $rc, $out.
approve() {
	out=$(U "$C" approve exec $(ctx) "$@" 2> "$errf")
	rc=$?
	id=$(printf '%s\n' "$out" | tail -n 1)
}

has() { # has TEXT FILE: FILE contains TEXT
	grep -qF -- "$1" "$2"
}

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
ready=$?
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

pass() { # pass NAME
	runner_pass "$1"
	H=$P/home O=$P/out
	mkdir -p "$P/rt" "$P/agent" "$P/ws" "$H/.ssh" "$O/tree"
	chmod 700 "$P/rt"
	echo key > "$H/.ssh/authorized_keys"
	echo rc > "$H/.bashrc"
	printf 'echo y > %s/sibling && echo SIBLING-WRITTEN\necho z >> %s/target\n' "$O" "$O" \
		> "$P/ws/build.sh"
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS test -w "$P/ws"; then
		skip "$t every check" "uid $uid cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi
	cmd="echo x > $O/target; sh build.sh"

	# ---- the refusal a person can act on -------------------------------------------------
	run --shell "$cmd"
	is "$rc" $RUN_ASK "$t an ask exits $RUN_ASK"
	has "ask   write $O/target" "$errf" && has "exactly this file becomes writable" "$errf" &&
		has "cordon approve exec" "$errf" && has "1 operation needs approval" "$errf"
	ok $? "$t the refusal shows the preview, what approving grants and the command to approve"
	[ ! -e "$O/target" ]
	ok $? "$t nothing was written"
	U "$C" run --preset read-only --workspace "$P/ws" --context home="$H" \
		--context agent_dir="$P/agent" --context session_dir="$P/agent/s" \
		--shell "echo x > $O/target; cat $H/.ssh/authorized_keys" 2> "$errf" > /dev/null
	has "denied outright" "$errf" && has "a denied operation is never approvable" "$errf"
	ok $? "$t a deny in the preview is marked as never approvable"

	# ---- approve, then run: exactly the approved file widens --------------------------------
	approve "$cmd"
	is "$rc" 0 "$t cordon approve exec issues an approval"
	case $id in *[!0-9a-f]*|'') false ;; *) [ ${#id} -eq 32 ] ;; esac
	ok $? "$t the id is on the last line"
	case $out in *"ask   write $O/target"*) true ;; *) false ;; esac
	ok $? "$t it prints the preview it covers"
	run --approval "$id" --shell "$cmd"
	is "$rc:$(cat "$O/target" 2> /dev/null | tr '\n' ' ')" "0:x z " \
		"$t the approved write outside the workspace succeeds, from the script too"
	[ ! -e "$O/sibling" ] && has "Read-only file system" "$errf"
	ok $? "$t a sibling write the preview did not name still fails"
	run --approval "$id" --shell "$cmd"
	is "$rc" $RUN_ASK "$t a second use is refused"
	has "unknown or was already used" "$errf"
	ok $? "$t and says why"

	# ---- every change voids it --------------------------------------------------------------
	approve "$cmd"
	run --approval "$id" --shell "echo x > $O/target; sh build.sh; true"
	has "was given for the shell command" "$errf" && [ "$rc" -eq $RUN_ASK ]
	ok $? "$t a changed command is refused"
	approve "$cmd"
	echo "echo pwned > $O/sibling" >> "$P/ws/build.sh"
	run --approval "$id" --shell "$cmd"
	has "$P/ws/build.sh changed (its content" "$errf" && [ "$rc" -eq $RUN_ASK ] && [ ! -e "$O/sibling" ]
	ok $? "$t a changed script is refused"
	# The script sources a file a later sandboxed call can rewrite: the
	# approval binds it too.
	printf '. ./lib.sh\nfinish\n' > "$P/ws/run.sh"
	printf 'finish() { echo lib >> %s/target; }\n' "$O" > "$P/ws/lib.sh"
	runner_own "$P/ws/run.sh" "$P/ws/lib.sh"
	scmd="echo x > $O/target; sh run.sh"
	approve "$scmd"
	run --approval "$id" --shell "$scmd"
	is "$rc:$(cat "$O/target" 2> /dev/null | tr '\n' ' ')" "0:x lib " \
		"$t control: the approved script runs the function of the file it sources"
	approve "$scmd"
	is "$rc" 0 "$t a script that sources a file is approvable"
	run -- sh -c "echo 'finish() { echo pwned >> $O/target; }' > lib.sh"
	is "$rc" 0 "$t a later sandboxed call rewrites the sourced file, unasked"
	rm -f "$O/target"
	run --approval "$id" --shell "$scmd"
	has "$P/ws/lib.sh changed (its content" "$errf" && [ "$rc" -eq $RUN_ASK ] && [ ! -e "$O/target" ]
	ok $? "$t the approved run is refused: the file the script sources changed ($(tail -n 1 "$errf"))"
	# Another spelling: bash, `source`, a script run by its path (no #!
	# line) that sources a third file in a directory of its own.
	mkdir -p "$P/ws/tools/lib"
	printf './tools/step\nsource tools/common.sh\nsay done\n' > "$P/ws/run2.sh"
	printf 'say() { echo "$1" >> %s/target; }\n' "$O" > "$P/ws/tools/common.sh"
	printf '. ./tools/lib/more.sh\nmore\n' > "$P/ws/tools/step"
	printf 'more() { echo more >> %s/target; }\n' "$O" > "$P/ws/tools/lib/more.sh"
	chmod 755 "$P/ws/tools/step"
	runner_own "$P/ws"
	scmd="echo x > $O/target; bash run2.sh"
	approve "$scmd"
	is "$rc" 0 "$t bash run2.sh is approvable"
	run -- sh -c "echo 'more() { echo pwned >> $O/target; }' > tools/lib/more.sh"
	rm -f "$O/target"
	run --approval "$id" --shell "$scmd"
	has "$P/ws/tools/lib/more.sh changed (its content" "$errf" && [ "$rc" -eq $RUN_ASK ] &&
		[ ! -e "$O/target" ]
	ok $? "$t bash, source and a script run by its path: a change three files down is refused too"
	# What cordon cannot see is not approvable, and the refusal says why.
	printf '. "$(dirname "$0")/lib.sh"\nfinish\n' > "$P/ws/dyn.sh"
	runner_own "$P/ws/dyn.sh"
	approve "echo x > $O/target; sh dyn.sh"
	[ "$rc" -ne 0 ] && has "in $P/ws/dyn.sh runs a script whose name is known only when it runs" "$errf" &&
		has "ask   write $O/target" "$errf"
	ok $? "$t a script that sources a file named only at run time is not approvable; the preview says why"
	run --approved --shell "echo x > $O/target; sh dyn.sh"
	is "$rc:$(ls "$O" | grep -c '^target$')" "$RUN_ASK:0" "$t nor approved on the spot (--approved)"
	approve "$cmd"
	U "$C" run --approval "$id" --preset read-only --workspace "$P/ws" --context home="$H" \
		--context agent_dir="$P/agent" --context session_dir="$P/agent/s" --shell "$cmd" \
		> /dev/null 2> "$errf"
	has "was given under preset 'workspace-write', not 'read-only'" "$errf"
	ok $? "$t a changed preset is refused"
	approve "$cmd"
	run --approval "$id" --cwd "$O" --shell "$cmd"
	has "the context variable cwd was '$P/ws'" "$errf"
	ok $? "$t a changed context is refused"
	cat > "$P/p.cordon" << 'EOF'
cordon 1;
preset "p" {
  sandbox required;
  read "/**" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${tmp}" allow;
  write "/**" ask;
  exec "*" allow;
}
EOF
	chmod 644 "$P/p.cordon"
	out=$(U "$C" approve exec -p "$P/p.cordon" --preset p --workspace "$P/ws" \
		--context home="$H" --context session_dir="$P/agent/s" "echo x > $O/p" 2> "$errf")
	id=$(printf '%s\n' "$out" | tail -n 1)
	sed -i 's|exec "\*" allow;|exec "*" allow;\n  exec "rm" ask;|' "$P/p.cordon"
	U "$C" run --approval "$id" -p "$P/p.cordon" --preset p --workspace "$P/ws" \
		--context home="$H" --context session_dir="$P/agent/s" --shell "echo x > $O/p" \
		> /dev/null 2> "$errf"
	has "preset 'p' changed since it was given" "$errf" && [ ! -e "$O/p" ]
	ok $? "$t a changed policy is refused"
	# The changed policy asks about rm: approved, the rule is satisfied.
	: > "$P/ws/gone"
	runner_own "$P/ws/gone"
	pp() { # pp VERB ARGS...: a verb with the policy p on the workspace
		v=$1
		shift
		U "$C" $v -p "$P/p.cordon" --preset p --workspace "$P/ws" --context home="$H" \
			--context session_dir="$P/agent/s" "$@"
	}
	pp run --shell "rm $P/ws/gone" > /dev/null 2> "$errf"
	is "$?" $RUN_ASK "$t an exec rule that asks refuses the command"
	has "approval satisfies the rule" "$errf"
	ok $? "$t and the preview says what approving does"
	id=$(pp approve exec "rm $P/ws/gone" 2> /dev/null | tail -n 1)
	pp run --approval "$id" --shell "rm $P/ws/gone" > /dev/null 2> "$errf"
	is "$?:$(ls "$P/ws" | grep -c gone)" "0:0" "$t approved, the exec rule is satisfied and it runs"
	approve --ttl 1 "$cmd"
	sleep 2
	run --approval "$id" --shell "$cmd"
	has "expired" "$errf" && [ "$rc" -eq $RUN_ASK ]
	ok $? "$t an expired approval is refused"

	# ---- never a deny, never a protected path -------------------------------------------------
	approve "echo x >> $H/.ssh/authorized_keys"
	is "$rc" 1 "$t a denied write is not approvable"
	has "no approval allows it" "$errf"
	ok $? "$t and says so"
	approve "echo x > $P/agent/s/approvals/planted.json"
	is "$rc:$(ls "$P/agent/s/approvals" | grep -c planted)" "1:0" \
		"$t a protected path (the approvals themselves) is not approvable"
	U "$C" approve exec -p "$P/p.cordon" --preset p --workspace "$P/ws" --context home="$H" \
		--context session_dir="$P/agent/s" "echo x > $P/agent/s/approvals/planted.json" \
		> /dev/null 2> "$errf"
	is "$?:$(ls "$P/agent/s/approvals" | grep -c planted)" "2:0" \
		"$t the approvals directory is never approvable, even where the policy leaves it open"
	has "which approvals never cover" "$errf"
	ok $? "$t and says so"
	echo old > "$O/swap"
	runner_own "$O/swap"
	approve "echo x > $O/swap"
	rm -f "$O/swap"
	U ln -s "$H/.ssh/authorized_keys" "$O/swap"
	run --approval "$id" --shell "echo x > $O/swap"
	is "$rc:$(cat "$H/.ssh/authorized_keys")" "$RUN_DENIED:key" \
		"$t a target swapped for a link to a denied path after approval writes nothing"
	echo old > "$O/linked"
	runner_own "$O/linked"
	approve "echo x > $O/linked"
	rm -f "$O/linked"
	U ln "$H/.bashrc" "$O/linked"
	run --approval "$id" --shell "echo x > $O/linked"
	is "$rc:$(cat "$H/.bashrc")" "$RUN_ASK:rc" \
		"$t a target hard-linked to another file after approval writes nothing"
	has "the preview changed" "$errf"
	ok $? "$t and says the preview changed"

	# ---- a tree, the argv form, --approved ----------------------------------------------------
	echo data > "$P/ws/data"
	runner_own "$P/ws/data"
	approve "cp -r data $O/tree"
	run --approval "$id" --shell "cp -r data $O/tree"
	is "$rc:$(cat "$O/tree/data" 2> /dev/null)" "0:data" "$t an approved tree is writable"
	approve --argv -- sh -c "echo a > $O/argv"
	run --approval "$id" -- sh -c "echo a > $O/argv"
	is "$rc:$(cat "$O/argv" 2> /dev/null)" "0:a" "$t the argv form"
	approve --argv -- sh -c "echo a > $O/argv2"
	run --approval "$id" --shell "sh -c 'echo a > $O/argv2'"
	has "was given for the argv" "$errf"
	ok $? "$t an argv approval does not cover the same words as a shell string"
	log=$P/audit.log
	run --approved --audit "$log" --actor alice --shell "echo b > $O/approved; echo c > $O/sib2"
	is "$rc:$(cat "$O/approved" 2> /dev/null):$(cat "$O/sib2" 2> /dev/null)" "0:b:c" \
		"$t --approved approves this call's preview now: its writes widen"
	echo "echo c > $O/sib3" > "$P/ws/w3.sh"
	runner_own "$P/ws/w3.sh"
	run --approved --shell "echo b > $O/approved2; sh w3.sh"
	is "$(cat "$O/approved2" 2> /dev/null):$(ls "$O" | grep -c sib3)" "b:0" \
		"$t and nothing it did not show"

	# ---- a file approval is not a command's, nor the reverse ------------------------------------
	fid=$(echo data | U "$C" approve --preset workspace-write --context workspace="$P/ws" \
		--context home="$H" --context session_dir="$P/agent/s" write "$O/file-approved" 2> /dev/null |
		tail -n 1)
	run --approval "$fid" --shell "echo x > $O/file-approved"
	has "was given for write '$O/file-approved', not for a command" "$errf" && [ "$rc" -eq $RUN_ASK ]
	ok $? "$t a file write's approval does not run a command"
	approve "echo x > $O/cmd-approved"
	echo data | U "$C" write --preset workspace-write --context workspace="$P/ws" \
		--context home="$H" --context session_dir="$P/agent/s" --approval "$id" \
		"$O/cmd-approved" 2> "$errf"
	has "was given for a command" "$errf" && [ ! -e "$O/cmd-approved" ]
	ok $? "$t a command's approval does not write a file"

	# ---- the stream ------------------------------------------------------------------------------
	line=$(printf '{"id":"a","op":"exec","target":"echo s > %s/stream","approve":true}\n' "$O" |
		U "$C" eval --stdin --preset workspace-write --context workspace="$P/ws" \
			--context cwd="$P/ws" --context home="$H" --context agent_dir="$P/agent" \
			--context session_dir="$P/agent/s")
	id=$(printf '%s\n' "$line" | sed -n 's/.*"approval":"\([0-9a-f]*\)".*/\1/p')
	case $line in *'"decision":"ask"'*'"grant":"file"'*) true ;; *) false ;; esac
	ok $? "$t the stream returns the preview with what approving grants, and an id"
	run --approval "$id" --shell "echo s > $O/stream"
	is "$rc:$(cat "$O/stream" 2> /dev/null)" "0:s" "$t cordon run consumes the stream's approval"

	# ---- audit -----------------------------------------------------------------------------------
	out=$(U "$C" approve exec $(ctx) --audit "$log" --actor bob "echo d > $O/audited" 2> "$errf")
	id=$(printf '%s\n' "$out" | tail -n 1)
	run --approval "$id" --audit "$log" --actor carol --shell "echo d > $O/audited"
	issued=$(grep -c "\"actor\":\"bob\".*\"approval\":\"$id\",\"outcome\":\"approval-issued\"" "$log")
	consumed=$(grep -c "\"actor\":\"carol\".*\"approval\":\"$id\",\"outcome\":\"approval-consumed\"" "$log")
	granted=$(grep "\"outcome\":\"granted-file\"" "$log" | grep -c "$id")
	ran=$(grep "\"outcome\":\"exit:0\"" "$log" | grep -c "\"approval\":\"$id\"")
	is "$issued:$consumed:$granted:$ran" "1:1:1:1" \
		"$t the approval, its consumption, the grant and the run are audited with the id"
	grep -q '"actor":"alice".*"outcome":"approval-issued"' "$log"
	ok $? "$t --approved is audited as an approval by the actor"

	# ---- two consumers, one wins -------------------------------------------------------------------
	approve "echo e >> $O/race"
	for k in 1 2 3 4; do
		(U "$C" run $(ctx) --approval "$id" --shell "echo e >> $O/race" > /dev/null 2>&1
		 echo $? > "$P/race.$k") &
	done
	wait
	wins=$(cat "$P"/race.? | grep -c '^0$')
	is "$wins:$(wc -l < "$O/race" | tr -d ' ')" "1:1" "$t of four consumers of one approval, one wins"
}

if [ $ready -ne 0 ]; then
	skip "approvals under bwrap" "cordon probe says the sandbox is not ready"
	done_testing
	exit
fi
for p in $passes; do
	pass "$p"
done
done_testing
