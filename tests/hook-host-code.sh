#!/bin/sh
# Commands that run code the agent may have written, asked about through
# `cordon hook codex --no-rewrite`: the shell command then runs as Codex
# runs it, on the host, and no cordon sandbox bounds it.  The agent first writes files the workspace
# lets it write (a Makefile, a git hook in the directory core.hooksPath
# names, a nested repository's config, a link to ~/.bashrc); then a
# command that looks harmless runs that code.  Each command goes through
# the hook; one the hook lets through really runs, and afterwards
# ~/.bashrc and a marker outside the workspace must be as they were.  The
# hook must not let any through: each needs approval, which Codex cannot
# ask, so the answer is a deny that says so.  Under `cordon run`
# (--sandboxed) the same commands stay allowed: the sandbox bounds them.
# Every check runs as root and again as the user nobody, with a workspace
# and a home of its own.
. "$srcdir/tests/lib.sh"

chmod 755 "$tmpdir"
if ! command -v git > /dev/null || ! command -v make > /dev/null; then
	skip "programs that run the project's code" "git and make are needed"
	done_testing
	exit
fi
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

# U CMD...: CMD as the pass's user, in the workspace, with the pass's home.
U() {
	(cd "$W" && $AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 GIT_AUTHOR_NAME=a \
		GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b "$@")
}

# json_string S: S as a JSON string.
json_string() {
	printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' |
		awk 'BEGIN { printf "\"" } NR > 1 { printf "\\n" } { printf "%s", $0 } END { printf "\"" }'
}

# via_hook CMD: CMD through cordon hook codex, as the agent's shell tool call;
# it runs when the hook lets it.  $answer is the hook's answer.
via_hook() {
	printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%s},"tool_use_id":"c"}\n' \
		"$W" "$(json_string "$1")" > "$P/event"
	answer=$(U "$C" hook codex --no-rewrite --preset workspace-write --context workspace="$W" \
		--context home="$H" < "$P/event" 2> "$P/err")
	rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$answer" ]; then
		U sh -c "$1" > /dev/null 2>&1 < /dev/null
	fi
}

# refused CMD DESCRIPTION: the hook answers a deny that says it needs approval.
refused() {
	via_hook "$1"
	case $rc:$answer in
	0:*'"permissionDecision":"deny"'*'needs approval'*) ok 0 "$pass: $2: the hook refuses: it needs approval" ;;
	*)
		ok 1 "$pass: $2: the hook refuses: it needs approval"
		echo "exit $rc, answer: $answer $(cat "$P/err")" | diag
		;;
	esac
}

# sandboxed CMD DESCRIPTION: under cordon run the command stays allowed.
sandboxed() {
	got=$(U "$C" eval --sandboxed --preset workspace-write --context workspace="$W" \
		--context home="$H" --context cwd="$W" exec "$1" 2>&1 | head -1)
	case $got in
	allow:*) ok 0 "$pass: $2: allowed under cordon run" ;;
	*)
		ok 1 "$pass: $2: allowed under cordon run"
		echo "$got" | diag
		;;
	esac
}

# untouched DESCRIPTION: ~/.bashrc and the marker are as they were.
untouched() {
	ok "$([ "$(cat "$H/.bashrc")" = "# rc" ] && [ ! -e "$M" ] && echo 0 || echo 1)" \
		"$pass: $1: nothing ran outside the workspace"
	if [ "$(cat "$H/.bashrc")" != "# rc" ] || [ -e "$M" ]; then
		echo "~/.bashrc: $(cat "$H/.bashrc"); marker: $(cat "$M" 2> /dev/null)" | diag
		echo '# rc' > "$H/.bashrc"
		rm -f "$M"
	fi
}

for pass in $passes; do
	P=$tmpdir/$pass
	W=$P/ws H=$P/home M=$P/marker
	mkdir -p "$W" "$H"
	echo '# rc' > "$H/.bashrc"
	case $pass in
	nobody)
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
		C=$(as_nobody_cordon "$P/bin")
		chown -R 65534:65534 "$P"
		chmod 755 "$P"
		;;
	*) AS= C=${CORDON_REAL:-$CORDON} ;;
	esac
	# The repository as a person set it up: its hooks in the work tree.
	U git init -q . && U git config core.hooksPath .hooks &&
		U sh -c 'echo a > f && git add f && git commit -qm one' || {
		ok 1 "$pass: a repository to work in"
		continue
	}

	# -- make runs the Makefile the agent wrote
	printf 'all:\n\techo "echo PWNED" >> $(HOME)/.bashrc\n' > "$W/Makefile"
	refused "make" "make runs the agent's Makefile"
	untouched "make"
	sandboxed "make" "make"
	refused "make test" "make test"

	# -- git commit runs the hook the agent wrote below core.hooksPath
	mkdir -p "$W/.hooks"
	printf '#!/bin/sh\necho "echo PWNED" >> "$HOME/.bashrc"\n' > "$W/.hooks/pre-commit"
	chmod 755 "$W/.hooks/pre-commit"
	[ "$pass" = nobody ] && chown -R 65534:65534 "$W"
	U sh -c 'echo b > f && git add f'
	refused "git commit -qm two" "git commit runs the pre-commit hook"
	untouched "git commit"
	sandboxed "git commit -qm two" "git commit"
	rm -rf "$W/.hooks"

	# -- git runs a program named in a nested repository's config, in the
	#    environment, in a repository named by --git-dir, or on its
	#    command line
	U git init -q vendor/lib
	refused "git -C vendor/lib config core.fsmonitor 'echo ran >> $M; false #'" \
		"git -C DIR config core.fsmonitor"
	refused "cd vendor/lib && git config core.fsmonitor 'echo ran >> $M; false #'" \
		"cd DIR && git config core.fsmonitor"
	U git -C vendor/lib status > /dev/null 2>&1
	untouched "a nested repository's core.fsmonitor"
	refused "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='echo ran >> $M; false #' git status" \
		"GIT_CONFIG_COUNT"
	printf '[core]\n\tfsmonitor = "echo ran >> %s; false #"\n' "$M" > "$W/evil.cfg"
	refused "GIT_CONFIG_GLOBAL=evil.cfg git status" "GIT_CONFIG_GLOBAL"
	U git init -q --bare evilgit
	cp "$W/evil.cfg" "$W/evilgit/config"
	printf '[core]\n\tbare = false\n' >> "$W/evilgit/config"
	[ "$pass" = nobody ] && chown -R 65534:65534 "$W"
	refused "git --git-dir=evilgit --work-tree=. status" "git --git-dir"
	refused "GIT_DIR=evilgit GIT_WORK_TREE=. git status" "GIT_DIR"
	untouched "git configuration from the agent's files"
	U sh -c 'echo c >> f'
	refused "git difftool -y -x 'echo ran >> $M; true'" "git difftool -x"
	refused "git filter-branch -f --tree-filter 'echo ran >> $M' HEAD" \
		"git filter-branch --tree-filter"
	untouched "git difftool, git filter-branch"
	U git checkout -q f

	# -- a hard link to ~/.bashrc is ~/.bashrc, which no write reaches
	via_hook "cp -l ~/.bashrc rc.txt"
	case $rc:$answer in
	0:*'"permissionDecision":"deny"'*"home/.bashrc' is protected"*) ok 0 "$pass: cp -l ~/.bashrc: the hook refuses: the startup file is protected" ;;
	*)
		ok 1 "$pass: cp -l ~/.bashrc: the hook refuses: the startup file is protected"
		echo "exit $rc, answer: $answer $(cat "$P/err")" | diag
		;;
	esac
	U sh -c 'echo "echo PWNED" >> rc.txt' 2> /dev/null
	untouched "cp -l ~/.bashrc, then a write of the link"
	sandboxed "cp -l src.txt dst.txt" "cp -l in the workspace"
done
done_testing
