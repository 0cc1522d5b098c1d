#!/bin/sh
# The real-agent suite (tests/agents.sh) against the newest releases of the
# three agents, for the day they change again:
#
#   tests/agents/latest.sh DIR [BUILDDIR]
#
# installs @anthropic-ai/claude-code, @openai/codex and @google/gemini-cli
# at their latest versions into DIR (npm install, no lockfile), says which
# versions it got, and runs `make check TESTS=tests/agents.sh` in BUILDDIR
# (default: the current directory) with every agent required.  To pin what
# passes: copy DIR/package.json and DIR/package-lock.json into tests/agents/.
set -eu
dir=${1:?usage: tests/agents/latest.sh DIR [BUILDDIR]}
build=${2:-.}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$dir"
[ -f package.json ] || printf '{ "name": "cordon-agents-latest", "private": true }\n' > package.json
npm install --no-audit --no-fund --loglevel=error \
	@anthropic-ai/claude-code@latest @openai/codex@latest @google/gemini-cli@latest >&2
for a in claude codex gemini; do
	printf '%s: %s\n' "$a" "$(node_modules/.bin/$a --version 2>/dev/null | tail -1)"
done
cd - > /dev/null
exec make -C "$build" check TESTS=tests/agents.sh CORDON_AGENTS_DIR="$dir" CORDON_AGENTS_REQUIRED=1
