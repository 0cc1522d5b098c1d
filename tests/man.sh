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

# The verbs and options, as the roff source spells them (\- for -).  The
# option lists of `cordon VERB --help` are printed from the option table, so
# they are the table: each verb's section names every option the table gives
# it, each option the section lists as a term is one of the verb's, and so
# are the options of its SYNOPSIS lines and of its usage lines.
sed 's/\\-/-/g' "$man1" > "$tmpdir/cordon.1"
"$CORDON" --help | sed -n '/^Verbs:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' > "$tmpdir/verbs"
[ "$(wc -l < "$tmpdir/verbs")" -ge 10 ]
ok $? "cordon --help lists the verbs ($(wc -l < "$tmpdir/verbs") found)"
# section VERB: the text of the verb's section of VERBS.
section() {
	sed -n "/^\.SS cordon $1\( \|$\)/,/^\.S[HS]/p" "$tmpdir/cordon.1" | sed '$d'
}
# synopsis VERB: the verb's lines of SYNOPSIS, each from ".B cordon VERB" to ".br".
synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$tmpdir/cordon.1" |
		sed -n "/^\.B cordon $1\( \|$\)/,/^\.br/p"
}
options_of() { # the long options of `cordon VERB --help`, and its short ones as -x
	"$CORDON" "$1" --help | sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\1\2/p' |
		tr ', ' '\n\n' | grep -v -e '^$' -e '^--help$' -e '^-h$' | sort -u
}
while read -r verb; do
	section "$verb" > "$tmpdir/section"
	[ -s "$tmpdir/section" ]
	ok $? "cordon.1 has a section for cordon $verb"
	options_of "$verb" > "$tmpdir/options"
	cat "$tmpdir/options" >> "$tmpdir/all-options"
	missing=
	for opt in $(cat "$tmpdir/options"); do
		grep -q -- "$opt\([^a-z-]\|$\)" "$tmpdir/section" || missing="$missing $opt"
	done
	[ -z "$missing" ]
	ok $? "the section of cordon $verb names every option of its table${missing:+ (missing:$missing)}"
	# The terms of the section's lists (the line after .TP) that are options.
	extra=
	for opt in $(sed -n '/^\.TP/{n;p;}' "$tmpdir/section" | grep -o -- '--[a-z][a-z-]*' | sort -u) \
		$(synopsis "$verb" | grep -o -- '--[a-z][a-z-]*' | sort -u) \
		$("$CORDON" "$verb" --help | sed -n '/^ *\(usage:\|cordon \|\[\)/p' |
			grep -o -- '--[a-z][a-z-]*' | grep -vx -- '--' | sort -u); do
		grep -qx -- "$opt" "$tmpdir/options" || [ "$opt" = --help ] || extra="$extra $opt"
	done
	[ -z "$extra" ]
	ok $? "cordon $verb has every option its section, SYNOPSIS and usage lines name${extra:+ (not in its table:$extra)}"
done < "$tmpdir/verbs"
# The scrape of the option lists found them (a broken one passes the above).
[ "$(sort -u "$tmpdir/all-options" 2> /dev/null | wc -l)" -ge 40 ]
ok $? "the option lists of the verbs' --help were read ($(sort -u "$tmpdir/all-options" 2> /dev/null | wc -l) options)"

# The example policy of cordon.policy.5, unescaped, then the CI preset after it.
sed -n '/^The standard presets, in brief:/,/^\.SH/p' "$man5" |
	sed -n '/^\.nf/,/^\.fi/p' | sed -e '/^\.[a-z]*$/d' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' \
	> "$tmpdir/example.cordon"
grep -q '^preset "ci"' "$tmpdir/example.cordon" && grep -q '^default "read-only";' "$tmpdir/example.cordon"
ok $? "the examples of cordon.policy.5 are extracted"
"$CORDON" check "$tmpdir/example.cordon" > "$tmpdir/out" 2>&1
ok $? "the example policy of cordon.policy.5 checks"
diag < "$tmpdir/out"

# Every role a program spec may give, as cordon lists them (the hint of a
# role it does not know, from the one table of roles), is in the grammar of
# docs/language.md and in cordon.policy.5.
printf 'cordon 1;\nprogram "p" {\n  first zzzzzzzzzzzz;\n  option "-z" zzzzzzzzzzzz;\n}\n' \
	> "$tmpdir/roles.cordon"
"$CORDON" check "$tmpdir/roles.cordon" 2>&1 | sed -n 's/.*= hint: roles: //p' | tr ',' '\n' |
	tr -d ' ' | sort -u > "$tmpdir/roles"
[ "$(wc -l < "$tmpdir/roles")" -ge 30 ]
ok $? "cordon lists the roles of program specs ($(wc -l < "$tmpdir/roles") of them)"
sed -n '/^ROLE *=/,/;$/p' "$srcdir/docs/language.md" | grep -o '"[a-z]*"' | tr -d '"' |
	sort -u > "$tmpdir/roles.lang"
is "$(comm -3 "$tmpdir/roles" "$tmpdir/roles.lang" | tr -d '\t' | tr '\n' ' ')" "" \
	"the ROLE production of docs/language.md names every role, and no other"
missing=
while read -r role; do
	grep -Eq "^\\.BR? $role( |,|;|:|\$)|^\\.RB \\( ?$role |\\\\fB$role\\\\fR" "$man5" ||
		missing="$missing $role"
done < "$tmpdir/roles"
is "$missing" "" "cordon.policy.5 describes every role"

# The same for the operations, the effects and the items of a program spec:
# cordon lists each (the hint of a word it does not know, from the one
# table of each, IR_OPS, IR_EFFECTS, SPEC_ITEMS), and docs/language.md's
# grammar and cordon.policy.5 name every one.
printf 'cordon 1;\npreset "p" {\n  zzzzzzzzzzzz "/x" allow;\n  read "/x" zzzzzzzzzzzz;\n}\n' \
	> "$tmpdir/words.cordon"
printf 'program "p" {\n  zzzzzzzzzzzz;\n}\n' >> "$tmpdir/words.cordon"
"$CORDON" check "$tmpdir/words.cordon" > "$tmpdir/words.out" 2>&1
# listed WHAT PREFIX: the words of the hint that starts with PREFIX.
listed() {
	sed -n "s/.*= hint: $2//p" "$tmpdir/words.out" | sed 's/ and \| or /, /' | tr ',' '\n' |
		tr -d ' ' | sed '/^$/d' | sort -u > "$tmpdir/$1"
}
listed ops 'operations are '
listed effects 'an effect is '
listed items 'items: '
is "$(wc -l < "$tmpdir/ops") $(wc -l < "$tmpdir/effects")" "5 3" \
	"cordon lists the operations and the effects"
[ "$(wc -l < "$tmpdir/items")" -ge 20 ]
ok $? "cordon lists the items of program specs ($(wc -l < "$tmpdir/items") of them)"
# production NAME: the quoted words of docs/language.md's production NAME.
production() {
	awk -v n="$1" '$1 == n && $2 == "=" { on = 1 } on { print; if (/;[ \t]*$/) exit }' \
		"$srcdir/docs/language.md" | grep -o '"[a-z_]*"' | tr -d '"' | sort -u
}
for w in ops:OP effects:EFFECT; do
	production "${w#*:}" > "$tmpdir/${w%%:*}.lang"
	is "$(comm -3 "$tmpdir/${w%%:*}" "$tmpdir/${w%%:*}.lang" | tr -d '\t' | tr '\n' ' ')" "" \
		"the ${w#*:} production of docs/language.md names every one, and no other"
done
# spec_item names ROLEs and strings too: every item must be in it.
production spec_item > "$tmpdir/items.lang"
is "$(comm -23 "$tmpdir/items" "$tmpdir/items.lang" | tr '\n' ' ')" "" \
	"the spec_item production of docs/language.md names every item"
for w in ops effects items; do
	missing=
	while read -r word; do
		grep -Eq "^\\.BR? $word( |,|;|:|\$)|^\\.RB \\( ?$word |\\\\fB$word\\\\fR|^\\.BR? \"$word" "$man5" ||
			missing="$missing $word"
	done < "$tmpdir/$w"
	is "$missing" "" "cordon.policy.5 describes every one of the $w"
done

done_testing
