#!/bin/sh
# Makes the Debian 12 root test_deb installs the package into, once:
# debootstrap --variant=minbase --include=man-db bookworm from the first
# Debian archive of this machine's apt sources (scripts/debmirror.sh), into
# DIR/root (default build/debroot; VMSCOPE_DEBROOT=DIR), marked done by
# DIR/root.ok. About 4.5 minutes and 220 MB; test_deb then works on an
# overlay of it, so it stays fresh. `make debroot` runs it; root only.
set -eu
dir=${VMSCOPE_DEBROOT:-build/debroot}
[ -f "$dir/root.ok" ] && [ -d "$dir/root" ] && exit 0
mirror=$(sh "$(dirname "$0")/debmirror.sh")
mkdir -p "$dir"
rm -rf "$dir/root.tmp" "$dir/root"
echo "vmscope: debootstrap bookworm from $mirror into $dir/root"
debootstrap --variant=minbase --include=man-db bookworm "$dir/root.tmp" \
	"$mirror" >"$dir/debootstrap.log" 2>&1 || {
	tail -n 20 "$dir/debootstrap.log" >&2
	rm -rf "$dir/root.tmp"
	exit 1
}
mv "$dir/root.tmp" "$dir/root"
echo "bookworm $mirror" >"$dir/root.ok"
