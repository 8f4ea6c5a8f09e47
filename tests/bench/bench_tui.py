#!/usr/bin/env python3
"""The viewer's responsiveness on a 65,000-region process (manyregions).

Drives vmscope in tmux with VMSCOPE_TIMING set, so vmscope itself records,
for each key, the time from reading the key to the screen being written
(curses refresh done). Reports, beside each other:
  first frame     wall time from starting vmscope to the first frame (the
                  layout from /proc/PID/maps) and to the full snapshot on
                  screen (capture of 65,000 regions), seen through tmux
  cursor key      j/k/PgDn/PgUp through the details of 65,000 rows
  End / Home      jumps across the whole list
  sort            s: re-sorting 65,000 rows
  filter          Enter on a type: rebuilding the rows
  map             m: laying out the address-space map
  full redraw     Ctrl-L: every cell repainted
  tmux round trip one key sent with tmux send-keys until the screen changes
                  (tmux and polling included: an upper bound on what a
                  user sees)
as median, 95th percentile and maximum in milliseconds. Never fails on a
figure: only on an error.
"""
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tui", "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

REGIONS = int(os.environ.get("BENCH_REGIONS", "65000"))
KEYS = int(os.environ.get("BENCH_KEYS", "300"))


def stats(v):
    if not v:
        return "n/a"
    v = sorted(v)
    p95 = v[min(len(v) - 1, int(len(v) * 0.95))]
    return "median %7.3f ms  p95 %7.3f ms  max %7.3f ms  (n=%d)" % (
        statistics.median(v), p95, v[-1], len(v))


def read_timing(path):
    out = []
    with open(path) as f:
        for line in f:
            kind, code, us = line.split()
            out.append((kind, int(code), float(us) / 1000))
    return out


def main():
    if not D.have_tmux():
        print("tmux is not installed: skipped")
        return 0
    fd, tpath = tempfile.mkstemp(prefix="vmstiming-")
    os.close(fd)
    p, ready = T.start([T.target("manyregions"), str(REGIONS)])
    print("target: manyregions, %s" % ready)
    layout = lambda s: re.search(r"^ Private Data ", s, re.M)  # noqa
    full = lambda s: "Sampler pss" in s and layout(s)  # noqa
    t0 = time.perf_counter()
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], env={"VMSCOPE_TIMING": tpath},
                colours=256, term="tmux-256color")
    tm.wait_for(layout, timeout=60)
    first = time.perf_counter() - t0
    scr = tm.wait_for(full, timeout=60)
    whole = time.perf_counter() - t0
    m = re.search(r"Regions (\d+)", scr)
    print("regions in the snapshot: %s" % (m.group(1) if m else "?"))
    print("first frame, the layout from maps (start to screen, via tmux): "
          "%.0f ms" % (first * 1000))
    print("full snapshot on screen (start to screen, via tmux):          "
          "%.0f ms" % (whole * 1000))
    t0 = time.perf_counter()
    T.run_vmscope("-s", str(p.pid), timeout=120)
    print("reference: the same capture by vmscope -s (no viewer):        "
          "%.0f ms" % ((time.perf_counter() - t0) * 1000))

    def batch(keys, settle="j"):
        n0 = len(read_timing(tpath))
        for k in keys:
            tm.keys(k)
        # wait until vmscope has logged them all
        deadline = time.time() + 60
        while time.time() < deadline:
            if len(read_timing(tpath)) >= n0 + len(keys):
                break
            time.sleep(0.05)
        return [t for _, _, t in read_timing(tpath)[n0:]]

    tm.keys("Tab")
    time.sleep(0.3)
    cursor = batch(["j"] * KEYS + ["k"] * (KEYS // 3))
    pages = batch(["PgDn"] * 50 + ["PgUp"] * 20)
    jumps = batch(["End", "Home"] * 10)
    sort = batch(["s"] * 14)
    tm.keys("Tab")
    time.sleep(0.2)
    filt = batch(["Home", "Enter", "End", "Up", "Enter"] * 3)
    mp = batch(["m", "Escape"] * 5 + ["m"])
    mp = [t for i, t in enumerate(mp) if i % 2 == 0]
    mapmove = batch(["j"] * 100 + ["PgDn"] * 20)
    redraw = batch(["C-l"] * 40)

    # round trip through tmux: j then poll until the row counter moves
    tm.keys("Escape", "Tab")
    time.sleep(0.3)
    rt = []
    for _ in range(40):
        before = tm.screen().splitlines()[-1]
        t1 = time.perf_counter()
        tm.keys("j")
        while tm.screen().splitlines()[-1] == before:
            if time.perf_counter() - t1 > 5:
                break
        rt.append((time.perf_counter() - t1) * 1000)

    print("vmscope's own key-to-screen times (VMSCOPE_TIMING), %d regions:"
          % REGIONS)
    for name, v in (("cursor key (j/k)", cursor), ("PgDn / PgUp", pages),
                    ("End / Home", jumps), ("sort (s)", sort),
                    ("filter (Enter)", filt), ("open the map (m)", mp),
                    ("map cursor", mapmove), ("full redraw ^L", redraw)):
        print("  %-18s %s" % (name, stats(v)))
    print("through tmux (send-keys until the screen changed):")
    print("  cursor key (j)     %s" % stats(rt))
    tm.kill()
    T.kill(p)
    os.unlink(tpath)
    return 0


sys.exit(main())
