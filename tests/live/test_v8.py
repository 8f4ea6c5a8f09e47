#!/usr/bin/env python3
"""V8 heap pages (step "v8") against node's own figures.

tests/targets/v8heap.js fills its heap, prints process.memoryUsage() and
blocks its JavaScript thread: the pages vmscope recognises by their page
header, in managed entries of runtime "v8", must add up to heapTotal within
a few percent, and every region they make a managed heap of must be mostly
pages. Captured frozen (-F) and not frozen (the JavaScript thread is
blocked); node maps its pages MADV_DONTFORK, so the fork clone has none and
the step must say so. Skipped
where node is not installed (scripts/deps.sh installs it)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
JS = os.path.join(HERE, "..", "targets", "v8heap.js")


def type_row(snap, name):
    return [t for t in snap["types"] if t["type"] == name][0]


def check(pid, want, args):
    how = " ".join(args) or "not frozen"
    snap = T.vmscope_json(pid, *args)
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    pages = sum(m["committed"] for m in v8)
    total = want["heapTotal"]
    T.ok(v8 and abs(pages - total) <= total * 0.03,
         "%s: V8 pages found add up to heapTotal within 3%% "
         "(%d of %d bytes)" % (how, pages, total))
    regs = {r["start"]: r for r in snap["regions"]}
    typed = [regs.get(m["start"]) for m in v8]
    T.ok(all(r and r["type"] == "managed_heap" and
             r["detail"].startswith("v8 heap") for r in typed),
         "%s: each region of pages is a managed heap, its detail the "
         "V8 heap" % how, [m for m, r in zip(v8, typed)
                           if not r or r["type"] != "managed_heap"][:5])
    T.ok(all(2 * m["committed"] >= m["reserved"] for m in v8),
         "%s: each such region is mostly pages" % how)
    mh = type_row(snap, "managed_heap")["committed"]
    T.ok(abs(mh - total) <= total * 0.05,
         "%s: Managed Heap committed within 5%% of heapTotal "
         "(%d of %d)" % (how, mh, total))
    large = [m for m in v8 if "(large)" in m["detail"]]
    T.ok(len(large) >= 1, "%s: large-object pages found" % how)


def main():
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        T.skip("V8 heap pages", "node is not installed")
        return T.done()
    p, line = T.start([node, JS])
    want = json.loads(line.split(" ", 1)[1])
    print("# node heapTotal %d heapUsed %d V8 %s pointer compression %s" %
          (want["heapTotal"], want["heapUsed"], want["v8"],
           want["pointerCompression"]))
    check(p.pid, want, ["-F"])
    check(p.pid, want, [])
    # node maps its pages MADV_DONTFORK: the clone has none of them
    snap = T.vmscope_json(p.pid, "-b", "fork")
    T.ok(any(n["step"] == "v8" and "MADV_DONTFORK" in n["why"]
             for n in snap["capture"].get("missing", [])),
         "-b fork: the v8 step says the clone has no V8 pages",
         snap["capture"].get("missing"))
    snap = T.vmscope_json(p.pid, "-b", "maps")
    T.ok(any(n["step"] == "v8" for n in snap["capture"].get("missing", [])),
         "without memory: the v8 step says it did not look")
    with tempfile.TemporaryDirectory() as tmp:
        T.kept_in_file(*T.saved_and_loaded(p.pid, ["-F"], tmp), "node")
    T.eq(T.proc_state(p.pid) in "SR", True, "node is left running")
    T.kill(p)
    T.done()


main()
