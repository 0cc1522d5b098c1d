# TAP helpers for the shell tests.  Sourced; expects CORDON, srcdir and
# builddir in the environment (make check sets them).
: "${CORDON:?CORDON must name the cordon binary}"
: "${srcdir:?}" "${builddir:?}"

tap_n=0
tap_failed=0

ok() { # ok STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		# A TODO directive marks a known gap: reported, not a failure.
		case $2 in *"# TODO"*) ;; *) tap_failed=$((tap_failed + 1)) ;; esac
	fi
}

is() { # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf 'got:  %s\nwant: %s\n' "$1" "$2" | diag
	fi
}

skip() { # skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

diag() {
	sed 's/^/# /'
}

# origins_by_text FILE: FILE with every origin in a shipped policy
# (rules/NAME.cordon:LINE[:COL]) named by the rule's text instead,
# rules/NAME.cordon:[TEXT] (the line from COL on, blanks squeezed, '"' as
# "'"), so that an edit above a rule does not change every golden that
# names it.  An origin whose line is not there is left as it is.
origins_by_text() {
	awk -v top="$srcdir" '
	function text(f, l, c,   n, s) {
		if (!(f in loaded)) {
			loaded[f] = 1
			n = 0
			while ((getline s < (top "/" f)) > 0)
				src[f, ++n] = s
			close(top "/" f)
		}
		if (!((f, l) in src))
			return ""
		s = substr(src[f, l], c > 0 ? c : 1)
		gsub(/[ \t]+/, " ", s)
		sub(/^ /, "", s)
		sub(/ $/, "", s)
		gsub(/"/, "\047", s)
		return s
	}
	{
		rest = $0
		out = ""
		while (match(rest, /rules\/[A-Za-z0-9_\/-]+\.cordon:[0-9]+(:[0-9]+)?/)) {
			m = substr(rest, RSTART, RLENGTH)
			n = split(m, p, ":")
			t = text(p[1], p[2] + 0, n > 2 ? p[3] + 0 : 0)
			out = out substr(rest, 1, RSTART - 1) (t == "" ? m : p[1] ":[" t "]")
			rest = substr(rest, RSTART + RLENGTH)
		}
		print out rest
	}' "$1"
}

# Compare a produced file with its golden copy (for the compiled output in
# tests/data/golden, origins in the shipped policies by their text, see
# origins_by_text); on mismatch keep the
# produced text beside the build tree as NAME.got and show the difference.
# CORDON_ACCEPT=1 (`CORDON_ACCEPT=1 make check`) writes the produced text
# as the golden instead: the one way to accept output on purpose.
check_golden() { # check_golden GOT WANT DESCRIPTION
	case $(cd "$(dirname "$2")" && pwd) in
	*/tests/data/golden) origins_by_text "$1" > "$1.by-text" ;;
	*) cp "$1" "$1.by-text" ;;
	esac
	if [ -n "${CORDON_ACCEPT:-}" ] && ! cmp -s "$1.by-text" "$2"; then
		cp "$1.by-text" "$2"
	fi
	if cmp -s "$1.by-text" "$2"; then
		ok 0 "$3"
	else
		got="$builddir/tests/$(basename "$PWD")/$(basename "$2").got"
		mkdir -p "$(dirname "$got")"
		cp "$1.by-text" "$got"
		ok 1 "$3"
		diff -u "$2" "$1.by-text" | head -40 | diag
		echo "kept as $got; CORDON_ACCEPT=1 make check accepts it" | diag
	fi
	rm -f "$1.by-text"
}

# What cordon run exits with when the policy stops a command before it
# runs (include/cordon.h): denied, or waiting for an approval.
RUN_DENIED=121
RUN_ASK=122

# refused_by policy|sandbox STATUS ERRFILE [REASON]: how a command was
# stopped, so that a negative check cannot pass because something else
# failed (a sandbox that did not start, a usage error).  policy: cordon run
# stopped it before the run ($RUN_DENIED with DENIED, or $RUN_ASK with
# NEEDS APPROVAL, on standard error).
# sandbox: the command ran and the kernel refused it: a status of its own
# (1 to 120: not cordon run's refusals, timeout or 125, not a shell's 126
# or 127) and REASON, an ERE such as 'Read-only file system' (EROFS), on
# standard error outside cordon's and bwrap's own lines.
refused_by() {
	case $1 in
	policy)
		{ [ "$2" -eq $RUN_DENIED ] && grep -q '^cordon: DENIED ' "$3"; } ||
			{ [ "$2" -eq $RUN_ASK ] && grep -q '^cordon: NEEDS APPROVAL ' "$3"; }
		;;
	sandbox)
		[ "$2" -gt 0 ] && [ "$2" -lt $RUN_DENIED ] &&
			grep -v -e '^cordon:' -e '^bwrap:' "$3" | grep -Eq -- "$4"
		;;
	*) return 2 ;;
	esac
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# as_nobody_cordon DIR: a cordon the user nobody can run, for a test's
# unprivileged pass.  The build tree may be closed to nobody (a fresh
# clone in a 0700 temporary directory), and under check-valgrind $CORDON
# is a script nobody cannot read: copy the real binary into DIR.
as_nobody_cordon() {
	mkdir -p "$1" && cp "${CORDON_REAL:-$CORDON}" "$1/cordon" && chmod 755 "$1" "$1/cordon" &&
		echo "$1/cordon"
}

# runner_passes: who a runner test runs its calls as: "root nobody" as root
# (with setpriv to become nobody), else "self".
runner_passes() {
	if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
		echo "root nobody"
	else
		echo self
	fi
}

# runner_pass NAME [FILE...]: begin one pass of a runner test, NAME one of
# runner_passes.  Sets P=$tmpdir/NAME (made), t="[NAME]" for the checks'
# names, uid and gid of who the pass runs as, AS (the prefix that runs a
# command as nobody; empty for root and self) and C, the cordon to run: a
# copy in $P/build, with cordon-exec and FILE... beside it, that the
# pass's user can run (the build tree may be closed to nobody).
runner_pass() {
	name=$1
	shift
	P=$tmpdir/$name t="[$name]" AS=
	uid=$(id -u) gid=$(id -g)
	if [ "$name" = nobody ]; then
		uid=65534 gid=65534
		AS="setpriv --reuid=$uid --regid=$gid --clear-groups --"
	fi
	_real=${CORDON_REAL:-$CORDON}
	mkdir -p "$P/build" && cp "$_real" "${_real%/*}/cordon-exec" "$@" "$P/build/" &&
		chmod 755 "$P" "$P/build"
	C=$P/build/cordon
}

# command_uid CORDON WS: the host uid of the commands cordon run starts in
# WS for the caller: its own, but nobody's (65534) when root runs cordon
# and the write roots can be idmapped; where they cannot, cordon says so
# on stderr and the command is uid 0 (docs/sandbox.md, "Run as root").
command_uid() {
	if [ "$(id -u)" -ne 0 ]; then
		id -u
	elif "$1" run --preset workspace-write --workspace "$2" -- true 2>&1 > /dev/null |
		grep -q 'the command runs as uid 0'; then
		echo 0
	else
		echo 65534
	fi
}

# runner_own PATH...: hand PATH... (and all below) to the pass's user, where
# that is nobody.
runner_own() {
	[ -z "$AS" ] || chown -R "$uid:$gid" "$@"
}

# port_of FILE: the port a server the test started writes to FILE (it
# renames it into place once listening), waiting up to 10 s for it.
port_of() {
	_i=0
	while [ ! -s "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	cat "$1"
}

# wait_for_file FILE [PATTERN]: wait up to 30 s until FILE is not empty
# and, given PATTERN, holds a line it matches: a server the test started
# writes there once it listens.  The caller checks what it finds.
wait_for_file() {
	_i=0
	while { [ ! -s "$1" ] || { [ -n "${2:-}" ] && ! grep -q "$2" "$1"; }; } && [ $_i -lt 600 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}

# egress_server_start: tests/egress-server.py in the background ($server),
# which answers "hello from HOST:PORT" on 127.0.0.1:$port, once it
# listens; what it served is logged to $tmpdir/srv.log.
egress_server_start() {
	python3 "$srcdir/tests/egress-server.py" "$tmpdir/srv.port" "$tmpdir/srv.log" &
	server=$!
	wait_for_file "$tmpdir/srv.port"
	port=$(cat "$tmpdir/srv.port")
}

# console_home: the approval console's tests' own $H (exported as HOME),
# workspace $WS and $OUT, with no audit log or Claude project of the
# caller's environment.
console_home() {
	H=$tmpdir/home WS=$tmpdir/ws OUT=$tmpdir/out
	mkdir -p "$H" "$WS" "$OUT"
	export HOME="$H"
	unset CORDON_AUDIT_LOG CLAUDE_PROJECT_DIR
}

# console_policy TIME: $tmpdir/p.cordon, whose default preset "c" allows
# writes to the workspace and sends the others to the approval console,
# waiting for it at most TIME.
console_policy() {
	cat > "$tmpdir/p.cordon" << EOF
cordon 1;
protect "\${agent_dir}", "\${session_dir}";
preset "c" {
  approval console $1;
  read "/**" allow;
  write "/dev/null" allow;
  write "\${workspace}" allow;
  write "/**" ask;
  net "*" deny;
  exec "*" allow;
}
default "c";
EOF
}

# console_start: `cordon serve` in the background ($serve_pid), once it
# printed its address: $url (with the token), $port, $token and $base
# (http://127.0.0.1:PORT); its stderr in $tmpdir/serve.err.
console_start() {
	: > "$tmpdir/url"
	"$CORDON" serve > "$tmpdir/url" 2> "$tmpdir/serve.err" &
	serve_pid=$!
	wait_for_file "$tmpdir/url" '^http'
	url=$(head -n 1 "$tmpdir/url")
	port=$(echo "$url" | sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p')
	token=${url#*token=}
	base=http://127.0.0.1:$port
}

# skip_unless_sandbox CORDON WHAT: end the test with one skip, and cordon
# probe's report as a comment, where the sandbox cannot start here.
skip_unless_sandbox() {
	"$1" probe > "$tmpdir/probe" 2>&1 && return 0
	diag < "$tmpdir/probe"
	skip "$2" "cordon probe says the sandbox is not ready"
	done_testing
	exit
}

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-test.XXXXXX")
# at_exit CMD: run CMD (shell text, read when the test ends) as the test
# ends, before its temp dir goes: a test stops its servers this way and
# never sets the EXIT trap itself, which would leave the dir behind.
exit_cmds=
at_exit() {
	exit_cmds="$1; $exit_cmds"
}
trap 'eval "$exit_cmds"; chmod -R u+rwx "$tmpdir" 2>/dev/null; rm -rf "$tmpdir"' EXIT
# Where tests/valgrind.sh counts this test's cordon processes when CI's
# valgrind pass samples them (made there, by then only).
CORDON_VALGRIND_COUNT=$tmpdir/.valgrind-count
export CORDON_VALGRIND_COUNT
