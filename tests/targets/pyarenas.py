"""pyarenas.py - a CPython target for tests/live/test_cpython.py: fills
obmalloc with some 40 MB of small objects (and frees part of them, so that
some pools are empty), writes sys._debugmallocstats() to its stderr (which
the test redirects to a file), then writes a prepared "ready" line and
blocks in pause(). With the argument "fork" it first forks a child that
only waits (it dies with its parent), then keeps more objects and writes
to a part of the old ones, so that its arenas hold pages it shares with
the child and pages of its own; the ready line then says the child's pid.
Nothing between the statistics and the capture
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
if sys.argv[1:] == ["fork"]:
    import ctypes
    child = os.fork()
    if child == 0:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(0)
        signal.pause()
        os._exit(0)
    more = [[i] for i in range(100000)]
    for t in keep[::3]:
        t[1].append(0)  # its page copied on write
    READY = b"ready %d\n" % child
sys.stderr.flush()
sys._debugmallocstats()
os.write(1, READY)
signal.pause()
