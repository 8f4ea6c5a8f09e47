#!/usr/bin/env python3
"""V8 heap pages (step "v8") against node's own figures.

tests/targets/v8heap.js fills its heap, prints process.memoryUsage() and
blocks its JavaScript thread: the pages vmscope recognises by their page
header, in managed entries of runtime "v8", must add up to heapTotal within
a few percent, and every region they make a managed heap of must be mostly
pages. Captured frozen (-F) and not frozen (the JavaScript thread is
blocked); node maps its pages MADV_DONTFORK, so the fork clone has none and
the step must say so. The spaces' capacity and use are node's own
(getHeapSpaceStatistics), code space too: its page's header lies apart
from its executable body behind a guard page, and all three are one
managed entry. Skipped
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
    spaces(how, v8, want)


def spaces(how, v8, want):
    """The parts: V8's spaces as getHeapSpaceStatistics() has them."""
    got = {}
    for m in v8:
        for p in m["parts"]:
            g = got.setdefault(p["name"], [0, 0])
            g[0] += p["capacity"]
            g[1] = None if p["used"] is None or g[1] is None \
                else g[1] + p["used"]
    T.ok(all(m["figures"] == "V8 page headers" for m in v8),
         "%s: each entry's figures come from V8's page headers" % how)
    T.ok(all(m["used"] == (None if any(p["used"] is None
                                       for p in m["parts"])
                           else sum(p["used"] for p in m["parts"]))
             for m in v8),
         "%s: an entry's used is its spaces' used, null if one is not "
         "known" % how)
    node = {sp["name"]: sp for sp in want["spaces"]}
    print("# %s: %s" % (how, ", ".join(
        "%s %s/%s (node %d/%d)" % (k, v[0], v[1], node[k]["size"],
                                   node[k]["used"])
        for k, v in sorted(got.items()) if k in node)))
    # Old and large-object pages say how much is allocated on them: that
    # is what V8 counts (old space: with its linear allocation area).
    for name in ("old_space", "large_object_space",
                 "new_large_object_space", "code_space"):
        sp = node[name]
        if not sp["size"]:
            continue
        g = got.get(name, [0, 0])
        T.ok(abs(g[0] - sp["size"]) <= sp["size"] * 0.01 and
             g[1] is not None and
             abs(g[1] - sp["used"]) <= sp["used"] * 0.02,
             "%s: %s's pages (%d bytes) and bytes in use (%s) are node's "
             "(%d, %d)" % (how, name, g[0], g[1], sp["size"], sp["used"]))
    code = [m for m in v8 if any(p["name"] == "code_space"
                                 for p in m["parts"])]
    T.ok(node["code_space"]["size"] == 0 or
         (code and all(m["reserved"] >= m["committed"] for m in code)),
         "%s: code space's page (header, guard, body) is one managed "
         "entry" % how, [(m["start"], m["end"]) for m in code])
    g = got.get("new_space", [0, 0])
    T.ok(g[0] == node["new_space"]["size"] and g[1] is None,
         "%s: new space is both semispaces (%d bytes, node %d), its use "
         "not known from its pages" % (how, g[0], node["new_space"]["size"]))


def summary_line(pid):
    """-s says what the managed entries say: a line per runtime."""
    snap = T.vmscope_json(pid, "-F")
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    known = [m for m in v8 if m["used"] is not None]
    r = T.run_vmscope("-F", "-s", "--bytes", pid)
    line = [ln for ln in r.stdout.decode().splitlines()
            if ln.startswith("Managed:     v8:")]
    want = ("Managed:     v8: %d heaps, reserved %d, committed %d, used %d "
            "of the %d committed in the %d whose use is known (figures: V8 "
            "page headers)" % (
                len(v8), sum(m["reserved"] for m in v8),
                sum(m["committed"] for m in v8),
                sum(m["used"] for m in known),
                sum(m["committed"] for m in known), len(known)))
    T.ok(line == [want] and 0 < len(known) < len(v8),
         "-s: one Managed line for v8, its sums the JSON entries'",
         "got %r\nwant %r" % (line, want))


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
    summary_line(p.pid)
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
