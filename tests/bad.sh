#!/bin/sh
# Every bad policy pins its exact diagnostic: tests/bad/NAME.cordon must make
# `cordon check` exit 1 and print tests/bad/NAME.err, caret and all.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/bad" || exit 1
for policy in *.cordon; do
	name=${policy%.cordon}
	"$CORDON" check "$policy" > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?
	ok $((rc != 1)) "$name: exit status 1 (got $rc)"
	check_golden "$tmpdir/err" "$name.err" "$name: diagnostic"
	ok $(test -s "$tmpdir/out"; echo $((! $?))) "$name: nothing on stdout"
done

# Inputs too big or too odd to keep in the tree are made here.
cd "$tmpdir" || exit 1

# A 10 MiB file is refused before it is parsed.
{
	echo 'cordon 1;'
	head -c 10485760 /dev/zero | tr '\0' '#'
} > huge.cordon
"$CORDON" check huge.cordon 2> err
ok $(($? != 1)) "10 MiB file: exit status 1"
cat > want <<'WANT'
cordon: error: 'huge.cordon' is too large (more than 8388608 bytes); a policy file is at most 8 MiB [too-large]
1 error
WANT
check_golden err want "10 MiB file: diagnostic"

# Includes nested deeper than the bound.
i=0
while [ $i -lt 40 ]; do
	printf 'cordon 1;\ninclude "d%d.cordon";\n' $((i + 1)) > d$i.cordon
	i=$((i + 1))
done
echo 'cordon 1;' > d40.cordon
"$CORDON" check d0.cordon 2> err
ok $(($? != 1)) "includes 40 deep: exit status 1"
grep -q 'includes nest deeper than 32 files \[include-cycle\]' err
ok $? "includes 40 deep: bounded with a clear error"

# A long list and a long line parse in linear time (no recursion limits).
{
	echo 'cordon 1;'
	printf 'let many = ['
	i=0
	while [ $i -lt 20000 ]; do printf '"/p/%d", ' $i; i=$((i + 1)); done
	echo '];'
	echo 'preset "p" { read $many allow; }'
} > long.cordon
"$CORDON" check long.cordon 2> err
ok $? "20000-element list on one line is accepted"

# A directory, a missing file and an unreadable file are I/O errors: exit 2.
mkdir adir
"$CORDON" check adir 2> err
ok $(($? != 2)) "directory as FILE: exit status 2"
printf "cordon: error: cannot read 'adir': Is a directory [io]\n1 error\n" > want
check_golden err want "directory as FILE: diagnostic"

"$CORDON" check missing.cordon 2> err
ok $(($? != 2)) "missing file: exit status 2"

mkdir private
echo 'cordon 1;' > private/secret.cordon
chmod 000 private/secret.cordon
if [ "$(id -u)" -eq 0 ]; then
	# root reads through permission bits: ask as an unprivileged user.
	chmod 711 "$tmpdir"
	chmod 755 private
	if command -v setpriv > /dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$(as_nobody_cordon "$tmpdir/bin")" \
			check private/secret.cordon 2> err
		rc=$?
		ok $((rc != 2)) "unreadable file: exit status 2 (got $rc)"
		printf "cordon: error: cannot read 'private/secret.cordon': Permission denied [io]\n1 error\n" > want
		check_golden err want "unreadable file: diagnostic"
	else
		skip "unreadable file" "setpriv is missing"
	fi
else
	"$CORDON" check private/secret.cordon 2> err
	ok $(($? != 2)) "unreadable file: exit status 2"
	printf "cordon: error: cannot read 'private/secret.cordon': Permission denied [io]\n1 error\n" > want
	check_golden err want "unreadable file: diagnostic"
fi

done_testing
