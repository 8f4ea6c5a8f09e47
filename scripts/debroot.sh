#!/bin/sh
# Makes the Debian 12 root test_deb installs the package into, when there
# is none or the one kept is no longer valid: debootstrap
# --variant=minbase --include=man-db bookworm from the first Debian archive
# of this machine's apt sources (scripts/debmirror.sh), into DIR/root
# (default build/debroot; VMSCOPE_DEBROOT=DIR), marked done by DIR/root.ok,
# which names the suite, the variant, the packages added and the mirror.
# A kept root is valid while root.ok names what this script would make now
# (the same mirror: another machine's apt sources, or this script changed)
# and dpkg's state is in it; otherwise it is made again. The .debs
# debootstrap downloads are kept in DIR/cache (--cache-dir, checked
# against the archive's sums before use), so a root made again takes only
# what changed in the archive. About 4.5 minutes and 220 MB (the cache 60
# MB more); test_deb then works on an overlay of it, so it stays fresh.
# `make debroot` runs it (test_deb too); root only.
set -eu
dir=${VMSCOPE_DEBROOT:-build/debroot}
mirror=$(sh "$(dirname "$0")/debmirror.sh")
stamp="bookworm minbase man-db $mirror"
if [ -f "$dir/root.ok" ] && [ "$(cat "$dir/root.ok")" = "$stamp" ] &&
	[ -f "$dir/root/var/lib/dpkg/status" ]; then
	exit 0
fi
mkdir -p "$dir/cache"
dir=$(cd "$dir" && pwd -P)
# what a debootstrap stopped half-way left mounted in its root (proc, sys)
for m in $(awk -v r="$dir/" 'index($5, r) == 1 {print $5}' \
	/proc/self/mountinfo | sort -r); do
	umount "$m" 2>/dev/null || umount -l "$m"
done
rm -f "$dir/root.ok"
rm -rf --one-file-system "$dir/root.tmp" "$dir/root"
echo "vmscope: debootstrap bookworm from $mirror into $dir/root"
debootstrap --variant=minbase --include=man-db --cache-dir="$dir/cache" \
	bookworm "$dir/root.tmp" "$mirror" >"$dir/debootstrap.log" 2>&1 || {
	tail -n 20 "$dir/debootstrap.log" >&2
	rm -rf --one-file-system "$dir/root.tmp"
	exit 1
}
mv "$dir/root.tmp" "$dir/root"
# the cache keeps only the versions the root has (the archive's newer
# ones replace them: debootstrap names a cached deb NAME_VERSION_ARCH.deb,
# an epoch's colon as %3a)
dpkg-query --admindir="$dir/root/var/lib/dpkg" -W \
	-f '${Package}_${Version}_${Architecture}.deb\n' | sed 's/:/%3a/g' \
	>"$dir/cache.keep"
[ -s "$dir/cache.keep" ] && for f in "$dir"/cache/*.deb; do
	grep -qxF "${f##*/}" "$dir/cache.keep" || rm -f "$f"
done
rm -f "$dir/cache.keep"
echo "$stamp" >"$dir/root.ok"
