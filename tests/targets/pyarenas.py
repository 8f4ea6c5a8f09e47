"""pyarenas.py - a CPython target for tests/live/test_cpython.py: fills
obmalloc with some 40 MB of small objects (and frees part of them, so that
some pools are empty), writes sys._debugmallocstats() to its stderr (which
the test redirects to a file), then writes a prepared "ready" line and
blocks in pause(). Nothing between the statistics and the capture
allocates from obmalloc: the line is made before, the write returns a
cached small int, and pause() allocates nothing (os.read would: its
buffer, a 48-byte block, before it blocks)."""
import os
import signal
import sys

keep = [("s%d" % i, [i, float(i)], (i, i + 1)) for i in range(150000)]
drop = [str(i) * 3 for i in range(100000)]
del drop[::2]
READY = b"ready\n"
sys.stderr.flush()
sys._debugmallocstats()
os.write(1, READY)
signal.pause()
