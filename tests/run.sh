#!/bin/sh
# Runs every test (tests/run.py says how: TESTS, CODE_CHECKS, TEST_JOBS,
# VMSCOPE, BUILD) and prints one closing line: "N passed, N failed, N
# skipped". Kept as the name the Makefile, CI and the scripts call.
exec python3 "$(dirname "$0")/run.py" "$@"
