#!/bin/sh
# checkloop.sh N — `make check` N times in a row in this tree (issue 26:
# ten runs with no failure), each run's log kept as
# build/checkloop/run-I.log; prints a line a run: its wall time, each
# pass's test time and closing line. Stops at the first failed run (its
# log says what failed) and exits 1; 0 when all N passed.
# CI=true is passed on, so the runs are CI's.
set -u
n=${1:-10}
dir=build/checkloop
mkdir -p "$dir"
i=1
while [ "$i" -le "$n" ]; do
	log=$dir/run-$i.log
	t0=$(date +%s)
	make check >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	passes=$(grep -E '^# the tests took|passed, [0-9]+ failed' "$log" |
		sed 's/^# //' | tr '\n' ';')
	printf 'run %d of %d: %s, %d s (%s) %s\n' "$i" "$n" \
		"$([ "$rc" -eq 0 ] && echo passed || echo FAILED)" \
		$((t1 - t0)) "$(date -u +%H:%M)" "$passes"
	if [ "$rc" -ne 0 ]; then
		grep -A6 -E '^not ok|^failed:' "$log" | head -40
		exit 1
	fi
	i=$((i + 1))
done
echo "$n runs of make check in a row, no failure"
