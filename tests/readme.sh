#!/bin/sh
# The `cordon eval` examples of README.md print what the README shows: each
# "$ cordon eval ..." line (with its continuation lines) is run as written,
# with HOME=/home/u, and its output compared with the lines after it.
. "$srcdir/tests/lib.sh"

awk '
	/^\$ cordon eval/ { cmd = substr($0, 3); cont = /\\$/; inex = 1; out = ""; next }
	inex && cont { cmd = cmd "\n" $0; cont = /\\$/; next }
	inex && (/^$/ || /^```/ || /^\$ /) { print cmd > (base ".cmd." n); printf "%s", out > (base ".want." n); n++; inex = 0 }
	inex { out = out $0 "\n" }
' base="$tmpdir/ex" n=0 "$srcdir/README.md"
n=0
while [ -f "$tmpdir/ex.cmd.$n" ]; do
	mkdir -p "$tmpdir/cwd"
	(cd "$tmpdir/cwd" && HOME=/home/u CORDON="$CORDON" sh -c "$(sed 's/^cordon /"$CORDON" /' "$tmpdir/ex.cmd.$n")") \
		> "$tmpdir/ex.got.$n" 2>&1
	sed -i "s|$tmpdir/cwd|/srv/ws|g" "$tmpdir/ex.got.$n"
	if cmp -s "$tmpdir/ex.got.$n" "$tmpdir/ex.want.$n"; then
		ok 0 "README example $((n + 1)): $(head -1 "$tmpdir/ex.cmd.$n")"
	else
		ok 1 "README example $((n + 1)): $(head -1 "$tmpdir/ex.cmd.$n")"
		diff -u "$tmpdir/ex.want.$n" "$tmpdir/ex.got.$n" | diag
	fi
	n=$((n + 1))
done
[ "$n" -ge 2 ]
ok $? "the README has its eval examples ($n)"
done_testing
