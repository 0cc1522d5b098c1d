#!/bin/sh
# Masks under `cordon run`, with the real bwrap: what a script run with
# `sh -c 'sh SCRIPT'` can read of credential stores, .env files and files a
# glob read deny matches, and what a masked tree still lets git do.  Every
# check runs as root and again as an unprivileged user (nobody) with a
# workspace and a home of its own, as tests/run.sh does.
. "$srcdir/tests/lib.sh"

helper=$builddir/cordon-exec
cordon_bin=${CORDON_REAL:-$CORDON}
errf=$tmpdir/stderr
chmod 755 "$tmpdir"

"$cordon_bin" probe > "$tmpdir/probe" 2>&1
if [ $? -ne 0 ]; then
	diag < "$tmpdir/probe"
	skip "masks under cordon run" "cordon probe says the sandbox is not ready here"
	done_testing
	exit
fi
if [ "$(id -u)" -eq 0 ]; then
	passes="root nobody"
	command -v setpriv > /dev/null || passes=root
else
	passes=self
fi
have_git=false
command -v git > /dev/null && have_git=true

# U CMD...: CMD as the pass's user, in a fixed environment.
U() {
	$AS timeout -s KILL 60 env -i PATH=/usr/bin:/bin HOME="$H" LANG=C.UTF-8 TERM=dumb "$@"
}

# script TEXT: the attack as a script file in the workspace, run through
# sh -c 'sh SCRIPT' so that no analysis before the run sees what it reads.
script() {
	printf '%s\n' "$1" > "$WS/attack.sh"
	chmod 644 "$WS/attack.sh"
	runner_own "$WS/attack.sh"
	out=$(U "$C" run ${POLICY:+-p "$POLICY"} --preset "${PRESET:-workspace-write}" \
		--workspace "$WS" --context home="$H" --context agent_dir="$H/.cordon" \
		--context session_dir="$H/.cordon/s1" -- sh -c "sh '$WS/attack.sh'" 2> "$errf")
	rc=$?
}

cat > "$tmpdir/globs.cordon" << 'EOF'
cordon 1;

preset "globs" {
  sandbox required;
  read  "/**" allow;
  read  "${workspace}/**/*.pem" deny "private keys stay out";
  read  "${workspace}/**/public.pem" allow;
  read  "${workspace}/**/secrets" deny;
  read  "${workspace}/.env" deny;
  write "/dev/null" allow;
  write "/**" deny;
  write "${workspace}" allow;
  write "${tmp}" allow;
  exec  "*" allow;
}
EOF
chmod 644 "$tmpdir/globs.cordon"

pass() { # pass NAME
	runner_pass "$1"
	WS=$P/ws H=$P/home
	mkdir -p "$WS/sub/deep" "$WS/app/secrets" "$WS/svc" "$H/.config/gh" "$H/.cargo" \
		"$H/.docker" "$H/.kube" "$H/.config/gcloud" "$H/.azure" "$H/.cordon"
	# Every store holds a marker a leak would show.
	for f in .config/gh/hosts.yml .git-credentials .npmrc .pypirc .cargo/credentials.toml \
		.vault-token .docker/config.json .kube/config .config/gcloud/credentials.db \
		.azure/msal_token_cache.json .bash_history .zsh_history .python_history; do
		echo "LEAK-$name-$f" > "$H/$f"
	done
	for f in .env .env.local .envrc svc/.env svc/.env.production sub/deep/server.pem \
		server.pem app/secrets/token; do
		echo "LEAK-$name-$f" > "$WS/$f"
	done
	echo "TEMPLATE=1" > "$WS/.env.example"
	echo "PUBLIC" > "$WS/sub/public.pem"
	echo "code" > "$WS/main.c"
	helper=$P/build/cordon-exec
	runner_own "$P"
	if [ -n "$AS" ] && ! $AS env HOME="$H" "$C" probe > "$tmpdir/probe-$name" 2>&1; then
		skip "$t every check" "the sandbox cannot start for uid $uid"
		return
	fi

	# ---- credential stores of the default policy ----------------------------------------
	POLICY= PRESET=workspace-write
	script 'for f in .config/gh/hosts.yml .git-credentials .npmrc .pypirc .cargo/credentials.toml .vault-token .docker/config.json .kube/config .config/gcloud/credentials.db .azure/msal_token_cache.json .bash_history .zsh_history .python_history; do cat "$HOME/$f"; done 2>&1'
	case $out in *LEAK-*) false ;; *) [ $rc -eq 0 ] ;; esac
	ok $? "$t no credential store in the home directory can be read (exit $rc: $(echo "$out" | grep LEAK | head -3 | tr '\n' ' '))"
	script "cat '$H/.npmrc' '$H/.bash_history' | wc -c; stat -c '%F %a' '$H/.npmrc'"
	is "$rc:$(echo $out)" "0:0 regular empty file 444" "$t a masked store is an empty read-only regular file"
	script 'cat .env .env.local .envrc svc/.env svc/.env.production 2>&1; grep -rh LEAK --include=".env*" . 2>&1'
	case $out in *LEAK-*env*) false ;; *) true ;; esac
	ok $? "$t no .env, .env.*, .envrc file of the workspace can be read, by cat or grep -r ($(echo "$out" | grep LEAK | head -3 | tr '\n' ' '))"
	script 'cat .env.example | wc -c'
	is "$rc:$(echo $out)" "0:0" "$t a template (.env.example) is masked too: the default policy denies every .env.*"
	out=$(U "$C" run --preset workspace-write --workspace "$WS" --context home="$H" \
		--context agent_dir="$H/.cordon" --context session_dir="$H/.cordon/s1" -- \
		grep -rn LEAK "$WS/svc" 2> "$errf")
	rc=$?
	is "$rc:$out" "1:" "$t grep -r over .env files runs without approval under cordon run, and finds nothing"
	if [ "$uid" -eq 0 ]; then
		script 'cat /etc/shadow /etc/gshadow 2>/dev/null | wc -c; stat -c "%F" /etc/shadow'
		is "$rc:$(echo $out)" "0:0 regular empty file" "$t root cannot read /etc/shadow or /etc/gshadow"
	else
		script 'cat /etc/shadow 2>/dev/null | wc -c'
		is "$rc:$(echo $out)" "0:0" "$t /etc/shadow cannot be read"
	fi

	# ---- glob read denies ------------------------------------------------------------------
	POLICY=$tmpdir/globs.cordon PRESET=globs
	script 'cat server.pem sub/deep/server.pem 2>&1; ls app/secrets; cat app/secrets/token 2>&1'
	case $out in *LEAK-*) false ;; *) [ $rc -eq 0 ] || [ $rc -eq 1 ] ;; esac
	ok $? "$t files a glob read deny matches cannot be read inside the sandbox (exit $rc: $(echo "$out" | grep LEAK | head -3 | tr '\n' ' '))"
	script 'stat -c "%F %s %a" server.pem sub/deep/server.pem; echo x > server.pem && echo written; echo x > app/secrets/new && echo created; ls -A app/secrets | wc -l'
	is "$(echo $out)" "regular empty file 0 444 regular empty file 0 444 0" \
		"$t each match is an empty read-only file, a matched directory an empty read-only one"
	is "$(cat "$WS/server.pem")" "LEAK-$name-server.pem" "$t and the host file is untouched"
	script 'cat main.c sub/public.pem'
	is "$rc:$(echo $out)" "0:code PUBLIC" "$t the rest of the workspace reads as before, the glob's exception (public.pem) too"

	# A directory the pass's user cannot list, but can pass through: a name
	# known beforehand reaches what is inside, so the directory is hidden.
	if [ "$uid" -ne 0 ] && [ "$(id -u)" -eq 0 ]; then
		mkdir -p "$WS/vault"
		echo "LEAK-$name-vault" > "$WS/vault/server.pem"
		chmod 644 "$WS/vault/server.pem"
		chmod 711 "$WS/vault"
		script "cat '$WS/vault/server.pem' 2>&1"
		echo "$out" > "$tmpdir/vault.out"
		case $out in *LEAK-*) false ;; *) refused_by sandbox $rc "$tmpdir/vault.out" 'No such file or directory|Permission denied' ;; esac
		ok $? "$t a matching file in a directory the walk cannot list is not readable (exit $rc: $(head -1 "$tmpdir/vault.out"))"
		rm -rf "$WS/vault"
	else
		skip "$t a directory the walk cannot list" "root lists every directory"
	fi

	# ---- git in a workspace with masks ------------------------------------------------------
	if $have_git; then
		G=$P/repo
		mkdir -p "$G"
		echo "SECRET=$name" > "$G/.env"
		echo "print(1)" > "$G/app.py"
		runner_own "$G"
		WS0=$WS
		WS=$G
		script 'git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm first && echo "print(2)" > app.py && git -c user.name=t -c user.email=t@t stash -q && git stash pop -q && echo committed; stat -c "%F %a %s" .env; echo x > .env || echo refused'
		is "$(echo $out)" "committed regular empty file 444 0 refused" \
			"$t git init, add -A, commit and stash work beside a masked .env, which is empty, read-only and not written"
		is "$(cat "$G/.env")" "SECRET=$name" "$t the .env on the host keeps its content"
		WS=$WS0
	else
		skip "$t git beside a masked .env" "git is not installed"
	fi

	# ---- bounds -------------------------------------------------------------------------------
	d=$WS/deep
	i=0
	while [ $i -lt 70 ]; do d=$d/d; i=$((i + 1)); done
	mkdir -p "$d"
	runner_own "$WS/deep"
	script ": > '$WS/ran-deep'"
	grep -q 'SANDBOX_UNAVAILABLE.*deeper than 64 levels' "$errf"
	g=$?
	[ $rc -eq 125 ] && [ $g -eq 0 ] && [ ! -e "$WS/ran-deep" ]
	ok $? "$t a tree deeper than the walk's bound stops the call: exit $rc, the command never ran ($(head -1 "$errf"))"
	rm -rf "$WS/deep"
	POLICY= PRESET=
}

for p in $passes; do
	pass "$p"
done
case $passes in
root) skip "[nobody] every check" "no setpriv to become an unprivileged user" ;;
esac
done_testing
