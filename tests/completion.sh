#!/bin/sh
# The bash completion: sourced into bash, asked to complete a few command
# lines as bash would (COMP_WORDS, COMP_CWORD), its answers compared.
. "$srcdir/tests/lib.sh"

if ! command -v bash > /dev/null; then
	skip "bash completion" "bash is missing"
	done_testing
	exit
fi

mkdir -p "$tmpdir/files/sub"
: > "$tmpdir/files/a.cordon"
: > "$tmpdir/files/b.cordon"
: > "$tmpdir/files/notes.txt"

# complete WORDS...: the sorted completions of the last word, one a line;
# the first word is the cordon under test.
complete_line() {
	bash -c '. "$1/completions/cordon.bash" || exit 99
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_cordon cordon "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' bash "$srcdir" "${COMPLETE_AS:-$CORDON_REAL}" "$@"
}

expect() { # expect DESCRIPTION WANTED WORDS...: WANTED is the completions, space-separated
	desc=$1 want=$2
	shift 2
	got=$(complete_line "$@" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ]
	ok $? "$desc"
	[ "$got" = "$want" ] || printf 'want: %s\ngot:  %s\n' "$want" "$got" | diag
}

expect "verbs" "--help --version approve audit bundle check compile diff edit eval explain fmt grants help hook lint probe proxy revoke run serve test write" ""
expect "the agents of hook" "claude codex" hook c
expect "the agents of hook install" "gemini" hook install g
expect "a verb by its prefix" "compile" co
expect "verbs that start alike" "edit eval explain" e
expect "an option of compile" "--emit" compile --e
expect "the values of --emit" "sbpl sbpl-argv seccomp seccomp-bpf" compile --emit s
expect "the hosts of --host" "linux macos" eval --host ""
expect "the host after --host is no operand" "--host" compile --host macos --ho
expect "the presets of the embedded policy" "workspace-write" eval --preset w
expect "the presets of the policy given with -p" "ci danger-full-access read-only web-dev workspace-write" \
	compile -p "$srcdir/rules/examples/team.cordon" --preset ""
expect "the presets of the policy given with --policy=" "review review-trusted" \
	run --policy="$srcdir/rules/examples/review.cordon" --preset r
expect "a policy without presets completes nothing" "" \
	eval -p "$tmpdir/files/notes.txt" --preset ""
expect "the operations of eval" "read" eval --preset read-only r
expect "the operations of explain after -p FILE" "net" explain -p "$srcdir/rules/default.cordon" n
expect "the values of lint --format" "json sarif text" lint --format ""
expect "the values of diff --format" "json text" diff --format ""
expect "what approve approves" "edit tool write" approve --preset read-only ""
expect "what revoke revokes" "tool" revoke --session ""
expect "what bundle does" "create install verify" bundle ""
expect "the policy files of bundle create" "$tmpdir/files/a.cordon" bundle create -o out --version 2 "$tmpdir/files/a"
expect "the keys file of bundle verify" "$tmpdir/files/notes.txt" bundle verify --keys "$tmpdir/files/n"
expect "the log audit reads" "$tmpdir/files/notes.txt" audit "$tmpdir/files/n"
expect "the values of audit --decision" "allow ask" audit log --decision a
expect "the file approve approves" "$tmpdir/files/notes.txt" approve write "$tmpdir/files/n"
expect "the file write writes, any file" "$tmpdir/files/notes.txt" write --approval 1234 "$tmpdir/files/n"
expect "write takes one file" "" write "$tmpdir/files/notes.txt" "$tmpdir/files/n"
expect "diff compares policy files" "$tmpdir/files/a.cordon" diff "$tmpdir/files/b.cordon" "$tmpdir/files/a"
expect "the check ids of lint --disable" "shadowed-rule" lint --disable sh
expect "context names" "home=" compile --context ho
expect "policy files and directories" "$tmpdir/files/a.cordon $tmpdir/files/b.cordon $tmpdir/files/sub" \
	check "$tmpdir/files/"
expect "run options" "--timeout" run --ti
expect "help names a verb" "probe" help prob
expect "the options of probe" "--help --json" probe --
expect "no options where there are none" "" check --p

got=$(complete_line run --preset read-only -- ech)
echo "$got" | grep -qx echo
ok $? "after run --, commands"

# Verbs and options come from the help of the cordon being completed: a verb
# this file has never heard of completes, with its options.
mkdir "$tmpdir/other"
cat > "$tmpdir/other/cordon" <<'SH'
#!/bin/sh
case "$1 $2" in
"--help ") printf 'usage: cordon VERB\n\nVerbs:\n  check      parse\n  frobnicate turn knobs\n' ;;
"frobnicate --help") printf 'usage: cordon frobnicate [--knob N] [-q] FILE...\n\n  --dry-run    change nothing\n  -v, --verbose  say more\n' ;;
esac
SH
chmod +x "$tmpdir/other/cordon"
COMPLETE_AS=$tmpdir/other/cordon
expect "a verb from the help of the cordon completed" "frobnicate" fr
expect "its options, from its usage and option lines" "--dry-run --help --knob --verbose -q -v" frobnicate -
expect "its operands are policy files" "$tmpdir/files/a.cordon" frobnicate "$tmpdir/files/a"
COMPLETE_AS=

# The completion knows every verb and every option the binary documents.
"$CORDON" --help | sed -n '/^Verbs:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | LC_ALL=C sort > "$tmpdir/verbs"
complete_line "" | grep -v '^-' | grep -vx help > "$tmpdir/completed"
cmp -s "$tmpdir/verbs" "$tmpdir/completed"
ok $? "the verbs of cordon --help are the verbs completed"
diff "$tmpdir/verbs" "$tmpdir/completed" | diag
while read -r verb; do
	# The options of the usage lines, and the first word of each option line.
	"$CORDON" "$verb" --help |
		sed -n -e '/^ *\(usage:\|cordon \|\[\)/p' -e 's/^ *\(-[-a-z]*\).*/\1/p' |
		grep -o -- '--[a-z][a-z-]*' | sort -u > "$tmpdir/documented"
	complete_line "$verb" -- | sort -u > "$tmpdir/completed"
	missing=$(comm -23 "$tmpdir/documented" "$tmpdir/completed" | tr '\n' ' ')
	[ -z "$missing" ]
	ok $? "every option of cordon $verb --help completes${missing:+ (missing: $missing)}"
done < "$tmpdir/verbs"

done_testing
