#!/bin/sh
# The Landlock lowering: the readable ruleset for each ABI (golden copies,
# with CORDON_LANDLOCK_ABI standing in for the kernel), and the ruleset
# applied by cordon_landlock_apply() in a helper, checking that writes
# inside the write root work and writes outside fail with EACCES.
# The goldens are tests/data/golden/POLICY.PRESET.abiN.landlock.
. "$srcdir/tests/lib.sh"

probe=$builddir/tests/helpers/landlock_probe
golden=$srcdir/tests/data/golden
T=$tmpdir/t
mkdir -p "$T/ws/sub" "$T/ws/.git/hooks" "$T/ws/.agent" "$T/home" "$T/call"
echo n > "$T/home/notes.txt"

lower() { # lower ABI POLICY PRESET: the ruleset for the fixed tree
	(cd "$T/ws" && env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 CORDON_REAL="${CORDON_REAL:-}" \
		${1:+CORDON_LANDLOCK_ABI=$1} \
		"$CORDON" compile ${2:+-p "$2"} --preset "$3" --emit landlock \
		--context workspace="$T/ws" --context cwd="$T/ws" --context home="$T/home" \
		--context tmp="$T/call" --context agent_dir="$T/ws/.agent" \
		--context session_dir="$T/ws/.agent/s")
}

# Columns are as wide as the longest path, which depends on where the test
# runs: the golden copies have the paths replaced and the gaps narrowed.
golden_check() { # golden_check GOT NAME
	sed -e "s|$T|@T|g" -e "s|$golden/||g" -e 's/\([^ ]\)   */\1  /g' "$1" > "$1.norm"
	check_golden "$1.norm" "$golden/$2" "$2: golden"
}

has() { # has FILE REGEX DESCRIPTION
	grep -Eq -- "$2" "$1"
	ok $? "$3"
}

hasnt() {
	! grep -Eq -- "$2" "$1"
	ok $? "$3"
}

# ---- the readable ruleset ----------------------------------------------------------
for case in "7 default workspace-write" "7 lower.cordon base" "6 lower.cordon online" \
	"5 lower.cordon open" "4 lower.cordon base" "3 lower.cordon base" "2 lower.cordon base" \
	"1 lower.cordon base" "0 lower.cordon base"; do
	set -- $case
	abi=$1 policy=$2 preset=$3
	[ "$policy" = default ] && policy= || policy=$golden/$policy
	name=${2%.cordon}-$preset-abi$abi
	lower "$abi" "$policy" "$preset" > "$tmpdir/$name" 2> "$tmpdir/err"
	ok $? "$name: landlock"
	diag < "$tmpdir/err"
	golden_check "$tmpdir/$name" "${2%.cordon}.$preset.abi$abi.landlock"
done

f=$tmpdir/default-workspace-write-abi7
has "$f" '^kernel: Landlock ABI 7 \(CORDON_LANDLOCK_ABI\)$' "the ABI is named"
for v in "1  Linux 5.13 " "2  Linux 5.19  REFER" "3  Linux 6.2   TRUNCATE" \
	"4  Linux 6.7   TCP: bind and connect" "5  Linux 6.10  IOCTL_DEV" \
	"6  Linux 6.12  scopes: abstract unix sockets and signals"; do
	has "$f" "^  \* $v" "the ABI table: $v"
done
has "$f" '^  handled_access_fs   WRITE_FILE REMOVE_DIR REMOVE_FILE MAKE_CHAR MAKE_DIR MAKE_REG MAKE_SOCK MAKE_FIFO MAKE_BLOCK MAKE_SYM REFER TRUNCATE IOCTL_DEV$' \
	"every write right, REFER, TRUNCATE and IOCTL_DEV are handled"
has "$f" '^  handled_access_net  BIND_TCP CONNECT_TCP$' "TCP bind and connect are handled"
has "$f" 'no rule grants them: every TCP bind and connect fails' "and no rule grants them"
has "$f" '^  /dev  +every handled right' "/dev is granted"
has "$f" "^  $T/ws  +every handled right  +rules/default.cordon:" "the workspace is granted"
has "$f" "^  $T/call  +every handled right  +rules/default.cordon:" "the temp dir is granted"
has "$f" "^  /dev/null +under /dev " "/dev/null is covered by /dev"
has "$f" "Landlock only grants, so these cannot be carved out" \
	"protected paths under a write root are said to be bwrap's"
has "$f" "^  $T/ws/.agent +protected " "and the protected agent dir is listed"

f=$tmpdir/lower-base-abi1
has "$f" '^  handled_access_fs   WRITE_FILE REMOVE_DIR REMOVE_FILE MAKE_CHAR MAKE_DIR MAKE_REG MAKE_SOCK MAKE_FIFO MAKE_BLOCK MAKE_SYM$' \
	"ABI 1: the ABI 1 rights only"
has "$f" 'without REFER' "ABI 1: renames across directories always fail, and it says so"
hasnt "$f" 'BIND_TCP' "ABI 1: no TCP"
has "$tmpdir/lower-base-abi2" 'handled_access_fs .* MAKE_SYM REFER$' "ABI 2: REFER"
has "$tmpdir/lower-base-abi3" 'handled_access_fs .* REFER TRUNCATE$' "ABI 3: TRUNCATE"
hasnt "$tmpdir/lower-base-abi3" 'BIND_TCP' "ABI 3: no TCP"
has "$tmpdir/lower-base-abi4" 'handled_access_net  BIND_TCP CONNECT_TCP' "ABI 4: TCP"
hasnt "$tmpdir/lower-base-abi4" 'IOCTL_DEV$' "ABI 4: no IOCTL_DEV"
has "$tmpdir/lower-base-abi4" 'scoped              none: scopes need ABI 6' "ABI 4: no scopes"
has "$tmpdir/lower-open-abi5" 'handled_access_fs .* TRUNCATE IOCTL_DEV$' "ABI 5: IOCTL_DEV"
has "$tmpdir/lower-online-abi6" 'handled_access_net  BIND_TCP CONNECT_TCP' \
	"a policy that allows a host handles TCP"
has "$tmpdir/lower-online-abi6" 'but CONNECT_TCP to port 3128, the egress proxy' \
	"a policy that allows a host may connect to the egress proxy's port only"
has "$tmpdir/lower-online-abi6" '^  scoped              ABSTRACT_UNIX_SOCKET$' \
	"ABI 6: abstract unix sockets are scoped when net \"unix\" is not allowed"
has "$tmpdir/lower-base-abi0" '^kernel: no Landlock' "ABI 0: no Landlock, and it says so"
f=$tmpdir/lower-base-abi7
has "$f" "^  $T/home/notes.txt +a file: WRITE_FILE TRUNCATE IOCTL_DEV " \
	"a file write root gets the file rights only"
has "$f" "^  $T/home/missing +skipped: does not exist " "a missing write root is skipped"
has "$f" "^  $T/ws/sub +under $T/ws " "a nested write root is covered"
has "$f" "^  $T/ws/.git/hooks +write not allowed " "a write deny inside a root is listed"
has "$f" '^  write ".*\*\*/\*\.lock" deny ' "a glob is listed as an advisory"

lower "" "" danger-full-access > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "danger-full-access has no Landlock ruleset (exit 2)"
grep -q "runs without a sandbox" "$tmpdir/err"
ok $? "and says why"
lower "x" "" workspace-write > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "a CORDON_LANDLOCK_ABI that is no number is refused"

# ---- applied ----------------------------------------------------------------------
mkdir -p "$T/root" "$T/outside"
"$probe" "$T/root" "$T/outside" > "$tmpdir/out" 2> "$tmpdir/err"
st=$?
if [ $st -eq 77 ]; then
	skip "applying the ruleset" "$(cat "$tmpdir/out")"
	lower "" "" workspace-write > "$tmpdir/kernel"
	has "$tmpdir/kernel" '^kernel: no Landlock: nothing can be applied' \
		"the lowering says the kernel has no Landlock"
	done_testing
	exit
fi
ok $st "the probe applies the ruleset"
diag < "$tmpdir/err"

expect() { # expect OP RESULT... DESCRIPTION
	op=$1
	shift
	want=
	while [ $# -gt 1 ]; do
		want="$want|$op $1"
		shift
	done
	grep -Eqx -- "${want#|}" "$tmpdir/out"
	st=$?
	ok $st "$1"
	[ $st -eq 0 ] || diag < "$tmpdir/out"
}
expect create-inside ok "a file can be created inside the write root"
test -f "$T/root/renamed"
ok $? "and lands there"
expect mkdir-inside ok "a directory can be made inside"
expect rename-inside ok "a rename inside works"
expect create-outside EACCES "creating a file outside fails with EACCES"
! test -e "$T/outside/new"
ok $? "and nothing appears there"
expect mkdir-outside EACCES "making a directory outside fails with EACCES"
expect write-outside EACCES "opening a file outside for writing fails with EACCES"
expect unlink-outside EACCES "removing a file outside fails with EACCES"
expect rename-out EACCES EXDEV "moving a file out of the root fails"
expect read-outside ok "reading outside still works"
expect write-devnull ok "/dev/null stays writable"
abi=$(sed -n 's/^abi //p' "$tmpdir/out")
if [ "${abi:-0}" -ge 3 ]; then
	expect truncate-outside EACCES "truncating a file outside fails with EACCES (ABI 3)"
else
	skip "truncating outside fails" "ABI $abi has no TRUNCATE"
fi
if ! grep -q '^tcp-connect ' "$tmpdir/out"; then
	skip "TCP connect is denied" "no loopback listener"
elif [ "${abi:-0}" -ge 4 ]; then
	expect tcp-connect EACCES "a TCP connect fails with EACCES (ABI 4)"
else
	skip "TCP connect is denied" "ABI $abi has no TCP rights"
fi

if [ "$CORDON" = "${CORDON_REAL:-$CORDON}" ]; then
	lower "" "" workspace-write > "$tmpdir/kernel"
	has "$tmpdir/kernel" "^kernel: Landlock ABI $abi" "the lowering reports the running kernel's ABI"
else
	skip "the lowering reports the running kernel's ABI" "cordon runs under valgrind, which knows no Landlock syscalls"
fi

done_testing
