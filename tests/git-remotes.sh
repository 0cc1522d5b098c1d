#!/bin/sh
# Where git push, fetch, ls-remote and clone go, as the shell analysis reads
# it from git's config, against git itself: for each configuration (a
# remote's url and pushurl, several urls, insteadOf and pushInsteadOf in
# the user's config, the default remote of a branch, remote.pushDefault,
# the only remote, scp-like and ssh:// URLs with a port, config written in
# every form git's parser takes), the URLs the analysis names are those
# `git remote get-url --push --all` and `git ls-remote --get-url` print,
# and the hosts those of the URLs.  Then what git cannot be followed to
# leaves the host known only at run time, never another host.
. "$srcdir/tests/lib.sh"

if ! command -v git > /dev/null; then
	skip "git remotes" "git is not installed"
	done_testing
	exit
fi
case $CORDON in
/*) ;;
*/*) CORDON=$PWD/$CORDON ;;
esac
unset GIT_DIR GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT \
	GIT_CONFIG_PARAMETERS XDG_CONFIG_HOME GIT_CEILING_DIRECTORIES
T=$(cd "$tmpdir" && pwd -P)
export HOME="$T/home"
mkdir -p "$HOME"
cat > "$T/p.cordon" << EOF
cordon 1;
include "$(cd "$srcdir" && pwd)/rules/commands.cordon";
preset "p" { read "/**" allow; write "/**" allow; exec "*" allow; net "*" allow; }
default "p";
EOF

# ops CMD DIR: the analysis's JSON for CMD run in DIR.
ops() {
	"$CORDON" eval -p "$T/p.cordon" --json --context cwd="$2" --context workspace="$2" \
		--context home="$HOME" exec "$1"
}
# urls CMD DIR: the URLs its net operations name, sorted.
urls() {
	ops "$1" "$2" | grep -o '"detail":"network (git [^"]*)"' |
		sed -n 's/.*remote [^,]*, \(.*\))"$/\1/p; s/.*"network (git [a-z]* [a-z]* \([^ ,]*\))"$/\1/p' |
		sort
}
# hosts CMD DIR: the targets of its net operations, sorted.
hosts() {
	ops "$1" "$2" | grep -o '"op":"net","target":"[^"]*"' | sed 's/.*"target":"//; s/"$//' | sort
}
# host_of URL: HOST:PORT as a contact names it.
host_of() {
	case $1 in
	*://*)
		scheme=${1%%://*} rest=${1#*://}
		rest=${rest%%/*} rest=${rest#*@}
		case $rest in
		*:*) echo "$rest" ;;
		*) case $scheme in
			https) echo "$rest:443" ;; http) echo "$rest:80" ;;
			ssh) echo "$rest:22" ;; git) echo "$rest:9418" ;;
			esac ;;
		esac
		;;
	*:*) h=${1%%:*} && echo "${h#*@}:22" ;;
	esac
}
# against_git NAME DIR REMOTE: the push and fetch URLs and hosts of git
# push and git fetch in DIR are git's own.
against_git() {
	want_push=$(git -C "$2" remote get-url --push --all "$3" | sort)
	want_fetch=$(git -C "$2" ls-remote --get-url "$3")
	is "$(urls "git push $3" "$2")" "$want_push" "$1: git push $3 goes where git says"
	is "$(urls "git fetch $3" "$2")" "$want_fetch" "$1: git fetch $3 goes where git says"
	want_hosts=$(for u in $want_push; do host_of "$u"; done | sort -u)
	is "$(hosts "git push $3" "$2" | sort -u)" "$want_hosts" "$1: git push $3 contacts its hosts"
	is "$(hosts "git fetch $3" "$2")" "$(host_of "$want_fetch")" "$1: git fetch $3 contacts its host"
}

cd "$T" || exit 1
git init -q -b main plain && git -C plain remote add origin https://github.com/o/r.git
against_git "an https origin" "$T/plain" origin
mkdir -p plain/sub/dir
is "$(hosts "git push" "$T/plain/sub/dir")" "github.com:443" "a subdirectory's repository"
is "$(hosts "git -C plain push" "$T")" "github.com:443" "git -C DIR"
is "$(hosts "git -C plain ls-remote" "$T")" "github.com:443" "git ls-remote, the default remote"

git init -q -b main scp && git -C scp remote add origin git@github.com:o/r.git
against_git "an scp-like origin" "$T/scp" origin
git init -q -b main port && git -C port remote add origin ssh://git@git.example.test:2222/o/r.git
against_git "ssh:// with a port" "$T/port" origin

# The user's config rewrites: insteadOf for both, pushInsteadOf for pushes,
# the longest prefix first.
cat > "$HOME/.gitconfig" << 'EOF'
[url "https://github.com/"]
	insteadOf = gh:
[url "ssh://git@github.com/"]
	pushInsteadOf = https://github.com/
[url "https://mirror.example.test/github/"]
	insteadOf = https://github.com/mirrored/
EOF
git init -q -b main short && git -C short remote add origin gh:o/r
against_git "insteadOf and pushInsteadOf" "$T/short" origin
git init -q -b main mirrored && git -C mirrored remote add origin https://github.com/mirrored/r
against_git "the longest insteadOf" "$T/mirrored" origin
git init -q -b main pushurl && git -C pushurl remote add origin https://github.com/o/r.git &&
	git -C pushurl remote set-url --push origin git@gitlab.example.test:o/r.git
against_git "a pushurl (no pushInsteadOf then)" "$T/pushurl" origin
git init -q -b main many && git -C many remote add origin https://github.com/o/r.git &&
	git -C many remote set-url --add origin https://codeberg.example.test/o/r.git
against_git "two urls: fetch the first, push to both" "$T/many" origin
is "$(hosts "git clone gh:o/r" "$T")" "github.com:443" "git clone rewrites with the user's insteadOf"
rm "$HOME/.gitconfig"

# The default remote: the only one, the branch's, remote.pushDefault.
git init -q -b main only && git -C only remote add upstream https://gitlab.example.test/o/r.git
is "$(hosts "git fetch" "$T/only")" "$(host_of "$(git -C only ls-remote --get-url)")" \
	"the only remote is the default"
git init -q -b main branch && git -C branch remote add origin https://github.com/o/r.git &&
	git -C branch remote add up https://gitlab.example.test/o/r.git &&
	git -C branch config branch.main.remote up
is "$(hosts "git fetch" "$T/branch")" "$(host_of "$(git -C branch ls-remote --get-url)")" \
	"the branch's remote"
git -C branch config remote.pushDefault origin
is "$(hosts "git push" "$T/branch")" "github.com:443" "remote.pushDefault for a push"
is "$(hosts "git fetch" "$T/branch")" "gitlab.example.test:443" "not for a fetch"

# Config in every form git's parser takes: the old [remote.name] (folded
# to lower case), quotes and escapes, comments, continued lines, CRLF,
# keys in any case, a key on the header's line.
git init -q -b main forms
printf '[remote "Or\\ig"] url = "https://github.com/o/"\\\n  r.git ; a comment\r\n[REMOTE.lower]\n\tURL=git@gitlab.example.test:o/r.git # another\n[url "https://codeberg.example.test/"]\n\tInsteadOf = cb:\n[remote "cb"]\n\turl = cb:o/r\n' \
	>> forms/.git/config
against_git "a quoted subsection with an escape" "$T/forms" Orig
against_git "the old [remote.name]" "$T/forms" lower
against_git "a key in another case" "$T/forms" cb

# Local repositories are no contact: a path, file://.
git init -q -b main local && git -C local remote add origin "$T/plain" &&
	git -C local remote add f "file://$T/plain"
is "$(hosts "git fetch" "$T/local")" "" "a path is no contact"
is "$(hosts "git fetch f" "$T/local")" "" "file:// is no contact"

# What cannot be followed is a host known only at run time.
unknown="(a host known only at run time)"
git init -q -b main inc && git -C inc remote add origin https://github.com/o/r.git &&
	git -C inc config include.path ../elsewhere.cfg
is "$(hosts "git fetch" "$T/inc")" "$unknown" "include.path"
git init -q -b main incif && git -C incif remote add origin https://github.com/o/r.git &&
	printf '[includeIf "gitdir:/"]\n\tpath = x\n' > "$HOME/.gitconfig"
is "$(hosts "git fetch" "$T/incif")" "$unknown" "includeIf in ~/.gitconfig"
rm "$HOME/.gitconfig"
git init -q -b main dollar && git -C dollar remote add origin 'https://$HOST/o/r.git'
is "$(hosts "git fetch" "$T/dollar")" "$unknown" "a URL with \$"
git init -q -b main helper && git -C helper remote add origin 'ext::sh -c evil'
is "$(hosts "git fetch" "$T/helper")" "$unknown" "ext::"
git init -q -b main proxy && git -C proxy remote add origin https://github.com/o/r.git &&
	git -C proxy config http.proxy http://proxy.example.test:3128
is "$(hosts "git fetch" "$T/proxy")" "$unknown" "http.proxy"
git init -q -b main vcs && git -C vcs remote add origin https://github.com/o/r.git &&
	git -C vcs config remote.origin.vcs hg
is "$(hosts "git fetch" "$T/vcs")" "$unknown" "remote.*.vcs"
git init -q -b main link && cp plain/.git/config link.cfg && rm link/.git/config &&
	ln -s ../../link.cfg link/.git/config
is "$(hosts "git fetch" "$T/link")" "$unknown" "a repository config that is a link"
git init -q -b main bad && printf '[remote "origin"\n\turl = https://github.com/o/r.git\n' \
	>> bad/.git/config
is "$(hosts "git fetch" "$T/bad")" "$unknown" "a config git refuses"
mkdir -p wt && git -C plain worktree add -q "$T/wt/tree" 2> /dev/null
is "$(hosts "git fetch" "$T/wt/tree")" "$unknown" "a .git file"
is "$(hosts "git -c remote.origin.url=https://evil.example.test/ fetch" "$T/plain")" "$unknown" \
	"git -c"
is "$(hosts "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://evil.example.test/ git fetch" "$T/plain")" \
	"$unknown" "GIT_CONFIG_* assignments"
is "$(hosts "GIT_DIR=/x/.git git fetch" "$T/plain")" "$unknown" "GIT_DIR"
is "$(hosts "git remote set-url origin https://evil.example.test/; git fetch" "$T/plain")" \
	"$unknown" "git remote set-url first"
is "$(hosts "for i in 1 2; do git fetch; git config remote.origin.url https://evil.example.test/; done" "$T/plain")" \
	"$unknown" "a loop that changes the config"
is "$(hosts "git fetch \$R" "$T/plain")" "$unknown" "a remote known only at run time"
is "$(hosts "git fetch nosuch" "$T/plain")" "$unknown" "a remote not configured"
is "$(hosts "git fetch" "$T")" "$unknown" "outside a repository"
# git clone does not read the config of the repository it runs in.
git -C plain config url.https://evil.example.test/.insteadOf https://github.com/
is "$(hosts "git clone https://github.com/o/x.git" "$T/plain")" "github.com:443" \
	"git clone ignores the enclosing repository's insteadOf"
is "$(git -C plain ls-remote --get-url origin)" "https://evil.example.test/o/r.git" \
	"(git itself rewrites there)"
is "$(hosts "git fetch" "$T/plain")" "evil.example.test:443" "git fetch follows it"

done_testing
