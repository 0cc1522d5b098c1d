#!/bin/sh
# The pre-commit hook definitions: each hook's entry, run as pre-commit runs
# it (the cordon on PATH, the staged files its `files` pattern selects),
# passes on the shipped policies and fails on a broken one.
. "$srcdir/tests/lib.sh"

if ! command -v python3 > /dev/null || ! python3 -c 'import yaml' 2> /dev/null; then
	skip "the pre-commit hooks" "python3 with the yaml module is missing (Debian package python3-yaml)"
	done_testing
	exit
fi

# One line a hook: id, TAB, the entry and its args, TAB, the files pattern.
python3 - "$srcdir/.pre-commit-hooks.yaml" > "$tmpdir/hooks" 2> "$tmpdir/err" <<'PY'
import sys, yaml
for h in yaml.safe_load(open(sys.argv[1])):
    for key in ("id", "name", "entry", "language", "files"):
        if key not in h:
            sys.exit("hook %r has no %s" % (h.get("id"), key))
    print("\t".join([h["id"], " ".join([h["entry"]] + h.get("args", [])), h["files"]]))
PY
ok $? ".pre-commit-hooks.yaml is a list of complete hook definitions"
diag < "$tmpdir/err"

mkdir "$tmpdir/bin"
printf '#!/bin/sh\nexec "$CORDON" "$@"\n' > "$tmpdir/bin/cordon"
chmod +x "$tmpdir/bin/cordon"

(cd "$srcdir" && find rules tests/bad/undefined-variable.cordon -type f) | sort > "$tmpdir/files"
tab=$(printf '\t')
while IFS=$tab read -r id entry files; do
	grep -E "$files" "$tmpdir/files" | grep -v '^tests/' > "$tmpdir/selected"
	[ -s "$tmpdir/selected" ]
	ok $? "$id selects the shipped policies ($(wc -l < "$tmpdir/selected") files)"
	# shellcheck disable=SC2046,SC2086
	(cd "$srcdir" && PATH="$tmpdir/bin:$PATH" $entry $(cat "$tmpdir/selected")) > "$tmpdir/out" 2>&1
	status=$?
	ok $status "$id passes on them"
	[ $status -eq 0 ] || tail -20 "$tmpdir/out" | diag
	# shellcheck disable=SC2086
	(cd "$srcdir" && PATH="$tmpdir/bin:$PATH" $entry tests/bad/undefined-variable.cordon) > "$tmpdir/out" 2>&1
	ok $(($? != 1)) "$id stops a commit of a policy with errors (exit 1)"
done < "$tmpdir/hooks"

done_testing
