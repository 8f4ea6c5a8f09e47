#!/usr/bin/env python3
"""Free bytes still resident, per arena, against the target's own mincore.

tests/targets/heap_resident.c gives a thread an arena of its own, frees
three big chunks there (one written whole, one written then half dropped
with MADV_DONTNEED, one never written), and reports the arena's free bytes
(its free chunks and top, read from their headers) and how many of them
lie in pages mincore() says are in RAM. The walker's "free_resident" of
that arena must equal the target's figure exactly, through the fork clone's
pagemap (-b fork) and the frozen target's (-b pss -F); its "free" must
equal the target's, so both count the same chunks. The dropped part must
show: fewer resident than free bytes by at least what was dropped. A
snapshot file keeps the figure."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def capture(*args):
    r = T.run_vmscope("-e", "json", *args, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("vmscope %s failed (%d): %s" %
                           (args, r.returncode, r.stderr.decode()))
    return json.loads(r.stdout)


def arena_of(snap, addr):
    hs = [h for h in snap["heaps"] if T.hexint(h["id"]) == addr]
    return hs[0] if len(hs) == 1 else None


def main():
    p, line = T.start([T.target("heap_resident")])
    want = T.ready_fields(line)
    T.ok(want["resident"] + want["dropped"] <= want["free"] and
         want["resident"] > 0, "the target's own figures make sense", want)
    for how, args in (("fork", ["-b", "fork"]),
                      ("pss -F", ["-b", "pss", "-F"])):
        snap = capture(*args, str(p.pid))
        h = arena_of(snap, want["arena"])
        if not T.ok(h is not None and h.get("system") is not None,
                    "%s: the thread's arena walked" % how,
                    [h2["id"] for h2 in snap["heaps"]]):
            continue
        T.eq(h["free"], want["free"], "%s: the arena's free bytes equal "
             "the target's free chunks and top" % how)
        T.eq(h["free_resident"], want["resident"], "%s: free bytes still "
             "resident equal the target's mincore count" % how)
        T.ok(all(x["free_resident"] is None or
                 0 <= x["free_resident"] <= x["free"]
                 for x in snap["heaps"] if x.get("system") is not None),
             "%s: every arena's resident free bytes within its free" % how,
             [(x["free_resident"], x["free"]) for x in snap["heaps"]])
        st = T.proc_state(p.pid)
        T.ok(st not in "tT" and T.tracer_pid(p.pid) == 0,
             "%s: target running and untraced afterwards" % how, st)
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "s.vms")
        r = T.run_vmscope("-b", "fork", "-w", f, str(p.pid), timeout=300)
        T.ok(r.returncode == 0, "saved to a snapshot file", r.stderr)
        if r.returncode == 0:
            h = arena_of(capture("-l", f), want["arena"])
            T.eq(h and h["free_resident"], want["resident"],
                 "a snapshot file keeps the figure")
    T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
