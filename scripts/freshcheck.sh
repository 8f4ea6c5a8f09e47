#!/bin/sh
# The README's two commands on a fresh Debian 12 machine. Makes a minimal
# root with debootstrap (--variant=minbase bookworm, from the archive
# scripts/debmirror.sh names, as test_deb's root) in DIR/root (DIR: the
# first argument, default build/freshroot), adds git, ca-certificates and
# make (the README's reader has the tree from `git clone`, over https, and
# its commands are make's; sudo is not added: they run as root here, and
# scripts/deps.sh needs sudo only for a user), mounts the root on itself,
# /proc, /sys (with what the host mounts under it: cgroups, tracefs, bpffs,
# debugfs), /dev and /dev/pts, and a /dev/shm of its own, puts a clean
# clone of this tree's HEAD (git clone, not the work tree's files) in
# /src/vmscope, and runs there, as root in chroot, without a terminal:
# `make demo` (which installs what scripts/deps.sh lists, then builds),
# then `CI=true make check`, each pass of it timed (its build and its
# tests apart).
# On exit, failure or Ctrl-C every process left in the root is killed by
# its pid and everything mounted under it unmounted; nothing outside DIR
# is written (the root's apt is told not to start services: policy-rc.d).
#
# How long, on the loaded 2-core machine (2026-11-28): debootstrap 3.5
# min, git and make 1.5 min, make demo 9 min (most of it the packages of
# scripts/deps.sh, some 1.5 GB), make check 48 min (pass 1: build 1.5 min,
# tests 25 min; pass 2: build 4.5 min, tests 17 min). About 4.5 GB in DIR.
# `make freshcheck` runs it; root only.
#
# VMSCOPE_FRESH_KEEP=1 reuses DIR/root as it is (no debootstrap), its
# clone brought to this tree's HEAD (only what changed is rebuilt); with
# TESTS="PATTERN ..." only those tests run (tests/run.sh), on both builds;
# VMSCOPE_FRESH_PASS=1 (or 2) runs only make check's first pass (or its
# second, the sanitizer build's), by the Makefile's own commands for it.
set -u

if [ "$(id -u)" -ne 0 ]; then
	echo "freshcheck: root only (debootstrap, mount, chroot)" >&2
	exit 1
fi
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build/freshroot}
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd -P)
case "$dir" in
/ | *[[:space:]]*)
	echo "freshcheck: not in '$dir': give a directory of its own" >&2
	exit 1
	;;
esac
root=$dir/root
mark=$dir/freshroot.ok
rev=$(git -C "$top" rev-parse HEAD) || exit 1
t_start=$(date +%s)

since() { echo "$(($(date +%s) - $1)) s"; }
say() { echo "freshcheck: $*"; }

# what is mounted at or under the root, deepest first
mounts() {
	awk -v r="$root" '$5 == r || index($5, r "/") == 1 {print $5}' \
		/proc/self/mountinfo | sort -r
}

# every process whose root is the root (or one made inside it)
signal_root() {
	found=0
	for p in /proc/[0-9]*; do
		case $(readlink "$p/root" 2>/dev/null) in
		"$root" | "$root"/*)
			kill -"$1" "${p#/proc/}" 2>/dev/null && found=1
			;;
		esac
	done
	[ "$found" = 1 ]
}

cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	if signal_root TERM; then
		i=0
		while [ "$i" -lt 20 ] && signal_root 0; do
			sleep 0.5
			i=$((i + 1))
		done
		signal_root KILL && sleep 1
	fi
	for m in $(mounts); do
		umount "$m" 2>/dev/null || umount -l "$m" ||
			echo "freshcheck: could not unmount $m" >&2
	done
	[ -n "$(mounts)" ] && say "still mounted under $root: $(mounts)" >&2
	say "$(since "$t_start") in all, exit status $rc"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# chroot with the environment of a root login: nothing of the caller's
inroot() {
	chroot "$root" /usr/bin/env -i HOME=/root \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" </dev/null
}

# bind a host mount in, as a slave: what the root unmounts stays mounted
# on the host
bind() {
	mount "$1" "/$2" "$root/$2" && mount --make-rslave "$root/$2"
}

if [ -n "$(mounts)" ]; then
	say "something is mounted under $root already (another run?):" >&2
	mounts >&2
	trap - EXIT
	exit 1
fi

if [ "${VMSCOPE_FRESH_KEEP:-0}" = 1 ] && [ -f "$mark" ]; then
	say "reusing $root (VMSCOPE_FRESH_KEEP=1)"
else
	if [ -e "$root" ] && [ ! -f "$mark" ]; then
		say "$root is not a root this script made: remove it" >&2
		exit 1
	fi
	rm -f "$mark"
	rm -rf --one-file-system "$root" "$root.tmp" || exit 1
	mirror=$(sh "$top/scripts/debmirror.sh")
	t=$(date +%s)
	say "debootstrap --variant=minbase bookworm from $mirror into $root"
	if ! debootstrap --variant=minbase bookworm "$root.tmp" "$mirror" \
		>"$dir/debootstrap.log" 2>&1; then
		tail -n 20 "$dir/debootstrap.log" >&2
		rm -rf --one-file-system "$root.tmp"
		exit 1
	fi
	mv "$root.tmp" "$root" || exit 1
	printf '#!/bin/sh\n# freshcheck: no service started in a chroot\nexit 101\n' \
		>"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	echo "bookworm $mirror $(date -u +%FT%TZ)" >"$mark"
	say "debootstrap took $(since "$t")"
fi

# the root a mount of its own, as / is on a machine: unshare -m (test_cli,
# test_fork_pidns) makes / private, which fails on a directory that is not
# a mount point
mount --bind "$root" "$root" && mount --make-private "$root" || exit 1
mount -t proc proc "$root/proc" || exit 1
bind --rbind sys || exit 1
bind --bind dev || exit 1
bind --bind dev/pts || exit 1
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm" || exit 1
say "mounted: $(mounts | sort | tr '\n' ' ')"

if ! inroot sh -c 'command -v git && command -v make' >/dev/null; then
	t=$(date +%s)
	say "apt-get install git ca-certificates make"
	inroot apt-get update -qq || exit 1
	inroot apt-get install -y -qq --no-install-recommends git \
		ca-certificates make || exit 1
	say "they took $(since "$t")"
fi

src=$root/src/vmscope
if [ -d "$src/.git" ]; then
	git -C "$src" fetch -q --no-tags "$top" HEAD &&
		git -C "$src" checkout -q --detach FETCH_HEAD || exit 1
else
	mkdir -p "$root/src"
	git clone -q --no-local "$top" "$src" &&
		git -C "$src" checkout -q --detach "$rev" || exit 1
fi
[ "$(git -C "$src" rev-parse HEAD)" = "$rev" ] || exit 1
[ -n "$(git -C "$top" status --porcelain -uno)" ] &&
	say "(the work tree has changes not committed: they are not run)"
say "the tree: $(git -C "$src" log -1 --format='%h %s' | cut -c1-70)"

# the passes' times, from make check's own lines: a pass's build starts
# with make check (the first) or `make ... SAN=1 tests` (the second), its
# tests at `... sh tests/run.sh`, and end at run.sh's closing line
timer() {
	pass=1
	tb=$(date +%s)
	tt=$tb
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		make*" SAN=1 tests")
			pass=2
			tb=$(date +%s)
			;;
		VMSCOPE=*"sh tests/run.sh")
			tt=$(date +%s)
			say "pass $pass: its build took $((tt - tb)) s"
			;;
		[0-9]*" passed, "[0-9]*" failed, "[0-9]*" skipped")
			say "pass $pass: $line; its tests took $(since "$tt")," \
				"the pass $(since "$tb")" | tee -a "$dir/passes"
			;;
		esac
	done
}

if [ -z "${VMSCOPE_FRESH_PASS:-}" ]; then
	t=$(date +%s)
	say "make demo (no terminal)"
	inroot sh -c 'cd /src/vmscope && make demo' 2>&1 &
	wait $! || {
		say "make demo failed after $(since "$t")"
		exit 1
	}
	say "make demo took $(since "$t")"
fi

# make check, or one of its passes: the Makefile's check target's two
# lines for it, each printed first as make prints it (the timer reads them)
case ${VMSCOPE_FRESH_PASS:-} in
1)
	b='make -j$(nproc) tests'
	r='VMSCOPE=./vmscope BUILD=build sh tests/run.sh'
	;;
2)
	b='make -j$(nproc) SAN=1 tests'
	r='VMSCOPE=./vmscope-san BUILD=build-san CODE_CHECKS=0 CHECK_PASS=2 sh tests/run.sh'
	;;
esac
check='exec make check'
[ -n "${b:-}" ] && check="echo '$b' && $b && echo '$r' && $r"
t=$(date +%s)
: >"$dir/passes"
say "CI=true make check${VMSCOPE_FRESH_PASS:+, pass $VMSCOPE_FRESH_PASS}" \
	"${TESTS:+(TESTS=$TESTS)}"
{
	inroot CI=true TESTS="${TESTS:-}" sh -c "cd /src/vmscope && $check" 2>&1
	echo $? >"$dir/check.rc"
} | timer &
wait $!
rc=$(cat "$dir/check.rc" 2>/dev/null || echo 1)
say "make check took $(since "$t"), exit status $rc"
cat "$dir/passes"
exit "$rc"
