#!/bin/sh
# The sandbox of `cordon run`, tried from inside.  The README runs it under
# the workspace-write preset of the embedded default policy:
#
#   ./cordon run --preset workspace-write -- sh docs/sandbox-demo.sh
#
# Each line tries one thing a preset forbids or allows and says whether the
# boundary held.  The analysis sees only `sh FILE`; what this script does is
# stopped, or not, by the kernel: the mount plan, seccomp and Landlock.
# Exits 0 when every boundary held, 1 when one did not.
broke=0
held() { printf '  held   %s\n' "$1"; }
broke() {
	printf '  BROKE  %s\n' "$1"
	broke=$((broke + 1))
}
# The reason the kernel gave, from a command's error message.
why() { sed -n '1s/.*: //p'; }

echo "inside the sandbox of cordon run, as $(id -un 2> /dev/null || id -u), in $PWD:"

# 1. The workspace (the current directory) is writable.
f=cordon-demo.$$
if echo sandboxed > "$f" 2> /dev/null && [ "$(cat "$f")" = sandboxed ]; then
	held "a write inside the workspace succeeds ($f)"
else
	broke "a write inside the workspace failed"
fi
rm -f "$f"

# 2. Everything outside the writable roots is read-only.
for target in /etc/cordon-demo /usr/cordon-demo; do
	if err=$(touch "$target" 2>&1); then
		rm -f "$target"
		broke "a write outside the workspace succeeded ($target)"
	else
		held "a write outside is refused: $target: $(echo "$err" | why)"
	fi
done

# 3. Credentials are hidden: what the policy denies is masked.
for dir in "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"; do
	if [ -n "$(ls -A "$dir" 2> /dev/null)" ]; then
		broke "$dir can be listed: $(ls -A "$dir" | head -3 | tr '\n' ' ')"
	else
		held "$dir shows nothing"
	fi
done

# 4. No network: the call has a network namespace of its own with loopback
#    alone, and the seccomp filter refuses internet sockets.
ifaces=$(sed -n 's/^ *\([^ :]*\):.*/\1/p' /proc/net/dev | grep -vx lo | tr '\n' ' ')
if [ -z "$ifaces" ]; then
	held "no network interface but loopback"
else
	broke "network interfaces are visible: $ifaces"
fi
if command -v bash > /dev/null; then
	# The sandbox's own loopback: nothing leaves the machine even if this opened.
	err=$(bash -c 'exec 3<> /dev/tcp/127.0.0.1/9' 2>&1)
	case $err in
	*"not supported"* | *"not permitted"*)
		held "an internet socket is refused: $(echo "$err" | why)" ;;
	*) broke "an internet socket was opened (${err:-connected})" ;;
	esac
fi

if [ "$broke" -eq 0 ]; then
	echo "every boundary held"
	exit 0
fi
echo "$broke boundaries did not hold"
exit 1
