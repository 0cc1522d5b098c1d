#!/bin/sh
# The real agents under cordon's hook: Claude Code, Codex and Gemini CLI, at
# the versions tests/agents/package-lock.json pins, each driven headless
# (claude -p, codex exec, gemini -p) against a fake model server on
# 127.0.0.1 (tests/agents/model-server.py) that asks for one tool call a
# turn and records every request and every tool result the agent sends
# back.  The hook is installed as docs/agents.md says, in a throwaway HOME;
# the checks are on what the model received and on the disk: benign shell
# commands run inside cordon's sandbox; a secret read by the shell or the
# agent's read tool is refused and never reaches the model; writes outside
# the workspace do not happen (through a Codex workdir or a Gemini
# dir_path too); a force push is refused; the agent's write tool works
# inside and not outside; a broken policy and a missing cordon binary
# block every call, and doctor says so; install, doctor and uninstall do
# what the docs say.  As root and again as nobody.
#
# The agents are not installed here: tests/agents/install.sh DIR installs
# them (npm ci) and CORDON_AGENTS_DIR=DIR names them.  Without it every
# check SKIPs with the reason; with CORDON_AGENTS_REQUIRED=1 (CI) a missing
# agent fails.
. "$srcdir/tests/lib.sh"

dir=$srcdir/tests/agents
cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"
agents="claude codex gemini"

# ---- the agents, or the reason they are not here ---------------------------------
missing=
for a in $agents; do
	[ -n "${CORDON_AGENTS_DIR:-}" ] && [ -x "$CORDON_AGENTS_DIR/node_modules/.bin/$a" ] ||
		missing="$missing $a"
done
for tool in python3 git node; do
	command -v $tool > /dev/null || missing="$missing $tool"
done
why=
if [ -n "$missing" ]; then
	why="not installed:$missing (tests/agents/install.sh DIR, then CORDON_AGENTS_DIR=DIR)"
elif ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	why="no sandbox here: $(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
fi
if [ -n "$why" ]; then
	if [ "${CORDON_AGENTS_REQUIRED:-}" = 1 ]; then
		ok 1 "the real agents are here (CORDON_AGENTS_REQUIRED=1): $why"
	else
		skip "the real agents under cordon's hook" "$why"
	fi
	done_testing
	exit
fi
BIN=$CORDON_AGENTS_DIR/node_modules/.bin

# ---- the fake model server ---------------------------------------------------------
# The interpreter itself, not a version manager's shim that costs a second.
PY=$(python3 -c 'import sys; print(sys.executable)')
S=$tmpdir/model
mkdir -p "$S"
"$PY" "$dir/model-server.py" "$S" &
server=$!
at_exit 'kill $server 2> /dev/null'
i=0
while [ ! -s "$S/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -s "$S/port" ]; then
	ok 1 "the fake model server starts"
	done_testing
	exit
fi
URL=http://127.0.0.1:$(cat "$S/port")
chmod -R a+rwX "$S"

calls() { "$PY" "$dir/calls.py" build "$S"; }
result() { "$PY" "$dir/calls.py" result "$S" "$1"; }
seen() { "$PY" "$dir/calls.py" seen "$S" "$1"; }
has() { # has LABEL TEXT DESCRIPTION: the tool result for LABEL holds TEXT
	r=$(result "$1")
	case $r in *"$2"*) ok 0 "$3" ;; *)
		ok 1 "$3"
		printf '%s\n' "$r" | head -8 | diag
		;;
	esac
}
hasnt() { # hasnt LABEL TEXT DESCRIPTION: it came back, without TEXT
	r=$(result "$1")
	case $r in "NO RESULT" | *"$2"*)
		ok 1 "$3"
		printf '%s\n' "$r" | head -8 | diag
		;;
	*) ok 0 "$3" ;; esac
}
absent() { # absent FILE DESCRIPTION
	[ ! -e "$1" ]
	ok $? "$2"
}

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	passes="root nobody"
else
	passes=self
fi

# The agent headless in the workspace, with nothing of this machine's
# environment but PATH: its model is the fake server.
run_agent() { # run_agent AGENT
	case $1 in
	claude)
		set -- "$BIN/claude" -p "run the tools" --output-format json
		envs="ANTHROPIC_BASE_URL=$URL ANTHROPIC_API_KEY=sk-cordon-test
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1"
		;;
	codex)
		# cordon's sandbox bounds the shell (docs/agents.md).
		set -- "$BIN/codex" exec --skip-git-repo-check -s danger-full-access "run the tools"
		envs="CORDON_FAKE_KEY=x"
		;;
	gemini)
		set -- "$BIN/gemini" -p "run the tools" --output-format json --yolo
		envs="GOOGLE_GEMINI_BASE_URL=$URL GEMINI_API_KEY=cordon-test
			GEMINI_CLI_TRUST_WORKSPACE=true"
		;;
	esac
	# shellcheck disable=SC2086
	(cd "$WS" && $AS env -i PATH="$PATH" HOME="$H" LANG=C.UTF-8 TERM=dumb $envs \
		timeout 180 "$@" < /dev/null > "$P/agent.out" 2> "$P/agent.err")
	rc=$?
	echo "$rc" > "$P/agent.rc"
	[ "$rc" -eq 0 ] || { echo "$1 exited $rc"; tail -3 "$P/agent.err"; } | diag
}

# The agent's own configuration, as a user has it before installing cordon:
# its model (the fake server) and, for Gemini CLI, a settings.json with
# comments, which Gemini CLI reads.
agent_config() { # agent_config AGENT
	case $1 in
	codex)
		mkdir -p "$H/.codex"
		cat > "$H/.codex/config.toml" <<-EOF
		# the user's own settings
		model_provider = "cordon-test"
		model = "gpt-5.5"

		[model_providers.cordon-test]
		name = "cordon-test"
		base_url = "$URL/v1"
		wire_api = "responses"
		env_key = "CORDON_FAKE_KEY"
		EOF
		;;
	gemini)
		mkdir -p "$H/.gemini"
		cat > "$H/.gemini/settings.json" <<-EOF
		{
		  // the user's own settings, with comments
		  "security": { "auth": { "selectedType": "gemini-api-key" } }, /* kept */
		  "ui": { "theme": "Default" }
		}
		EOF
		;;
	esac
}

# Lines LABEL<TAB>TOOL<TAB>INPUT for one agent's main run; the commit
# first, while the work tree holds nothing else new.
main_calls() { # main_calls AGENT
	patch_in="*** Begin Patch\\n*** Add File: $WS/written.txt\\n+written\\n*** End Patch\\n"
	patch_out="*** Begin Patch\\n*** Add File: $O/written-out.txt\\n+x\\n*** End Patch\\n"
	benign='echo benign-ok; echo \"tmp=$TMPDIR\"; readlink /proc/self/ns/net; echo made > made-by-shell.txt'
	commit='echo new > committed.txt && git add -A && git commit -qm call && echo committed'
	T='	'
	case $1 in
	claude)
		cat <<-EOF
		commit${T}Bash${T}{"command": "$commit"}
		benign${T}Bash${T}{"command": "$benign"}
		key-shell${T}Bash${T}{"command": "cat ~/.ssh/id_ed25519"}
		key-read${T}Read${T}{"file_path": "$H/.ssh/id_ed25519"}
		out-shell${T}Bash${T}{"command": "echo x > $O/shell-out.txt"}
		push${T}Bash${T}{"command": "git push --force origin main"}
		write-in${T}Write${T}{"file_path": "$WS/written.txt", "content": "written\\n"}
		write-out${T}Write${T}{"file_path": "$O/written-out.txt", "content": "x\\n"}
		new-tool${T}TaskList${T}{}
		EOF
		;;
	codex)
		cat <<-EOF
		commit${T}exec_command${T}{"cmd": "$commit", "workdir": "$WS"}
		benign${T}exec_command${T}{"cmd": "$benign", "workdir": "$WS"}
		key-shell${T}exec_command${T}{"cmd": "cat ~/.ssh/id_ed25519", "workdir": "$WS"}
		out-shell${T}exec_command${T}{"cmd": "echo x > $O/shell-out.txt", "workdir": "$WS"}
		out-dir${T}exec_command${T}{"cmd": "echo x > dir-out.txt; pwd", "workdir": "$O"}
		push${T}exec_command${T}{"cmd": "git push --force origin main", "workdir": "$WS"}
		write-in${T}apply_patch${T}"$patch_in"
		write-out${T}apply_patch${T}"$patch_out"
		EOF
		;;
	gemini)
		cat <<-EOF
		commit${T}run_shell_command${T}{"command": "$commit", "description": "t"}
		benign${T}run_shell_command${T}{"command": "$benign", "description": "t"}
		sub-dir${T}run_shell_command${T}{"command": "pwd", "dir_path": "sub", "description": "t"}
		key-shell${T}run_shell_command${T}{"command": "cat ~/.ssh/id_ed25519", "description": "t"}
		key-read${T}read_file${T}{"file_path": "$H/.ssh/id_ed25519"}
		out-shell${T}run_shell_command${T}{"command": "echo x > $O/shell-out.txt", "description": "t"}
		out-dir${T}run_shell_command${T}{"command": "echo x > dir-out.txt", "dir_path": "$O", "description": "t"}
		push${T}run_shell_command${T}{"command": "git push --force origin main", "description": "t"}
		write-in${T}write_file${T}{"file_path": "$WS/written.txt", "content": "written\\n"}
		write-out${T}write_file${T}{"file_path": "$O/written-out.txt", "content": "x\\n"}
		EOF
		;;
	esac
}

# The one call of a run whose hook must block everything.
blocked_calls() { # blocked_calls AGENT FILE
	T='	'
	case $1 in
	claude) echo "blocked${T}Bash${T}{\"command\": \"echo made > $2\"}" ;;
	codex) echo "blocked${T}exec_command${T}{\"cmd\": \"echo made > $2\", \"workdir\": \"$WS\"}" ;;
	gemini) echo "blocked${T}run_shell_command${T}{\"command\": \"echo made > $2\", \"description\": \"t\"}" ;;
	esac
}

C() { $AS env HOME="$H" "$@"; } # a cordon command as the pass's user, in its HOME

agent_pass() { # agent_pass AGENT: every scenario for one agent
	a=$1
	P=$PASS/$a
	WS=$P/ws H=$P/home O=$P/outside
	mkdir -p "$WS/sub" "$H/.ssh" "$O" "$P/bin" "$P/pol"
	KEY="cordon-test-key-$a-$name-$$"
	echo "$KEY" > "$H/.ssh/id_ed25519"
	chmod 600 "$H/.ssh/id_ed25519"
	git init -q -b main "$WS" && git -C "$WS" config user.email t@example.invalid &&
		git -C "$WS" config user.name t && echo seed > "$WS/seed.txt" &&
		git -C "$WS" add -A && git -C "$WS" commit -qm seed
	agent_config "$a"
	cp "$cordon_bin" "$(dirname "$cordon_bin")/cordon-exec" "$P/bin/"
	cp "$srcdir/rules/default.cordon" "$srcdir/rules/commands.cordon" "$P/pol/"
	[ -n "$AS" ] && chown -R 65534:65534 "$P"
	t="[$name $a]"

	# ---- install and doctor, as docs/agents.md says for a headless agent ----
	(cd "$WS" && C "$CB" hook install "$a" --preset workspace-write --no-ask) \
		> "$P/install.out" 2> "$P/install.err"
	ok $? "$t hook install $a --preset workspace-write --no-ask"
	[ -s "$P/install.err" ] && diag < "$P/install.err"
	(cd "$WS" && C "$CB" hook doctor "$a") > "$P/doctor.out" 2>&1
	rc=$?
	grep -q '^the hook works as installed' "$P/doctor.out" && [ $rc -eq 0 ]
	ok $? "$t doctor: the installed hook works"
	[ $rc -eq 0 ] || diag < "$P/doctor.out"
	case $a in
	codex)
		grep -q 'trusted_hash = "sha256:' "$H/.codex/config.toml" &&
			grep -q '^model_provider = "cordon-test"' "$H/.codex/config.toml"
		ok $? "$t install records the hook's trust in config.toml, keeping the rest"
		;;
	gemini)
		grep -q 'had comments' "$P/install.err" && ls "$H/.gemini/"settings.json.cordon-backup-* > /dev/null 2>&1 &&
			grep -q '// the user' "$H/.gemini/"settings.json.cordon-backup-*
		ok $? "$t install reads settings.json with comments, says they are not kept, backs them up"
		;;
	esac

	# ---- one run, one call a turn ----
	main_calls "$a" | calls
	run_agent "$a"
	n=$(wc -l < "$S/results.jsonl" 2>/dev/null || echo 0)
	is "$n" "$(main_calls "$a" | wc -l | tr -d ' ')" "$t every call's result reached the model"
	[ "$n" -gt 0 ] || { tail -5 "$P/agent.err" "$P/agent.out" | diag; }
	has benign benign-ok "$t benign shell runs"
	has benign "tmp=$TMPROOT" "$t ... inside cordon's sandbox (its private temp dir)"
	hasnt benign "$HOSTNET" "$t ... in a network namespace of its own"
	[ -e "$WS/made-by-shell.txt" ]
	ok $? "$t ... and writes in the workspace"
	hasnt key-shell "$KEY" "$t a secret read by the shell is refused"
	if [ "$a" != codex ]; then
		hasnt key-read "$KEY" "$t a secret read by the agent's read tool is refused"
	fi
	is "$(seen "$KEY")" 0 "$t the key never reaches the model"
	absent "$O/shell-out.txt" "$t a shell write outside the workspace does not happen"
	if [ "$a" != claude ]; then
		absent "$O/dir-out.txt" "$t a write in a call's directory outside the workspace does not happen"
	fi
	if [ "$a" = gemini ]; then
		has sub-dir "$WS/sub" "$t dir_path is where the rewritten command runs"
	fi
	has push "force pushes rewrite shared history" "$t a force push is refused"
	[ -f "$WS/written.txt" ]
	ok $? "$t the agent's write tool works inside the workspace"
	absent "$O/written-out.txt" "$t ... and not outside"
	if [ "$a" = claude ]; then
		has new-tool "cordon (workspace-write)" "$t a tool the hook has no mapping for reaches cordon (TaskList)"
		# -p mode: the denial record shows the model's command.
		grep -q "echo x > $O/shell-out.txt" "$P/agent.out" && ! grep -q "cordon' run" "$P/agent.out"
		ok $? "$t claude -p's denial record shows the model's command, not cordon's"
	fi
	files=$(git -c safe.directory='*' -C "$WS" show --name-only --format= HEAD 2> /dev/null)
	is "$files" committed.txt "$t git commit inside a call commits only what it made"
	# The rest is about the agent's configuration, not who runs it: once.
	[ "$name" = nobody ] && return

	# ---- a broken policy blocks every call, and doctor says so ----
	(cd "$WS" && C "$P/bin/cordon" hook install "$a" -p "$P/pol/default.cordon" \
		--preset workspace-write --no-ask) > /dev/null 2>&1
	ok $? "$t install with a policy file and a binary of its own"
	echo 'this is not cordon' >> "$P/pol/default.cordon"
	blocked_calls "$a" "$WS/broken.txt" | calls
	run_agent "$a"
	absent "$WS/broken.txt" "$t a policy that does not parse blocks the call"
	(cd "$WS" && C "$CB" hook doctor "$a") > "$P/doctor.out" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q '^FAIL the policy it uses' "$P/doctor.out"
	ok $? "$t doctor fails loudly on a policy that does not parse (exit $rc)"

	# ---- a missing cordon binary blocks every call ----
	cp "$srcdir/rules/default.cordon" "$P/pol/default.cordon"
	rm -f "$P/bin/cordon"
	blocked_calls "$a" "$WS/missing.txt" | calls
	run_agent "$a"
	absent "$WS/missing.txt" "$t a missing cordon binary blocks the call"
	(cd "$WS" && C "$CB" hook doctor "$a") > "$P/doctor.out" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q '^FAIL the cordon binary it runs' "$P/doctor.out"
	ok $? "$t doctor fails loudly on a missing binary (exit $rc)"

	# ---- Codex: stale trust is seen ----
	if [ "$a" = codex ]; then
		(cd "$WS" && C "$CB" hook install codex --preset workspace-write --no-ask) > /dev/null 2>&1
		sed -i 's/"timeout": 30/"timeout": 31/' "$H/.codex/hooks.json"
		(cd "$WS" && C "$CB" hook doctor codex) > "$P/doctor.out" 2>&1
		rc=$?
		[ $rc -ne 0 ] && grep -q '^FAIL Codex trusts its PreToolUse entry' "$P/doctor.out"
		ok $? "$t doctor fails when Codex's trust is stale (exit $rc)"
	fi

	# ---- uninstall ----
	(cd "$WS" && C "$CB" hook uninstall "$a") > /dev/null 2>&1
	ok $? "$t hook uninstall $a"
	f=$H/.$a/settings.json
	[ "$a" = codex ] && f=$H/.codex/hooks.json
	! grep -q 'cordon' "$f"
	ok $? "$t ... removes cordon's entries"
	if [ "$a" = gemini ]; then
		grep -q 'gemini-api-key' "$f"
		ok $? "$t ... and keeps the user's settings"
	fi
	(cd "$WS" && C "$CB" hook doctor "$a") > "$P/doctor.out" 2>&1
	[ $? -ne 0 ]
	ok $? "$t doctor fails once the hook is gone"
}

HOSTNET=$(readlink /proc/self/ns/net)
TMPROOT=/tmp/cordon-  # the agents run with no TMPDIR
for name in $passes; do
	PASS=$tmpdir/$name
	mkdir -p "$PASS"
	AS=
	CB=$cordon_bin
	if [ "$name" = nobody ]; then
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
		mkdir -p "$PASS/bin"
		cp "$cordon_bin" "$(dirname "$cordon_bin")/cordon-exec" "$PASS/bin/"
		chmod -R a+rX "$PASS/bin"
		CB=$PASS/bin/cordon
		if ! $AS test -x "$BIN/claude"; then
			skip "[$name] the agents as nobody" "$CORDON_AGENTS_DIR is closed to nobody"
			continue
		fi
	fi
	chmod 755 "$PASS"
	for a in $agents; do
		agent_pass "$a"
	done
done
done_testing
