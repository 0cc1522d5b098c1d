#!/bin/sh
# The manual pages: groff formats them without a warning, cordon.1 documents
# every verb and option the binary has, and the policy in the examples of
# cordon.policy.5 is one cordon accepts.
. "$srcdir/tests/lib.sh"

man1="$srcdir/docs/cordon.1"
man5="$srcdir/docs/cordon.policy.5"

if command -v groff > /dev/null; then
	for page in "$man1" "$man5"; do
		groff -man -Tutf8 -ww -z "$page" > "$tmpdir/warnings" 2>&1
		status=$?
		[ $status -eq 0 ] && [ ! -s "$tmpdir/warnings" ]
		ok $? "groff -man -ww formats $(basename "$page") without a warning"
		diag < "$tmpdir/warnings"
	done
else
	skip "groff formats the manual pages" "groff is missing (Debian package groff-base)"
fi
if command -v mandoc > /dev/null; then
	for page in "$man1" "$man5"; do
		mandoc -Tlint -Wwarning "$page" > "$tmpdir/warnings" 2>&1
		ok $? "mandoc -Tlint finds nothing in $(basename "$page")"
		diag < "$tmpdir/warnings"
	done
fi

# The verbs and options, as the roff source spells them (\- for -).
sed 's/\\-/-/g' "$man1" > "$tmpdir/cordon.1"
"$CORDON" --help | sed -n '/^Verbs:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' > "$tmpdir/verbs"
while read -r verb; do
	grep -q "^\.SS cordon $verb\( \|$\)" "$tmpdir/cordon.1"
	ok $? "cordon.1 has a section for cordon $verb"
	missing=
	for opt in $("$CORDON" "$verb" --help |
		sed -n -e '/^ *\(usage:\|cordon \|\[\)/p' -e 's/^ *\(-[-a-z]*\).*/\1/p' |
		grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$opt" "$tmpdir/cordon.1" || missing="$missing $opt"
	done
	[ -z "$missing" ]
	ok $? "cordon.1 documents every option of cordon $verb${missing:+ (missing:$missing)}"
done < "$tmpdir/verbs"

# The example policy of cordon.policy.5, unescaped, then the CI preset after it.
sed -n '/^The standard presets, in brief:/,/^\.SH/p' "$man5" |
	sed -n '/^\.nf/,/^\.fi/p' | sed -e '/^\.[a-z]*$/d' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' \
	> "$tmpdir/example.cordon"
grep -q '^preset "ci"' "$tmpdir/example.cordon" && grep -q '^default "read-only";' "$tmpdir/example.cordon"
ok $? "the examples of cordon.policy.5 are extracted"
"$CORDON" check "$tmpdir/example.cordon" > "$tmpdir/out" 2>&1
ok $? "the example policy of cordon.policy.5 checks"
diag < "$tmpdir/out"

done_testing
