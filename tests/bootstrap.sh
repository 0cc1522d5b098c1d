#!/bin/sh
# ./bootstrap installs exactly the missing packages: apt-get as root,
# through sudo otherwise, and a clear refusal with neither.  The package
# tools are stand-ins on PATH that record their calls (this test must not
# install anything); the package list is checked against configure.ac.
. "$srcdir/tests/lib.sh"

chmod 755 "$tmpdir"
cp "$srcdir/bootstrap" "$tmpdir/bootstrap"
stubs=$tmpdir/stubs
mkdir -p "$stubs"
# dpkg-query -W -f=FMT PKG: installed when PKG is listed in $tmpdir/installed.
cat > "$stubs/dpkg-query" << 'EOS'
#!/bin/sh
for p; do :; done
grep -qx "$p" "$T/installed" && echo "install ok installed"
exit 0
EOS
printf '#!/bin/sh\necho "apt-get $*" >> "$T/calls"\n' > "$stubs/apt-get"
printf '#!/bin/sh\necho "sudo $*" >> "$T/calls"\nexec "$@"\n' > "$stubs/sudo"
chmod 755 "$stubs"/*
chmod 777 "$tmpdir"

# bs WHO [--nosudo] ARGS...: ./bootstrap ARGS as WHO (root or nobody); $rc, $calls, $err.
bs() {
	who=$1
	shift
	path=$stubs:/usr/bin:/bin
	if [ "${1:-}" = --nosudo ]; then
		shift
		mkdir -p "$tmpdir/nosudo"
		cp "$stubs/dpkg-query" "$stubs/apt-get" "$tmpdir/nosudo/"
		path=$tmpdir/nosudo:/usr/bin:/bin
	fi
	as=
	[ "$who" = nobody ] && [ "$(id -u)" -eq 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	: > "$tmpdir/calls"
	chmod 666 "$tmpdir/calls"
	err=$($as env -i PATH="$path" T="$tmpdir" sh "$tmpdir/bootstrap" "$@" 2>&1 > /dev/null)
	rc=$?
	calls=$(cat "$tmpdir/calls")
}

all=$(sh "$tmpdir/bootstrap" --packages)
printf '%s\n' $all > "$tmpdir/installed"

# Every package configure.ac asks for by name is in the list.
for p in $(sed -n "s/.*install the Debian package '\([^']*\)'.*/\1/p" "$srcdir/configure.ac" | sort -u); do
	echo "$all" | grep -qx "$p"
	ok $? "--packages lists $p, which configure requires"
done
echo "$all" | grep -qx bubblewrap
ok $? "--packages lists bubblewrap, which cordon run requires"

if [ "$(id -u)" -eq 0 ]; then
	bs root --deps
	[ $rc -eq 0 ] && [ -z "$calls" ]
	ok $? "nothing missing: no apt-get at all"

	grep -vx -e nettle-dev -e bison "$tmpdir/installed" > "$tmpdir/i2" && mv "$tmpdir/i2" "$tmpdir/installed"
	bs root --deps
	is "$rc" 0 "as root, two packages missing: exit 0"
	is "$calls" "apt-get update -qq
apt-get install -y -qq --no-install-recommends bison nettle-dev" "as root: apt-get update, then the two missing ones, without sudo"
fi

if [ "$(id -u)" -ne 0 ] || command -v setpriv > /dev/null; then
	grep -vx -e nettle-dev -e bison "$tmpdir/installed" > "$tmpdir/i2"
	cp "$tmpdir/i2" "$tmpdir/installed"
	bs nobody --deps
	is "$rc" 0 "as a user, two packages missing: exit 0"
	is "$calls" "sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
apt-get update -qq
sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bison nettle-dev
apt-get install -y -qq --no-install-recommends bison nettle-dev" "as a user: the same through sudo"

	bs nobody --nosudo --deps
	is "$rc" 1 "as a user without sudo: exit 1"
	[ -z "$calls" ]
	ok $? "and no apt-get"
	echo "$err" | grep -q "missing and there is no sudo to install them: bison nettle-dev"
	ok $? "and the message names the missing packages"
else
	skip "the unprivileged cases" "no setpriv"
fi

bs root --bogus
is "$rc" 2 "an unknown option: exit 2"
echo "$err" | grep -q "unknown option '--bogus'"
ok $? "and says which"
done_testing
