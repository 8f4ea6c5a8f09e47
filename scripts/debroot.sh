#!/bin/sh
# Makes the Debian 12 root test_deb installs the package into, once:
# debootstrap --variant=minbase --include=man-db bookworm from the first
# Debian archive of this machine's apt sources, into DIR/root (default
# build/debroot; VMSCOPE_DEBROOT=DIR), marked done by DIR/root.ok. About
# 4.5 minutes and 220 MB; test_deb then works on an overlay of it, so it
# stays fresh. `make debroot` runs it; root only.
set -eu
dir=${VMSCOPE_DEBROOT:-build/debroot}
[ -f "$dir/root.ok" ] && [ -d "$dir/root" ] && exit 0
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
	2>/dev/null | grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' \
	/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
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
