#!/usr/bin/env bash
# The cost of `cordon run` over bare bwrap.
#
#   bench/run.sh [-c CORDON] [-n RUNS] [-o DIR]
#
# Times, alternating one with the other RUNS times each (default 50, after
# two warm-up runs of each),
#
#   cordon run --preset workspace-write -- /bin/true
#   bwrap --args 3 -- /bin/true  3< PLAN
#
# where PLAN is `cordon compile --preset workspace-write --emit bwrap-args`
# for the same workspace, home and a temp dir: the same mounts, namespaces
# and environment, without the policy load, the evaluation, the seccomp
# filter, the Landlock helper and the status pipes.  It prints the median of
# each, their ratio (target: at most 2), and cordon's peak resident set
# size.
#
# Wall times come from bash's EPOCHREALTIME (microseconds), read around each
# run with no extra process.  Peak RSS is read twice: GNU time's %M
# (/usr/bin/time, `apt-get install time`), which is the largest of cordon and
# the processes it waited for (bwrap, and what bwrap waited for), and
# VmHWM from /proc/PID/status of cordon itself while the command runs.

set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

cordon=$top/cordon
runs=50
outdir=
target_ratio=2.00

usage() {
	echo "usage: $0 [-c CORDON] [-n RUNS] [-o DIR]" >&2
	echo "  -c CORDON  the binary to measure (default: $top/cordon; cordon-exec next to it)" >&2
	echo "  -n RUNS    timed runs of each (default: $runs)" >&2
	echo "  -o DIR     keep the workspace, the plan and the raw times in DIR (default: a temp dir)" >&2
	exit 2
}

while getopts c:n:o:h opt; do
	case $opt in
	c) cordon=$OPTARG ;;
	n) runs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "$0: -n wants a positive number" >&2; exit 2 ;; esac
if [ ! -x "$cordon" ] || [ -d "$cordon" ]; then
	echo "$0: $cordon not found or not executable; run make first" >&2
	exit 2
fi
# The runs below start in the workspace: name the binary from the root.
case $cordon in
/*) ;;
*) cordon=$(cd "$(dirname "$cordon")" && pwd)/$(basename "$cordon") ;;
esac
bwrap=
for b in /usr/bin/bwrap /bin/bwrap; do
	if [ -x "$b" ]; then bwrap=$b; break; fi
done
if [ -z "$bwrap" ]; then
	echo "$0: no bwrap in /usr/bin or /bin (install bubblewrap)" >&2
	exit 2
fi
if ! "$cordon" probe > /dev/null 2>&1; then
	"$cordon" probe >&2 || true
	echo "$0: the sandbox cannot start here; nothing to measure" >&2
	exit 2
fi

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	dir=$(cd "$outdir" && pwd)
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/cordon-bench-run.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi
# Open as a project directory is: run by root, cordon runs the command as
# uid 65534, which must pass it (a 0700 directory would measure root's
# fallback to uid 0 and its masks instead).
chmod 755 "$dir"
ws=$dir/ws home=$dir/home tmp=$dir/tmp
# The parents of the default's fences that the plan binds writable (cordon
# run makes them for a call; bare bwrap needs them there).
mkdir -p "$ws/.agent" "$ws/.git" "$ws/.config" "$ws/.local" "$home" "$tmp"
# What the plan binds over the files it masks (cordon run makes it per call).
: > "$tmp.mask"

# One fixed environment for both, as a host would give it.
environment=(env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TERM=dumb)
context=(--context home="$home" --context agent_dir="$ws/.agent"
	--context session_dir="$ws/.agent/sessions/s1")

cd "$ws"
"${environment[@]}" "$cordon" compile --preset workspace-write --emit bwrap-args \
	--context workspace="$ws" --context cwd="$ws" --context tmp="$tmp" "${context[@]}" \
	> "$dir/plan"

run_cordon() {
	"${environment[@]}" "$cordon" run --preset workspace-write --workspace "$ws" \
		"${context[@]}" -- /bin/true
}
run_plan() {
	"${environment[@]}" "$bwrap" --args 3 -- /bin/true 3< "$dir/plan"
}
# The reference: bubblewrap alone, with the namespaces and the one writable
# workspace a sandbox needs, and nothing of the policy.
run_bare() {
	"${environment[@]}" "$bwrap" --ro-bind / / --dev /dev --proc /proc --bind "$ws" "$ws" \
		--unshare-all --die-with-parent --new-session --cap-drop ALL -- /bin/true
}
# Other launchers, each timed only when installed: its usual way of running
# one command with the workspace writable and the network off.  They are
# looked for on PATH, then in $CORDON_AGENTS_DIR and $CORDON_PEERS_DIR
# (node_modules/.bin: tests/agents/install.sh installs Codex there, `npm
# install --prefix DIR @anthropic-ai/sandbox-runtime` srt), npm's global
# bin, /usr/local/bin and root's usual places.
peer_dirs() {
	local g
	if [ -n "${CORDON_AGENTS_DIR:-}" ]; then echo "$CORDON_AGENTS_DIR/node_modules/.bin"; fi
	if [ -n "${CORDON_PEERS_DIR:-}" ]; then echo "$CORDON_PEERS_DIR/node_modules/.bin"; fi
	if g=$(npm prefix -g 2> /dev/null); then echo "$g/bin"; fi
	printf '%s\n' /usr/local/bin /root/.npm-global/bin /root/.local/bin /root/node_modules/.bin
}
declare -A peer
find_peer() { # find_peer NAME: peer[NAME] is its path, or it stays unset
	local d p
	p=$(command -v "$1" 2> /dev/null || true)
	if [ -z "$p" ]; then
		while read -r d; do
			if [ -x "$d/$1" ]; then p=$d/$1; break; fi
		done < <(peer_dirs)
	fi
	if [ -n "$p" ]; then peer[$1]=$p; fi
}
# Node launchers need node on the fixed PATH, Codex a home of its own
# outside a temp dir (it refuses to put its helpers in one): the caller's.
run_srt() { (cd "$ws" && "${environment[@]}" "${peer[srt]}" /bin/true); }
run_codex() {
	(cd "$ws" && "${environment[@]}" HOME="${HOME:-/root}" "${peer[codex]}" sandbox -- /bin/true)
}
run_firejail() { "${environment[@]}" "${peer[firejail]}" --quiet --noprofile --net=none -- /bin/true; }
run_nsjail() {
	"${environment[@]}" "${peer[nsjail]}" -q -Mo -R / -B "$ws" --disable_proc -- /bin/true
}

names=(cordon bare plan)
labels=("cordon run" "bare bwrap" "bwrap, the same plan")
skipped=()
for other in srt codex firejail nsjail; do
	find_peer "$other"
	if [ -z "${peer[$other]:-}" ]; then
		skipped+=("$other")
	elif "run_$other" > /dev/null 2>&1; then
		names+=("$other")
		labels+=("$other")
	else
		skipped+=("$other (installed, but it failed here)")
	fi
done

# All must work before any is timed.
for name in cordon bare plan; do
	if ! "run_$name"; then
		echo "$0: $name failed" >&2
		exit 1
	fi
done

# children_cpu: sets cpu_us to the user+system CPU time of this shell's
# waited-for children so far, in microseconds.  Builtins only (`times`,
# `read`, arithmetic): no process of its own is counted.
to_us() { # to_us 1m2.345s: sets us
	local m=${1%%m*} s=${1#*m}
	s=${s%s}
	local whole=${s%%[.,]*} frac=${s#*[.,]}000000
	us=$(((10#$m * 60 + 10#$whole) * 1000000 + 10#${frac:0:6}))
}
children_cpu() {
	local self child user sys us
	times > "$dir/times"
	{ read -r self; read -r user sys; } < "$dir/times"
	to_us "$user"
	cpu_us=$us
	to_us "$sys"
	cpu_us=$((cpu_us + us))
}
declare -A cpu_sum
for _ in 1 2; do for name in "${names[@]}"; do "run_$name" > /dev/null 2>&1; done; done
for name in "${names[@]}"; do : > "$dir/$name.us"; done
n=${#names[@]}
for ((i = 0; i < runs; i++)); do
	# Rotate which goes first, so none always follows another.
	for ((k = 0; k < n; k++)); do
		name=${names[(i + k) % n]}
		children_cpu
		c0=$cpu_us
		t0=${EPOCHREALTIME/[.,]/}
		"run_$name" > /dev/null 2>&1
		t1=${EPOCHREALTIME/[.,]/}
		children_cpu
		echo $((10#$t1 - 10#$t0)) >> "$dir/$name.us"
		cpu_sum[$name]=$((${cpu_sum[$name]:-0} + cpu_us - c0))
	done
done

median() { # median FILE: of the numbers in it, one a line
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
spread() { # spread FILE: the 10th and 90th percentiles, in ms
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		lo = v[int(NR * 0.1) + 1]; hi = v[int(NR * 0.9) > 0 ? int(NR * 0.9) : 1]
		printf "%.2f-%.2f", lo / 1000, hi / 1000 }'
}
declare -A med cpu
for name in "${names[@]}"; do
	med[$name]=$(median "$dir/$name.us")
	cpu[$name]=$(awk -v t="${cpu_sum[$name]}" -v n="$runs" 'BEGIN { printf "%.0f", t / n }')
done
ratio=$(awk -v a="${med[cordon]}" -v b="${med[bare]}" 'BEGIN { printf "%.3f", a / b }')
cpu_ratio=$(awk -v a="${cpu[cordon]}" -v b="${cpu[bare]}" 'BEGIN { printf "%.3f", a / b }')
verdict=$(awk -v r="$ratio" -v t="$target_ratio" 'BEGIN { print (r <= t) ? "met" : "MISSED" }')

# Peak RSS: GNU time over cordon (and what it waited for), then cordon alone,
# read from /proc while a command keeps it running.
rss_time=n/a
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then
	best=0
	for _ in 1 2 3; do
		/usr/bin/time -o "$dir/rss" -f %M "${environment[@]}" "$cordon" run \
			--preset workspace-write --workspace "$ws" "${context[@]}" -- /bin/true
		kb=$(tail -1 "$dir/rss")
		if [ "$kb" -gt "$best" ]; then best=$kb; fi
	done
	rss_time="$best kB"
fi
"${environment[@]}" "$cordon" run --preset workspace-write --workspace "$ws" "${context[@]}" \
	-- /bin/sleep 0.5 &
pid=$!
sleep 0.3
hwm=$(awk '/^VmHWM:/ { print $2 " " $3 }' "/proc/$pid/status" 2> /dev/null || true)
wait $pid || true

printf 'cordon run --preset workspace-write -- /bin/true  vs  bare bwrap -- /bin/true\n'
printf '%s; %s; %d runs of each, alternating\n\n' "$("$bwrap" --version)" "$(uname -sr)" "$runs"
printf '%-28s %10s %16s %12s %10s\n' "" "median ms" "p10-p90 ms" "CPU ms/run" "x bare"
for ((k = 0; k < n; k++)); do
	name=${names[k]}
	printf '%-28s %10.2f %16s %12.2f %10.2f\n' "${labels[k]}" \
		"$(awk -v v="${med[$name]}" 'BEGIN { print v / 1000 }')" "$(spread "$dir/$name.us")" \
		"$(awk -v v="${cpu[$name]}" 'BEGIN { print v / 1000 }')" \
		"$(awk -v a="${med[$name]}" -v b="${med[bare]}" 'BEGIN { print a / b }')"
done
for other in "${!peer[@]}"; do
	printf '%-28s %s\n' "$other" "found at ${peer[$other]}"
done
for other in "${skipped[@]}"; do
	printf '%-28s %s\n' "$other" "not installed: skipped"
done
printf '\nratio cordon/bare bwrap: %s wall, %s CPU (target <= %s: %s)\n' "$ratio" "$cpu_ratio" \
	"$target_ratio" "$verdict"
printf 'peak RSS, cordon and what it waited for (GNU time %%M): %s\n' "$rss_time"
printf 'peak RSS, cordon itself (VmHWM while the command runs): %s\n' "${hwm:-n/a}"
# For bench/compare.sh.
printf 'target %s\n' "$target_ratio"
for ((k = 0; k < n; k++)); do
	name=${names[k]}
	printf 'result %s %s %s\n' "$name" "${med[$name]}" "${cpu[$name]}"
done
