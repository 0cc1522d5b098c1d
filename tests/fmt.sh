#!/bin/sh
# cordon fmt: golden layouts; over every policy in the tree, a fixed point
# after one run, the same IR, and a --diff that patch applies; the modes,
# their exit statuses, and rewrites in place.
. "$srcdir/tests/lib.sh"

fmt_dir="$srcdir/tests/fmt"

# ---- golden layouts: tests/fmt/NAME.cordon formats to NAME.want ----------------
for input in "$fmt_dir"/*.cordon; do
	name=$(basename "$input" .cordon)
	(cd "$fmt_dir" && "$CORDON" fmt "$name.cordon") > "$tmpdir/out" 2> "$tmpdir/err"
	ok $? "$name: formats"
	check_golden "$tmpdir/out" "$fmt_dir/$name.want" "$name: the canonical layout"
	"$CORDON" fmt - < "$fmt_dir/$name.want" > "$tmpdir/again" 2> "$tmpdir/err"
	cmp -s "$fmt_dir/$name.want" "$tmpdir/again"
	ok $? "$name: the canonical layout formats to itself"
done

# CRLF line ends and tab indentation format like their LF, space-indented twin.
sed 's/$/\r/' "$fmt_dir/comments.cordon" > "$tmpdir/crlf.cordon"
"$CORDON" fmt "$tmpdir/crlf.cordon" > "$tmpdir/out"
cmp -s "$tmpdir/out" "$fmt_dir/comments.want"
ok $? "CRLF line ends become LF, comments lose the CR"
sed 's/^  */	/' "$fmt_dir/align.cordon" > "$tmpdir/tabs.cordon"
"$CORDON" fmt "$tmpdir/tabs.cordon" > "$tmpdir/out"
cmp -s "$tmpdir/out" "$fmt_dir/align.want"
ok $? "tab indentation becomes two spaces a level"

# ---- every policy in the tree ----------------------------------------------------
# A copy of the tree's policies is formatted in place, so that includes
# resolve among formatted files too; then each original and its formatted
# copy must compile to byte-identical IR.  These hundreds of runs use the
# binary itself even under `make check-valgrind`, which checks the golden
# cases and the modes above and below.
sweep=${CORDON_REAL:-$CORDON}
tree="$tmpdir/tree"
(cd "$srcdir" && find . -name '*.cordon' -type f | LC_ALL=C sort) > "$tmpdir/policies"
while IFS= read -r p; do
	mkdir -p "$tree/$(dirname "$p")"
	cp "$srcdir/$p" "$tree/$p"
done < "$tmpdir/policies"

have_patch=$(command -v patch > /dev/null 2>&1 && echo yes)
while IFS= read -r p; do
	cd "$srcdir" || exit 1
	if "$sweep" fmt "$p" > "$tmpdir/f1" 2> "$tmpdir/e1"; then
		"$sweep" fmt - < "$tmpdir/f1" > "$tmpdir/f2" 2> "$tmpdir/e2"
		cmp -s "$tmpdir/f1" "$tmpdir/f2"
		ok $? "fixed point after one run: $p"
		cp "$tmpdir/f1" "$tree/$p"
		if [ -n "$have_patch" ]; then
			cp "$p" "$tmpdir/patched"
			"$sweep" fmt --diff "$p" > "$tmpdir/d"
			rc=$?
			if cmp -s "$p" "$tmpdir/f1"; then
				test $rc -eq 0 && test ! -s "$tmpdir/d"
			else
				test $rc -eq 1 && patch -s "$tmpdir/patched" "$tmpdir/d" > /dev/null &&
					cmp -s "$tmpdir/patched" "$tmpdir/f1"
			fi
			ok $? "--diff, applied by patch, gives the formatted text: $p"
		fi
	else
		rc=$?
		"$sweep" check "$p" > /dev/null 2> "$tmpdir/e2"
		# fmt stops at the parse errors; check reports the checker's too,
		# in source order: fmt's first error is among check's.
		test $rc -eq 1 && test ! -s "$tmpdir/f1" &&
			grep -qxF "$(head -n 1 "$tmpdir/e1")" "$tmpdir/e2"
		ok $? "a file that does not parse is refused with check's errors: $p"
	fi
done < "$tmpdir/policies"
[ -n "$have_patch" ] || skip "--diff applied by patch" "no patch program"

while IFS= read -r p; do
	cd "$srcdir" || exit 1
	"$sweep" compile -p "$p" --emit ir --all --no-origins > "$tmpdir/ir1" 2> /dev/null || continue
	cd "$tree" || exit 1
	"$sweep" compile -p "$p" --emit ir --all --no-origins > "$tmpdir/ir2" 2> "$tmpdir/err"
	cmp -s "$tmpdir/ir1" "$tmpdir/ir2"
	ok $? "formatted, the same IR: $p"
done < "$tmpdir/policies"

# ---- modes ------------------------------------------------------------------------
work="$tmpdir/work"
mkdir "$work" && cd "$work" || exit 1
cp "$fmt_dir/messy.cordon" messy.cordon
cp "$fmt_dir/messy.want" tidy.cordon

run() { # run WANT_STATUS DESCRIPTION ARGS...
	want=$1 desc=$2
	shift 2
	"$CORDON" "$@" > out 2> err
	rc=$?
	ok $((rc != want)) "$desc (exit $want, got $rc)"
}

run 0 "--check of a formatted file" fmt --check tidy.cordon
test ! -s out && test ! -s err
ok $? "--check of a formatted file prints nothing"
run 1 "--check of an unformatted file among formatted ones" fmt --check tidy.cordon messy.cordon tidy.cordon
test ! -s out && test "$(cat err)" = "messy.cordon: not formatted"
ok $? "--check names the unformatted file on stderr, and only it"
run 1 "--check of standard input" fmt --check < messy.cordon
test "$(cat err)" = "<stdin>: not formatted"
ok $? "--check names standard input <stdin>"

run 0 "--diff of a formatted file" fmt --diff tidy.cordon
test ! -s out && test ! -s err
ok $? "--diff of a formatted file prints nothing"
run 1 "--diff of an unformatted file" fmt --diff messy.cordon
check_golden out "$fmt_dir/messy.diff" "--diff prints a unified diff"
cmp -s messy.cordon "$fmt_dir/messy.cordon"
ok $? "--diff leaves the file alone"
if [ -n "$have_patch" ]; then
	mkdir p1 && cp messy.cordon p1/ && (cd p1 && "$CORDON" fmt --diff messy.cordon > ../d;
		patch -s -p1 < ../d) && cmp -s p1/messy.cordon tidy.cordon
	ok $? "patch -p1 applies the diff in the file's directory"
	rm -r p1 d
else
	skip "patch -p1 applies the diff in the file's directory" "no patch program"
fi

printf 'cordon 1;\npreset "p" { read "/**" allow; }\ndefault "p";' > nonl.cordon
run 1 "--diff of a file without a final newline" fmt --diff nonl.cordon
grep -q '^\\ No newline at end of file$' out
ok $? "--diff marks the missing final newline"
if [ -n "$have_patch" ]; then
	patch -s nonl.cordon out > /dev/null && "$CORDON" fmt --check nonl.cordon
	ok $? "that diff applies"
else
	skip "that diff applies" "no patch program"
fi

run 0 "standard input without a FILE" fmt < messy.cordon
cmp -s out tidy.cordon
ok $? "standard input is formatted to standard output"
run 0 "standard input as '-'" fmt - < messy.cordon
cmp -s out tidy.cordon
ok $? "'-' is standard input"
run 0 "two files" fmt tidy.cordon tidy.cordon
cat tidy.cordon tidy.cordon | cmp -s out -
ok $? "two files print one after the other"

# ---- -w -----------------------------------------------------------------------------
chmod 640 messy.cordon
run 0 "-w of an unformatted file" fmt -w messy.cordon
test ! -s out && test ! -s err
ok $? "-w prints nothing"
cmp -s messy.cordon tidy.cordon
ok $? "-w rewrites the file in the canonical layout"
test "$(ls -ln messy.cordon | cut -c1-10)" = "-rw-r-----"
ok $? "-w keeps the file's mode"
test "$(ls -A | LC_ALL=C sort | tr '\n' ' ')" = "err messy.cordon nonl.cordon out tidy.cordon "
ok $? "-w leaves no temporary file behind"

inode=$(ls -i tidy.cordon | awk '{print $1}')
touch -t 202001010000 tidy.cordon
run 0 "-w of a formatted file" fmt -w tidy.cordon
test "$(ls -i tidy.cordon | awk '{print $1}')" = "$inode" && test -z "$(find tidy.cordon -newermt 2020-01-02)"
ok $? "-w leaves a formatted file untouched"

mkdir sub
cp "$fmt_dir/messy.cordon" sub/target.cordon
ln -s sub/target.cordon link.cordon
run 0 "-w through a symlink" fmt -w link.cordon
test -L link.cordon && cmp -s sub/target.cordon tidy.cordon
ok $? "-w rewrites a symlink's target and keeps the link"

printf 'cordon 1;\npreset "p" {\n  read "/**" allow\n}\n' > broken.cordon
cp broken.cordon broken.orig
run 1 "-w of a file that does not parse" fmt -w broken.cordon
cmp -s broken.cordon broken.orig
ok $? "a file that does not parse is left untouched"
grep -q "^broken.cordon:3:19: error: expected ';' before '}' \[syntax\]$" err
ok $? "its errors are printed as check prints them"
test -z "$(ls -A | grep fmt-)"
ok $? "and no temporary file is left"
run 1 "print mode of a file that does not parse" fmt broken.cordon tidy.cordon
cmp -s out tidy.cordon
ok $? "nothing is printed for it; the other files still are"

if [ "$(id -u)" != 0 ]; then
	mkdir ro
	cp "$fmt_dir/messy.cordon" ro/p.cordon
	chmod 555 ro
	run 2 "-w in a directory that cannot be written" fmt -w ro/p.cordon
	cmp -s ro/p.cordon "$fmt_dir/messy.cordon" &&
		grep -q "^cordon: cannot create a temporary file for 'ro/p.cordon': Permission denied$" err
	ok $? "the file is untouched and the error names it"
	chmod 755 ro
else
	skip "-w in a directory that cannot be written" "running as root"
	skip "the file is untouched and the error names it" "running as root"
fi

# ---- usage and I/O errors ----------------------------------------------------------
run 2 "--check with -w" fmt --check -w tidy.cordon
grep -q "^cordon: --check and -w cannot be used together$" err
ok $? "the conflicting options are named"
run 2 "--diff with --check" fmt --diff --check tidy.cordon
run 2 "-w without a file" fmt -w
run 2 "-w of standard input" fmt -w - < tidy.cordon
run 2 "an unknown option" fmt --bogus tidy.cordon
run 2 "a missing file" fmt --check tidy.cordon missing.cordon
grep -q "^cordon: cannot read 'missing.cordon': No such file or directory$" err
ok $? "the missing file is named"
run 2 "a directory" fmt sub
run 0 "fmt --help" fmt --help
grep -q '^usage: cordon fmt ' out
ok $? "fmt --help shows its usage"


# The shipped policies are in the layout they document.
"$CORDON" fmt --check "$srcdir"/rules/*.cordon "$srcdir"/rules/examples/*.cordon 2> "$tmpdir/fmt-check"
st=$?
ok $st "fmt --check: the shipped policies are formatted"
[ $st -eq 0 ] || diag < "$tmpdir/fmt-check"
done_testing
