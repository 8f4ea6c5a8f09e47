#!/usr/bin/env python3
"""A glibc chunk in use whose header ends a page and whose data's first
page was never written (absent): the walk reads its header alone and goes
on (tests/targets/heap_edge.c). A free chunk's links (fd, bk; tcache's
next and key) follow its header and are always written, so a chunk whose
links cannot be read is in use. Before, the walk read 32 bytes at every
header and stopped there: "chunk header at 0x... is not in memory" (a
postgres backend, once, in make check).

Through the frozen target (-F) and the fork clone (-b fork): the page is
absent (the target's pagemap; skipped with the reason where it is not, as
under transparent huge pages that fill the heap), the walk of the main
heap is whole, and its in-use and free bytes are the target's own
mallinfo2."""
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def present(pid, addr):
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(addr // 4096 * 8)
        return bool(struct.unpack("<Q", f.read(8))[0] >> 63 & 1)


def main():
    p, line = T.start([T.target("heap_edge")])
    try:
        m = re.match(r"ready chunk=0x([0-9a-f]+) data=0x([0-9a-f]+) "
                     r"uordblks=(\d+) fordblks=(\d+)", line or "")
        if not T.ok(m, "the target placed a chunk's header at a page's "
                    "end", line):
            return T.done()
        chunk, data = int(m.group(1), 16), int(m.group(2), 16)
        used, free = int(m.group(3)), int(m.group(4))
        if present(p.pid, data):
            T.skip("a chunk whose data page is absent",
                   "the page at 0x%x is present (huge pages?)" % data)
            return T.done()
        for how in (["-F"], ["-b", "fork"]):
            r = T.run_vmscope("-e", "json", *how, p.pid, timeout=300)
            snap = json.loads(r.stdout) if r.returncode == 0 else None
            if not T.ok(snap and snap.get("malloc"), "%s: glibc malloc "
                        "walked" % " ".join(how), r.stderr.decode()[-400:]):
                continue
            mall = snap["malloc"]
            main_ = [h for h in snap["heaps"] if h["kind"] == "glibc-main"]
            T.eq((mall["partial"], [h["partial"] for h in main_]),
                 (None, [None]),
                 "%s: the walk is whole past the chunk at 0x%x" %
                 (" ".join(how), chunk))
            T.eq((mall["uordblks"], mall["fordblks"]), (used, free),
                 "%s: in-use and free bytes are the target's mallinfo2" %
                 " ".join(how))
            T.ok(not present(p.pid, data), "%s: the data page is still "
                 "absent (looking faulted nothing in)" % " ".join(how))
    finally:
        T.kill(p)
    return T.done()


if __name__ == "__main__":
    main()
