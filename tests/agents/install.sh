#!/bin/sh
# Install the agents tests/agents.sh drives (Claude Code, Codex, Gemini CLI)
# at the versions package-lock.json pins, into DIR, and print DIR:
#
#   CORDON_AGENTS_DIR=$(tests/agents/install.sh /opt/cordon-agents)
#
# npm ci from the lockfile in the tree; an install already made from this
# very lockfile is kept.  It reaches the npm registry and nothing else.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: tests/agents/install.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -x "$dir/node_modules/.bin/claude" ] && [ -x "$dir/node_modules/.bin/codex" ] &&
	[ -x "$dir/node_modules/.bin/gemini" ] &&
	cmp -s "$here/package-lock.json" "$dir/package-lock.json"; then
	echo "$dir"
	exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
echo "$dir"
