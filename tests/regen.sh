#!/bin/sh
# Regenerate the golden files on purpose: tests/regen.sh [BUILDDIR].
# Review the resulting diff like code before committing it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
CORDON=$build/cordon

cd "$top/tests/bad"
for policy in *.cordon; do
	"$CORDON" check "$policy" > /dev/null 2> "${policy%.cordon}.err" || true
done
cd "$top/tests/golden"
for policy in *.cordon; do
	name=${policy%.cordon}
	"$CORDON" compile -p "$policy" --all --emit ir > "$name.ir"
	[ ! -f "$name.json" ] || "$CORDON" compile -p "$policy" --all --emit json > "$name.json"
	if [ -f "$name.ctx" ]; then
		set --
		while IFS= read -r kv; do set -- "$@" --context "$kv"; done < "$name.ctx"
		"$CORDON" compile -p "$policy" --all --emit ir "$@" > "$name.ctx.ir"
	fi
done
"$CORDON" compile --all --emit ir > default.embedded.ir
"$CORDON" compile --preset workspace-write --emit ir \
	--context workspace=/ws --context home=/home/u --context tmp=/tmp/call \
	--context agent_dir=/ws/.agent --context session_dir=/ws/.agent/s \
	> default.workspace-write.ctx.ir
# Scripts that pin output made from a temporary tree accept it themselves.
cd "$top"
for script in tests/lower-*.sh tests/shell-decide.sh tests/fmt.sh; do
	[ -f "$script" ] || continue
	CORDON_ACCEPT=1 CORDON="$CORDON" srcdir="$top" builddir="$build" sh "$script" > /dev/null || true
done
echo "regenerated; review with git diff"
