#!/bin/sh
# Compiled output is pinned in tests/data/golden, one layout for every
# emitted kind: POLICY[.PRESET][.VARIANT].KIND, where POLICY is NAME for
# NAME.cordon beside it and `default` for the shipped policy, KIND the
# --emit kind (ir, json, bwrap, sbpl, seccomp, landlock) and no PRESET
# means every preset.  This script checks NAME.ir (every preset, `--emit
# ir`) and, where present, NAME.json and NAME.ctx.ir (with the context
# listed in NAME.ctx, one k=v a line); tests/lower-*.sh check the rest.
# `CORDON_ACCEPT=1 make check` accepts the output as the new goldens.
. "$srcdir/tests/lib.sh"

cd "$srcdir/tests/data/golden" || exit 1
for policy in *.cordon; do
	name=${policy%.cordon}
	"$CORDON" compile -p "$policy" --all --emit ir > "$tmpdir/got" 2> "$tmpdir/err"
	ok $? "$name: compiles"
	diag < "$tmpdir/err"
	check_golden "$tmpdir/got" "$name.ir" "$name: IR"
	if [ -f "$name.json" ]; then
		"$CORDON" compile -p "$policy" --all --emit json > "$tmpdir/got"
		check_golden "$tmpdir/got" "$name.json" "$name: JSON"
	fi
	if [ -f "$name.ctx" ]; then
		set --
		while IFS= read -r kv; do set -- "$@" --context "$kv"; done < "$name.ctx"
		"$CORDON" compile -p "$policy" --all --emit ir "$@" > "$tmpdir/got"
		check_golden "$tmpdir/got" "$name.ctx.ir" "$name: IR with context"
	fi
done

# The embedded default policy, as `cordon compile` sees it without -p.
"$CORDON" compile --all --emit ir > "$tmpdir/got"
ok $? "embedded default policy compiles"
check_golden "$tmpdir/got" default.ir "embedded default policy: IR"
"$CORDON" compile --preset workspace-write --emit ir \
	--context workspace=/ws --context home=/home/u --context tmp=/tmp/call \
	--context agent_dir=/ws/.agent --context session_dir=/ws/.agent/s > "$tmpdir/got"
check_golden "$tmpdir/got" default.workspace-write.ctx.ir "embedded workspace-write with context"

# The shipped file is the embedded one, byte for byte in effect.
"$CORDON" compile -p "$srcdir/rules/default.cordon" --all --emit ir --no-origins > "$tmpdir/a"
"$CORDON" compile --all --emit ir --no-origins > "$tmpdir/b"
cmp -s "$tmpdir/a" "$tmpdir/b"
ok $? "rules/default.cordon and the embedded policy compile identically"

# The shipped examples stay valid.
for policy in "$srcdir"/rules/examples/*.cordon; do
	"$CORDON" check "$policy" 2> "$tmpdir/err"
	ok $? "example $(basename "$policy") checks"
	diag < "$tmpdir/err"
done

done_testing
