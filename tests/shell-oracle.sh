#!/bin/sh
# The shell analysis against bash itself.  Every string of the corpus runs
# under real bash, traced by `strace -f -e trace=execve,...`, in a throwaway
# bubblewrap sandbox (no network, a read-only system, a fresh copy of a small
# git workspace per string); the same string goes to `cordon eval --stdin
# --preset workspace-write` for a host without a sandbox.  Counted:
#
#  - misses: a program bash started that the preview neither lists nor
#    covers, while the decision is allow.  "Started by bash" is an execve
#    made by a process whose every ancestor since the string's own bash is
#    a shell (bash, sh, dash) or a wrapper cordon unwraps (env, timeout,
#    xargs, find -exec, ...): what a program such as git or make starts is
#    its spec's business, not the shell analysis's.
#  - parse failures: `bash -n` accepts the string, cordon cannot parse it
#    (bash -n runs, outside the sandbox, on the strings cordon could not
#    parse: it reads, never runs).
#  - wrong previews: a program bash started is missing from a preview that
#    asks or denies but claims to be complete (nothing opaque, nothing
#    unparsed): the person approving it would have seen other programs.
#
# The corpus (tests/shell-oracle/): adversarial.txt, one record a class of
# hidden execution; tree-sitter-bash.txt, the code of the tree-sitter-bash
# grammar's test corpus (MIT, see tree-sitter-bash.LICENSE); the commands
# of tests/shell-decide/*.cases; and strings generate.pl composes from the
# shell grammar with a fixed seed.  Records are separated by lines of %%.
#
# A longer run, another seed:
#   CORDON_ORACLE_SEED=7 CORDON_ORACLE_GENERATED=50000 make check TESTS=tests/shell-oracle.sh
# CORDON_ORACLE_JOBS (default 2) sandboxes run at once.  As root the
# strings run as the unprivileged user nobody.
. "$srcdir/tests/lib.sh"

dir=$srcdir/tests/shell-oracle
seed=${CORDON_ORACLE_SEED:-31}
generated=${CORDON_ORACLE_GENERATED:-5000}
jobs=${CORDON_ORACLE_JOBS:-2}
limit=2 # seconds a string may run before timeout(1) ends it

for tool in strace bwrap perl; do
	if ! command -v "$tool" > /dev/null; then
		skip "bash as the oracle of the shell analysis" "$tool is not installed"
		done_testing
		exit
	fi
done

chmod 755 "$tmpdir"
AS=
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
fi

# The sandbox: the system read-only, nothing of the host's home or work
# trees, no network, a private /tmp, the corpus read-only at /b, the
# strings' workspaces under /w and the traces in /out (both per sandbox).
sandbox() { # sandbox OUTDIR CMD...
	out=$1
	shift
	set -- --unshare-all --die-with-parent --new-session --clearenv \
		--ro-bind /usr /usr --ro-bind /etc /etc --dev /dev --proc /proc \
		--tmpfs /tmp --tmpfs /run --tmpfs /home --dir /home/u --tmpfs /w \
		--ro-bind "$tmpdir/b" /b --ro-bind "$tmpdir/seed" /seed --bind "$out" /out \
		--setenv PATH /usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		--setenv HOME /home/u --setenv LANG C.UTF-8 --setenv USER u "$@"
	for l in bin lib lib64 sbin lib32 libx32; do
		[ -L "/$l" ] && set -- --symlink "$(readlink "/$l")" "/$l" "$@"
		[ -d "/$l" ] && [ ! -L "/$l" ] && set -- --ro-bind "/$l" "/$l" "$@"
	done
	$AS bwrap "$@"
}

mkdir -p "$tmpdir/b" "$tmpdir/seed" "$tmpdir/probe"
chmod 777 "$tmpdir/probe"
if ! sandbox "$tmpdir/probe" strace -f -qq -e trace=execve -o /out/t /bin/true 2> "$tmpdir/probe.err"; then
	skip "bash as the oracle of the shell analysis" \
		"no sandbox with strace here: $(head -1 "$tmpdir/probe.err")"
	done_testing
	exit
fi

# The workspace each string starts in: a git repository with text files,
# a C file, a Makefile and a script.
seed_dir=$tmpdir/seed
printf '# demo\nhello world\n' > "$seed_dir/README.md"
printf 'a\nb\nc\n' > "$seed_dir/input.txt"
printf '1 2\n3 4\n' > "$seed_dir/data.txt"
printf 'README.md\ninput.txt\n' > "$seed_dir/list.txt"
mkdir -p "$seed_dir/src" "$seed_dir/scripts"
printf 'int main(void) { return 0; }\n' > "$seed_dir/src/main.c"
printf 'all:\n\ttrue\n' > "$seed_dir/Makefile"
printf '#!/bin/sh\necho built\n' > "$seed_dir/scripts/build.sh"
chmod 755 "$seed_dir/scripts/build.sh"
git -C "$seed_dir" init -q --template= && git -C "$seed_dir" add -A &&
	git -C "$seed_dir" -c user.name=t -c user.email=t@example.invalid commit -qm seed
chmod -R a+rX "$seed_dir"

# The corpus: /b/N.sh a string, $tmpdir/index `N<TAB>SOURCE` a line, the
# requests for cordon in $tmpdir/requests (one context a string).
perl "$dir/generate.pl" "$seed" "$generated" > "$tmpdir/generated.txt"
perl -MJSON::PP -e '
	my ($b, $index, $req, @files) = @ARGV;
	my $json = JSON::PP->new->canonical->utf8(0);
	my (%seen, @rec);
	for my $f (@files) {
		(my $src = $f) =~ s{.*/}{};
		open(my $in, "<", $f) or die "$f: $!\n";
		local $/;
		my $t = <$in>;
		if ($src =~ /\.cases$/) {
			for (split /\n/, $t) {
				next if /^\s*(#|$)/;
				push @rec, [ "agent:$src", $1 ]
				  if /^(?:todo\s+"[^"\t]+"\s+)?(?:(?:allow|ask|deny)\s+){2}(?:\|\s+(?:allow|ask|deny)\s+(?:allow|ask|deny)\s+)?(\S.*)$/;
			}
			next;
		}
		$t =~ s/^## .*\n//mg;
		push @rec, map { [ $src, $_ ] } grep { /\S/ } split /^%%\n/m, $t;
	}
	open(my $x, ">", $index) or die "$index: $!\n";
	open(my $r, ">", $req) or die "$req: $!\n";
	my $n = 0;
	for (@rec) {
		my ($src, $s) = @$_;
		$s =~ s/\n\z//;
		next if $seen{$s}++;
		$n++;
		open(my $o, ">", "$b/$n.sh") or die "$b/$n.sh: $!\n";
		print $o "$s\n";
		print $x "$n\t$src\n";
		print $r $json->encode({ op => "exec", target => $s,
			context => { workspace => "/w/$n", cwd => "/w/$n" } }), "\n";
	}
' "$tmpdir/b" "$tmpdir/index" "$tmpdir/requests" "$dir/adversarial.txt" \
	"$dir/tree-sitter-bash.txt" "$srcdir"/tests/shell-decide/*.cases "$tmpdir/generated.txt" ||
	{ ok 1 "the corpus can be read"; done_testing; exit; }
chmod -R a+rX "$tmpdir/b"
total=$(wc -l < "$tmpdir/index")

# What cordon predicts, for a host that runs the command itself.
"$CORDON" eval -p "$srcdir/rules/default.cordon" --preset workspace-write \
	--context home=/home/u --context user=u --context tmp=/tmp/cordon-oracle \
	--stdin < "$tmpdir/requests" > "$tmpdir/decisions" 2> "$tmpdir/eval.err"
ok $? "cordon eval decides the $total strings"

# What bash does: the strings split into $jobs lists, each run by one
# driver under strace in a sandbox of its own.  A string that kills its
# driver (pkill bash, kill -9 -1) ends that run; the list resumes after it
# in a new sandbox, so every string runs once.
cat > "$tmpdir/b/driver" << EOF
i=0
while read -r n; do
	echo "\$n" >> /out/started
	cp -a /seed "/w/\$n" && cd "/w/\$n" || exit 1
	timeout -k 1 $limit /bin/bash "/b/\$n.sh" < /dev/null > /dev/null 2>&1
	echo "\$n \$?" >> /out/done
	# What the string left running (a daemon, a background job) ends
	# here: strace waits for every process it traces.
	for p in /proc/[0-9]*; do
		p=\${p#/proc/}
		[ "\$p" -gt "\$PPID" ] && [ "\$p" -ne \$\$ ] && kill -9 "\$p" 2> /dev/null
	done
	cd /
	i=\$((i + 1))
	[ \$((i % 64)) -ne 0 ] || rm -rf /w/*
done < "/b/list.\$1"
EOF
cut -f1 "$tmpdir/index" | awk -v j="$jobs" '{ print > ("'"$tmpdir"'/b/list." (NR % j)) }'
run_list() { # run_list K: runs list K to its end, through drivers that die
	k=$1
	i=0
	cp "$tmpdir/b/list.$k" "$tmpdir/todo.$k"
	while [ -s "$tmpdir/todo.$k" ]; do
		i=$((i + 1))
		out=$tmpdir/out.$k.$i
		mkdir -p "$out"
		chmod 777 "$out"
		cp "$tmpdir/todo.$k" "$tmpdir/b/list.$k.$i"
		chmod a+r "$tmpdir/b/list.$k.$i"
		sandbox "$out" strace -f --seccomp-bpf -qq -e signal=none -s 128 \
			-e trace=execve,clone,clone3,fork,vfork -o /out/trace \
			/bin/bash /b/driver "$k.$i" > /dev/null 2>&1
		last=$(tail -1 "$out/started" 2> /dev/null)
		[ -n "$last" ] || break
		sed "1,/^$last\$/d" "$tmpdir/todo.$k" > "$tmpdir/todo.$k.next"
		mv "$tmpdir/todo.$k.next" "$tmpdir/todo.$k"
	done
}
k=0
while [ "$k" -lt "$jobs" ]; do
	run_list "$k" &
	k=$((k + 1))
done
wait

# Whether bash accepts the strings cordon could not parse.
perl -ne 'print "$.\n" if /"detail":"unparsed"/' "$tmpdir/decisions" |
	while read -r n; do
		bash -n "$tmpdir/b/$n.sh" > /dev/null 2>&1
		echo "$n $?"
	done > "$tmpdir/syntax"

perl "$dir/compare.pl" "$tmpdir/index" "$tmpdir/decisions" "$tmpdir/syntax" "$tmpdir"/out.*.* \
	> "$tmpdir/report" 2> "$tmpdir/compare.err" ||
	{ ok 1 "the traces can be compared"; diag < "$tmpdir/compare.err"; done_testing; exit; }

count() { sed -n "s/^$1 //p" "$tmpdir/report"; }
ran=$(count ran)
min=5000
[ "$generated" -ge 4000 ] || min=0
ok "$([ "$ran" -ge "$min" ] && echo 0 || echo 1)" "bash ran $ran of $total strings (at least $min)"
ok "$([ "$(count canary)" = yes ] && echo 0 || echo 1)" "the trace shows the programs bash starts (cat README.md started cat)"
is "$(count misses)" 0 "no program bash started is missing from an allowed preview"
is "$(count parse-failures)" 0 "no string bash accepts fails to parse"
is "$(count wrong-previews)" 0 "no complete-looking preview misses a program bash started"
grep '^#' "$tmpdir/report" | diag
done_testing
