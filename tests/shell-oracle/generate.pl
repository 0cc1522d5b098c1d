#!/usr/bin/perl
# Strings generated from the shell grammar for tests/shell-oracle.sh:
# generate.pl SEED COUNT prints COUNT records separated by lines of %%.
# The same seed gives the same strings on every machine (the generator has
# its own xorshift32, not perl's rand).  The strings compose simple commands,
# words (quoting, parameter expansions, command and process substitutions,
# arithmetic, brace expansion, globs, tildes), redirections, here-documents
# and here-strings into pipelines, lists and compound commands.  Every loop
# is bounded and nothing reads a terminal, so each string ends by itself.
use strict;
use warnings;

my ($seed, $count) = @ARGV;
die "usage: generate.pl SEED COUNT\n" unless defined $count && $count =~ /^\d+$/;
my $state = ($seed * 2654435761 + 1) & 0xffffffff;
$state ||= 1;

sub rnd { # rnd N: 0 .. N-1
	my ($n) = @_;
	$state ^= ($state << 13) & 0xffffffff;
	$state ^= $state >> 17;
	$state ^= ($state << 5) & 0xffffffff;
	return $state % $n;
}
sub pick { return $_[ rnd(scalar @_) ]; }

# Programs that exist, end by themselves and read no terminal; their
# arguments are chosen to be valid enough to run.
my @progs = (
	[ 'echo', 'hi' ], [ 'printf', "'%s\\n' x" ], [ 'true' ], [ 'false' ], [ 'cat', 'README.md' ],
	[ 'ls', '-la' ], [ 'wc', '-l README.md' ], [ 'grep', '-n a README.md' ], [ 'sed', 's/a/b/ README.md' ],
	[ 'head', '-n 1 README.md' ], [ 'tail', '-n 1 README.md' ], [ 'sort', 'README.md' ], [ 'uniq', 'README.md' ],
	[ 'tr', 'a b' ], [ 'cut', '-c1 README.md' ], [ 'basename', '/a/b' ], [ 'dirname', '/a/b' ], [ 'id', '-u' ],
	[ 'uname', '-s' ], [ 'env' ], [ 'test', '-f README.md' ], [ 'expr', '1 + 2' ], [ 'seq', '3' ],
	[ 'awk', "'{print \$1}' README.md" ], [ 'touch', 'new.txt' ], [ 'mkdir', '-p d/e' ], [ 'rm', '-f new.txt' ],
	[ 'cp', 'README.md copy.md' ], [ 'mv', '-f copy.md moved.md' ], [ 'git', 'status --short' ], [ 'git', 'log --oneline -1' ],
	[ 'find', '. -name "*.md"' ], [ 'tee', 'out.txt' ], [ 'date', '+%Y' ], [ 'sleep', '0' ], [ 'stat', 'README.md' ],
	[ 'diff', 'README.md input.txt' ], [ 'md5sum', 'README.md' ], [ 'xargs', 'echo' ], [ 'comm', 'README.md input.txt' ],
);
my @builtins = ('echo hi', ':', 'true', 'cd src', 'cd ..', 'pwd', 'x=1', 'export Y=2', 'local_var=3', 'set -- a b',
	'shift', 'read -r v <<< word', 'printf -v v %s x', 'declare -a arr=(1 2 3)', 'unset v', 'type ls',
	'command -v ls', 'hash -r', 'set +e', 'umask 022', 'test -d src', '[ -f README.md ]', 'let n=1+2', 'v=$((1+2))');

sub name { return pick(qw(x y n v i s)); }

sub param {
	my $v = name();
	return pick("\$$v", "\${$v}", "\${$v:-w}", "\${$v:=w}", "\${$v:+alt}", "\${#$v}", "\${$v%.*}",
		"\${$v#*/}", "\${$v/a/b}", "\${$v^^}", "\${$v:0:1}", '$1', '$@', '"$@"', '$#', '$?', '$$',
		"\${arr[1]}", "\${arr[@]}", "\${#arr[@]}", "\${!arr[@]}");
}

my $depth = 0;
my $in_sub = 0;   # inside $(...), `...` or <(...): no here-documents, no newlines
my @pending;      # here-document bodies waiting for the end of their line
sub word {
	my $r = rnd(22);
	return pick(qw(README.md input.txt src data.txt -n -v a b foo bar)) if $r < 6;
	return "'" . pick('single quoted', 'a b', '$x', '$(id)', '"') . "'" if $r == 6;
	return '"' . pick('double $x', 'a b', "\${x:-d}", 'it\'s', '\$x', '\"q\"') . '"' if $r == 7;
	return param() if $r == 8;
	return '"' . param() . '"' if $r == 9;
	return pick('*.md', 'src/*', '?EADME.md', '[RI]*') if $r == 10;
	return pick('{a,b}', 'x{1..3}', '{a,b}{c,d}', 'f{,.bak}') if $r == 11;
	return pick('~', '~/x', '~+') if $r == 12;
	return "\$((" . pick('1 + 2', 'n * 2', '3 % 2', '1 << 2', '(1 + 2) * 3') . "))" if $r == 13;
	return "\$'" . pick('\x41', '\n', 'a\tb', '\x27') . "'" if $r == 14;
	return pick('a\ b', 'a\\$b', '\*', 'x\;y') if $r == 15;
	if ($depth < 2) {
		$depth++;
		$in_sub++;
		my $w;
		if ($r == 16) { $w = '$(' . pipeline() . ')'; }
		elsif ($r == 17) { $w = '"$(' . pipeline() . ')"'; }
		elsif ($r == 18) { $w = '<(' . pipeline() . ')'; }
		elsif ($r == 19) { $w = '`' . simple_plain() . '`'; }
		elsif ($r == 20) { $w = "\${x:-\$(" . simple_plain() . ")}"; }
		else { $w = pick('a', 'b') . word(); }
		$in_sub--;
		$depth--;
		return $w;
	}
	return 'w' . rnd(10);
}

sub redir {
	return pick('> out.txt', '>> log.txt', '2> err.txt', '2>&1', '< README.md', '&> all.txt', '>/dev/null',
		'<<< ' . word(), '3>&1', '1>&2', '>| out.txt', '<> rw.txt');
}

sub simple_plain {
	my $p = pick(@progs);
	my @w = ($p->[0]);
	push @w, $p->[1] if defined $p->[1] && rnd(4);
	push @w, word() for 1 .. rnd(3);
	return join(' ', @w);
}

sub simple {
	my $r = rnd(10);
	my $s = $r < 2 ? pick(@builtins) : simple_plain();
	$s = name() . '=' . word() . ' ' . $s if rnd(6) == 0;
	$s .= ' ' . redir() if rnd(4) == 0;
	$s = pick('command', 'env', 'nice', 'timeout 5', 'nohup', 'time', 'exec env', 'builtin') . " $s"
		if rnd(12) == 0 && $s !~ /^(\w+=|cd|x=|export|set|shift|read|printf -v|declare|unset|let|v=|local_var=)/;
	return $s;
}

sub pipeline {
	my @c = (simple());
	push @c, simple_plain() for 1 .. (rnd(3) == 0 ? 1 + rnd(2) : 0);
	my $p = join(pick(' | ', ' |& '), @c);
	return (rnd(10) == 0 ? '! ' : '') . $p;
}

# A command reading a here-document; its body waits in @pending for the
# end of the line (see flush_line).
sub heredoc {
	my $d = pick('EOF', 'END', 'X');
	my $q = rnd(3);
	my $open = $q == 0 ? $d : $q == 1 ? "'$d'" : "\"$d\"";
	my $op = pick('<<', '<<-');
	my @body = map { pick('text $x', 'line `echo hi`', '$(uname -s)', 'plain', "\${x:-y}", '\$notexp', "tab\tbed", 'a\\', '$\\') } 0 .. rnd(3);
	push @body, 'end';
	@body = map { "\t$_" } @body if $op eq '<<-';
	push @pending, join("\n", @body) . "\n" . ($op eq '<<-' ? "\t" : '') . $d;
	return pick('cat', 'wc -l', 'bash', 'sed s/a/b/', 'tee out.txt') . " $op$open";
}

# A newline, with the here-document bodies of the line before it.
sub flush_line {
	my $s = "\n";
	$s .= join("\n", @pending) . "\n" if @pending;
	@pending = ();
	return $s;
}

sub command {
	my $r = rnd(24);
	return simple() if $r < 9;
	return pipeline() if $r < 12;
	$depth++;
	my $c;
	if ($r == 12) { $c = 'if ' . pipeline() . '; then ' . list() . '; ' . (rnd(2) ? 'else ' . list() . '; ' : '') . 'fi'; }
	elsif ($r == 13) { $c = 'for ' . name() . ' in ' . join(' ', map { word() } 0 .. rnd(3)) . '; do ' . list() . '; done'; }
	elsif ($r == 14) { $c = 'for ((i = 0; i < 2; i++)); do ' . list() . '; done'; }
	elsif ($r == 15) { $c = 'while ' . pick('false', '[ -f nope ]', '! true') . '; do ' . list() . '; done'; }
	elsif ($r == 16) { $c = 'case ' . word() . ' in ' . pick('a|b', '*.md', '[0-9]*', '"x"') . ') ' . list() . ' ;; *) ' . list() . ' ;; esac'; }
	elsif ($r == 17) { $c = '{ ' . list() . '; }' . (rnd(2) ? ' ' . redir() : ''); }
	elsif ($r == 18) { $c = '( ' . list() . ' )'; }
	elsif ($r == 19) { my $f = pick('f', 'g', 'do_it'); $c = "$f() { " . list() . "; }; $f " . word(); }
	elsif ($r == 20) { $c = '(( ' . pick('n = 1 + 2', 'n++', '1 < 2', 'arr[1] = 4') . ' ))'; }
	elsif ($r == 21) { $c = '[[ ' . word() . pick(' == ', ' != ', ' =~ ', ' < ') . pick('a*', 'b', '^x$', '"q"') . ' ]]'; }
	elsif ($r == 22 && !$in_sub) { $c = heredoc(); }
	else { $c = pick('bash -c', 'sh -c', 'eval') . " '" . simple_plain_noquote() . "'"; }
	$depth--;
	return $c;
}

sub simple_plain_noquote { (my $s = simple_plain()) =~ s/'//g; return $s; }

sub list {
	my @c = (command());
	for (1 .. rnd(3)) {
		my $sep = pick(' && ', ' || ', '; ', "\n", ' & ');
		$sep = '; ' if $sep eq "\n" && $in_sub;
		$sep = flush_line() if $sep eq "\n";
		push @c, $sep . command();
	}
	return join('', @c);
}

for my $i (1 .. $count) {
	$depth = 0;
	print "%%\n" if $i > 1;
	my $s = list();
	$s .= flush_line() if @pending;
	# Stray background jobs: wait for them, so what they run is the string's.
	$s =~ s/\n$//;
	$s .= "\nwait" if $s =~ / & /;
	print "$s\n";
}
