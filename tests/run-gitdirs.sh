#!/bin/sh
# Where git really keeps a repository, and the repositories a command makes,
# under `cordon run --preset workspace-write`, run for real with the host's
# git afterwards:
# - a .git that is a symlink (relative, or absolute to a directory outside
#   the workspace) refuses the launch: a symlink is no mount point, and the
#   command could put a git directory of its own in its place;
# - a .git file ("gitdir: X", relative or absolute) whose directory lies in
#   the workspace: its config, hooks and commondir are protected as .git's;
# - a repository the command makes (or one it changes) below the top, that
#   names a program git runs, reached through a gitlink in the index: its
#   .git is moved aside after the call, so the host's git status does not
#   enter it; a nested repository that names nothing is left alone;
# - the same of a .git the command makes in a workspace without one, and
#   of a Mercurial .hg it makes (or whose hgrc-not-shared it adds), whose
#   hgrc sets hooks, extensions or an %include; and that inside the call
#   a missing .hg or .git is missing (cargo init picks git).
# The host's git status and commit run nothing planted.  As root and again
# as an unprivileged user (nobody).
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "git directories under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi
if ! command -v git > /dev/null; then
	skip "git directories under cordon run" "git is not installed"
	done_testing
	exit
fi

passes=$(runner_passes)
# cargo through rustup finds its toolchain under the home it was installed in.
cargo=$(command -v cargo || true)
case $cargo in /root/*) cargo_home=/root ;; esac

pass() { # pass NAME
	runner_pass "$1"
	H=$P/home O=$P/other M=$P/marker
	mkdir -p "$H" "$O"
	runner_own "$P"
	U() { # U DIR COMMAND...: run it on the host, as the pass's user, in DIR
		d=$1
		shift
		(cd "$d" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb GIT_CONFIG_NOSYSTEM=1 \
			GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.com \
			GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.com "$@")
	}
	R() { # R WORKSPACE SCRIPT: run the script file under cordon; its status
		U "$1" "$C" run --preset workspace-write --workspace "$1" -- sh "$2" \
			> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	}
	unmarked() { [ ! -e "$M" ]; }
	repo() { # repo DIR: a repository with one commit, made as the pass's user
		mkdir -p "$1"
		runner_own "$P"
		U "$1" sh -c 'git init -q -b main . && git config user.name Dev &&
			git config user.email dev@example.com && echo a > f && git add f &&
			git commit -q -m initial'
	}
	plant() { # plant WORD: a config whose fsmonitor the host's git status runs, for printf
		printf '[core]\\n\\tfsmonitor = "echo %s >> %s; false #"\\n' "$1" "$M"
	}

	# A .git that links to a git directory in the workspace, relative; then
	# one that links to a directory outside it, absolute.  The command
	# would put a directory of its own in the link's place.
	for how in relative absolute; do
		W=$P/link-$how
		repo "$W.tmp"
		if [ $how = relative ]; then
			mkdir -p "$W" && mv "$W.tmp/.git" "$W/store.git" && ln -s store.git "$W/.git"
		else
			mkdir -p "$W" && mv "$W.tmp/.git" "$O/$how.git" && ln -s "$O/$how.git" "$W/.git"
		fi
		cp "$W.tmp/f" "$W/f"
		runner_own "$W" "$O"
		cat > "$W/attack.sh" <<EOF
cp -r .git/. new.git && rm -rf new.git/commondir new.git/config.worktree && rm .git && mv new.git .git
printf '$(plant symlink)' >> .git/config
EOF
		R "$W" attack.sh
		rc=$?
		U "$W" git status --short > /dev/null 2>&1
		unmarked && [ $rc -eq 125 ] && [ -L "$W/.git" ] &&
			grep -q "$W/.git is a symlink" "$tmpdir/err"
		ok $? "$t a .git symlink ($how) refuses the launch, naming it; the host's git status runs nothing planted (status $rc)"
		[ $rc -eq 125 ] || diag < "$tmpdir/err"
		[ -e "$M" ] && diag < "$M"
		rm -f "$M"
	done

	# A .git file whose git directory lies in the workspace, relative: its
	# config and commondir are protected, and git runs inside.
	W=$P/file-relative
	repo "$W"
	U "$W" sh -c 'mv .git store.git && echo "gitdir: store.git" > .git && git status --short' \
		> /dev/null || echo "git does not read a relative gitdir" | diag
	cat > "$W/attack.sh" <<EOF
printf '$(plant gitfile)' >> store.git/config
mkdir -p elsewhere && cp -r store.git/. elsewhere/ && printf '$(plant commondir)' >> elsewhere/config
echo ../elsewhere > store.git/commondir
git status --short > /dev/null && echo x >> f && git commit -q -am inside && echo ok > inside-ok
EOF
	R "$W" attack.sh
	rc=$?
	U "$W" git status --short > /dev/null 2>&1
	unmarked && ! grep -q fsmonitor "$W/store.git/config" && [ ! -e "$W/store.git/commondir" ] &&
		[ -f "$W/inside-ok" ] && U "$W" git log --format=%s | grep -qx inside
	ok $? "$t a .git file (gitdir: store.git): its config and commondir are not written; git commits inside; the host's git status runs nothing planted (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# The same with the path absolute, and a hook planted for a host commit.
	W=$P/file-absolute
	repo "$W"
	U "$W" sh -c "mv .git '$W/.store' && echo 'gitdir: $W/.store' > .git"
	cat > "$W/attack.sh" <<EOF
printf '#!/bin/sh\necho hook >> $M\n' > .store/hooks/pre-commit && chmod +x .store/hooks/pre-commit
EOF
	R "$W" attack.sh
	rc=$?
	U "$W" sh -c 'echo y >> f && git commit -q -am host' > /dev/null 2>&1
	unmarked && [ ! -e "$W/.store/hooks/pre-commit" ]
	ok $? "$t a .git file with an absolute gitdir: no hook can be planted in it; the host's commit runs none (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# A repository the command makes below the top, with an fsmonitor, and
	# added to the index as a gitlink: the host's git status would enter
	# it.  Its .git is moved aside after the call.
	W=$P/super
	repo "$W"
	cat > "$W/attack.sh" <<EOF
mkdir sub && cd sub && git init -q && git -c user.name=A -c user.email=a@b commit -q --allow-empty -m x
printf '$(plant nested)' >> .git/config
cd .. && git update-index --add --cacheinfo 160000,\$(git -C sub rev-parse HEAD),sub
EOF
	R "$W" attack.sh
	rc=$?
	U "$W" git status --short > /dev/null 2>&1
	unmarked && [ ! -e "$W/sub/.git" ] && [ -d "$W/sub/.git.cordon-disarmed" ] &&
		grep -q "$W/sub (core.fsmonitor)" "$tmpdir/err"
	ok $? "$t a nested repository the command made with an fsmonitor, behind a gitlink, is disarmed and named; the host's git status runs nothing planted (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# The same hidden in a directory the command then makes unlistable:
	# root lists it anyway, another user gives it back its u+rx bits (the
	# call changed it), and the repository is disarmed.
	cat > "$W/attack2.sh" <<EOF
mkdir -p hid/sub2 && cd hid/sub2 && git init -q && git -c user.name=A -c user.email=a@b commit -q --allow-empty -m x
printf '$(plant hidden)' >> .git/config
cd ../.. && git update-index --add --cacheinfo 160000,\$(git -C hid/sub2 rev-parse HEAD),hid/sub2
chmod 0 hid
EOF
	R "$W" attack2.sh
	rc=$?
	chmod 755 "$W/hid"
	U "$W" git status --short > /dev/null 2>&1
	[ -d "$W/hid/sub2/.git.cordon-disarmed" ] && grep -q "$W/hid/sub2 (core.fsmonitor)" "$tmpdir/err" &&
		unmarked
	ok $? "$t a nested repository in a directory the command made unlistable is disarmed (status $rc)"
	[ -e "$W/hid/sub2/.git" ] && diag < "$tmpdir/err"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# Another spelling: the nested repository existed before the call, its
	# .git a file that points to a directory elsewhere in the workspace;
	# the command adds a clean filter by an include, and the gitlink by
	# git add; the host touches a file, which its status would clean
	# through the filter.  Another, behind a gitlink made before, keeps
	# its config and gets its fsmonitor (tools/mon.sh) rewritten.  A nested repository the command makes with no
	# program named stays as it is, and so does one made before the call
	# whose config names one (core.editor) that the call left alone, and
	# one whose hooks were there before (git lfs's) that it committed in.
	W=$P/super2
	repo "$W"
	repo "$W/vendor/lib"
	repo "$W/keep"
	U "$W/keep" git config core.editor vi
	repo "$W/tooled"
	mkdir -p "$W/tooled/tools"
	printf '#!/bin/sh\nexit 1\n' > "$W/tooled/tools/mon.sh"
	chmod +x "$W/tooled/tools/mon.sh"
	runner_own "$W/tooled"
	U "$W/tooled" git config core.fsmonitor tools/mon.sh
	U "$W" git add tooled > /dev/null 2>&1
	repo "$W/lfs"
	printf '#!/bin/sh\nexit 0\n' > "$W/lfs/.git/hooks/post-checkout"
	chmod +x "$W/lfs/.git/hooks/post-checkout"
	runner_own "$W/lfs"
	U "$W" sh -c 'mv vendor/lib/.git .libgit && echo "gitdir: ../../.libgit" > vendor/lib/.git &&
		git -C vendor/lib status --short' > /dev/null ||
		echo "git does not read the nested gitdir file" | diag
	cat > "$W/attack.sh" <<EOF
printf '[filter "x"]\n\tclean = "echo filter >> $M; cat"\n' > extra.cfg
printf '[include]\n\tpath = ../extra.cfg\n' >> .libgit/config
echo '* filter=x' > vendor/lib/.gitattributes
git add vendor/lib
mkdir plain && git -C plain init -q && git -C plain config user.name Someone
echo more >> lfs/f && git -C lfs add f && git -C lfs commit -q -m more
printf '#!/bin/sh\necho tooled >> $M\nexit 1\n' > tooled/tools/mon.sh
EOF
	R "$W" attack.sh
	rc=$?
	U "$W" sh -c 'touch -m -d 2000-01-01 vendor/lib/f; git status --short' > /dev/null 2>&1
	unmarked && [ ! -e "$W/vendor/lib/.git" ] && [ -f "$W/vendor/lib/.git.cordon-disarmed" ] &&
		grep -q "$W/vendor/lib (include.path)" "$tmpdir/err" && [ -d "$W/plain/.git" ] &&
		! grep -q "$W/plain" "$tmpdir/err" && [ -d "$W/keep/.git" ] && [ -d "$W/lfs/.git" ] &&
		[ -d "$W/tooled/.git.cordon-disarmed" ]
	ok $? "$t a nested repository behind a .git file, given an include by the command, is disarmed, and so is one whose unchanged fsmonitor the command rewrote; one that names no program is left alone, and so is one the call did not change, and one with its own hooks the command committed in (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# A workspace with neither .hg nor .git: inside the call both are
	# missing (no fence makes one), and a .hg the command makes with a
	# hook and an extension is moved aside after the call and named, so
	# is a nested one that only %includes a file; one that names only
	# [paths] and ui.username stays.  Where hg is installed, the host's
	# hg status runs nothing planted.
	W=$P/hgws
	mkdir -p "$W"
	runner_own "$W"
	cat > "$W/attack.sh" <<EOF
{ test ! -e .hg && test ! -e .git && echo absent; } > seen
mkdir .hg && printf 'store\n' > .hg/requires
printf '[paths]\ndefault = https://example.com/r\n[hooks]\npre-status = echo hg >> $M\n[extensions]\nevil = $W/evil.py\n' > .hg/hgrc
printf 'open("$M", "a").write("ext")\n' > evil.py
mkdir -p inc/.hg && printf '%%include ../../evil.rc\n' > inc/.hg/hgrc
mkdir -p sub/.hg && printf '[paths]\ndefault = https://example.com/s\n[ui]\nusername = A\n' > sub/.hg/hgrc
EOF
	R "$W" attack.sh
	rc=$?
	is "$(cat "$W/seen" 2> /dev/null)" absent "$t inside the call a missing .hg and .git are missing: no fence shows a repository (status $rc)"
	[ ! -e "$W/.hg" ] && [ -d "$W/.hg.cordon-disarmed" ] &&
		grep -q "$W (hooks.pre-status, extensions.evil): its .hg is now" "$tmpdir/err" &&
		[ ! -e "$W/inc/.hg" ] && grep -q "$W/inc (%include)" "$tmpdir/err" &&
		[ -f "$W/sub/.hg/hgrc" ] && ! grep -q "$W/sub " "$tmpdir/err"
	ok $? "$t a .hg the command made with a hook and an extension is moved aside and named, so is one with an %include; one with only [paths] and ui.username stays"
	if command -v hg > /dev/null; then
		U "$W" hg status > /dev/null 2>&1
		unmarked
		ok $? "$t the host's hg status runs nothing planted"
	else
		skip "$t the host's hg status runs nothing planted" "hg is not installed (the files on disk were checked)"
	fi
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"

	# The workspace's own .hg of launch, without an hgrc: the command can
	# make no hgrc (fenced inside .hg, where no tool probes), and one
	# given a hgrc-not-shared, which hg reads too, is moved aside.
	W=$P/hgown
	mkdir -p "$W/.hg" && printf 'store\n' > "$W/.hg/requires"
	runner_own "$W"
	cat > "$W/attack.sh" <<EOF
printf '[hooks]\nupdate = echo own >> $M\n' > .hg/hgrc && echo hgrc-written > seen
printf '[hooks]\nupdate = echo own >> $M\n' > .hg/hgrc-not-shared
EOF
	R "$W" attack.sh
	rc=$?
	[ ! -e "$W/seen" ] && [ ! -e "$W/.hg" ] && [ -d "$W/.hg.cordon-disarmed" ] &&
		[ ! -f "$W/.hg.cordon-disarmed/hgrc" ] && grep -q "$W (hooks.update)" "$tmpdir/err"
	ok $? "$t the workspace's own .hg: no hgrc can be made, and one given a hgrc-not-shared with a hook is moved aside and named (status $rc)"

	# A workspace without .git: cargo init inside makes a git repository
	# (no placeholder .git or .hg misleads it); a git init with an
	# fsmonitor there is disarmed like a nested repository.
	W=$P/cargo
	mkdir -p "$W"
	runner_own "$W"
	if [ -n "$cargo" ] && $AS test -x "$cargo"; then
		(cd "$W" && $AS timeout -s KILL 120 env -i PATH="${cargo%/*}:/usr/bin:/bin" \
			HOME="${cargo_home:-$H}" LANG=C.UTF-8 "$C" run --preset workspace-write \
			--workspace "$W" -- cargo init -q --name demo > "$tmpdir/out" 2> "$tmpdir/err")
		rc=$?
		[ -f "$W/.gitignore" ] && [ ! -e "$W/.hgignore" ] && [ -d "$W/.git" ] &&
			git -C "$W" rev-parse --git-dir > /dev/null 2>&1
		ok $? "$t cargo init in the call picks git and makes the repository (status $rc)"
		[ -d "$W/.git" ] || diag < "$tmpdir/err"
	else
		skip "$t cargo init in the call picks git" "cargo is not installed, or this user cannot run it"
	fi
	W=$P/gitless
	mkdir -p "$W"
	printf 'git init -q && git config core.fsmonitor "echo top >> %s; false"\n' "$M" > "$W/attack.sh"
	runner_own "$W"
	R "$W" attack.sh
	rc=$?
	U "$W" git status --short > /dev/null 2>&1
	unmarked && [ ! -e "$W/.git" ] && [ -d "$W/.git.cordon-disarmed" ] &&
		grep -q "$W (core.fsmonitor)" "$tmpdir/err"
	ok $? "$t a .git the command made in a workspace without one, with an fsmonitor, is disarmed and named (status $rc)"
	[ -e "$M" ] && diag < "$M"
	rm -f "$M"
}

for p in $passes; do
	pass "$p"
done
done_testing
