#!/bin/sh
# Two spellings of one policy compile to byte-identical IR:
# tests/equiv/NAME.a.cordon and NAME.b.cordon.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/equiv" || exit 1
for a in *.a.cordon; do
	name=${a%.a.cordon}
	b=$name.b.cordon
	"$CORDON" compile -p "$a" --all --emit ir --no-origins > "$tmpdir/a" 2> "$tmpdir/err"
	ok $? "$name: first spelling compiles"
	diag < "$tmpdir/err"
	"$CORDON" compile -p "$b" --all --emit ir --no-origins > "$tmpdir/b" 2> "$tmpdir/err"
	ok $? "$name: second spelling compiles"
	diag < "$tmpdir/err"
	if cmp -s "$tmpdir/a" "$tmpdir/b"; then
		ok 0 "$name: identical IR"
	else
		ok 1 "$name: identical IR"
		diff -u "$tmpdir/a" "$tmpdir/b" | head -30 | diag
	fi
	"$CORDON" compile -p "$a" --all --emit json --no-origins > "$tmpdir/a"
	"$CORDON" compile -p "$b" --all --emit json --no-origins > "$tmpdir/b"
	cmp -s "$tmpdir/a" "$tmpdir/b"
	ok $? "$name: identical JSON"
done

done_testing
