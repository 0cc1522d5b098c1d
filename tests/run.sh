#!/bin/sh
# cordon run under the real bwrap, Landlock and seccomp: real processes and
# real files.  Every check runs as root and again as an unprivileged user
# (nobody) with a workspace of its own; run by an ordinary user, the suite
# makes one pass as that user.  A layer this machine lacks makes the checks
# that need it SKIP with the reason.
. "$srcdir/tests/lib.sh"

probe=$builddir/tests/helpers/runprobe
helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
build_id=$(sed -n 's/^#define CORDON_BUILD_ID "\(.*\)"$/\1/p' "$builddir/build-id.h")
chmod 755 "$tmpdir"


wait_for() { # wait_for FILE: until it exists and is not empty, at most 5 s
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s "$1" ]
}

lines() { # lines FILE: how many lines, 0 when missing
	if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}

gone() { # gone PATTERN: no process matches, within 2 s
	i=0
	while pgrep -f "$1" > /dev/null && [ $i -lt 40 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	! pgrep -f "$1" > /dev/null
}

# ---- the pass's user -----------------------------------------------------------------
# U CMD...: CMD as the pass's user, with a fixed environment that holds a
# secret variable the sandbox must drop, bounded in time.  WRAP, when set,
# goes first (it runs as root: a mount namespace that hides bwrap).
U() {
	$WRAP $AS timeout -s KILL 60 env -i PATH="$B:/usr/bin:/bin" HOME="$H" LANG=C.UTF-8 \
		LC_ALL=C.UTF-8 TERM=dumb TZ=UTC SECRET_TOKEN=cordon-test-secret-token "$@"
}

# run ARGS...: cordon run ARGS as the pass's user; $rc, $out, stderr in $errf.
run() {
	out=$(U "$C" run "$@" 2> "$errf")
	rc=$?
}

# ww ARGS...: the workspace-write preset of the default policy on $WS, with
# the agent's storage inside the workspace: .agent exists, its session dir
# does not.
ww() {
	run --preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/sessions/s1" "$@"
}

# tp ARGS...: a preset of the test policy on $WS.
tp() {
	preset=$1
	shift
	run -p "$POL" --preset "$preset" --workspace "$WS" --context home="$H" \
		--context agent_dir="$WS/.agent" --context session_dir="$WS/.agent/sessions/s1" "$@"
}

# mine PATH...: hand files made by root to the pass's user.
mine() {
	[ -n "$AS" ] && chown -R "$uid:$gid" "$@"
	:
}

# ---- the policy for what the default one has no rule for -----------------------------
# The workspace used with it has .git/hooks and .agent (the checks of mount
# points that cannot be renamed need them to exist).
cat > "$tmpdir/test.cordon" << 'EOF'
cordon 1;

let secrets = ["~/.ssh", "~/.netrc"];
protect "${agent_dir}", "${session_dir}";
env {
  keep PATH, HOME, LANG, LC_ALL, TERM, TZ;
  set TMPDIR = "${tmp}", TMP = "${tmp}", TEMP = "${tmp}";
}

preset "ws" {
  approval ask;
  sandbox required;
  read  "/**" allow;
  read  $secrets deny "credentials";
  write "/dev/null" allow;
  write "/**" ask;
  write "${workspace}" allow;
  write "${tmp}" allow;
  write "${workspace}/.git/hooks" deny "hooks run on the host";
  net   "*" deny;
  exec  "*" allow;
  exec  "make" ask "builds need a look first";
}

preset "ws-unix" extends "ws" {
  net "unix" allow;
}

# An allowlist of reads, and the agent's storage outside them, writable but
# for its protected session dir: neither exists, so nothing is bound or
# fenced there, and what lies around them stays out of sight.
preset "ws-fence" {
  approval ask;
  sandbox required;
  unprotect "${agent_dir}";
  read  "/usr", "/bin", "/lib", "/lib64", "/etc" allow;
  read  "${workspace}" allow;
  write "/dev/null" allow;
  write "${workspace}" allow;
  write "${agent_dir}" allow;
  net   "*" deny;
  exec  "*" allow;
}

# A protection below an unreadable path that does not exist.
preset "ws-masked" extends "ws" {
  read "${workspace}/sub/vault" deny;
  protect "${workspace}/sub/vault/key";
}

default "ws";
EOF
chmod 644 "$tmpdir/test.cordon"
POL=$tmpdir/test.cordon

# A file the sandbox's bwrap can be replaced with: `hide REPLACEMENT CMD...`
# runs CMD in a mount namespace where /usr/bin/bwrap and /bin/bwrap are it.
# With HIDE_AS=UID:GID (an ordinary user's pass, whose mount namespace
# comes with a user namespace where it is root), CMD runs as that user
# again, in a user namespace of its own.
cat > "$tmpdir/hide.sh" << 'EOF'
r=$1
shift
for b in /usr/bin/bwrap /bin/bwrap; do
	if [ -e "$b" ]; then mount --bind "$r" "$b" || exit 99; fi
done
if [ -n "${HIDE_AS:-}" ]; then
	exec unshare --map-user="${HIDE_AS%:*}" --map-group="${HIDE_AS#*:}" "$@"
fi
exec "$@"
EOF

# ---- what this machine has ------------------------------------------------------------
"$cordon_bin" probe > "$tmpdir/probe" 2>&1
ready=$?
diag < "$tmpdir/probe"
why_unready=$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)

if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
	hider="unshare -m"
else
	passes=self
	hider=
	if unshare -rm true 2> /dev/null; then hider="unshare -rm"; fi
	me="$(id -u):$(id -g)"
	if [ -n "$hider" ] &&
		unshare -rm unshare --map-user="${me%:*}" --map-group="${me#*:}" true 2> /dev/null; then
		hide_as=$me
	fi
fi

# ---- one pass of every check -------------------------------------------------------------
pass() { # pass NAME
	name=$1
	P=$tmpdir/$name
	AS= WRAP=
	uid=$(id -u) gid=$(id -g)
	if [ "$name" = nobody ]; then
		uid=65534 gid=65534
		AS="setpriv --reuid=$uid --regid=$gid --clear-groups --"
	fi
	WS=$P/ws H=$P/home O=$P/out B=$P/bin S=$P/suid
	mkdir -p "$WS/.agent" "$WS/sess" "$WS/sub" "$H/.ssh" "$O" "$B" "$S" "$P/la" "$P/lb" \
		"$P/c1" "$P/c2" "$P/g/.git/hooks" "$P/g/.agent" "$P/m/meta/.agent" "$WS/.git/hooks"
	echo state > "$WS/.agent/state.json"
	echo "PRIVATE-KEY-$name" > "$H/.ssh/id_ed25519"
	echo "machine example.com password NETRC-$name" > "$H/.netrc"
	echo outside > "$O/target"
	# A git that leaves a mark: a denied command must never get this far.
	printf '#!/bin/sh\n: > "%s/git-ran"\n' "$WS" > "$B/git"
	printf '#!/bin/sh\n: > "%s/make-ran"\n' "$WS" > "$B/make"
	chmod 755 "$B/git" "$B/make"
	C=$cordon_bin
	# Who must reach the build: the pass's user, and, run by root, the
	# command, which runs as nobody (docs/sandbox.md, "Run as root").
	reach=$AS
	[ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null &&
		reach="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	if [ -n "$reach" ] && ! $reach test -x "$C" -a -x "$probe" -a -x "$helper"; then
		# The build tree is closed to them: run copies.
		mkdir -p "$P/build"
		cp "$cordon_bin" "$helper" "$probe" "$P/build/"
		C=$P/build/cordon probe=$P/build/runprobe helper=$P/build/cordon-exec
	fi
	# The command's uid: the pass's, or nobody's for root (docs/sandbox.md,
	# "Run as root").
	suid=$uid
	[ -n "$AS" ] || suid=$(cd "$WS" && command_uid "$C" "$WS")
	mine "$P"
	t="[$name]"

	if [ -n "$AS" ] && ! $AS test -w "$WS" -a -x "$P"; then
		skip "$t every check" "uid $uid cannot reach $P (is ${TMPDIR:-/tmp} open to it?)"
		return
	fi
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > "$tmpdir/probe-$name" 2>&1; then
		diag < "$tmpdir/probe-$name"
		skip "$t every check" "the sandbox cannot start for uid $uid: $(grep -E 'refused|missing|unavailable' "$tmpdir/probe-$name" | head -1)"
		return
	fi

	# ---- writes ----------------------------------------------------------------------
	ww -- sh -c "echo hi > '$WS/new.txt'"
	is "$rc:$(cat "$WS/new.txt" 2> /dev/null)" "0:hi" "$t a write inside the workspace succeeds"
	ww -- "$probe" write "$O/new.txt"
	[ $rc -eq 1 ] && [ ! -e "$O/new.txt" ]
	ok $? "$t a write outside the workspace fails ($out) and creates nothing"
	ww -- "$probe" write "$H/new.txt"
	[ $rc -eq 1 ] && [ ! -e "$H/new.txt" ]
	ok $? "$t a write to the home directory fails ($out)"
	ww -- "$probe" write "$O/target"
	is "$rc:$(cat "$O/target")" "1:outside" "$t an existing file outside keeps its content"
	run --preset read-only --workspace "$WS" --context home="$H" -- "$probe" write "$WS/ro.txt"
	[ $rc -eq 1 ] && [ ! -e "$WS/ro.txt" ]
	ok $? "$t read-only: a write to the workspace fails ($out)"
	run --preset read-only --workspace "$WS" --context home="$H" -- \
		"$probe" write "/tmp/cordon-run-test-$name.$$"
	[ $rc -eq 1 ] && [ ! -e "/tmp/cordon-run-test-$name.$$" ]
	ok $? "$t read-only: a write to /tmp fails ($out)"
	rm -f "/tmp/cordon-run-test-$name.$$"

	# ---- protected paths inside the workspace --------------------------------------------
	ww -- "$probe" write "$WS/.agent/state.json"
	is "$rc:$(cat "$WS/.agent/state.json")" "1:state" "$t protected agent_dir: an existing file cannot be written ($out)"
	ww -- "$probe" write "$WS/.agent/new.json"
	[ $rc -eq 1 ] && [ ! -e "$WS/.agent/new.json" ]
	ok $? "$t protected agent_dir: a file cannot be created ($out)"
	ww -- mkdir -p "$WS/.agent/sessions/s1"
	refused_by policy $rc "$errf" && [ ! -e "$WS/.agent/sessions" ]
	ok $? "$t protected session_dir that does not exist cannot be created: denied before the run (exit $rc)"
	# The same hidden from the analysis in an eval: the sandbox refuses it.
	ww -- sh -c "c=\"mkdir -p '$WS/.agent/sessions/s1'\"; eval \"\$c\""
	refused_by sandbox $rc "$errf" 'Read-only file system' && [ ! -e "$WS/.agent/sessions" ]
	ok $? "$t protected session_dir that does not exist cannot be created: EROFS inside (exit $rc)"
	ww -- sh -c "echo evil > '$WS/evil.json' && '$probe' rename '$WS/evil.json' '$WS/.agent/state.json'"
	is "$rc:$(cat "$WS/.agent/state.json")" "1:state" "$t protected agent_dir: a file cannot be renamed over ($out)"
	ww -- "$probe" rename "$WS/.agent" "$WS/agent2"
	[ $rc -eq 1 ] && [ -f "$WS/.agent/state.json" ] && [ ! -e "$WS/agent2" ]
	ok $? "$t protected agent_dir cannot be renamed away ($out)"
	ww -- rm -f "$WS/.agent/state.json"
	refused_by policy $rc "$errf" && [ -f "$WS/.agent/state.json" ]
	ok $? "$t protected agent_dir: a file cannot be deleted: denied before the run (exit $rc)"
	ww -- sh -c "c=\"rm -f '$WS/.agent/state.json'\"; eval \"\$c\""
	refused_by sandbox $rc "$errf" 'Read-only file system' && [ -f "$WS/.agent/state.json" ]
	ok $? "$t protected agent_dir: a file cannot be deleted: EROFS inside (exit $rc)"
	ww -- rm -rf "$WS/.agent"
	refused_by policy $rc "$errf" && [ -f "$WS/.agent/state.json" ]
	ok $? "$t protected agent_dir cannot be deleted: denied before the run (exit $rc)"
	ww -- sh -c "c=\"rm -rf '$WS/.agent'\"; eval \"\$c\""
	refused_by sandbox $rc "$errf" 'Read-only file system|Device or resource busy' &&
		[ -f "$WS/.agent/state.json" ]
	ok $? "$t protected agent_dir cannot be deleted: EROFS or EBUSY inside (exit $rc)"
	# A protected session dir that does not exist, in an agent dir that does
	# not exist either, outside every read root: binding its nearest
	# existing ancestor read-only would show that directory's files.
	cp "$probe" "$WS/runprobe" && mine "$WS/runprobe"
	run -p "$POL" --preset ws-fence --workspace "$WS" --context home="$H" \
		--context agent_dir="$O/agent" --context session_dir="$O/agent/sessions/s1" -- \
		"$WS/runprobe" read "$O/target"
	[ $rc -eq 1 ] && [ "$out" != ok ]
	ok $? "$t a fence for a missing protected path shows nothing outside the read roots ($out)"
	run -p "$POL" --preset ws-fence --workspace "$WS" --context home="$H" \
		--context agent_dir="$O/agent" --context session_dir="$O/agent/sessions/s1" -- \
		"$WS/runprobe" read "$WS/new.txt"
	is "$rc:$out" "0:ok" "$t ws-fence: the workspace is readable (the probe runs)"
	rm -f "$WS/runprobe"
	# A mask of a path that does not exist hides nothing: the protection
	# below it still fences its nearest existing ancestor.
	tp ws-masked -- sh -c "'$probe' mkdir '$WS/sub/vault' && '$probe' write '$WS/sub/vault/key'"
	[ $rc -eq 1 ] && [ ! -e "$WS/sub/vault/key" ]
	ok $? "$t a protected path below an unreadable path that does not exist cannot be created ($out)"
	rm -rf "$WS/sub/vault"
	# A missing session_dir below an existing, unprotected directory of the
	# workspace is fenced alone: its parent and the rest stay writable.
	# The mkdir is hidden in an eval, or the analysis would deny it first.
	run --preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$H/.cordon" --context session_dir="$WS/sess/s1" -- \
		sh -c "c=\"mkdir '$WS/sess/s1'\"; eval \"\$c\" 2> /dev/null; '$probe' write '$WS/sess/s1/x'; '$probe' write '$WS/sess/x'; '$probe' write '$WS/other'"
	is "$(echo $out):$(ls -A "$WS/sess" | tr '\n' ' '):$([ -f "$WS/other" ] && echo y)" \
		"EROFS ok ok:x :y" "$t a missing session_dir is fenced alone, and the fence is gone afterwards"

	# ---- secrets -------------------------------------------------------------------------
	# A read the analysis sees is denied before the run; eval of a string
	# known only at run time is opaque to it, and the sandbox alone stops it.
	ww -- cat "$H/.netrc"
	[ $rc -eq $RUN_DENIED ] && [ -z "$out" ] && grep -q DENIED "$errf"
	ok $? "$t ~/.netrc: the read is denied before the run (exit $rc)"
	ww -- sh -c 'c="cat $HOME/.ssh/id_ed25519; ls -A $HOME/.ssh | wc -l"; eval "$c"'
	[ $rc -eq 0 ] || [ $rc -eq 1 ]
	case $out in *PRIVATE-KEY*) false ;; *) [ "$(echo "$out" | tail -1)" = 0 ] ;; esac
	ok $? "$t ~/.ssh is an empty directory inside ($(echo $out))"
	ww -- sh -c 'c="cat $HOME/.netrc"; eval "$c"'
	case $rc:$out in 0: | 1:) true ;; *) false ;; esac
	ok $? "$t ~/.netrc cannot be read: exit $rc, nothing read ($(head -1 "$errf"))"
	ln -s "$H/.ssh/id_ed25519" "$WS/key"
	ww -- cat "$WS/key"
	case $out in *PRIVATE-KEY*) false ;; *) refused_by policy $rc "$errf" ;; esac
	ok $? "$t a symlink in the workspace does not reach the key: denied before the run (exit $rc)"
	ww -- sh -c "c=\"cat '$WS/key'\"; eval \"\$c\""
	case $out in *PRIVATE-KEY*) false ;; *) refused_by sandbox $rc "$errf" 'No such file or directory' ;; esac
	ok $? "$t a symlink in the workspace does not reach the key: ENOENT inside (exit $rc)"
	rm -f "$WS/key"

	# ---- descriptors the caller leaks ------------------------------------------------------
	# A script the shell analysis cannot look into uses descriptors left
	# open by whoever called cordon: 7 appends to a file outside, 8 is the
	# home directory, opened before the masks existed.
	mkdir -p "$H/.aws"
	echo "AWS-SECRET-$name" > "$H/.aws/credentials"
	: > "$O/leak.txt"
	mine "$H/.aws" "$O/leak.txt"
	cat > "$P/fds.sh" << 'EOF'
cat /proc/self/fd/8/.ssh/id_ed25519 /proc/self/fd/8/.aws/credentials 2> /dev/null
ls -A /proc/self/fd/8/.ssh 2> /dev/null
echo LEAKED >&7
echo "fds $(ls /proc/self/fd | tr '\n' ' ')"
EOF
	chmod 644 "$P/fds.sh"
	exec 7>> "$O/leak.txt" 8< "$H"
	ww -- sh -c "sh '$P/fds.sh'"
	exec 7>&- 8<&-
	fds=$(echo "$out" | sed -n 's/^fds //p')
	case $out in *PRIVATE-KEY* | *AWS-SECRET* | *id_ed25519*) false ;; *) [ -n "$fds" ] ;; esac
	ok $? "$t a directory descriptor left open on \$HOME does not reach ~/.ssh or ~/.aws ($fds)"
	is "$(wc -c < "$O/leak.txt" | tr -d ' ')" 0 "$t a descriptor left open on a file outside cannot be written"
	case " $fds" in *" 7 "* | *" 8 "*) false ;; *) true ;; esac
	ok $? "$t only stdin, stdout and stderr cross: descriptors inside are $fds"

	# ---- network -------------------------------------------------------------------------
	U "$probe" tcp-listen "$O/tcp.port" "$O/tcp.log" 30 > /dev/null 2>&1 &
	tcp_pid=$!
	U "$probe" udp-listen "$O/udp.port" "$O/udp.log" 30 > /dev/null 2>&1 &
	udp_pid=$!
	U "$probe" unix-listen "$O/sock" "$O/unix.log" 30 > /dev/null 2>&1 &
	unix_pid=$!
	if wait_for "$O/tcp.port" && wait_for "$O/udp.port" && wait_for "$O/sock.ready"; then
		# A socket for any user: root's command is one (tests/run-root-uid.sh).
		chmod 666 "$O/sock"
		port=$(cat "$O/tcp.port") uport=$(cat "$O/udp.port")
		control=$(U "$probe" tcp-connect 127.0.0.1 "$port")
		is "$control:$(lines "$O/tcp.log")" "ok hello:1" "$t control: the TCP listener on 127.0.0.1 answers from outside"
		ww -- "$probe" tcp-connect 127.0.0.1 "$port"
		is "$rc:$(lines "$O/tcp.log")" "1:1" "$t the TCP listener outside cannot be reached from inside ($out)"
		U "$probe" udp-send 127.0.0.1 "$uport" > /dev/null
		wait_for "$O/udp.log"
		is "$(lines "$O/udp.log")" 1 "$t control: a UDP datagram from outside arrives"
		ww -- "$probe" udp-send 127.0.0.1 "$uport"
		sleep 0.2
		is "$rc:$(lines "$O/udp.log")" "1:1" "$t UDP from inside fails ($out)"
		ww -- "$probe" socket-inet
		is "$rc" 1 "$t socket(AF_INET) fails ($out)"
		ww -- "$probe" socket-inet6
		is "$rc" 1 "$t socket(AF_INET6) fails ($out)"
		control=$(U "$probe" unix-connect "$O/sock")
		is "$control:$(lines "$O/unix.log")" "ok hello:1" "$t control: the unix socket outside answers from outside"
		ww -- "$probe" unix-connect "$O/sock"
		is "$rc:$(lines "$O/unix.log")" "1:1" "$t the unix socket outside cannot be connected to by default ($out)"
		tp ws -- "$probe" unix-connect "$O/sock"
		is "$rc:$(lines "$O/unix.log")" "1:1" "$t the test policy without net \"unix\" refuses it too ($out)"
		tp ws-unix -- "$probe" unix-connect "$O/sock"
		is "$rc:$out:$(lines "$O/unix.log")" "0:ok hello:2" "$t with net \"unix\" allow it can be connected to"
		tp ws-unix -- "$probe" tcp-connect 127.0.0.1 "$port"
		n=$(lines "$O/tcp.log")
		[ $rc -eq 1 ] && [ "$n" -eq 1 ]
		ok $? "$t net \"unix\" allow does not open TCP: the listener outside stays unreachable ($out)"
		tp ws-unix -- "$probe" socket-inet
		is "$rc" 1 "$t nor socket(AF_INET) ($out)"
	else
		skip "$t network checks" "the listeners outside did not start"
	fi
	pkill -f -- "-listen $O/"
	wait $tcp_pid $udp_pid $unix_pid 2> /dev/null

	# ---- the process's standing ----------------------------------------------------------
	ww -- sh -c 'grep -E "^(CapEff|CapPrm|NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "; cat /proc/self/uid_map | tr -s " " " "; id -u'
	st=$(echo "$out" | tr '\n' '|')
	is "$(echo "$out" | grep -c -x -e 'CapEff: 0000000000000000' -e 'CapPrm: 0000000000000000')" 2 \
		"$t no capabilities ($st)"
	is "$(echo "$out" | grep -x -e 'NoNewPrivs: [0-9]*' -e 'Seccomp: [0-9]*' | tr '\n' ' ')" \
		"NoNewPrivs: 1 Seccomp: 2 " "$t no_new_privs and a seccomp filter"
	map=$(echo "$out" | grep -E '^ ?[0-9]+ [0-9]+ [0-9]+$' | head -1)
	is "$(echo $map | cut -d' ' -f1,3):$(echo "$out" | tail -1)" "$suid 1:$suid" \
		"$t a user namespace mapping only uid $suid ($map), not the host's users"
	U bwrap --unshare-user --unshare-pid --ro-bind / / --dev /dev --proc /proc -- \
		"$probe" write /proc/self/comm > "$tmpdir/out" 2>&1
	is "$(cat "$tmpdir/out")" ok "$t control: bwrap alone lets a process write /proc/self/comm"
	ww -- "$probe" write /proc/self/comm
	is "$rc:$out" "1:EACCES" "$t Landlock is enforced: /proc/self/comm is outside its write roots"
	out=$(U "$helper" --build-id "$build_id" --status-fd 9 --root "$P/la" -- \
		"$probe" write "$P/lb/x" 9> "$tmpdir/status")
	rc=$?
	[ $rc -eq 1 ] && [ "$out" = EACCES ] && [ ! -e "$P/lb/x" ] && [ "$(cat "$tmpdir/status")" = L ]
	ok $? "$t cordon-exec: a write outside its --root fails (EACCES) after the status byte"
	out=$(U "$helper" --build-id "$build_id" --status-fd 9 --root "$P/la" -- \
		"$probe" write "$P/la/x" 9> /dev/null)
	is "$?:$out:$([ -f "$P/la/x" ] && echo y)" "0:ok:y" "$t cordon-exec: a write inside its --root works"

	# ---- the PID namespace -----------------------------------------------------------------
	U sleep 1234.6 > /dev/null 2>&1 &
	sleeper=$!
	sleep 0.1
	spid=$(pgrep -f 'sleep 1234\.6' | head -1)
	control=$(U "$probe" kill "$spid")
	ww -- sh -c "'$probe' kill '$spid'; pgrep -f 'sleep 1234[.]6' || echo none; ls /proc | grep -c '^[0-9]'"
	set -- $out
	[ "$control" = ok ] && [ "$1" = ESRCH ] && [ "$2" = none ] && [ "$3" -lt 8 ]
	ok $? "$t host PIDs are invisible: kill -0 $spid fails, pgrep finds nothing, $3 pids in /proc"
	pkill -f 'sleep 1234\.6'
	wait $sleeper 2> /dev/null

	# ---- what a process inside cannot do ---------------------------------------------------
	ww -- "$probe" unshare-user
	is "$rc:$out" "1:EPERM" "$t unshare(CLONE_NEWUSER) fails"
	ww -- unshare -U true
	is "$rc" 1 "$t unshare -U true fails"
	mkdir -p "$WS/mnt"
	mine "$WS/mnt"
	ww -- "$probe" mount-tmpfs "$WS/mnt"
	is "$rc:$out" "1:EPERM" "$t mount(2) fails"
	ww -- mount -t tmpfs none "$WS/mnt"
	refused_by sandbox $rc "$errf" '[Pp]ermission denied|Operation not permitted|must be superuser'
	ok $? "$t mount -t tmpfs fails (exit $rc)"
	ww -- "$probe" mknod-char "$WS/null"
	[ $rc -eq 1 ] && [ ! -e "$WS/null" ]
	ok $? "$t mknod of a character device fails ($out)"
	ww -- "$probe" link "$O/target" "$WS/hard"
	[ $rc -eq 1 ] && [ ! -e "$WS/hard" ] && [ "$(stat -c %h "$O/target")" = 1 ]
	ok $? "$t a hard link from the workspace to a file outside fails ($out)"
	# A setuid copy of the probe, owned by another user than the pass's.
	cp "$probe" "$S/euid"
	if [ "$(id -u)" -eq 0 ]; then
		if [ "$uid" -eq 0 ]; then chown 1:1 "$S/euid"; else chown 0:0 "$S/euid"; fi
		chmod 4755 "$S/euid"
		owner=$(stat -c %u "$S/euid")
		control=$(U "$S/euid" euid)
		if [ "$control" = "$owner" ]; then
			ww -- "$S/euid" euid
			is "$rc:$out" "0:$suid" "$t a setuid binary does not change the effective uid (outside: $control)"
		else
			skip "$t a setuid binary does not elevate" "setuid does not work outside either here"
		fi
	else
		skip "$t a setuid binary does not elevate" "making one needs root"
	fi

	# ---- set-user-ID files planted for later ----------------------------------------------
	# What a build script could leave in the workspace for someone to run
	# later: as root, a set-user-ID root program.
	cat > "$P/plant.sh" << 'EOF'
probe=$1
cp "$probe" planted && chmod 4755 planted
cp "$probe" planted-g && chmod g+s planted-g
install -m 4755 "$probe" planted-i
mkdir -m 2755 planted-d
ls -d planted*
EOF
	chmod 644 "$P/plant.sh"
	U sh -c "cp '$probe' '$O/control' && chmod 4755 '$O/control'"
	is "$(stat -c %a "$O/control")" 4755 "$t control: outside, chmod 4755 makes a set-user-ID file"
	rm -f "$O/control"
	ww -- sh -c "sh '$P/plant.sh' '$probe'"
	setid=$(cd "$WS" && find . -perm /6000 | tr '\n' ' ')
	[ -z "$setid" ] && [ -f "$WS/planted" ] && [ -f "$WS/planted-g" ]
	ok $? "$t no file or directory made inside is set-user-ID or set-group-ID (${setid:-none} found; $(cd "$WS" && stat -c '%n %a' planted* | tr '\n' ' '))"
	if [ -f "$WS/planted" ] && [ "$uid" -eq 0 ] && command -v setpriv > /dev/null; then
		euid=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$WS/planted" euid)
		is "$euid" 65534 "$t the copy made inside runs with the euid of who runs it, not 0"
	fi
	rm -rf "$WS"/planted*

	# ---- the caller's keyrings -------------------------------------------------------------
	cat > "$P/keys.sh" << 'EOF'
probe=$1
echo "read $("$probe" key-read cordon-outside)"
echo "plant $("$probe" key-add cordon-planted PLANTED)"
EOF
	chmod 644 "$P/keys.sh"
	keys() { # keys: a key in the caller's session keyring, then a call that reaches for it
		out=$(U "$probe" key-session cordon-outside "OUTSIDE-KEY-$name" cordon-planted \
			"$C" run --preset workspace-write --workspace "$WS" --context home="$H" -- \
			sh -c "sh '$P/keys.sh' '$probe'" 2> "$errf")
		rc=$?
	}
	out=$(U "$probe" key-session cordon-outside "OUTSIDE-KEY-$name" cordon-planted \
		sh "$P/keys.sh" "$probe")
	is "$(echo "$out" | tr '\n' ' ')" "read OUTSIDE-KEY-$name plant ok planted visible " \
		"$t control: outside, the session keyring is shared with what the caller runs"
	keys
	case $out in *OUTSIDE-KEY*) false ;; *"read E"*) true ;; *) false ;; esac
	ok $? "$t a key in the caller's session keyring cannot be read inside ($(echo $out))"
	echo "$out" | grep -qx 'planted absent'
	ok $? "$t a key planted inside is not in the caller's session keyring afterwards"

	# ---- mount points a command could rename away ------------------------------------------
	WS0=$WS
	WS=$P/g
	tp ws -- "$probe" write "$WS/.git/hooks/pre-commit"
	[ $rc -eq 1 ] && [ ! -e "$WS/.git/hooks/pre-commit" ]
	ok $? "$t .git/hooks denied by the policy cannot be written ($out)"
	tp ws -- sh -c 'mv .git .git2; mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit'
	[ ! -e "$WS/.git/hooks/pre-commit" ] && [ ! -e "$WS/.git2/hooks/pre-commit" ]
	ok $? "$t mv .git .git2 does not defeat the .git/hooks protection (exit $rc)"
	WS=$P/m
	echo state > "$WS/meta/.agent/state.json"
	mine "$WS/meta"
	run --preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$WS/meta/.agent" --context session_dir="$WS/meta/.agent/s" -- \
		sh -c 'mv meta meta2; mkdir -p meta/.agent && echo evil > meta/.agent/state.json'
	[ "$(cat "$WS/meta/.agent/state.json" 2> /dev/null)" = state ]
	ok $? "$t renaming the parent of a protected agent_dir does not defeat it (exit $rc)"
	WS=$WS0

	# ---- the environment -------------------------------------------------------------------
	ww -- env
	names=$(echo "$out" | sed 's/=.*//' | grep -v -x PWD | LC_ALL=C sort | tr '\n' ' ')
	is "$names" "BUNDLE_USER_CACHE CARGO_HOME GEM_HOME GEM_SPEC_CACHE GOCACHE GOMODCACHE GRADLE_USER_HOME HOME LANG LC_ALL MAVEN_OPTS MAVEN_USER_HOME PATH PIP_CACHE_DIR TEMP TERM TMP TMPDIR TZ UV_CACHE_DIR YARN_CACHE_FOLDER YARN_GLOBAL_FOLDER npm_config_cache pnpm_config_cache_dir pnpm_config_store_dir " \
		"$t only the allowlist, TMPDIR/TMP/TEMP and the package caches' variables are set"
	pwd_in=$(echo "$out" | sed -n 's/^PWD=//p')
	[ -z "$pwd_in" ] || [ "$pwd_in" = "$WS" ]
	ok $? "$t PWD, which bwrap sets, is the working directory"
	case $out in *cordon-test-secret-token*) false ;; esac
	ok $? "$t SECRET_TOKEN is absent inside"
	tmps=$(echo "$out" | sed -n 's/^\(TMPDIR\|TMP\|TEMP\)=//p' | sort -u)
	[ "$(echo "$tmps" | wc -l)" = 1 ] && [ -n "$tmps" ]
	ok $? "$t TMPDIR, TMP and TEMP are one directory ($tmps)"

	# ---- the private temp dir --------------------------------------------------------------
	ww -- sh -c 'echo "$TMPDIR"; stat -c "%a %u" "$TMPDIR"; echo x > "$TMPDIR/f" && echo made'
	set -- $out
	is "$rc:$2 $3:$4" "0:700 $suid:made" "$t the private temp dir exists, is 0700 and writable"
	[ -n "$1" ] && [ ! -e "$1" ]
	ok $? "$t and is gone afterwards ($1)"
	rm -f "$WS/tn"
	ww --timeout 1 -- sh -c 'echo "$TMPDIR" > tn; echo x > "$TMPDIR/f"; exec sleep 1234.1'
	d=$(cat "$WS/tn" 2> /dev/null)
	[ $rc -eq 124 ] && [ -n "$d" ] && [ ! -e "$d" ]
	ok $? "$t after --timeout (exit $rc) the temp dir is gone ($d)"
	rm -f "$WS/tn"
	(exec $AS env -i PATH=/usr/bin:/bin HOME="$H" "$C" run --preset workspace-write \
		--workspace "$WS" --context home="$H" -- \
		sh -c 'echo "$TMPDIR" > tn; echo x > "$TMPDIR/f"; exec sleep 1234.2' 2> /dev/null) &
	cpid=$!
	if wait_for "$WS/tn"; then
		kill -TERM $cpid
		wait $cpid
		rc=$?
		d=$(cat "$WS/tn")
		[ $rc -eq 143 ] && [ ! -e "$d" ] && gone 'sleep 1234\.2'
		ok $? "$t after SIGTERM to cordon (exit $rc) the temp dir and the command are gone"
	else
		ok 1 "$t after SIGTERM to cordon: the command never started"
		kill -KILL $cpid 2> /dev/null
	fi

	# ---- timeouts --------------------------------------------------------------------------
	start=$(date +%s)
	ww --timeout 1 --shell 'sh -c "trap \"\" TERM HUP; exec sleep 1234.5" & setsid sleep 1234.7 & setsid sh -c "sleep 1234.8 &" ; wait'
	took=$(($(date +%s) - start))
	# Its sleeps would last 20 minutes: a minute bounds "stopped", on any load.
	[ $rc -eq 124 ] && [ $took -lt 60 ]
	ok $? "$t --timeout 1 stops a command whose children ignore SIGTERM: exit $rc after ${took}s"
	gone 'sleep 1234\.[578]'
	ok $? "$t no grandchild, setsid job or daemon is left"
	pkill -KILL -f 'sleep 1234\.[578]'

	# ---- fail closed -----------------------------------------------------------------------
	if [ -n "$hider" ]; then
		: > "$P/empty"
		cp /bin/false "$P/false"
		for r in "$P/empty:an empty file" "/dev/null:/dev/null" "$P/false:a bwrap that fails"; do
			WRAP="$hider sh $tmpdir/hide.sh ${r%%:*}"
			ww -- sh -c ": > '$WS/marker-nobwrap'"
			WRAP=
			grep -q 'SANDBOX_UNAVAILABLE' "$errf"
			g=$?
			[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$WS/marker-nobwrap" ]
			ok $? "$t bwrap replaced by ${r#*:}: exit $rc, SANDBOX_UNAVAILABLE, the command never ran"
			rm -f "$WS/marker-nobwrap"
		done
	else
		skip "$t bwrap hidden" "no mount namespace to hide it in (unshare -rm fails)"
	fi
	if [ -x "${cordon_bin%/*}/../libexec/cordon/cordon-exec" ] ||
		[ -x /usr/local/libexec/cordon/cordon-exec ] || [ -x /usr/libexec/cordon/cordon-exec ]; then
		skip "$t cordon-exec missing" "an installed cordon-exec would be found"
	else
		mkdir -p "$P/lone" "$P/fake"
		cp "$cordon_bin" "$P/lone/cordon"
		cp "$cordon_bin" "$P/fake/cordon"
		cp /bin/true "$P/fake/cordon-exec"
		mine "$P/lone" "$P/fake"
		C0=$C
		for c in "lone:no cordon-exec next to cordon" "fake:a cordon-exec that applies nothing"; do
			C=$P/${c%%:*}/cordon
			ww -- sh -c ": > '$WS/marker-nohelper'"
			grep -q 'SANDBOX_UNAVAILABLE' "$errf"
			g=$?
			[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$WS/marker-nohelper" ]
			ok $? "$t ${c#*:}: exit $rc, SANDBOX_UNAVAILABLE, the command never ran"
			rm -f "$WS/marker-nohelper"
		done
		C=$C0
	fi

	# ---- without the filter ----------------------------------------------------------------
	# The other layers hold on their own: a bwrap that drops the seccomp
	# filter cordon passes it still gives no nested user namespace and no
	# shared session keyring.
	if [ -n "$hider" ] && { [ "$(id -u)" -eq 0 ] || [ -n "${hide_as:-}" ]; }; then
		cp "$(command -v bwrap)" "$P/bwrap-real"
		cat > "$P/bwrap-nofilter" << EOF
#!/bin/sh
skip=
for a do
	shift
	if [ -n "\$skip" ]; then skip=; continue; fi
	case \$a in --seccomp) skip=1; continue ;; esac
	set -- "\$@" "\$a"
done
exec "$P/bwrap-real" "\$@"
EOF
		chmod 755 "$P/bwrap-real" "$P/bwrap-nofilter"
		WRAP="$hider env HIDE_AS=${hide_as:-} sh $tmpdir/hide.sh $P/bwrap-nofilter"
		# (--no-watch-writes: no observing filter either, so that
		# Seccomp:0 shows bwrap's is gone.)
		ww --no-watch-writes -- sh -c "grep '^Seccomp:' /proc/self/status | tr -d '\t'; '$probe' unshare-user"
		is "$rc:$(echo $out)" "1:Seccomp:0 ENOSPC" \
			"$t no filter: a nested user namespace is still refused (the sandbox's limit is used up)"
		keys
		WRAP=
		case $out in *OUTSIDE-KEY*) false ;; *"read ENOKEY"*) true ;; *) false ;; esac
		ok $? "$t no filter: the sandbox's session keyring is its own, empty ($(echo $out))"
		echo "$out" | grep -qx 'planted absent'
		ok $? "$t no filter: a key planted inside stays in the sandbox's session keyring"
	else
		skip "$t without the filter" "no mount namespace to replace bwrap in, as this user"
	fi

	# ---- a helper of another build ---------------------------------------------------------
	# A cordon-exec beside cordon whose build identity differs (the same
	# program with another id in it, as an older or newer build has): cordon
	# must refuse it before anything runs.
	mkdir -p "$P/skew"
	cp "$cordon_bin" "$P/skew/cordon"
	other=${build_id%-*}-$(echo "${build_id##*-}" | tr '0-9a-f' '1-9a-f0')
	LC_ALL=C sed "s/cordon-build-id:$build_id/cordon-build-id:$other/" "$helper" > "$P/skew/cordon-exec"
	chmod 755 "$P/skew/cordon-exec"
	mine "$P/skew"
	grep -aq "cordon-build-id:$other" "$P/skew/cordon-exec"
	ok $? "$t control: the copy of cordon-exec carries another build id ($other, not $build_id)"
	U "$P/skew/cordon" probe > "$tmpdir/out" 2>&1
	rc=$?
	grep -q "^helper: .*skew/cordon-exec (of another build of cordon: refused" "$tmpdir/out"
	g=$?
	[ $rc -eq 125 ] && [ $g -eq 0 ]
	ok $? "$t cordon probe says the helper is of another build, and not ready (exit $rc)"
	C0=$C C=$P/skew/cordon
	ww -- sh -c ": > '$WS/marker-skew'"
	C=$C0
	grep -q "SANDBOX_UNAVAILABLE: $P/skew/cordon-exec is not from this build of cordon ($build_id)" "$errf"
	g=$?
	[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$WS/marker-skew" ]
	ok $? "$t a cordon-exec of another build is refused: exit $rc, $(head -1 "$errf")"
	rm -f "$WS/marker-skew"
	for given in "--build-id $other:of another build" ":that names no build"; do
		what=${given#*:} given=${given%%:*}
		# shellcheck disable=SC2086
		out=$(U "$helper" $given --status-fd 9 --root "$P/la" -- \
			sh -c ": > '$P/la/marker-skew'" 9> "$tmpdir/status" 2> "$errf")
		rc=$?
		grep -q "SANDBOX_UNAVAILABLE: cordon-exec: this helper is build $build_id.*install cordon and cordon-exec from one build" "$errf"
		g=$?
		[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$P/la/marker-skew" ] && [ ! -s "$tmpdir/status" ]
		ok $? "$t cordon-exec refuses a cordon $what: exit $rc, nothing run"
	done

	# ---- symlinks and cd -------------------------------------------------------------------
	ln -s "$WS" "$P/wslink"
	run --preset workspace-write --workspace "$P/wslink" --context home="$H" -- \
		sh -c ": > '$P/wslink/marker-link'"
	grep -q symlink "$errf"
	g=$?
	[ $rc -eq 2 ] && [ $g -eq 0 ] && [ ! -e "$WS/marker-link" ]
	ok $? "$t a workspace given as a symlink is refused (exit $rc, $(head -1 "$errf"))"
	out=$(cd "$P" && U "$C" run --preset workspace-write --workspace wslink \
		--context home="$H" -- sh -c ": > '$WS/marker-rel'" 2> "$errf")
	rc=$?
	[ $rc -eq 2 ] && [ ! -e "$WS/marker-rel" ]
	ok $? "$t a workspace given as a relative symlink is refused too (exit $rc)"
	rm -f "$WS/marker-rel" "$WS/marker-link"
	ww -- sh -c 'cd .. && echo x > escaped'
	refused_by policy $rc "$errf" && [ ! -e "$P/escaped" ]
	ok $? "$t cd .. inside the command does not widen write authority: asked before the run (exit $rc)"
	ww -- sh -c 'c="cd .. && echo x > escaped"; eval "$c"'
	refused_by sandbox $rc "$errf" 'Read-only file system' && [ ! -e "$P/escaped" ]
	ok $? "$t cd .. inside the command does not widen write authority: EROFS inside (exit $rc)"
	run --preset workspace-write --workspace "$WS" --cwd "$WS/sub" --context home="$H" -- \
		sh -c 'cd ../.. && echo x > escaped2; cd / && echo x > "$OLDPWD/escaped3"'
	refused_by policy $rc "$errf" && [ ! -e "$P/escaped2" ] && [ ! -e "$P/escaped3" ]
	ok $? "$t nor does cd from a --cwd below the workspace (exit $rc)"
	ln -s "$O/target" "$WS/lnk"
	ln -s "$O" "$WS/dlnk"
	ww -- "$probe" write "$WS/lnk"
	is "$rc:$(cat "$O/target")" "1:outside" "$t a symlink in the workspace to a file outside cannot be written through ($out)"
	ww -- "$probe" write "$WS/dlnk/new"
	[ $rc -eq 1 ] && [ ! -e "$O/new" ]
	ok $? "$t nor a symlink to a directory outside ($out)"

	# ---- output ----------------------------------------------------------------------------
	seq 1 20000 > "$tmpdir/seq"
	ww --max-output 100 --output-file "$P/whole.log" -- seq 1 20000
	[ $rc -eq 0 ] && [ "$out" = "$(head -c 100 "$tmpdir/seq")" ]
	ok $? "$t --max-output 100 passes the first 100 bytes"
	grep -q "output truncated after 100 bytes.*$P/whole.log" "$errf"
	ok $? "$t and says where the rest is"
	cmp -s "$P/whole.log" "$tmpdir/seq" &&
		[ "$(stat -c '%a %u' "$P/whole.log")" = "600 $uid" ]
	ok $? "$t the output file holds it all, mode 0600, owned by the caller"

	# ---- two calls at once -----------------------------------------------------------------
	cat > "$P/both.sh" << 'EOF'
# both.sh SELF OTHER: runs inside one call, meets the other, tries to
# reach into it.  Results go to SELF/result.
self=$1 other=$2 probe=$3
echo "$TMPDIR" > "$self/tn"
echo "secret of $self" > "$TMPDIR/secret"
i=0
while [ ! -s "$other/tn" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
t=$(cat "$other/tn")
{
	echo "write $("$probe" write "$other/intruder")"
	if ls "$t" > /dev/null 2>&1; then echo "list ok"; else echo "list denied"; fi
	if cat "$t/secret" > /dev/null 2>&1; then echo "read ok"; else echo "read denied"; fi
	echo "tmpwrite $("$probe" write "$t/intruder")"
} > "$self/result"
sleep 0.3
EOF
	chmod 644 "$P/both.sh"
	# both XDG1 XDG2 [WS1]: the two calls, each with $XDG_RUNTIME_DIR set to
	# its argument (none when empty), the first in WS1 if given; results in
	# $r1 and $r2.
	both() {
		rm -f "$P/c1/result" "$P/c2/result" "$P/c1/tn" "$P/c2/tn" "$P/c1/intruder" "$P/c2/intruder"
		ws1=${3:-$P/c1}
		set -- "$1" "$2"
		for w in c1 c2; do
			o=c2 x=$1 ws=$ws1
			[ $w = c2 ] && o=c1 x=$2 ws=$P/c2
			# The test policy: no glob read deny to expand over a
			# workspace of /tmp, which holds all the machine's temp files.
			(U env ${x:+XDG_RUNTIME_DIR="$x"} "$C" run -p "$POL" --preset ws \
				--workspace "$ws" --context home="$H" -- \
				sh -c "sh '$P/both.sh' '$P/$w' '$P/$o' '$probe'" > /dev/null 2>&1) &
			eval "both_$w=\$!"
		done
		wait $both_c1 $both_c2
		r1=$(cat "$P/c1/result" 2> /dev/null | tr '\n' ' ')
		r2=$(cat "$P/c2/result" 2> /dev/null | tr '\n' ' ')
	}
	apart() { # apart: neither call saw the other's TMPDIR
		case "$r1$r2" in
		*"list ok"* | *"read ok"* | *"tmpwrite ok"*) false ;;
		*"list denied"*"list denied"*) true ;;
		*) false ;;
		esac
	}
	both "" ""
	case "$r1$r2" in
	"write EROFS"*"write EROFS"*) [ ! -e "$P/c1/intruder" ] && [ ! -e "$P/c2/intruder" ] ;;
	*) false ;;
	esac
	ok $? "$t two calls at once cannot write each other's workspace"
	apart
	ok $? "$t nor see each other's TMPDIR ($r1/ $r2)"
	# $XDG_RUNTIME_DIR is the caller's to set: it must not move where the
	# temp dirs live, or a call would not know where to hide the other's.
	mkdir -p "$P/xdg"
	chmod 700 "$P/xdg"
	mine "$P/xdg"
	both "$P/xdg" ""
	apart
	ok $? "$t nor when they are told different XDG_RUNTIME_DIRs ($r1/ $r2)"
	[ -z "$(ls -A "$P/xdg")" ]
	ok $? "$t and none keeps its temp dir in \$XDG_RUNTIME_DIR"
	# A workspace that holds /tmp/cordon-UID keeps its temp dirs in
	# /var/tmp/cordon-UID; each call hides both places.
	case $P in
	/tmp/*)
		both "" "" /tmp
		apart
		ok $? "$t nor when one call's workspace is /tmp, which holds the other's temp dirs ($r1/ $r2)"
		;;
	*) skip "$t nor when one call's workspace is /tmp" "the test tree is not in /tmp" ;;
	esac
	r=/tmp/cordon-$uid
	if [ -d "$r" ] && [ ! -L "$r" ]; then
		mkdir "$r/ws.$$"
		mine "$r/ws.$$"
		run --preset workspace-write --workspace "$r/ws.$$" --context home="$H" -- \
			sh -c ": > marker"
		grep -q "is inside $r, where cordon keeps its per-call temp dirs" "$errf"
		g=$?
		[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$r/ws.$$/marker" ]
		ok $? "$t a workspace inside $r is refused: hiding the temp dirs would hide it (exit $rc)"
		rm -rf "$r/ws.$$"
	else
		skip "$t a workspace inside /tmp/cordon-$uid is refused" "no such directory here"
	fi

	# ---- decisions before the run ----------------------------------------------------------
	ww -- git status
	[ $rc -eq 0 ] && [ -e "$WS/git-ran" ]
	ok $? "$t control: an allowed git command runs (and leaves its mark)"
	rm -f "$WS/git-ran"
	ww -- git push --force origin main
	grep -q 'DENIED' "$errf"
	g=$?
	[ $rc -eq $RUN_DENIED ] && [ $g -eq 0 ] && [ ! -e "$WS/git-ran" ]
	ok $? "$t git push --force is denied: exit $rc and it never runs"
	ww --shell 'git push -f'
	[ $rc -eq $RUN_DENIED ] && [ ! -e "$WS/git-ran" ]
	ok $? "$t --shell 'git push -f' is denied: exit $rc"
	ww --shell ": > '$WS/marker-shell' && git push --force origin main"
	[ $rc -eq $RUN_DENIED ] && [ ! -e "$WS/marker-shell" ]
	ok $? "$t a force push later in a shell command is denied before anything runs (exit $rc)"
	rm -f "$WS/git-ran" "$WS/marker-shell"
	tp ws -- make
	grep -q 'NEEDS APPROVAL' "$errf"
	g=$?
	[ $rc -eq $RUN_ASK ] && [ $g -eq 0 ] && [ ! -e "$WS/make-ran" ]
	ok $? "$t a command that asks exits $rc without running"
	tp ws --approved -- make
	[ $rc -eq 0 ] && [ -e "$WS/make-ran" ]
	ok $? "$t and runs with --approved (exit $rc)"
}

if [ $ready -ne 0 ]; then
	# Every restricted preset must refuse to run here.
	mkdir -p "$tmpdir/ws"
	(cd "$tmpdir/ws" && "$CORDON" run --preset workspace-write -- sh -c ': > marker') 2> "$errf"
	rc=$?
	[ $rc -eq 125 ] && grep -q SANDBOX_UNAVAILABLE "$errf" && [ ! -e "$tmpdir/ws/marker" ]
	ok $? "no sandbox here: cordon run exits 125 and the command never runs"
	skip "cordon run under bwrap" "${why_unready:-cordon probe says the sandbox is not ready}"
	done_testing
	exit
fi
for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
