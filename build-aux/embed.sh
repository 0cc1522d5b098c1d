#!/bin/sh
# Turn policy files into C string literals: embed.sh SRCDIR FILE... > OUT.inc
# Each FILE is named relative to SRCDIR; the entry keeps that name.
set -eu
srcdir=$1
shift
for f in "$@"; do
	printf '{ "%s",\n' "$f"
	LC_ALL=C sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$/\\n"/' "$srcdir/$f"
	size=$(wc -c < "$srcdir/$f" | tr -d ' ')
	printf '  , %s },\n' "$size"
done
