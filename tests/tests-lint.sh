#!/bin/sh
# A lint over the tests themselves:
#  - every test in Makefile.am's TESTS asserts something: a shell test calls
#    ok, is or check_golden (directly or in its own helpers) and prints a
#    plan (done_testing, or a literal 1..N); a unit test includes tap.h,
#    calls ok() or is_str() and ends with tap_done(); a script may instead
#    exec a producer of TAP (cordon test, node --test --test-reporter=tap);
#  - every shell script under tests/ that sources tests/lib.sh is in TESTS;
#  - every file under tests/ is referenced, one of:
#      by name: its name (or its path below tests/) appears in another file
#        under tests/ or in Makefile.am;
#      by a glob: a file that names its directory globs its name (`*.cases`,
#        `"$dir"/*.a.cordon`) or tests its suffix (".cases" in C);
#      as a companion: a file that names its directory builds the name from
#        a variable (`$name.err`, `${1%.cordon}.$preset.bwrap`) with its last
#        suffix, and the part before its first dot is that of a file found
#        by name or by a glob in the same directory (or a word of that file);
#      as a fuzz seed: it lies in a directory called corpus that a file
#        names (tests/fuzz/run.sh reads such a directory whole).
# One TAP line a test, one a data directory (the files it leaves out listed).
# TESTS_LINT_VERBOSE=FILE writes how each file is referenced to FILE.
. "$srcdir/tests/lib.sh"

command -v perl > /dev/null || {
	skip "the tests lint" "perl is missing"
	done_testing
	exit
}

# The files: git's list in a checkout, else the tree less build products.
if git -C "$srcdir" ls-files --error-unmatch tests/lib.sh > /dev/null 2>&1; then
	git -C "$srcdir" ls-files tests > "$tmpdir/files"
else
	(cd "$srcdir" && find tests -type f ! -name '*.log' ! -name '*.trs' ! -name '*.o' \
		! -name '*.got' ! -name '.dirstamp' ! -path '*/.deps/*' ! -name '*.by-text') |
		sort > "$tmpdir/files"
fi
test -s "$tmpdir/files"
ok $? "the files under tests/ are listed ($(wc -l < "$tmpdir/files" | tr -d ' '))"

perl - "$srcdir" "$tmpdir/files" > "$tmpdir/report" 2> "${TESTS_LINT_VERBOSE:-$tmpdir/perl.err}" <<'PERL'
use strict;
use warnings;
my ($top, $list) = @ARGV;
sub slurp { my ($p) = @_; open(my $f, '<', "$top/$p") or return undef; local $/; my $t = <$f>; close $f; return $t; }
sub result { my ($ok, $desc, @why) = @_; print(($ok ? "ok" : "not ok"), "\t$desc\n"); print "#\t$_\n" for @why; }

open(my $lf, '<', $list) or die "$list: $!\n";
my @files = map { chomp; $_ } <$lf>;
close $lf;
my $am = slurp('Makefile.am') // die "Makefile.am: cannot read\n";

# Makefile.am's programs, built into the tree: not data.
my %built;
while ($am =~ /^check_(?:PROGRAMS|SCRIPTS)\s*\+?=\s*((?:[^\n]*\\\n)*[^\n]*)/mg) {
	(my $v = $1) =~ s/\\\n/ /g;
	$built{$_} = 1 for split ' ', $v;
}
@files = grep { !$built{$_} } @files;

# The text of every file (binary files refer to nothing).
my %text;
for my $p (@files) {
	my $t = slurp($p);
	$text{$p} = (defined $t && $t !~ /\0/) ? $t : '';
}
$text{'Makefile.am'} = $am;
# What a file does, for globs and built names: a script less its comments.
my %code;
for my $p (keys %text) {
	($code{$p} = $text{$p}) =~ s/^\s*#[^\n]*//mg if $p =~ /\.sh$/;
	$code{$p} //= $text{$p};
}

# ---- every test asserts something ----
my @tests;
while ($am =~ /^TESTS\s*\+?=\s*((?:[^\n]*\\\n)*[^\n]*)/mg) {
	(my $v = $1) =~ s/\\\n/ /g;
	push @tests, split ' ', $v;
}
my %in_tests = map { $_ => 1 } @tests;
for my $t (@tests) {
	if ($t =~ /\.sh$/) {
		my $s = $text{$t};
		if (!defined $s) { result(0, "$t: the script exists"); next; }
		(my $code = $s) =~ s/^\s*#[^\n]*//mg;
		# A script may hand its TAP to a producer of TAP: cordon test, node's
		# test runner.
		if ($code =~ /^\s*exec\s+("\$CORDON"\s+test\b|node\s+--test\b[^\n]*--test-reporter=tap)/m) {
			result(1, "$t asserts something: its TAP comes from $1");
			next;
		}
		my $asserts = () = $code =~ /(?:^|[\s;&|({!])(?:ok|is|check_golden)\s+["\$(0-9]/mg;
		my $plan = $code =~ /\bdone_testing\b|\b1\.\.\$|["']1\.\./;
		my @why;
		push @why, "no ok, is or check_golden call" unless $asserts;
		push @why, "no plan (done_testing or 1..N)" unless $plan;
		result(!@why, "$t asserts something ($asserts calls) and prints a plan", @why);
	} else {
		my $c = "$t.c";
		my $s = $text{$c};
		if (!defined $s) { result(0, "$t: its source $c exists"); next; }
		my $asserts = () = $s =~ /\b(?:ok|is_str)\s*\(/g;
		my @why;
		push @why, "does not include tap.h" unless $s =~ /#include\s+"tap\.h"/;
		push @why, "no ok() or is_str() call" unless $asserts;
		push @why, "does not end with tap_done()" unless $s =~ /\btap_done\s*\(/;
		result(!@why, "$t asserts something ($asserts calls) and prints a plan", @why);
	}
}

# ---- every test script is run ----
my @stray = grep { m{^tests/.*\.sh$} && !$in_tests{$_} && $text{$_} =~ m{^\.\s+"\$srcdir/tests/lib\.sh"}m } @files;
result(!@stray, "every script that sources tests/lib.sh is in TESTS", map { "not in TESTS: $_" } @stray);

# ---- every file is referenced ----
my @referrers = sort keys %text;
sub dir_of { my ($p) = @_; (my $d = $p) =~ s{/[^/]*$}{}; return $d; }
sub base_of { my ($p) = @_; (my $b = $p) =~ s{.*/}{}; return $b; }
sub names_dir {    # does text T name directory D: tests/X, or X/Y for tests/X/Y?
	my ($t, $d) = @_;
	(my $rel = $d) =~ s{^tests/}{};
	my $name = $rel =~ m{/} ? qr{(?:tests/)?\Q$rel\E} : qr{tests/\Q$rel\E};
	return $t =~ m{(?:^|[^A-Za-z0-9_.-])$name(?:[^A-Za-z0-9_.-]|$)};
}
sub glob_re {
	my ($g) = @_;
	my $r = join('', map { $_ eq '*' ? '.*' : $_ eq '?' ? '.' : quotemeta($_) } split(//, $g));
	return qr/^$r$/;
}

my (%found, %why_not);
my %by_dir;
push @{ $by_dir{dir_of($_)} }, $_ for grep { m{^tests/[^/]+/} } @files;
# Files right in tests/ (the scripts, lib.sh, ...) are in Makefile.am or
# sourced: by name only.
push @{ $by_dir{'tests'} }, grep { m{^tests/[^/]+$} } @files;

for my $d (sort keys %by_dir) {
	my @in = @{ $by_dir{$d} };
	# Makefile.am names every directory (EXTRA_DIST): it reads none.
	my @namers = grep { $_ ne 'Makefile.am' && names_dir($code{$_}, $d) } @referrers;
	my %ref;
	for my $p (@in) {
		my $b = base_of($p);
		(my $rel = $p) =~ s{^tests/}{};
		(my $below = $p) =~ s{^\Q$d\E/}{};
		for my $r (@referrers) {
			next if $r eq $p;
			my $t = $text{$r};
			if (index($t, $rel) >= 0 || $t =~ /(?:^|[^A-Za-z0-9_.-])\Q$b\E(?:[^A-Za-z0-9_-]|$)/) {
				$ref{$p} = "by name"; last;
			}
		}
		next if $ref{$p};
		if ($d =~ m{/corpus$} && @namers) { $ref{$p} = "as a fuzz seed"; next; }
		for my $r (@namers) {
			my $t = $code{$r};
			my @globs = $t =~ /\*((?:\.[A-Za-z0-9_-]+)+)\b/g;
			my @cexts = $t =~ /"(\.[A-Za-z0-9_-]+)"/g;
			if (grep { $b =~ glob_re("*$_") } @globs or grep { substr($b, -length($_)) eq $_ && length($b) > length($_) } @cexts) {
				$ref{$p} = "by a glob"; last;
			}
		}
	}
	# Companions: a suffix built from a variable, beside a file found above
	# with the same first part (or a first part the builder names).
	for my $p (@in) {
		next if $ref{$p};
		my $b = base_of($p);
		my ($first) = $b =~ /^([^.]+)\./ or next;
		my ($last) = $b =~ /(\.[^.]+)$/;
		my %firsts = map { (base_of($_) =~ /^([^.]+)/)[0] => 1 } grep { $ref{$_} } @in;
		for my $r (@namers) {
			my $t = $code{$r};
			next unless $t =~ /(?:\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^}]+\}|\$[0-9])(?:\.[A-Za-z0-9_-]+)*\Q$last\E\b/;
			if ($firsts{$first} || $t =~ /(?:^|[^A-Za-z0-9_.-])\Q$first\E(?:[^A-Za-z0-9_-]|$)/) {
				$ref{$p} = "as a companion"; last;
			}
		}
	}
	print STDERR "$_: ", ($ref{$_} // 'nothing'), "\n" for $ENV{TESTS_LINT_VERBOSE} ? @in : ();
	my @orphans = grep { !$ref{$_} } @in;
	my $n = @in;
	result(!@orphans, "$d: every file is referenced ($n)", map { "nothing refers to $_" } @orphans);
}
PERL
st=$?
if [ $st -ne 0 ]; then
	ok 1 "the tests lint runs"
	diag < "$tmpdir/perl.err"
fi

# The report as TAP: "ok|not ok<TAB>DESCRIPTION", then "#<TAB>WHY" lines.
while IFS='	' read -r status what; do
	case $status in
	ok) ok 0 "$what" ;;
	'not ok') ok 1 "$what" ;;
	'#') echo "$what" | diag ;;
	esac
done < "$tmpdir/report"

# A test that sets the EXIT trap itself replaces lib.sh's, which removes
# its temp dir: servers are stopped with at_exit instead.
traps=$(cd "$srcdir" && grep -ln '^[[:space:]]*\. "$srcdir/tests/lib.sh"' tests/*.sh |
	xargs grep -n '^[[:space:]]*trap .*EXIT' 2> /dev/null | grep -v '^tests/lib.sh:')
is "$traps" "" "no test sets the EXIT trap itself (at_exit keeps lib.sh's removal of the temp dir)"

done_testing
