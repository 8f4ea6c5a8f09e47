#!/bin/sh
# make bench: runs every tests/bench/bench_*.py. Each prints its figures
# beside the reference it is compared with, measured in the same run.
# Benchmarks never fail on a figure: only on an error.
set -u
VMSCOPE=${VMSCOPE:-./vmscope}
BUILD=${BUILD:-build}
VMSCOPE=$(cd "$(dirname "$VMSCOPE")" && pwd)/$(basename "$VMSCOPE")
BUILD=$(cd "$BUILD" && pwd)
export VMSCOPE BUILD
rc=0
for b in tests/bench/bench_*.py; do
	[ -f "$b" ] || continue
	case "$b" in *"${BENCH:-}"*) ;; *) continue ;; esac
	echo "== $b"
	python3 "$b" || rc=1
	echo
done
exit $rc
