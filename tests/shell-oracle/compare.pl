#!/usr/bin/perl
# compare.pl INDEX DECISIONS SYNTAX OUTDIR...: the programs bash started
# (from the strace logs and done files in each OUTDIR, see
# tests/shell-oracle.sh) against cordon's decisions, one JSON line a string
# in INDEX's order; SYNTAX holds `N STATUS` lines, bash -n's verdict.
# Prints `ran N`, `canary yes|no`, `misses N`, `parse-failures N`,
# `wrong-previews N`, then `# ...` lines naming each finding.
use strict;
use warnings;
use JSON::PP;

my ($index, $decisions, $syntax_file, @outs) = @ARGV;

# The programs whose children still count as started by the shell: the
# shells themselves and the wrappers the analysis unwraps (lib/shell/shell.h),
# but fakeroot: a shell script whose own helpers (getopt, cut, sed) are no
# part of the command it runs.
my %starter = map { $_ => 1 } qw(bash sh dash rbash env nice nohup timeout time stdbuf ionice
	setsid taskset chroot unbuffer busybox xargs find su sudo doas flock watch);
# The wrappers: the preview names what they run, not them.
my %wrapper = (%starter, fakeroot => 1);
delete @wrapper{qw(bash sh dash rbash)};

my (%src, @order);
open(my $x, "<", $index) or die "$index: $!\n";
while (<$x>) {
	chomp;
	my ($n, $s) = split /\t/;
	$src{$n} = $s;
	push @order, $n;
}

my (%ran, %syntax, %status, %started);
open(my $sy, "<", $syntax_file) or die "$syntax_file: $!\n";
while (<$sy>) {
	my ($n, $st) = split;
	$syntax{$n} = $st;
}
for my $out (@outs) {
	if (open(my $d, "<", "$out/done")) {
		while (<$d>) {
			my ($n, $st) = split;
			$ran{$n} = 1;
			$status{$n} = $st;
		}
	}
	read_trace("$out/trace") if -e "$out/trace";
}

sub base { my ($p) = @_; $p =~ s{.*/}{}; return $p; }

# One trace: which process forked which (first pass), then every successful
# execve in order, with the state of the process that made it.
sub read_trace {
	my ($file) = @_;
	open(my $t, "<", $file) or die "$file: $!\n";
	my @lines = <$t>;
	my %parent;
	for (@lines) {
		$parent{$3} = $1
		  if /^(\d+)\s+(?:<\.\.\. )?(clone3?|fork|vfork)(?: resumed>|\().* = (\d+)$/;
	}
	my (%state, %pending);
	my $state_of;
	$state_of = sub {
		my ($pid) = @_;
		return $state{$pid} if $state{$pid};
		my $pp = $parent{$pid};
		my $p = defined $pp ? $state_of->($pp) : { owner => undef, ok => 0, image => "" };
		return $state{$pid} = { owner => $p->{owner}, ok => $p->{ok} && $starter{ $p->{image} },
			image => $p->{image} };
	};
	for (@lines) {
		my ($pid, $path, $argv);
		if (/^(\d+)\s+execve\("((?:[^"\\]|\\.)*)", \[(.*?)\], .*?(<unfinished \.\.\.>|= (-?\d+).*)$/) {
			if ($4 eq "<unfinished ...>") {
				$pending{$1} = [ $2, $3 ];
				next;
			}
			next unless $5 eq "0";
			($pid, $path, $argv) = ($1, $2, $3);
		} elsif (/^(\d+)\s+<\.\.\. execve resumed>.* = (-?\d+)/) {
			my $p = delete $pending{$1};
			next unless $p && $2 eq "0";
			($pid, $path, $argv) = ($1, @$p);
		} else {
			next;
		}
		my $s = $state_of->($pid);
		if ($argv =~ m{^"/bin/bash", "/b/(\d+)\.sh"$}) {
			@$s{qw(owner ok image)} = ($1, 1, "bash");
			next;
		}
		if (defined $s->{owner} && $s->{ok} && $starter{ $s->{image} }) {
			$started{ $s->{owner} }{ base($path) } = 1;
		}
		$s->{image} = base($path);
	}
}

# The preview of each string: the programs it names, whether it has a part
# cordon itself judged (opaque or unparsed: no rule decided it).
my $json = JSON::PP->new->utf8(1);
open(my $dec, "<", $decisions) or die "$decisions: $!\n";
my ($misses, $parse, $wrong, $timeouts, $nran, $canary) = (0, 0, 0, 0, 0, "no");
my @notes;
for my $n (@order) {
	my $line = <$dec>;
	die "$decisions: no decision for string $n\n" unless defined $line;
	next unless $ran{$n};
	$nran++;
	$timeouts++ if $status{$n} == 124 || $status{$n} == 137;
	my $d = $json->decode($line);
	my (%listed, $opaque, $unparsed);
	for my $o (@{ $d->{operations} // [] }) {
		next unless $o->{op} eq "exec";
		my $detail = $o->{detail} // "";
		$unparsed = 1 if $detail eq "unparsed";
		next if $detail eq "";
		$opaque = 1 unless defined $o->{rule};
		$listed{$1} = 1 if $detail =~ /^runs \(spec "([^"]+)"\)/;
		(my $first = $o->{target}) =~ s/\s.*//s;
		$first =~ s/['"\\]//g;
		$listed{ base($first) } = 1;
	}
	my $text = read_string($n);
	$canary = "yes" if $text eq "cat README.md\n" && $started{$n}{cat};
	if ($unparsed && ($syntax{$n} // 1) == 0) {
		$parse++;
		push @notes, "parse failure [$src{$n} #$n]: " . oneline($text);
	}
	for my $prog (sort keys %{ $started{$n} // {} }) {
		next if $listed{$prog} || $wrapper{$prog};
		if ($d->{decision} eq "allow") {
			$misses++;
			push @notes, "miss [$src{$n} #$n]: $prog, allowed: " . oneline($text);
		} elsif (!$opaque && !$unparsed) {
			$wrong++;
			push @notes, "wrong preview [$src{$n} #$n]: $prog, $d->{decision}: " . oneline($text);
		}
	}
}

sub read_string {
	my ($n) = @_;
	(my $dir = $outs[0]) =~ s{/[^/]*$}{/b};
	open(my $f, "<", "$dir/$n.sh") or return "";
	local $/;
	return <$f>;
}

sub oneline {
	my ($s) = @_;
	$s =~ s/\n\z//;
	$s =~ s/\\/\\\\/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/\t/\\t/g;
	return length($s) > 300 ? substr($s, 0, 300) . "..." : $s;
}

print "ran $nran\ncanary $canary\nmisses $misses\nparse-failures $parse\nwrong-previews $wrong\n";
print "# $nran strings ran, $timeouts ended by the time limit\n";
print "# $_\n" for @notes;
