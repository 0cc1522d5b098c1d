#!/bin/sh
# curl's default config, asked about through `cordon hook codex` and
# `cordon eval`: under a policy that lets curl reach one host only, a plain
# `curl https://ok.test/` is allowed while no default config exists; once
# ~/.curlrc (a real file in a real home) says `location`, curl may follow a
# redirect anywhere, so the hook denies it and the reason names the file;
# `curl -q` skips the file and stays allowed.  Runs as root and again as
# the user nobody, with a home of its own.
. "$srcdir/tests/lib.sh"

chmod 755 "$tmpdir"
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

U() {
	(cd "$W" && $AS env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "$@")
}

# hook CMD: CMD through cordon hook codex; $answer is its answer.  With
# --no-rewrite, as the command then runs on the host, where ~/.curlrc counts.
hook() {
	printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"c"}\n' \
		"$W" "$1" > "$P/event"
	answer=$(U "$C" hook codex --no-rewrite -p "$P/policy.cordon" --preset one-host \
		--context workspace="$W" --context home="$H" < "$P/event" 2> "$P/err")
	rc=$?
}

# allowed CMD DESCRIPTION / denied CMD TEXT DESCRIPTION
allowed() {
	hook "$1"
	if [ "$rc" -eq 0 ] && [ -z "$answer" ]; then
		ok 0 "$pass: $2: the hook lets it run"
	else
		ok 1 "$pass: $2: the hook lets it run"
		echo "exit $rc, answer: $answer $(cat "$P/err")" | diag
	fi
}
denied() {
	hook "$1"
	case $rc:$answer in
	0:*'"permissionDecision":"deny"'*"$2"*) ok 0 "$pass: $3: the hook denies it, saying $2" ;;
	*)
		ok 1 "$pass: $3: the hook denies it, saying $2"
		echo "exit $rc, answer: $answer $(cat "$P/err")" | diag
		;;
	esac
}

for pass in $passes; do
	P=$tmpdir/$pass
	W=$P/ws H=$P/home
	mkdir -p "$W" "$H"
	# a copy: the user nobody may not reach the source tree
	cp "$srcdir/rules/commands.cordon" "$P/commands.cordon"
	cat > "$P/policy.cordon" <<POLICY
cordon 1;
include "commands.cordon";
preset "one-host" {
  read  "/**"     allow;
  write "$W"      allow;
  exec  "*"       allow;
  net   "*"       deny "no host but ok.test";
  net   "ok.test" allow;
}
POLICY
	case $pass in
	nobody)
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
		C=$(as_nobody_cordon "$P/bin")
		chown -R 65534:65534 "$P"
		chmod 755 "$P"
		;;
	*) AS= C=${CORDON_REAL:-$CORDON} ;;
	esac
	allowed "curl -fsS https://ok.test/" "curl without a default config"
	U sh -c 'printf "location\n" > "$HOME/.curlrc"'
	denied "curl -fsS https://ok.test/" "$H/.curlrc exists" "curl with a ~/.curlrc"
	allowed "curl -q -fsS https://ok.test/" "curl -q with a ~/.curlrc"
	denied "curl -fsS -q https://ok.test/" "$H/.curlrc exists" "curl with -q not first"
	got=$(U "$C" eval -p "$P/policy.cordon" --preset one-host --context workspace="$W" \
		--context home="$H" --context cwd="$W" exec "curl https://ok.test/" 2>&1)
	case $got in
	deny:*) ok 0 "$pass: cordon eval denies curl with a ~/.curlrc" ;;
	*)
		ok 1 "$pass: cordon eval denies curl with a ~/.curlrc"
		echo "$got" | diag
		;;
	esac
	rm -f "$H/.curlrc"
	allowed "curl -fsS https://ok.test/" "curl once ~/.curlrc is gone"
done
done_testing
