#!/bin/sh
# Prints the Debian archive this machine's apt uses, for debootstrap: the
# first non-security URIs of /etc/apt/sources.list.d/*.sources, else the
# first bookworm "deb" line of /etc/apt/sources.list, else deb.debian.org.
# scripts/debroot.sh (test_deb's root) and scripts/freshcheck.sh (the
# fresh-machine run) both take their mirror from here.
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
	2>/dev/null | grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' \
	/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
echo "$mirror"
