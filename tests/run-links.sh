#!/bin/sh
# Hard links and the sandbox, with the real bwrap: a hard link is another
# name of one file, and a mount plan (like Landlock) judges names.  What a
# link made before the call lets a script run with `sh -c 'sh SCRIPT'` do,
# what `cordon run --check-links` does about it, and that no new link to a
# file the sandbox may not write can be made inside, by each layer alone.
# Every check runs as root and again as an unprivileged user (nobody) with
# a workspace and a home of its own, as tests/run.sh does.
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
build_id=$(sed -n 's/^#define CORDON_BUILD_ID "\(.*\)"$/\1/p' "$builddir/build-id.h")
chmod 755 "$tmpdir"

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
if [ $? -ne 0 ]; then
	diag < "$tmpdir/probe"
	skip "hard links under cordon run" "cordon probe says the sandbox is not ready here"
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
	# From the pass's own directory: the build tree may be closed to the user.
	(cd "$P" && $AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 \
		TERM=dumb "$@")
}

# script TEXT [OPTION...]: the attack as a script file in $WS, run through
# sh -c 'sh SCRIPT' so that no analysis before the run sees what it writes.
script() {
	printf '%s\n' "$1" > "$WS/attack.sh"
	shift
	chmod 644 "$WS/attack.sh"
	runner_own "$WS/attack.sh"
	out=$(U "$C" run ${POLICY:+-p "$POLICY"} --preset "${PRESET:-workspace-write}" "$@" \
		--workspace "$WS" --context home="$H" --context agent_dir="$H/.cordon" \
		--context session_dir="$H/.cordon/s1" -- sh -c "sh '$WS/attack.sh'" 2> "$errf")
	rc=$?
}

# The workspace writable, nothing else: the mount plan of one bind.
cat > "$tmpdir/ws.cordon" << 'EOF'
cordon 1;

preset "ws" {
  sandbox required;
  read  "/**" allow;
  write "/**" deny;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec  "*" allow;
}
EOF
chmod 644 "$tmpdir/ws.cordon"

# listed FILE: the line --check-links gives for FILE, from stat.
listed() {
	echo "  $1: $(stat -c %h "$1") names, 1 of them writable in the sandbox (device $(stat -c '%Hd:%Ld' "$1"), inode $(stat -c %i "$1"))"
}

pass() { # pass NAME
	runner_pass "$1"
	H=$P/home O=$P/outside
	W1=$P/ws1 W2=$P/ws2 W3=$P/ws3
	mkdir -p "$H/.cordon" "$O" "$W1" "$W2/.git" "$W3/.git/hooks" "$P/T"
	# ws1: a hard link to a file outside, on the same filesystem (the
	# user's shell startup file, say).
	echo "orig-$name" > "$O/bashrc"
	ln "$O/bashrc" "$W1/notes"
	# ws2: a writable name for the protected .git/config.
	printf '[core]\n' > "$W2/.git/config"
	ln "$W2/.git/config" "$W2/cfg"
	# ws3: links that are harmless: two names in the workspace, and a
	# protected hook whose other name is outside.
	echo "a-$name" > "$W3/a"
	ln "$W3/a" "$W3/b"
	printf '[core]\n' > "$W3/.git/config"
	echo "hook-$name" > "$O/hook"
	ln "$O/hook" "$W3/.git/hooks/pre-commit"
	echo "target-$name" > "$O/target"
	helper=$P/build/cordon-exec
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > "$tmpdir/probe-$name" 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	# ---- a link made before the call ------------------------------------------------------
	WS=$W1
	script 'echo PWNED >> notes'
	is "$rc:$(cat "$O/bashrc" | tr '\n' ' ')" "0:orig-$name PWNED " \
		"$t the limit: without --check-links a write through a hard link in the workspace changes the file outside"
	echo "orig-$name" > "$O/bashrc"
	script ": > ran; echo PWNED >> notes" --check-links
	want=$(listed "$W1/notes")
	grep -qxF -- "$want" "$errf"
	g=$?
	[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$W1/ran" ] && [ "$(cat "$O/bashrc")" = "orig-$name" ] &&
		grep -q '^cordon: SANDBOX_UNAVAILABLE: --check-links: 1 file has a name the sandbox may write and another it may not' "$errf"
	ok $? "$t --check-links refuses it: exit $rc, the link listed with its names, device and inode, the command never run, the file outside unchanged"
	[ $g -eq 0 ] || diag < "$errf"

	WS=$W2
	script 'echo "[core] hooksPath = /tmp/evil" >> cfg'
	is "$rc:$(tail -1 "$W2/.git/config")" "0:[core] hooksPath = /tmp/evil" \
		"$t the limit: without --check-links a writable name of a protected .git/config changes it"
	printf '[core]\n' > "$W2/.git/config"
	script 'echo "[core] hooksPath = /tmp/evil" >> cfg' --check-links
	grep -qxF -- "$(listed "$W2/cfg")" "$errf"
	is "$rc:$?:$(cat "$W2/.git/config")" "125:0:[core]" \
		"$t --check-links refuses a writable name of a protected file: a name read-only inside counts as outside"

	WS=$W3
	script 'echo x >> b; echo x >> .git/hooks/pre-commit 2> /dev/null || echo refused' --check-links
	is "$rc:$out:$(cat "$O/hook"):$(wc -l < "$W3/a")" "0:refused:hook-$name:2" \
		"$t --check-links runs a call whose links are all writable names in the workspace, or read-only inside (a protected hook)"

	# ---- no new link inside ---------------------------------------------------------------
	script "for f in '$O/target' /etc/passwd .git/config; do ln \"\$f\" new-\$(basename \$f) 2>&1 | sed 's/.*: //'; done; ls new-* 2> /dev/null; ln a c && echo linked"
	is "$rc:$(echo $out):$(stat -c %h "$O/target")" \
		"0:Invalid cross-device link Invalid cross-device link Invalid cross-device link linked:1" \
		"$t inside, no hard link can be made to a file outside the write roots (nor /etc/passwd), nor to a protected file; one between two workspace files can"
	rm -f "$W3/c"
	# Each layer alone: Landlock (cordon-exec on the host, in no mount
	# namespace), then the mount plan (bwrap without cordon-exec).
	out=$(U "$helper" --build-id "$build_id" --status-fd 9 --root "$W3" -- \
		sh -c "ln '$O/target' '$W3/ll' 2>&1 | sed 's/.*: //'; ln '$W3/a' '$W3/lc' && echo linked" 9> /dev/null)
	is "$?:$(echo $out):$(ls "$W3" | grep -c '^ll$')" "0:Invalid cross-device link linked:0" \
		"$t Landlock alone refuses a hard link to a file outside its roots (REFER), and allows one inside"
	rm -f "$W3/lc"
	U "$C" compile -p "$tmpdir/ws.cordon" --preset ws --context workspace="$W3" \
		--context tmp="$P/T" --emit bwrap-args > "$P/plan" 2> "$errf"
	out=$(U bwrap --args 3 -- sh -c "ln '$O/target' '$W3/ml' 2>&1 | sed 's/.*: //'; ln '$W3/a' '$W3/mc' && echo linked" 3< "$P/plan" 2> "$errf")
	is "$?:$(echo $out):$(ls "$W3" | grep -c '^ml$')" "0:Invalid cross-device link linked:0" \
		"$t the mount plan alone refuses it too (link(2) across mounts), and allows one inside"
	rm -f "$W3/mc"

	# ---- bounds ---------------------------------------------------------------------------
	d=$W3/deep
	i=0
	while [ $i -lt 70 ]; do d=$d/d; i=$((i + 1)); done
	mkdir -p "$d"
	runner_own "$W3/deep"
	POLICY=$tmpdir/ws.cordon PRESET=ws
	script ": > '$W3/ran-deep'" --check-links
	grep -q "SANDBOX_UNAVAILABLE: --check-links: cannot look for hard links under $W3: a directory deeper than 64 levels" "$errf"
	g=$?
	[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$W3/ran-deep" ]
	ok $? "$t a tree deeper than the walk's bound stops a call with --check-links: exit $rc, the command never ran"
	script ": > '$W3/ran-deep'"
	is "$rc:$([ -e "$W3/ran-deep" ] && echo ran)" "0:ran" "$t without --check-links, it is not walked"
	rm -rf "$W3/deep" "$W3/ran-deep"
	POLICY= PRESET=
}

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
