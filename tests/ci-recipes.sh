#!/bin/sh
# The CI recipes of the documentation, run as written: the steps of every
# GitHub Actions job in README.md, docs/lint.md and docs/ci.md, and the git
# pre-commit hook of docs/lint.md, against the cordon just built, in a
# scratch repository whose pull request narrows (every step passes) or
# widens (the widening gate fails, saying why on stderr).  The step that
# installs packages is not run: its package list is checked against what
# configure.ac requires.  The step that clones and builds cordon is not run
# either: the cordon under test stands in for what it installs.  Two things
# differ from a runner: `${{ github.base_ref }}` is `main`, and /tmp in a
# step is this test's scratch directory, so that two runs share no file.
. "$srcdir/tests/lib.sh"

for tool in git bash awk; do
	if ! command -v "$tool" > /dev/null; then
		skip "the CI recipes of the documentation" "$tool is missing"
		done_testing
		exit
	fi
done

mkdir "$tmpdir/bin" "$tmpdir/tmp"
printf '#!/bin/sh\nexec "$CORDON" "$@"\n' > "$tmpdir/bin/cordon"
chmod +x "$tmpdir/bin/cordon"
export CORDON
git_id="-c user.name=ci -c user.email=ci@example.org -c init.defaultBranch=main"

# ---- the packages configure needs ----------------------------------------------
# configure.ac names the Debian package of every library and tool it refuses
# to go on without; autoreconf needs autoconf and automake, the build a C
# compiler.
sed -n "s/.*install the Debian package '\([^']*\)'.*/\1/p" "$srcdir/configure.ac" | sort -u > "$tmpdir/required"
printf '%s\n' autoconf automake >> "$tmpdir/required"
[ "$(wc -l < "$tmpdir/required")" -ge 8 ]
ok $? "configure.ac names the Debian packages it needs"

check_packages() { # check_packages SCRIPT DESCRIPTION
	# The words after `apt-get install`, continuation lines joined.
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | sed -n 's/.*apt-get install \(.*\)/\1/p' |
		sed 's/&&.*//' | tr ' ' '\n' | grep -v '^-' | grep . | sort -u > "$tmpdir/listed"
	missing=$(sort -u "$tmpdir/required" | comm -23 - "$tmpdir/listed" | tr '\n' ' ')
	grep -q -x -e build-essential -e gcc "$tmpdir/listed" || missing="$missing(a C compiler)"
	is "$missing" "" "$2: apt-get installs what configure needs"
	# Where dpkg knows, the libraries configure finds belong to those packages.
	if command -v dpkg > /dev/null && command -v pkg-config > /dev/null; then
		owners=""
		for module in $(sed -n 's/^PKG_CHECK_MODULES(\[[A-Z0-9]*\], \[\([^] ]*\).*/\1/p' "$srcdir/configure.ac"); do
			pc="$(pkg-config --variable=pcfiledir "$module" 2> /dev/null)/$module.pc"
			owner=$(dpkg -S "$pc" 2> /dev/null | sed 's/:.*//')
			[ -n "$owner" ] && ! grep -q -x "$owner" "$tmpdir/listed" && owners="$owners$owner "
		done
		is "$owners" "" "$2: the packages that hold configure's libraries here are listed"
	else
		skip "$2: the packages that hold configure's libraries" "dpkg or pkg-config is missing"
	fi
}

# ---- the scratch repository ----------------------------------------------------
# policies/team.cordon builds on the shipped default (no default.cordon
# beside it), lints clean, and its tests exercise all its rules.
team_policy() { # team_policy EXTRA-RULE EXTRA-EXPECTATION
	cat <<EOF
cordon 1;

include "default.cordon";

preset "team" extends "workspace-write" {
  description "workspace-write, the build output left to the build";
  write "\${workspace}/dist" deny "the build writes it";
  $1
}

test "team" {
  preset "team";
  context workspace = "/ws", home = "/home/u", tmp = "/tmp/t",
          agent_dir = "/home/u/.cordon", session_dir = "/home/u/.cordon/s";
  expect deny  write "/ws/dist/app.js";
  $2
}

default "team";
EOF
}

new_repo() { # new_repo NAME: a clone whose origin/main has the base policy
	repo="$tmpdir/$1"
	git init -q --bare "$repo.git" &&
		git $git_id clone -q "$repo.git" "$repo" 2> /dev/null &&
		mkdir "$repo/policies" &&
		team_policy 'net   "registry.npmjs.org:443" allow;' \
			'expect allow net   "registry.npmjs.org:443";' > "$repo/policies/team.cordon" &&
		(cd "$repo" && git add policies && git $git_id commit -q -m base &&
			git push -q origin HEAD:main 2> /dev/null && git fetch -q origin)
}

new_repo narrows
ok $? "a scratch repository with policies/team.cordon on origin/main"
# The pull request drops the registry: it only narrows.
team_policy '' '' > "$tmpdir/narrows/policies/team.cordon"
new_repo widens
# This one also lets the agent reach every host.
team_policy 'net   "registry.npmjs.org:443", "*" allow;' \
	'expect allow net   "example.com:443";' > "$tmpdir/widens/policies/team.cordon"

run_step() { # run_step SCRIPT REPO: as a runner's `bash -e`, in REPO
	sed -e 's/\${{ *github\.base_ref *}}/main/g' -e "s|/tmp/|$tmpdir/tmp/|g" "$1" > "$tmpdir/step.sh"
	(cd "$2" && PATH="$tmpdir/bin:$PATH" bash --noprofile --norc -eo pipefail "$tmpdir/step.sh") \
		> "$tmpdir/step.out" 2> "$tmpdir/step.err"
}

# ---- each job, step by step ------------------------------------------------------
for doc in README.md docs/lint.md docs/ci.md; do
	steps="$tmpdir/steps/$doc"
	mkdir -p "$steps"
	awk -v out="$steps" -f "$srcdir/tests/ci-recipes/workflow-steps.awk" "$srcdir/$doc" > "$steps/index"
	grep -q "	run	" "$steps/index"
	ok $? "$doc: the job's steps are found"
	tab=$(printf '\t')
	while IFS="$tab" read -r block step kind what name; do
		label="$doc job $block step $step${name:+ ($name)}"
		[ "$kind" = run ] || continue
		if grep -q 'apt-get install' "$what"; then
			check_packages "$what" "$label"
		fi
		if grep -q 'git clone' "$what"; then
			grep -q 'autoreconf -fi && ./configure && make && sudo make install' "$what"
			ok $? "$label: builds and installs cordon as the set-up does (not run here)"
			continue
		fi
		grep -q 'apt-get install' "$what" && continue
		run_step "$what" "$tmpdir/narrows"
		rc=$?
		ok $rc "$label: passes on a change that narrows"
		[ $rc -eq 0 ] || { diag < "$what"; diag < "$tmpdir/step.err"; }
		run_step "$what" "$tmpdir/widens"
		rc=$?
		if grep -q -- '--fail-on-widen' "$what"; then
			[ $rc -eq 1 ] && [ "$(wc -l < "$tmpdir/step.err")" -eq 1 ] &&
				grep -q '^cordon: the change widens what the policy grants ([0-9]* widened; first, preset "team": .*: deny -> allow)$' "$tmpdir/step.err"
			st=$?
			ok $st "$label: fails on a change that widens, saying what widened on stderr"
			[ $st -eq 0 ] || { echo "exit $rc" | diag; diag < "$tmpdir/step.err"; }
		else
			ok $rc "$label: passes on a change that widens (only the gate stops it)"
			[ $rc -eq 0 ] || { diag < "$what"; diag < "$tmpdir/step.err"; }
		fi
	done < "$steps/index"
done
# What the jobs leave for the actions after them.
grep -q '"version": *"2.1.0"' "$tmpdir/narrows/cordon.sarif" && test -s "$tmpdir/narrows/diff.txt" &&
	grep -q '"widened"' "$tmpdir/narrows/diff.json"
ok $? "the jobs leave cordon.sarif, diff.txt and diff.json for the upload steps"

# ---- the git pre-commit hook of docs/lint.md -------------------------------------
awk '/^```sh$/ { n++; inblock = 1; next } /^```/ { inblock = 0 } inblock && n >= 1' \
	"$srcdir/docs/lint.md" | awk '/^#!\/bin\/sh$/ { take = 1 } take' > "$tmpdir/pre-commit"
grep -q 'cordon lint --werror' "$tmpdir/pre-commit"
ok $? "docs/lint.md: the git pre-commit hook is found"
hook_repo="$tmpdir/narrows"
cp "$tmpdir/pre-commit" "$hook_repo/.git/hooks/pre-commit"
chmod +x "$hook_repo/.git/hooks/pre-commit"
(cd "$hook_repo" && git add policies && PATH="$tmpdir/bin:$PATH" git $git_id commit -q -m narrow) \
	> "$tmpdir/out" 2>&1
ok $? "the pre-commit hook lets a clean policy through"
printf 'cordon 1;\npreset "p" { read "${workspce}" allow; }\n' > "$hook_repo/policies/broken.cordon"
(cd "$hook_repo" && git add policies && PATH="$tmpdir/bin:$PATH" git $git_id commit -q -m broken) \
	> "$tmpdir/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "undefined variable 'workspce'" "$tmpdir/out"
ok $? "the pre-commit hook stops a broken policy, naming its error"

done_testing
