#!/bin/sh
# Runs every test and prints one closing line: "N passed, N failed, N skipped".
#
# A test is an executable that prints TAP lines ("ok - what", "not ok - what",
# "ok - what # SKIP why") and exits non-zero if anything failed:
#   $BUILD/tests/test_*     unit tests (C, tests/unit/)
#   tests/live/*.py         live tests against real processes (python3)
#   tests/code/*.py         checks on the code itself (layering by nm)
#   tests/tui/*.py          the viewer driven in tmux
# Set TESTS to a pattern to run a subset: TESTS=live/ sh tests/run.sh; to
# several, blank-separated: TESTS="live/test_snap code/test_format"
# CODE_CHECKS=0 leaves out tests/code/ (make check's second pass: they
# read the sources and symbols, the same on both builds).
# A randomised test prints "# seed N"; VMSCOPE_SEED=N runs it again with it.
set -u
VMSCOPE=${VMSCOPE:-./vmscope}
BUILD=${BUILD:-build}
export VMSCOPE BUILD
VMSCOPE=$(cd "$(dirname "$VMSCOPE")" && pwd)/$(basename "$VMSCOPE")
BUILD=$(cd "$BUILD" && pwd)

pass=0 fail=0 skip=0 failed_tests=""
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

wanted() {
	[ -z "${TESTS:-}" ] && return 0
	for pat in $TESTS; do
		case "$1" in *"$pat"*) return 0 ;; esac
	done
	return 1
}

run_one() {
	name=$1; shift
	wanted "$name" || return
	out="$log/out"
	printf '== %s\n' "$name"
	t0=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	cat "$out"
	printf '# %s took %d s\n' "$name" "$secs"
	printf '%6d s  %s\n' "$secs" "$name" >>"$log/times"
	p=$(grep -c '^ok' "$out" | tr -d ' ')
	s=$(grep '^ok' "$out" | grep -c '# SKIP' | tr -d ' ')
	f=$(grep -c '^not ok' "$out" | tr -d ' ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + f))
	[ "$f" -gt 0 ] && failed_tests="$failed_tests $name"
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/code/*.py tests/live/*.py tests/tui/*.py; do
	[ -f "$t" ] || continue
	case "$t" in tests/code/*) [ "${CODE_CHECKS:-1}" = 0 ] && continue ;; esac
	run_one "$t" python3 "$t"
done

echo
if [ -s "$log/times" ]; then
	echo "# the slowest tests:"
	sort -rn "$log/times" | head -8 | sed 's/^/# /'
fi
[ -n "$failed_tests" ] && echo "failed:$failed_tests"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
