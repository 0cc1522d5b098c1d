#!/bin/sh
# docs/sandbox.md names the tests that show each guarantee and each limit:
# every test file it names exists, and every test name it quotes in a table
# row is one of that file's (a "…" stands for words the test fills in).
. "$srcdir/tests/lib.sh"

doc=$srcdir/docs/sandbox.md

# source FILE: the file a test name refers to (a unit test is a program,
# built from FILE.c), or nothing.
source_of() {
	if [ -f "$srcdir/$1" ]; then
		echo "$srcdir/$1"
	elif [ -f "$srcdir/$1.c" ]; then
		echo "$srcdir/$1.c"
	fi
}

# files DOC: every tests/... path DOC names, once.
files() {
	grep -o 'tests/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$1" | sort -u
}

# names DOC: FILE<TAB>NAME for each "quoted" name after `tests/FILE` in a
# table row of DOC.
names() {
	awk '/^\|/ {
		line = $0; file = ""
		while (match(line, /`tests\/[^`]*`|"[^"]*"/)) {
			tok = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if (substr(tok, 1, 1) == "`")
				file = substr(tok, 2, length(tok) - 2)
			else if (file != "")
				print file "\t" substr(tok, 2, length(tok) - 2)
		}
	}' "$1"
}

# has_name SOURCE NAME: a line of SOURCE holds NAME's pieces (split at
# "…") in order, with the shell's \$ and \" read as $ and ".
has_name() {
	sed 's/\\\$/$/g; s/\\"/"/g' "$1" | awk -v name="$2" '
	BEGIN { np = split(name, piece, "…") }
	{
		rest = $0
		for (i = 1; i <= np; i++) {
			p = piece[i]
			gsub(/^ +| +$/, "", p)
			if (p == "")
				continue
			k = index(rest, p)
			if (!k)
				next
			rest = substr(rest, k + length(p))
		}
		found = 1
		exit
	}
	END { exit !found }'
}

# check DOC: one TAP line a file and a name; the number of failures in $bad.
check() {
	bad=0
	for f in $(files "$1"); do
		[ -n "$(source_of "$f")" ]
		st=$?
		[ $st -eq 0 ] || bad=$((bad + 1))
		[ -n "${quiet:-}" ] || ok $st "docs/sandbox.md names $f, which exists"
	done
	tab=$(printf '\t')
	names "$1" > "$tmpdir/names"
	while IFS=$tab read -r f n; do
		src=$(source_of "$f")
		[ -n "$src" ] && has_name "$src" "$n"
		st=$?
		[ $st -eq 0 ] || bad=$((bad + 1))
		[ -n "${quiet:-}" ] || ok $st "$f has the test docs/sandbox.md quotes: \"$n\""
	done < "$tmpdir/names"
}

# Controls: the checks see a missing file and a name no test has.
cp "$doc" "$tmpdir/doc.md"
cat >> "$tmpdir/doc.md" << 'EOF'
| made up | by the test | `tests/no-such-test.sh`: "anything"; `tests/run.sh`: "a write inside the workspace succeeds", "no test is called this" , "a write … succeeds", "succeeds … a write" |
EOF
quiet=1 check "$doc"
base=$bad
quiet=1 check "$tmpdir/doc.md"
is "$((bad - base))" 4 \
	"control: a file that does not exist, a name in it, a name a file has not, and pieces out of order are found (4)"

n=$(names "$doc" | wc -l)
[ "$n" -ge 40 ]
ok $? "docs/sandbox.md quotes test names in its tables ($n)"
check "$doc"
done_testing
