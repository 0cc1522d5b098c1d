#!/bin/sh
# The home directory in a write root, and what a call leaves in a project,
# under `cordon run --preset workspace-write`, run for real:
# - a workspace that contains the home directory (as /home or / do) keeps
#   every home protection: startup files, git's user config, services,
#   autostart, PATH directories;
# - a workspace that is the home directory: its configuration (the
#   dot-entries at its top and what lies below them) is not written, a
#   .pth file in Python's user site-packages does not reach the host's
#   next python3, nor does a startup file of a name no list holds; the
#   other entries stay writable, and a cache the policy names writable is;
# - files beside protected ones in a project (other agents' MCP and rule
#   files) are not written; those read only when a person starts a tool
#   (.devcontainer.json, .hg/hgrc, .aider.conf.yml) are moved aside after;
# - nothing cordon makes for a call shows to git: git status inside shows
#   only what the command made, git add -A && git commit commits only
#   that, and no placeholder is a regular file.
# The scripts run as `sh FILE`, so the analysis sees none of the writes:
# each refusal is the sandbox's.  As root and as an unprivileged user.
. "$srcdir/tests/lib.sh"

cordon_bin=${CORDON_REAL:-$CORDON}
chmod 755 "$tmpdir"

if ! "$cordon_bin" probe > "$tmpdir/probe" 2>&1; then
	skip "the home directory under cordon run" \
		"$(grep -E 'missing|refused|unavailable|UNAVAILABLE' "$tmpdir/probe" | head -1)"
	done_testing
	exit
fi
if ! command -v git > /dev/null; then
	skip "the home directory under cordon run" "git is not installed"
	done_testing
	exit
fi

passes=$(runner_passes)

# The attack: append a line to each path given (making its directory),
# report what was written.  Paths relative to the home directory.
cat > "$tmpdir/plant.sh" <<'EOF'
cd "$1" && shift
for f in "$@"; do
	mkdir -p "$(dirname "$f")" 2> /dev/null
	if printf '%s\n' "$PLANT" >> "$f" 2> /dev/null; then echo "WROTE $f"; fi
done
exit 0
EOF

pass() { # pass NAME
	runner_pass "$1"
	TOP=$P/top H=$P/top/home/u M=$P/marker
	mkdir -p "$H/.config" "$H/.local/share" "$H/proj" "$H/.cache"
	echo orig > "$H/.bashrc"
	echo notes > "$H/notes.txt"
	cp "$tmpdir/plant.sh" "$P/plant.sh"
	runner_own "$P"
	U() { # U DIR COMMAND...: run it on the host, as the pass's user, in DIR
		d=$1
		shift
		(cd "$d" && $AS timeout -s KILL 60 env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$H" LANG=C.UTF-8 TERM=dumb GIT_CONFIG_NOSYSTEM=1 "$@")
	}
	plant() { # plant WORKSPACE PATH...: the attack under cordon, its output in $tmpdir/out
		ws=$1
		shift
		U "$ws" env PLANT="echo planted >> $M" "$C" run --preset workspace-write \
			--workspace "$ws" -- sh "$P/plant.sh" "$H" "$@" \
			> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	}

	# A workspace that contains the home directory.
	home_files=".bashrc .profile .zshenv .gitconfig .config/git/config
		.config/systemd/user/x.service .config/autostart/x.desktop .local/bin/git"
	# shellcheck disable=SC2086
	plant "$TOP" $home_files
	rc=$?
	is "$(cat "$tmpdir/out")" "" \
		"$t a workspace that contains the home directory: no startup file, git config, service, autostart entry or PATH entry of the home directory is written (status $rc)"
	[ "$(cat "$H/.bashrc")" = orig ] && [ ! -e "$H/.profile" ] && [ ! -e "$H/.local/bin" ]
	ok $? "$t … and the host's files are as they were"

	# A workspace that is the home directory.  Python's user
	# site-packages runs every .pth file at the host's next python3.
	if command -v python3 > /dev/null &&
		site=$(U "$H" python3 -c 'import site; print(site.getusersitepackages())' 2> /dev/null) &&
		[ -n "$site" ]; then
		U "$H" mkdir -p "$site"
		printf 'cd "%s"\necho "import os; open(\\"%s\\", \\"a\\").write(\\"pth\\\\n\\")" > evil.pth\nexit 0\n' \
			"$site" "$M" > "$P/pth.sh"
		U "$H" "$C" run --preset workspace-write --workspace "$H" -- sh "$P/pth.sh" \
			> /dev/null 2>&1 < /dev/null
		rc=$?
		U "$H" python3 -c pass > /dev/null 2>&1
		[ ! -e "$M" ] && [ ! -e "$site/evil.pth" ]
		ok $? "$t the home directory as the workspace: a .pth file in Python's user site-packages is not written, and the host's next python3 runs nothing (status $rc)"
		rm -f "$M"
	else
		skip "$t a .pth file in Python's user site-packages" "python3 is not installed"
	fi
	# What the issue named, names no list holds (.inputrc, .gdbinit,
	# .config/nvim, .npm-init.js, .xprofile), and a new file at the top,
	# which cannot be made there either.
	config=".bash_aliases .claude.json .config/environment.d/x.conf .xsessionrc .vimrc
		.config/nvim/init.lua .config/Code/User/settings.json .config/direnv/direnv.toml
		.cargo/config.toml .config/pip/pip.conf .inputrc .gdbinit .npm-init.js .xprofile
		.local/share/applications/x.desktop .bashrc bin/git new.txt"
	# shellcheck disable=SC2086
	plant "$H" $config notes.txt proj/a.c
	rc=$?
	is "$(cat "$tmpdir/out")" "WROTE notes.txt
WROTE proj/a.c" \
		"$t the home directory as the workspace: none of its configuration is written, named by a list or not, nor a new file at its top; its other entries are (status $rc)"
	# shellcheck disable=SC2086
	(cd "$H" && for f in $config; do [ -e "$f" ] && echo "$f"; done) > "$tmpdir/found"
	is "$(cat "$tmpdir/found")" ".bashrc" "$t … nothing was made on the host, and .bashrc is as it was"
	[ "$(cat "$H/.bashrc")" = orig ]
	ok $? "$t … .bashrc holds what it held"
	# A cache the policy names writable is: ordinary policy, no list.
	cat > "$P/cache.cordon" <<'EOF'
cordon 1;
include "default.cordon";
preset "home-cache" extends "workspace-write" {
  description "workspace-write, plus the user's cache";
  write "~/.cache" allow;
}
EOF
	cp "$srcdir/rules/default.cordon" "$srcdir/rules/commands.cordon" \
		"$srcdir/rules/redact.cordon" "$P/" 2> /dev/null
	runner_own "$P"
	U "$H" "$C" run -p "$P/cache.cordon" --preset home-cache --workspace "$H" -- \
		sh "$P/plant.sh" "$H" .cache/pip/x .vimrc > "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	is "$(cat "$tmpdir/out")" "WROTE .cache/pip/x" \
		"$t write \"~/.cache\" allow opens the cache and nothing else (status $rc)"
	[ -s "$tmpdir/err" ] && [ $rc -ne 0 ] && diag < "$tmpdir/err"
	# The read-only top: what cannot be made there, and nothing left behind.
	ls -A "$H" > "$tmpdir/after"
	printf '%s\n' .bashrc .cache .config .local notes.txt proj > "$tmpdir/want"
	is "$(sort "$tmpdir/after" | tr '\n' ' ')" "$(sort "$tmpdir/want" | tr '\n' ' ')" \
		"$t no fence or placeholder is left in the home directory"
	# The plan says how: the home directory read-only, what may be written
	# bound back, its configuration not.
	U "$H" "$C" compile --preset workspace-write --context workspace="$H" \
		--context tmp="$P/call" --emit bwrap > "$tmpdir/plan" 2> /dev/null
	grep -q "\"--ro-bind\",\"$H\",\"$H\"" "$tmpdir/plan" &&
		grep -q "\"--bind\",\"$H/notes.txt\",\"$H/notes.txt\"" "$tmpdir/plan" &&
		grep -q "\"--bind\",\"$H/proj\",\"$H/proj\"" "$tmpdir/plan" &&
		! grep -q "\"--bind\",\"$H/\." "$tmpdir/plan"
	ok $? "$t the plan binds the home directory read-only, and its entries but the configuration back"

	# A project: files beside protected ones.
	WS=$P/ws
	mkdir -p "$WS"
	runner_own "$WS"
	U "$WS" sh -c 'git init -q -b main . && git config user.name Dev &&
		git config user.email dev@example.com && echo a > f && git add -A &&
		git commit -q -m initial' > "$tmpdir/err" 2>&1 || diag < "$tmpdir/err"
	beside=".devcontainer.json .hg/hgrc .roo/mcp.json .kiro/settings/mcp.json .amazonq/mcp.json
		.windsurf/rules/x.md .continue/config.yaml .clinerules .cursorrules .aider.conf.yml
		.zed/settings.json .mcp.json"
	printf 'for f in %s; do mkdir -p "$(dirname "$f")" 2> /dev/null; echo x >> "$f" 2> /dev/null && echo "WROTE $f"; done; exit 0\n' \
		"$(echo $beside)" > "$WS/beside.sh"
	U "$WS" "$C" run --preset workspace-write --workspace "$WS" -- sh beside.sh \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	# Those read only when a person starts a tool (.devcontainer.json,
	# .hg/hgrc, .aider.conf.yml) are not fenced: written inside, moved
	# aside after the call.
	is "$(cat "$tmpdir/out" | tr '\n' ' ')" "WROTE .devcontainer.json WROTE .hg/hgrc WROTE .aider.conf.yml " \
		"$t the MCP and rule files of Roo, Kiro, Amazon Q, Windsurf, Continue, Cline, Cursor and Zed are not written (status $rc)"
	# shellcheck disable=SC2086
	(cd "$WS" && for f in $beside; do [ -e "$f" ] && echo "$f"; done) > "$tmpdir/found"
	is "$(cat "$tmpdir/found")" "" "$t … and none is left on the host: .devcontainer.json, .hg and .aider.conf.yml are moved aside"
	rm -rf "$WS"/.*.cordon-disarmed # what was moved aside is named for a person: out of the checks below

	# What git sees inside a call: only what the command made.
	cat > "$WS/commit.sh" <<'EOF'
echo made > made.txt
git status --porcelain --ignored > status.out
find . -mindepth 1 -maxdepth 1 ! -name .git -type f -empty > empty-files.out
git add -A && git commit -q -m agent 2> .git/commit.err
git show --name-only --format= HEAD > .git/committed.out
git submodule status > .git/submodule.out 2>&1
if [ -e .gitmodules ]; then echo present; else echo absent; fi >> .git/submodule.out
EOF
	U "$WS" git add commit.sh beside.sh > /dev/null 2>&1
	U "$WS" git commit -q -m scripts > /dev/null 2>&1
	U "$WS" "$C" run --preset workspace-write --workspace "$WS" -- sh commit.sh \
		> "$tmpdir/out" 2> "$tmpdir/err" < /dev/null
	rc=$?
	is "$(cat "$WS/status.out" 2> /dev/null)" "?? made.txt
?? status.out" \
		"$t git status inside a call shows only what the command made (status $rc)"
	is "$(sort "$WS/.git/committed.out" 2> /dev/null | tr '\n' ' ')" \
		"empty-files.out made.txt status.out " \
		"$t git add -A && git commit inside commits only what the command made"
	is "$(cat "$WS/empty-files.out" 2> /dev/null)" "./empty-files.out" \
		"$t no placeholder at the top of the workspace is a regular file"
	is "$(cat "$WS/.git/submodule.out" 2> /dev/null)" "absent" \
		"$t a missing .gitmodules is missing inside the call too, and git says nothing"
	U "$WS" git status --porcelain > "$tmpdir/host-status"
	is "$(cat "$tmpdir/host-status")" "" "$t afterwards the host's git status is clean"
}

for name in $passes; do
	pass "$name"
done
done_testing
