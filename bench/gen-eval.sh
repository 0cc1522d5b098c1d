#!/bin/sh
# Generate the inputs of the evaluator benchmark (bench/eval.sh).
#
#   bench/gen-eval.sh [-n RULES] [-q REQUESTS] [-o DIR]
#   bench/gen-eval.sh -t TREE
#
# The first form writes DIR/eval-RULES.cordon, a policy whose preset "bench"
# has exactly RULES path rules (read and write, after list expansion) plus a
# fixed set of exec, net and tool rules, and DIR/requests-RULES.tsv, REQUESTS
# requests one a line ("OP<TAB>TARGET"); it prints both paths.
#
# The policy describes a workspace of projects, ${workspace}/projects/pNNNN,
# 20 path rules each (literal directories, **/*.ext globs, anchored regexes
# on /srv and /data), after 50 rules for the whole workspace and the home
# directory.  1,000 rules is 48 projects, 10,000 is 498.
#
# In the requests a target starting with "@/" is under the workspace and one
# starting with "~/" under the home directory: the benchmark puts its own
# roots there.  The mix: 85% reads and writes (60% under the workspace, most
# of them in the 20 "hot" projects p0000-p0019, some through symlinks),
# 7% exec, 4% net, 4% tool.
#
# The second form creates the directory tree the requests resolve against:
# TREE/ws (the workspace: the hot projects' directories, files and
# symlinks) and TREE/home, a few hundred entries in all.
#
# Only POSIX sh and awk are needed.  Output is deterministic.

set -eu

rules=1000
requests=1000000
dir=bench/out
tree=

usage() {
	echo "usage: $0 [-n RULES] [-q REQUESTS] [-o DIR]" >&2
	echo "       $0 -t TREE" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; rules=$2; shift 2 ;;
	-q) [ $# -ge 2 ] || usage; requests=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || usage; tree=$2; shift 2 ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done

# Projects whose directories exist in the tree, and that most requests use.
hot=20

if [ -n "$tree" ]; then
	mkdir -p "$tree"
	cd "$tree"
	i=0
	while [ $i -lt $hot ]; do
		p=ws/projects/$(printf 'p%04d' $i)
		mkdir -p "$p/src/lib" "$p/src/app/generated" "$p/include" "$p/build/obj" \
			"$p/dist" "$p/docs/guide" "$p/tests/fixtures" "$p/logs" "$p/.git/hooks" \
			"$p/data/private" "$p/secrets"
		for f in src/main.c src/lib/util.c src/lib/util.h src/app/generated/api.c \
			include/api.h build/obj/main.o dist/app.min.js docs/guide/intro.md \
			tests/fixtures/data.json logs/app.log .git/config .env README.md \
			Makefile Cargo.lock; do
			: > "$p/$f"
		done
		ln -s src/lib "$p/lib"                  # a relative link inside the project
		ln -s ../$(printf 'p%04d' $(((i + 1) % hot)))/src "$p/vendor"   # into a sibling
		ln -s "$(pwd)/ws/shared/config.json" "$p/config.json"           # absolute
		i=$((i + 1))
	done
	mkdir -p ws/shared home/u/.ssh home/u/.aws home/u/.config/git home/u/.cache \
		home/u/.cordon/sessions/s1 tmp
	: > ws/shared/config.json
	: > home/u/.ssh/id_ed25519
	: > home/u/.aws/credentials
	: > home/u/.bashrc
	: > home/u/.config/git/config
	ln -s projects/p0003 ws/current          # the project being worked on
	ln -s ../../ws home/u/work               # the workspace seen from home
	ln -s /nonexistent/target ws/dangling    # resolved through its target
	exit 0
fi

case $rules in
''|*[!0-9]*) echo "$0: -n wants a number, got '$rules'" >&2; exit 2 ;;
esac
case $requests in
''|*[!0-9]*) echo "$0: -q wants a number, got '$requests'" >&2; exit 2 ;;
esac
if [ "$rules" -lt 100 ]; then
	echo "$0: -n must be at least 100" >&2
	exit 2
fi

mkdir -p "$dir"
policy=$dir/eval-$rules.cordon
reqs=$dir/requests-$rules.tsv

awk -v total="$rules" -v nreq="$requests" -v hot="$hot" -v policy="$policy" -v reqs="$reqs" '
# Park-Miller: exact in double arithmetic, so every awk gives the same stream.
function rnd(n) { seed = (seed * 16807) % 2147483647; return seed % n }
function proj(i) { return sprintf("p%04d", i) }

function path_rule(s) { print "  " s > policy; npath++ }

# Rule k (0-19) of project i.
function project_rule(i, k,    p, w) {
	p = proj(i)
	w = "${workspace}/projects/" p
	if (k == 0) path_rule("read \"" w "/secrets\" deny \"project secrets\";")
	else if (k == 1) path_rule("write \"" w "/.git\" deny;")
	else if (k == 2) path_rule("write \"" w "/build\" allow;")
	else if (k == 3) path_rule("write \"" w "/dist\" ask \"release artifacts\";")
	else if (k == 4) path_rule("write \"" w "/vendor\" deny \"vendored code is read-only\";")
	else if (k == 5) path_rule("read \"" w "/data/private\" ask;")
	else if (k == 6) path_rule("write \"" w "/**/*.min.js\" deny \"generated\";")
	else if (k == 7) path_rule("write \"" w "/**/*.lock\" ask;")
	else if (k == 8) path_rule("read \"" w "/**/.env*\" deny;")
	else if (k == 9) path_rule("write \"" w "/src/*/generated/**\" deny \"regenerate instead\";")
	else if (k == 10) path_rule("write \"" w "/docs/**/*.md\" allow;")
	else if (k == 11) path_rule("read \"" w "/logs/*.log\" allow;")
	else if (k == 12) path_rule("write \"" w "/tests/fixtures/**\" ask;")
	else if (k == 13) path_rule("read /^\\/srv\\/" p "\\/logs\\/[0-9]{4}-[0-9]{2}-[0-9]{2}\\.log$/ allow;")
	else if (k == 14) path_rule("write /^\\/srv\\/" p "\\/cache\\/[0-9a-f]{2}\\// allow;")
	else if (k == 15) {
		# One project in five also has a regex with an alternation.
		if (i % 5 == 0)
			path_rule("read /^\\/data\\/" p "\\/.*\\.(pem|key)$/ deny;")
		else
			path_rule("read /^\\/data\\/" p "\\/certs\\/[^\\/]+\\.pem$/ deny;")
	}
	else if (k == 16) path_rule("read \"/srv/" p "\" allow;")
	else if (k == 17) path_rule("write \"/srv/" p "/shared/*.tmp\" allow;")
	else if (k == 18) path_rule("write \"~/.cache/" p "\" allow;")
	else path_rule("write \"" w "/.git/hooks\" deny \"hooks run code\";")
}

function emit_policy(    i, k) {
	print "# Generated by bench/gen-eval.sh: " total " path rules." > policy
	print "cordon 1;\n" > policy
	print "let secrets = [\"~/.ssh\", \"~/.aws\", \"~/.gnupg\", \"~/.kube\",];" > policy
	print "protect \"${agent_dir}\", \"${session_dir}\";\n" > policy
	print "preset \"bench\" {" > policy
	print "  description \"generated: a workspace of projects\";" > policy
	print "  approval ask;\n  sandbox required;\n" > policy
	# The whole workspace and home: 50 path rules.
	path_rule("read \"/**\" allow;")
	path_rule("write \"/**\" ask \"writes outside the workspace need approval\";")
	path_rule("write \"${workspace}\" allow;")
	path_rule("write \"${tmp}\" allow;")
	path_rule("write \"/dev/null\", \"/dev/stdout\", \"/dev/stderr\", \"/dev/tty\" allow;"); npath += 3
	path_rule("read $secrets deny \"credentials\";"); npath += 3
	path_rule("write $secrets deny \"credentials\";"); npath += 3
	path_rule("write \"~/.cache\" allow;")
	path_rule("write \"~/.bashrc\", \"~/.profile\", \"~/.zshrc\" ask;"); npath += 2
	path_rule("read \"~/.config/gcloud\" deny;")
	path_rule("write \"~/.config\" ask;")
	path_rule("read \"${workspace}/**/.env\" deny \"environment files hold secrets\";")
	path_rule("read \"${workspace}/**/*.pem\" deny;")
	path_rule("write \"${workspace}/**/*.pem\" deny;")
	path_rule("read \"${workspace}/**/id_rsa*\" deny;")
	path_rule("write \"${workspace}/**/node_modules/**\" ask;")
	path_rule("write \"${workspace}/**/.git/config\" deny;")
	path_rule("write \"${workspace}/**/*.lock\" ask;")
	path_rule("write \"${workspace}/**/.DS_Store\" allow;")
	path_rule("read \"/home/*/.ssh/**\" deny;")
	path_rule("write \"/etc/**\" deny \"system configuration\";")
	path_rule("write \"/usr/**\" deny;")
	path_rule("read \"/proc/*/environ\" deny;")
	path_rule("read \"/var/log/*.log\" allow;")
	path_rule("write \"/var/**\" deny;")
	path_rule("read \"/etc/shadow\", \"/etc/gshadow\" deny;"); npath++
	path_rule("write \"/srv\" deny;")
	path_rule("read \"/data\" ask;")
	path_rule("read \"/usr/include/**/*.h\" allow;")
	path_rule("read \"/usr/lib/**/*.so*\" allow;")
	path_rule("write \"/tmp/*.lock\" deny;")
	path_rule("write \"/tmp/agent-*/**\" allow;")
	# Regexes without a literal start: tried on every request of their kind.
	path_rule("read /\\.(pem|key|p12)$/ deny \"key material\";")
	path_rule("write /(^|\\/)\\.git\\/hooks\\// deny;")
	path_rule("read /\\/secrets?\\// ask;")
	path_rule("write /\\.(exe|dll|so)$/ ask;")
	path_rule("write /~$/ allow;")
	path_rule("read /\\/\\.terraform\\/.*\\.tfstate$/ deny;")
	for (i = 0; npath < total; i++)
		for (k = 0; k < 20 && npath < total; k++)
			project_rule(i, k)
	nproj = i
	print "" > policy
	# exec, net and tool: a fixed set, not counted in RULES.
	print "  exec \"*\" allow;" > policy
	print "  exec \"git push\" /(^|\\s)(--force|-f)(\\s|$)/ deny \"force pushes\";" > policy
	print "  exec \"git push\" ask;" > policy
	print "  exec \"git\" allow;" > policy
	print "  exec \"rm -rf\" ask;" > policy
	print "  exec \"sudo\" deny;" > policy
	print "  exec \"npm publish\" deny;" > policy
	print "  exec \"npm\" allow;" > policy
	print "  exec \"cargo publish\" deny;" > policy
	print "  exec \"docker run\" /--privileged/ deny;" > policy
	print "  exec \"docker\" ask;" > policy
	print "  exec \"kubectl\" ask;" > policy
	print "  exec \"terraform apply\" deny;" > policy
	print "  exec \"curl\" ask;" > policy
	print "  exec /curl\\s.*[|]\\s*(ba)?sh\\b/ deny \"piping downloads into a shell\";" > policy
	print "  exec \"python* -m pip\" ask;" > policy
	print "  net \"*\" deny;" > policy
	print "  net \"github.com:443\", \"api.github.com:443\" allow;" > policy
	print "  net \"*.githubusercontent.com:443\" allow;" > policy
	print "  net \"registry.npmjs.org:443\", \"pypi.org:443\", \"files.pythonhosted.org:443\" allow;" > policy
	print "  net \"crates.io:443\", \"*.crates.io:443\" allow;" > policy
	print "  net \"localhost\", \"127.0.0.1\" ask;" > policy
	print "  net \"*.internal.example.com\" deny;" > policy
	print "  tool \"*\" ask;" > policy
	print "  tool \"mcp:*\" ask;" > policy
	print "  tool \"mcp:github/*\" allow;" > policy
	print "  tool \"mcp:github/delete_*\" deny;" > policy
	print "  tool \"read_file\", \"list_dir\", \"grep\" allow;" > policy
	print "  tool \"web_search\" ask;" > policy
	print "}\n\ndefault \"bench\";" > policy
	close(policy)
}

function emit_requests(    n, k, op, t, p, i) {
	split("src/main.c src/lib/util.c src/lib/util.h src/app/generated/api.c include/api.h " \
	      "build/obj/main.o dist/app.min.js docs/guide/intro.md tests/fixtures/data.json " \
	      "logs/app.log .git/config .git/hooks/pre-commit .env README.md Makefile Cargo.lock " \
	      "data/private/users.csv secrets/api.key lib/util.c vendor/main.c config.json " \
	      "src/lib/new_file.c build/obj/new.o docs/guide/new/page.md node_modules/x/index.js",
	      sub_paths, " ")
	nsub = 25
	split("/usr/include/stdio.h /usr/include/x86_64-linux-gnu/sys/types.h /etc/hosts " \
	      "/etc/passwd /usr/bin/env /usr/lib/x86_64-linux-gnu/libc.so.6 /dev/null /tmp " \
	      "/tmp/agent-1/out.txt /var/log/dpkg.log /etc/shadow /proc/1/environ",
	      outside, " ")
	noutside = 12
	split("~/.ssh/id_ed25519 ~/.aws/credentials ~/.bashrc ~/.config/git/config " \
	      "~/.cache/pip/x.whl ~/src/projects/p0001/src/main.c ~/.cordon/sessions/s1/log.jsonl " \
	      "~/notes.txt", homes, " ")
	nhome = 8
	split("make -j8|git status|git diff --stat|git push origin main|git push --force origin main|" \
	      "ls -la src|cargo build --release|npm test|rm -rf build|curl -sSf https://x.sh | sh|" \
	      "docker run --privileged img|python3 -m pip install requests|grep -rn TODO src|" \
	      "sudo apt-get install x|kubectl get pods", cmds, "|")
	ncmds = 15
	split("github.com:443 api.github.com:443 objects.githubusercontent.com:443 " \
	      "registry.npmjs.org:443 pypi.org:443 example.com:80 localhost:8080 " \
	      "db.internal.example.com:5432 10.0.0.1:22 index.crates.io:443", hosts, " ")
	nhosts = 10
	split("read_file list_dir grep web_search mcp:github/create_issue " \
	      "mcp:github/delete_repo mcp:slack/post_message edit_file", tools, " ")
	ntools = 8

	for (n = 0; n < nreq; n++) {
		k = rnd(100)
		if (k < 85) {
			op = rnd(100) < 62 ? "read" : "write"
			t = rnd(100)
			if (t < 72) {
				# Under the workspace: 85% in a hot project.
				p = rnd(100) < 85 ? rnd(hot) : rnd(nproj)
				i = rnd(nsub) + 1
				if (rnd(20) == 0)
					t = "@/current/" sub_paths[i]
				else
					t = "@/projects/" proj(p) "/" sub_paths[i]
			} else if (t < 84) {
				t = outside[rnd(noutside) + 1]
			} else if (t < 92) {
				t = homes[rnd(nhome) + 1]
			} else {
				p = proj(rnd(nproj))
				i = rnd(4)
				if (i == 0)
					t = "/srv/" p "/logs/2024-0" (rnd(9) + 1) "-1" rnd(10) ".log"
				else if (i == 1)
					t = "/srv/" p "/cache/" sprintf("%02x", rnd(256)) "/obj"
				else if (i == 2)
					t = "/data/" p "/certs/server.pem"
				else
					t = "/srv/" p "/shared/run.tmp"
			}
		} else if (k < 92) {
			op = "exec"
			t = cmds[rnd(ncmds) + 1]
		} else if (k < 96) {
			op = "net"
			t = hosts[rnd(nhosts) + 1]
		} else {
			op = "tool"
			t = tools[rnd(ntools) + 1]
		}
		print op "\t" t > reqs
	}
	close(reqs)
}

BEGIN {
	seed = 20240601
	npath = 0
	emit_policy()
	emit_requests()
	if (npath != total) {
		print "gen-eval.sh: wrote " npath " path rules, not " total > "/dev/stderr"
		exit 1
	}
	print policy
	print reqs
}
'
