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
#   enter it; a nested repository that names nothing is left alone.
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
}

for p in $passes; do
	pass "$p"
done
done_testing
