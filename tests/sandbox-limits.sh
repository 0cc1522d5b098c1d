#!/bin/sh
# The limits of the sandbox that docs/sandbox.md lists, shown as they are
# under `cordon run` with the real bwrap, through `sh -c 'sh SCRIPT'`.
# Each check passes while the limit stands: one that fails means the limit
# is gone, and docs/sandbox.md must say so.  Every check runs as root and
# again as an unprivileged user (nobody), as tests/run.sh does.
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
if [ $? -ne 0 ]; then
	diag < "$tmpdir/probe"
	skip "the limits under cordon run" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi

# U CMD...: CMD as the pass's user, in a fixed environment.
U() {
	$AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 TERM=dumb "$@"
}

# script TEXT [OPTION...]: the attack as a script file in $WS, run through
# sh -c 'sh SCRIPT' so that no analysis before the run sees what it writes.
script() {
	printf '%s\n' "$1" > "$WS/attack.sh"
	shift
	chmod 644 "$WS/attack.sh"
	[ -n "$AS" ] && chown "$uid:$gid" "$WS/attack.sh"
	out=$(U "$C" run ${POLICY:+-p "$POLICY"} --preset "${PRESET:-workspace-write}" "$@" \
		--workspace "$WS" --context home="$H" --context agent_dir="$H/.cordon" \
		--context session_dir="$H/.cordon/s1" -- sh -c "sh '$WS/attack.sh'" 2> "$errf")
	rc=$?
}

pass() { # pass NAME
	name=$1
	P=$tmpdir/$name
	AS=
	uid=$(id -u) gid=$(id -g)
	if [ "$name" = nobody ]; then
		uid=65534 gid=65534
		AS="setpriv --reuid=$uid --regid=$gid --clear-groups --"
	fi
	t="[$name]"
	H=$P/home W1=$P/ws1 W2=$P/ws2 W3=$P/ws3
	mkdir -p "$H/.cordon" "$W1/svc" "$W1/shared" "$W2/real" "$W3"
	echo "SECRET-before" > "$W1/svc/.env.old"
	echo "orig" > "$W2/real/settings.json"
	ln -s real "$W2/.vscode"
	C=$cordon_bin
	if [ -n "$AS" ] && ! $AS test -x "$C" -a -x "$helper"; then
		mkdir -p "$P/build"
		cp "$cordon_bin" "$helper" "$P/build/"
		C=$P/build/cordon
	fi
	[ -n "$AS" ] && chown -R "$uid:$gid" "$P"
	chmod 2775 "$W1/shared"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > "$tmpdir/probe-$name" 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	WS=$W1
	script 'cat svc/.env.old; echo "|"; echo SECRET-during > svc/.env.new && cat svc/.env.new'
	is "$rc:$(echo $out)" "0:| SECRET-during" \
		"$t a .env file made during the call is readable in it (one there before is masked)"
	script 'mkdir shared/sub && [ -g shared/sub ] && echo set-group-ID'
	is "$rc:$out:$(stat -c %A "$W1/shared/sub" | cut -c7)" "0:set-group-ID:s" \
		"$t a directory made inside a set-group-ID directory is set-group-ID"

	WS=$W2
	script 'echo evil > .vscode/settings.json 2> /dev/null || echo refused; rm .vscode && mkdir .vscode && echo evil > .vscode/settings.json && echo replaced'
	is "$rc:$(echo $out):$(cat "$W2/real/settings.json"):$(cat "$W2/.vscode/settings.json")" \
		"0:refused replaced:orig:evil" \
		"$t a protected .vscode that is a symlink can be replaced by a directory; its target is unchanged"

	WS=$W3
	script ": > started; while [ ! -e go ]; do sleep 0.05; done" &
	call=$!
	i=0
	while [ ! -e "$W3/started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	during=$(ls -a "$W3/.vscode" 2> /dev/null | tr '\n' ' ')
	: > "$W3/go"
	wait $call
	is "$during:$([ -e "$W3/.vscode" ] && echo left)" ". .. :" \
		"$t while the call runs, the fence of a missing .vscode is an empty directory outside; it is gone afterwards"
}

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
