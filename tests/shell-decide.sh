#!/bin/sh
# Shell command decisions: every case in tests/shell-decide/NAME.cases is an
# exec request judged under the presets read-only and workspace-write of
# rules/default.cordon, with the program specs of rules/commands.cordon.
#
# A case is one line, `[todo "WHY"] RO WW [| SRO SWW] COMMAND`: the expected
# effects (allow, ask or deny) under read-only and workspace-write for a
# host that runs the command itself, optionally those for a request that
# runs under cordon's sandbox ("sandboxed": true), then the command line,
# verbatim, to the end of the line.  `todo` marks a known gap: a
# mismatch is reported as TAP `# TODO` and does not fail the run, and a
# todo case that matches under both presets says so, to drop the marker.
# Blank lines and lines starting with `#` are comments.  Every case runs in
# one fixed context (below).
#
# Each preset and kind of request is one `cordon eval --stdin` process for
# all the cases.  Each
# case and preset is one TAP line; a mismatch shows the decision's JSON.
# Then, per file, the operations every case became (with their effects under
# both presets) are compared with tests/shell-decide/NAME.golden;
# `CORDON_ACCEPT=1 make check` writes the goldens.
#
# Run by hand: CORDON=$PWD/cordon srcdir=$PWD builddir=$PWD sh tests/shell-decide.sh
. "$srcdir/tests/lib.sh"

policy=$srcdir/rules/default.cordon
cases_dir=$srcdir/tests/shell-decide

context="workspace=/srv/ws cwd=/srv/ws home=/home/u tmp=/tmp/cordon-t user=u
agent_dir=/srv/ws/.agent session_dir=/srv/ws/.agent/s1"

# decide PRESET < REQUESTS > DECISIONS
decide() {
	set -- --preset "$1"
	for kv in $context; do
		set -- "$@" --context "$kv"
	done
	"$CORDON" eval -p "$policy" "$@" --stdin
}

# The cases only mean something to an evaluator that analyses shell
# commands: one that judges the command line as a whole would pass many
# cases by chance and fail the rest for no fault of theirs.
probe='{"op":"exec","target":"cat /home/u/.ssh/id_rsa"}'
if ! printf '%s\n' "$probe" | decide read-only 2>&1 | grep -q '"decision":"deny"'; then
	for f in "$cases_dir"/*.cases; do
		skip "$(basename "$f")" "the evaluator does not analyse shell commands"
	done
	done_testing
	exit
fi

# The requests, one a line (sandboxed ones in a second file), and an index:
# FILE<TAB>TODO<TAB>RO<TAB>WW<TAB>SRO<TAB>SWW<TAB>COMMAND (SRO, SWW "-": not checked).
# A line that is neither a comment nor a case is an error in the corpus.
if ! perl -MJSON::PP -e '
	my ($req, $sreq, $index) = @ARGV[0, 1, 2];
	open(my $r, ">", $req) or die "$req: $!\n";
	open(my $sr, ">", $sreq) or die "$sreq: $!\n";
	open(my $x, ">", $index) or die "$index: $!\n";
	my $json = JSON::PP->new->canonical->utf8(0);
	my $bad = 0;
	for my $file (@ARGV[3 .. $#ARGV]) {
		open(my $in, "<", $file) or die "$file: $!\n";
		(my $name = $file) =~ s{.*/}{};
		$name =~ s{\.cases$}{};
		while (my $line = <$in>) {
			chomp $line;
			next if $line =~ /^\s*(#|$)/;
			if ($line !~ /^(?:todo\s+"([^"\t]+)"\s+)?(allow|ask|deny)\s+(allow|ask|deny)\s+(?:\|\s+(allow|ask|deny)\s+(allow|ask|deny)\s+)?(\S.*)$/) {
				print STDERR "$file:$.: not a case: $line\n";
				$bad = 1;
				next;
			}
			print $r $json->encode({ op => "exec", target => $6 }), "\n";
			print $sr $json->encode({ op => "exec", target => $6, sandboxed => JSON::PP::true }), "\n";
			print $x "$name\t", $1 // "", "\t$2\t$3\t", $4 // "-", "\t", $5 // "-", "\t$6\n";
		}
	}
	exit $bad;
' "$tmpdir/requests" "$tmpdir/srequests" "$tmpdir/index" "$cases_dir"/*.cases 2>"$tmpdir/corpus.err"; then
	ok 1 "the corpus is well formed"
	diag < "$tmpdir/corpus.err"
	done_testing
	exit
fi

status=0
decide read-only < "$tmpdir/requests" > "$tmpdir/ro" 2>"$tmpdir/ro.err" || status=$?
decide workspace-write < "$tmpdir/requests" > "$tmpdir/ww" 2>"$tmpdir/ww.err" || status=$?
decide read-only < "$tmpdir/srequests" > "$tmpdir/sro" 2>"$tmpdir/sro.err" || status=$?
decide workspace-write < "$tmpdir/srequests" > "$tmpdir/sww" 2>"$tmpdir/sww.err" || status=$?
if [ "$status" -ne 0 ]; then
	ok 1 "cordon eval --stdin runs (status $status)"
	cat "$tmpdir/ro.err" "$tmpdir/ww.err" "$tmpdir/sro.err" "$tmpdir/sww.err" | diag
	done_testing
	exit
fi

# Compare: one result line a case and preset, `STATUS<TAB>TODO<TAB>DESCRIPTION`,
# diagnostics as `# ...` lines; the operations go to $tmpdir/NAME.golden.
perl -MJSON::PP -e '
	my ($index, $ro, $ww, $sro, $sww, $dir) = @ARGV;
	open(my $x, "<", $index) or die "$index: $!\n";
	open(my $a, "<", $ro) or die "$ro: $!\n";
	open(my $b, "<", $ww) or die "$ww: $!\n";
	open(my $sa, "<", $sro) or die "$sro: $!\n";
	open(my $sb, "<", $sww) or die "$sww: $!\n";
	my $json = JSON::PP->new->utf8(1);
	my %golden;
	sub ops {
		my ($d) = @_;
		return () unless ref $d eq "HASH" && ref $d->{operations} eq "ARRAY";
		return map { [ "$_->{op} $_->{target}", $_->{decision} ] } @{ $d->{operations} };
	}
	while (my $case = <$x>) {
		chomp $case;
		my ($name, $todo, $want_ro, $want_ww, $want_sro, $want_sww, $cmd) = split /\t/, $case, 7;
		my @got;
		for my $fh ($a, $b, $sa, $sb) {
			my $line = <$fh>;
			$line = "{\"error\":\"no decision\"}\n" unless defined $line;
			chomp $line;
			my $d = eval { $json->decode($line) } || { error => "not JSON" };
			push @got, [ $d, $line ];
		}
		(my $desc = $cmd) =~ s/#/\\#/g;
		my @want = ($want_ro, $want_ww, $want_sro, $want_sww);
		my @label = ("RO", "WW", "sandboxed RO", "sandboxed WW");
		my $fails = 0;
		for my $i (0 .. 3) {
			next if $want[$i] eq "-";
			my ($d, $line) = @{ $got[$i] };
			my $effect = $d->{decision} // "error";
			my $okay = $effect eq $want[$i] ? 0 : 1;
			$fails += $okay;
			print "$okay\t", ($okay ? $todo : ""), "\t$label[$i] $want[$i]: $desc\n";
			print "# got $effect: $line\n" if $okay;
		}
		print "# todo case passes now, drop its marker: $cmd\n" if $todo ne "" && !$fails;
		my @o = map { [ ops($_->[0]) ] } @got[0, 1];
		my $text = "\$ $cmd\n  => " . ($got[0][0]{decision} // "error") . " / "
			 . ($got[1][0]{decision} // "error") . "\n";
		my $n = @{ $o[0] } > @{ $o[1] } ? @{ $o[0] } : @{ $o[1] };
		for my $k (0 .. $n - 1) {
			my ($p, $q) = ($o[0][$k], $o[1][$k]);
			my $what = $p ? $p->[0] : $q->[0];
			$what .= " | " . $q->[0] if $p && $q && $p->[0] ne $q->[0];
			$text .= "  $what: " . ($p ? $p->[1] : "-") . " / " . ($q ? $q->[1] : "-") . "\n";
		}
		$golden{$name} .= $text;
	}
	for my $name (sort keys %golden) {
		open(my $g, ">", "$dir/$name.golden") or die "$dir/$name.golden: $!\n";
		print $g $golden{$name};
	}
' "$tmpdir/index" "$tmpdir/ro" "$tmpdir/ww" "$tmpdir/sro" "$tmpdir/sww" "$tmpdir" > "$tmpdir/results" || {
	ok 1 "the decisions can be compared"
	done_testing
	exit
}

# Like ok (tests/lib.sh), but with printf: commands hold backslashes,
# which some shells' echo would interpret.  A TODO line does not fail the run.
result() { # result STATUS DESCRIPTION TODO-REASON
	tap_n=$((tap_n + 1))
	if [ -n "$3" ]; then
		printf 'not ok %d - %s # TODO %s\n' "$tap_n" "$2" "$3"
	elif [ "$1" -eq 0 ]; then
		printf 'ok %d - %s\n' "$tap_n" "$2"
	else
		printf 'not ok %d - %s\n' "$tap_n" "$2"
		tap_failed=$((tap_failed + 1))
	fi
}

tab=$(printf '\t')
while IFS= read -r line; do
	case $line in
	"#"*) printf '%s\n' "$line" ;;
	*)
		status=${line%%"$tab"*}
		rest=${line#*"$tab"}
		result "$status" "${rest#*"$tab"}" "${rest%%"$tab"*}"
		;;
	esac
done < "$tmpdir/results"

for f in "$cases_dir"/*.cases; do
	name=$(basename "$f" .cases)
	check_golden "$tmpdir/$name.golden" "$cases_dir/$name.golden" "operations of $name.cases"
done

done_testing
