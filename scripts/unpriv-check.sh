#!/bin/sh
# Runs the hostile-target suite (tests/live/test_hostile*.py) as a user
# with no privilege: uid and gid 64002 (no passwd entry, nothing added to
# the machine), no supplementary groups, no capabilities, through
# setpriv. The targets are then that user's too, so vmscope meets them as
# an unprivileged user meets their own processes (the kernel's own limits
# apply: unprivileged userfaultfd, fork events, core_pattern and chroot
# cases skip with their reason). Root only (to switch users); the tree
# must be readable by everyone (it is checked). `make check-unpriv` runs it
# on the normal build; about 3 minutes.
set -eu
uid=64002
[ "$(id -u)" -eq 0 ] || { echo "unpriv-check: run as root (it switches to uid $uid)" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
VMSCOPE=${VMSCOPE:-$top/vmscope}
BUILD=${BUILD:-$top/build}
setpriv --reuid=$uid --regid=$uid --clear-groups test -x "$VMSCOPE" -a \
	-r "$top/tests/lib/vmstest.py" -a -x "$BUILD/targets" || {
	echo "unpriv-check: uid $uid cannot read $top or run $VMSCOPE: use a tree every user can read" >&2
	exit 2
}
tmp=$(mktemp -d)
chmod 1777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$top"
setpriv --reuid=$uid --regid=$uid --clear-groups --inh-caps=-all \
	env HOME="$tmp" TMPDIR="$tmp" VMSCOPE="$VMSCOPE" BUILD="$BUILD" \
	TESTS=live/test_hostile CODE_CHECKS=0 sh "$top/tests/run.sh"
