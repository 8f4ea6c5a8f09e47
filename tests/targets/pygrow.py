"""pygrow.py - a CPython target for tests/live/test_cpython.py's leak
check: fills obmalloc with some small objects, writes
sys._debugmallocstats() to its stderr (which the test redirects to a file)
and a "ready" line, then blocks in pause(). Each SIGUSR1 makes it keep
some 32 MB more of small objects (a leak), write the statistics again and
a "grown" line. Nothing between the statistics and the next capture
allocates from obmalloc: the lines are made before, and pause()
allocates nothing."""
import os
import signal
import sys

keep = [(i, float(i)) for i in range(100000)]
READY = b"ready\n"
GROWN = b"grown\n"


def grow(signum, frame):
    n = len(keep)
    keep.extend((i, float(i)) for i in range(n, n + 400000))
    sys.stderr.flush()
    sys._debugmallocstats()
    os.write(1, GROWN)


signal.signal(signal.SIGUSR1, grow)
sys.stderr.flush()
sys._debugmallocstats()
os.write(1, READY)
while True:
    signal.pause()
