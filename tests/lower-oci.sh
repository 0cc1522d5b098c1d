#!/bin/sh
# The container lowerings: golden OCI configs and Kubernetes Lists for a
# fixed tree (tests/data/golden/POLICY.PRESET.oci, .k8s), the config valid
# by the OCI runtime-spec's own JSON schema (v1.1.0, vendored in
# tests/oci/runtime-spec-schema with its licence), each annotation naming
# an entry that exists and the rule the bwrap plan names for it, the Pod's
# fields as Kubernetes reads them, and the localhost seccomp profile the
# very bytes of the config's linux.seccomp, and the List valid by
# Kubernetes 1.36's schema of a Pod and a NetworkPolicy (vendored in
# tests/oci/k8s-schema with its licence).  Nothing is launched here:
# tests/oci.sh runs the config under crun.
. "$srcdir/tests/lib.sh"

T=$tmpdir/t
mkdir -p "$T/ws/.git/hooks" "$T/ws/src" "$T/home/.ssh" "$T/call" "$T/outside"
echo key > "$T/home/.ssh/id"
: > "$T/call.mask"

emit() { # emit POLICY PRESET KIND: the lowering, with the tree's context
	(cd "$T/ws" && env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 \
		${CORDON_REAL:+CORDON_REAL="$CORDON_REAL"} ${CORDON_NO_JIT:+CORDON_NO_JIT=1} \
		"$CORDON" compile ${1:+-p "$1"} --preset "$2" --emit "$3" \
		--context workspace="$T/ws" --context cwd="$T/ws" --context home="$T/home" \
		--context tmp="$T/call" --context agent_dir="$T/ws/.agent" \
		--context session_dir="$T/ws/.agent/s")
}

# The golden text: the tree as @T; the mounts of this machine's root
# entries, and of files of the host that exist on some machines only
# (/etc/shadow, /proc/sysrq-trigger), left out, and the indices of the
# annotations that name mounts renumbered to match.
normalise() {
	sed -e "s|$T|@T|g" -e "s|$PWD/||g" "$1" | awk '
	function host_only(line) {
		return line ~ /^    \{"destination":"\/[^\/"]*","type":"bind","source":"\/[^\/"]*"/ ||
		       line ~ /"destination":"\/etc\// || line ~ /"\/proc\/sysrq-trigger"/
	}
	BEGIN { n = 0; kept = 0 }
	{ lines[NR] = $0 }
	/^  "mounts": \[/ { in_mounts = 1; next }
	in_mounts && /^  \]/ { in_mounts = 0 }
	in_mounts { if (host_only($0)) gone[n] = 1; else to[n] = kept++; n++ }
	END {
		for (i = 1; i <= NR; i++) {
			line = lines[i]
			if (line ~ /^    \{"destination"/ && host_only(line))
				continue
			if (line ~ /"\/proc\/sysrq-trigger"/ || line ~ /"\/etc\/[^"]*by /)
				continue
			if (match(line, /\.mounts\.[0-9]+"/)) {
				k = substr(line, RSTART + 8, RLENGTH - 9) + 0
				if (k in gone)
					continue
				line = substr(line, 1, RSTART + 7) to[k] substr(line, RSTART + RLENGTH - 1)
			}
			print line
		}
	}'
}

if [ "$(id -u)" -ne 0 ]; then
	# The container's user is the caller's, or nobody for root: the
	# goldens are root's.
	skip "golden OCI configs and Kubernetes Lists" "the goldens are of a caller that is root"
else
	cd "$srcdir/tests/data/golden" || exit 1
	for case in "default workspace-write" "deny-read.cordon online"; do
		set -- $case
		policy=$1 preset=$2
		[ "$policy" = default ] && policy=
		name=${1%.cordon}.$preset
		for kind in oci k8s; do
			emit "${policy:+$PWD/$policy}" "$preset" $kind > "$tmpdir/got" 2> "$tmpdir/err"
			ok $? "$name: --emit $kind"
			grep -q "cordon: note: what .* cannot express" "$tmpdir/err"
			ok $? "$name: --emit $kind says on stderr where the unexpressed is listed"
			normalise "$tmpdir/got" > "$tmpdir/got.norm"
			case $kind in
			oci) want=$name.oci ;;
			k8s) want=$name.k8s ;;
			esac
			check_golden "$tmpdir/got.norm" "$want" "$name: golden $kind"
		done
	done
	cd "$tmpdir" || exit 1
fi

emit "" workspace-write oci > "$tmpdir/config.json" 2> /dev/null
ok $? "workspace-write: the config"
emit "" workspace-write bwrap > "$tmpdir/plan.json" 2> /dev/null
ok $? "workspace-write: the bwrap plan beside it"
emit "" workspace-write k8s > "$tmpdir/list.json" 2> /dev/null
ok $? "workspace-write: the Kubernetes List"
emit "" workspace-write k8s-seccomp > "$tmpdir/profile.json" 2> /dev/null
ok $? "workspace-write: the localhost seccomp profile"

# No walk follows a container's run: the missing names cordon run leaves
# to after the call (.hg/hgrc, .devcontainer) keep their fences there.
grep -q "\"destination\":\"$T/ws/.hg/hgrc\",\"type\":\"tmpfs\"" "$tmpdir/config.json" &&
	grep -q "\"destination\":\"$T/ws/.devcontainer\",\"type\":\"tmpfs\"" "$tmpdir/config.json" &&
	grep -q "\"skipped\":\"$T/ws/.hg/hgrc\"" "$tmpdir/plan.json"
ok $? "workspace-write: the config fences .hg/hgrc and .devcontainer, which cordon run's plan leaves to after the call"

# The profile is the config's linux.seccomp, byte for byte: its line there.
sed -n 's/^    "seccomp": \(.*\)$/\1/p' "$tmpdir/config.json" > "$tmpdir/from-config"
[ -s "$tmpdir/from-config" ] && cmp -s "$tmpdir/from-config" "$tmpdir/profile.json"
ok $? "the k8s-seccomp profile is byte for byte the config's linux.seccomp"

emit "" danger-full-access oci > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "danger-full-access has no OCI config (exit 2)"
grep -q "runs without a sandbox" "$tmpdir/err"
ok $? "and says why"
emit "" danger-full-access k8s > /dev/null 2> "$tmpdir/err"
ok $(($? != 2)) "nor a Pod"

if ! command -v python3 > /dev/null; then
	skip "the schema, the annotations and the Pod" "no python3 here"
	done_testing
	exit
fi
python3 "$srcdir/tests/oci/check.py" "$srcdir/tests/oci/runtime-spec-schema" \
	"$tmpdir/config.json" "$tmpdir/plan.json" "$tmpdir/list.json" "$tmpdir/profile.json" \
	"$T" > "$tmpdir/check.tap" 2>&1
ok $? "the config, its annotations and the Pod hold (tests/oci/check.py)"
diag < "$tmpdir/check.tap"
# A config the schema refuses is refused: the check is not blind.
sed 's/"uid":[0-9]*/"uid":"nobody"/' "$tmpdir/config.json" > "$tmpdir/bad.json"
python3 "$srcdir/tests/oci/check.py" "$srcdir/tests/oci/runtime-spec-schema" \
	"$tmpdir/bad.json" "$tmpdir/plan.json" "$tmpdir/list.json" "$tmpdir/profile.json" \
	"$T" > "$tmpdir/bad.tap" 2>&1
ok $(($? == 0)) "a config with a user named, not numbered, fails the check"

# The List against Kubernetes 1.36's own schema of a Pod and a
# NetworkPolicy (tests/oci/k8s-schema), for a preset without net and one
# whose net rules send the Pod to the proxy.
emit "$srcdir/tests/data/golden/deny-read.cordon" online k8s > "$tmpdir/online.json" 2> /dev/null
ok $? "online: the Kubernetes List"
k8s_schema() {
	python3 "$srcdir/tests/oci/k8s_schema.py" "$srcdir/tests/oci/k8s-schema/definitions.json" "$1" \
		> "$tmpdir/k8s.tap" 2>&1
}
k8s_schema "$tmpdir/list.json"
if [ $? -eq 2 ]; then
	skip "the List against the Kubernetes schema" "python3-jsonschema is not installed"
	done_testing
	exit
fi
k8s_schema "$tmpdir/list.json"
ok $? "workspace-write: the Pod and NetworkPolicy are valid by the Kubernetes 1.36 schema"
diag < "$tmpdir/k8s.tap"
k8s_schema "$tmpdir/online.json"
ok $? "online: so are they with the proxy's egress"
diag < "$tmpdir/k8s.tap"
# Broken Lists are refused: the check is not blind.  A user named where
# the schema wants a number, a field misspelt, a port that is neither a
# number nor a name, a kind it has no schema for.
for broken in \
	'pod["spec"]["containers"][0]["securityContext"]["runAsUser"] = "nobody"|runAsUser' \
	'pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFileSystem"] = True|readOnlyRootFileSystem' \
	'pol["spec"]["egress"][0]["ports"][0]["port"] = [3128]|ports/0/port' \
	'pol["kind"] = "NetworkPolicies"|no schema'; do
	python3 - "$tmpdir/online.json" "$tmpdir/broken.json" "${broken%|*}" << 'EOF'
import json, sys
lst = json.load(open(sys.argv[1]))
pod, pol = lst["items"]
exec(sys.argv[3])
json.dump(lst, open(sys.argv[2], "w"))
EOF
	k8s_schema "$tmpdir/broken.json"
	ok $(($? != 1)) "refused: ${broken%|*}"
	grep -q "${broken#*|}" "$tmpdir/k8s.tap"
	ok $? "and the failure names ${broken#*|}"
done
done_testing
