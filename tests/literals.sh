#!/bin/sh
# Strings decode by one set of rules wherever they stand: a program spec's
# names take the escapes of docs/language.md like a rule's patterns do
# (tests/bad/program-spec-escapes.cordon pins the errors).
. "$srcdir/tests/lib.sh"

cd "$tmpdir" || exit 1
cat > spec.cordon << 'EOF2'
cordon 1;
program "tool\$x" { operands read; }
program "say\"hi" { operands write; }
preset "p" {
  read "/**" allow;
  write "/**" ask;
  exec "*" allow;
}
EOF2
out=$("$CORDON" eval -p spec.cordon --preset p exec "'tool\$x' /etc/hosts" 2>&1)
case $out in
*'read /etc/hosts [read (tool$x)]'*) ok 0 "a spec named \"tool\\\$x\" is the program tool\$x" ;;
*) ok 1 "a spec named \"tool\\\$x\" is the program tool\$x"; echo "$out" | diag ;;
esac
out=$("$CORDON" eval -p spec.cordon --preset p exec "'say\"hi' /tmp/f" 2>&1)
case $out in
*'write /tmp/f [write (say"hi)]'*) ok 0 "a spec named \"say\\\"hi\" is the program say\"hi" ;;
*) ok 1 "a spec named \"say\\\"hi\" is the program say\"hi"; echo "$out" | diag ;;
esac

done_testing
