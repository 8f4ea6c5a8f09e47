#!/usr/bin/env python3
"""CPython's obmalloc arenas (step "cpython") against the interpreter's own
figures.

tests/targets/pyarenas.py fills obmalloc, writes sys._debugmallocstats()
to a file and blocks without allocating: vmscope must find as many arenas
as "# arenas allocated current", their pools' blocks in use must add up to
"# bytes in allocated blocks" exactly, and the regions it types managed
heap, or their typed parts (step "parts": the arenas share their regions
with other memory), must hold those arenas (committed within a few percent
of arenas x arena size); each part's Rss is what the target's own pagemap
says of its range, and the summary counts by parts. Captured frozen (-F)
and through the fork clone (-b fork). A python that forked and wrote to
some of its arenas: each part's Swap and private bytes are its pagemap's
too. A leak (tests/targets/pygrow.py) diffed across two saved snapshots
grows Managed Heap by the arenas the interpreter added. Each arena's range
is its mapping as obmalloc's arenas vector says: the Managed Heap row is the
arenas' bytes exactly, and the summary's Managed line says the same."""
import json
import os
import re
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, "..", "targets", "pyarenas.py")
GROW = os.path.join(HERE, "..", "targets", "pygrow.py")


def stat(text, name):
    m = re.search(r"^# %s\s*=\s*([\d,]+)" % re.escape(name), text, re.M)
    return int(m.group(1).replace(",", "")) if m else None


def arena_size(text):
    m = re.search(r"^\d+ arenas \* (\d+) bytes/arena", text, re.M)
    return int(m.group(1)) if m else None


def check(pid, want, args):
    how = " ".join(args)
    snap = T.vmscope_json(pid, *args)
    py = [m for m in snap["managed"] if m["runtime"] == "cpython"]
    T.eq(len(py), want["arenas"], "%s: as many arenas as "
         "'# arenas allocated current'" % how)
    T.eq(sum(m["used"] for m in py), want["bytes"], "%s: their blocks in "
         "use add up to '# bytes in allocated blocks'" % how)
    T.ok(all(m["reserved"] == want["arena_size"] for m in py),
         "%s: each arena's size is the interpreter's" % how)
    total = want["arenas"] * want["arena_size"]
    mh = [t for t in snap["types"] if t["type"] == "managed_heap"][0]
    T.eq(mh["committed"], total, "%s: Managed Heap committed is the "
         "interpreter's arenas' bytes" % how)
    T.eq(sum(m["committed"] for m in py), mh["committed"], "%s: the "
         "Managed line's committed and the Managed Heap row's agree to the "
         "byte" % how)
    T.ok(all("arenas vector" in m["detail"] for m in py), "%s: each arena's "
         "range is its mapping as obmalloc's arenas vector says" % how,
         [m["detail"] for m in py][:3])
    summary(pid, args, how)
    bad = [m for m in py if not in_managed(snap, int(m["start"], 16))]
    T.ok(py and not bad, "%s: the arenas lie in managed heap regions or "
         "in managed heap parts of regions" % how, bad[:5])
    parts(snap, how, p_pid=pid, arena=want["arena_size"], n=want["arenas"])


def summary(pid, args, how):
    """The summary's Managed line (cpython) and its Managed Heap row say
    the same committed bytes (as the summary prints them: the JSON above
    compares them to the byte)."""
    r = T.run_vmscope(*(list(args) + ["-s", str(pid)]))
    out = r.stdout.decode()
    line = re.search(r"^Managed:\s+cpython:.*committed (\S+ \S+),", out,
                     re.M)
    row = re.search(r"^Managed Heap\s+(\S+ \S+)\s+(\S+ \S+)", out, re.M)
    T.ok(r.returncode == 0 and line and row and
         line.group(1) == row.group(2), "%s -s: the Managed line's "
         "committed is the Managed Heap row's" % how,
         (line and line.group(0), row and row.group(0)))


def in_managed(snap, addr):
    r = T.region_of(snap, addr)
    if not r:
        return False
    return r["type"] == "managed_heap" or any(
        c.get("type") == "managed_heap" and
        int(c["start"], 16) <= addr < int(c["end"], 16)
        for c in r["children"])


pagemap = T.pagemap_bytes
present = T.present_bytes


COLS = ("size", "committed", "private", "ws", "private_ws", "shareable_ws",
        "shared_ws", "pss", "swap", "blocks")


def parts(snap, how, p_pid, arena, n):
    """The regions the arenas share with other memory are split into typed
    parts: each part's Rss is what the target's page tables say of its
    range (the target allocates nothing: its pages stay as captured), its
    figures within its region's, and the summary counts by parts."""
    split = [r for r in snap["regions"] if any("type" in c
                                               for c in r["children"])]
    every = [(r, c) for r in split for c in r["children"]]
    # the rest are glibc's mmapped chunks in the same regions (test_heap)
    typed = [(r, c) for r, c in every if c["type"] == "managed_heap"]
    print("# %s: %d regions split, %d parts, %d cpython's" %
          (how, len(split), len(every), len(typed)))
    T.ok(typed and all(c["name"].startswith("cpython") for _, c in typed) and
         all(c["type"] == "heap" and c["name"] == "glibc malloc (mmapped "
             "chunk)" for _, c in every if c["type"] != "managed_heap"),
         "%s: every managed heap part is cpython's, the others glibc's "
         "mmapped chunks" % how)
    bad = [(c["start"], c["rss"], present(p_pid, int(c["start"], 16),
                                          int(c["end"], 16)))
           for _, c in every
           if c["rss"] != present(p_pid, int(c["start"], 16),
                                  int(c["end"], 16))]
    T.ok(not bad, "%s: each part's Rss is its range's pages present in the "
         "target's pagemap" % how, bad[:5])
    bad = [r["start"] for r in split
           if any(sum(c[k] for c in r["children"]) > r[k]
                  for k in ("size", "committed", "rss", "private_dirty",
                            "pss", "swap"))]
    T.ok(not bad, "%s: a region's parts hold no more than it" % how, bad)
    types = {t["type"]: t for t in snap["types"]}
    mh = sum(r["size"] for r in snap["regions"]
             if r["type"] == "managed_heap") + \
        sum(c["size"] for _, c in typed)
    T.eq(types["managed_heap"]["size"], mh, "%s: the Managed Heap row is its "
         "regions and its parts" % how)
    T.eq(types["managed_heap"]["blocks"],
         sum(1 for r in snap["regions"] if r["type"] == "managed_heap") +
         len(typed), "%s: its blocks are its regions and parts" % how)
    # each arena's entry is its mapping, as obmalloc's arenas vector says
    T.eq(mh, n * arena, "%s: Managed Heap %d bytes for %d arenas of %d"
         % (how, mh, n, arena))
    rows = [t for t in snap["types"] if t["type"] not in ("page_table",
                                                           "free")]
    bad = [k for k in COLS if sum(t[k] for t in rows) != snap["totals"].get(
        k, sum(t[k] for t in rows))]
    T.ok(not bad, "%s: the types add up to the total" % how, bad)
    T.eq(snap["totals"]["ws"], sum(r["rss"] for r in snap["regions"]),
         "%s: Total WS is still the regions' Rss" % how)


def recorded():
    """tests/fixtures/snap_runtimes.vms (mksnap_runtimes.py): a python's
    arenas, as a snapshot file keeps them."""
    path = os.path.join(HERE, "..", "fixtures", "snap_runtimes.vms")
    r = T.run_vmscope("-l", path, "-e", "json")
    if not T.ok(r.returncode == 0, "the recorded snapshot loads",
                r.stderr.decode()):
        return
    snap = json.loads(r.stdout)
    py = [m for m in snap["managed"] if m["runtime"] == "cpython"]
    inside = [m for m in py
              if in_managed(snap, int(m["start"], 16))
              and 0 <= m["used"] <= m["reserved"]]
    T.ok(py and inside == py, "the recorded snapshot: %d arenas, each in a "
         "managed heap region, its blocks in use within its size" % len(py))


def stats_all(path, name):
    with open(path) as f:
        text = f.read()
    return [int(v.replace(",", "")) for v in
            re.findall(r"^# %s\s*=\s*([\d,]+)" % re.escape(name), text,
                       re.M)], arena_size(text)


def leak(tmp):
    """A Python leak reads as Managed Heap: pygrow.py keeps 32 MB more of
    small objects between two saved snapshots; their diff's Managed Heap
    grows by the arenas the interpreter says it added, to the byte,
    Private Data by much less.
    Before the parts, the arenas the kernel merged with their neighbours
    stayed Private Data (issue 28: Managed Heap +0, Private Data +32 M)."""
    errf = os.path.join(tmp, "grow-stats")
    with open(errf, "w") as err:
        p, _ = T.start([sys.executable, GROW], stderr=err)
    files = []
    for k in range(2):
        if k:
            os.kill(p.pid, signal.SIGUSR1)
            line = T._line_by(p, time.time() + 120)
            if not T.ok(line and line.startswith("grown"),
                        "the leak: pygrow grew", line):
                T.kill(p)
                return
        path = os.path.join(tmp, "grow%d.vms" % k)
        r = T.run_vmscope("-F", "-w", path, "-s", p.pid)
        if not T.ok(r.returncode == 0, "the leak: snapshot %d saved" % k,
                    r.stderr.decode()):
            T.kill(p)
            return
        files.append(path)
    T.kill(p)
    arenas, asize = stats_all(errf, "arenas allocated current")
    r = T.run_vmscope("-d", files[0], files[1], "-e", "json")
    if not T.ok(r.returncode == 0 and len(arenas) == 2 and asize,
                "the leak: diffed, the interpreter's arenas read",
                (r.stderr.decode(), arenas)):
        return
    d = json.loads(r.stdout)
    rows = {t["type"]: t for t in d["changes"]["types"]}

    def grew(t):
        row = rows.get(t)
        return row["b"]["size"] - row["a"]["size"] if row else 0

    want = (arenas[1] - arenas[0]) * asize
    print("# the leak: %d -> %d arenas; Managed Heap %+d, Private Data %+d"
          % (arenas[0], arenas[1], grew("managed_heap"),
             grew("private_data")))
    T.ok(want > 0 and grew("managed_heap") == want,
         "the leak: Managed Heap grows by the interpreter's new arenas "
         "(%+d for %d bytes)" % (grew("managed_heap"), want))
    T.ok(grew("private_data") < want / 4, "the leak: Private Data grows by "
         "less than a quarter of it (%+d)" % grew("private_data"))


def shared(tmp):
    """A python that forked (a child that waits) and then wrote to part of
    its arenas: captured frozen, each part's Rss, Swap and private resident
    bytes (Private_Clean + Private_Dirty) are what the target's pagemap
    says of its range (present; in swap; present and its alone), and some
    are shared with the child."""
    with open(os.path.join(tmp, "fork-stats"), "w") as err:
        p, line = T.start([sys.executable, PY, "fork"], stderr=err)
    child = int(line.split()[1])
    snap = T.vmscope_json(p.pid, "-F")
    typed = [c for r in snap["regions"] for c in r["children"]
             if "type" in c]
    figs = [(c, pagemap(p.pid, int(c["start"], 16), int(c["end"], 16)))
            for c in typed]
    bad = [(c["start"], (c["rss"], c["swap"],
                         c["private_clean"] + c["private_dirty"]), f)
           for c, f in figs
           if (c["rss"], c["swap"],
               c["private_clean"] + c["private_dirty"]) != f]
    T.ok(typed and not bad, "after a fork: each of %d parts' Rss, Swap and "
         "private resident bytes are its range's in the target's pagemap"
         % len(typed), bad[:5])
    T.ok(any(f[2] < f[0] for _, f in figs) and any(f[2] for _, f in figs),
         "after a fork: the parts hold pages shared with the child and "
         "pages of the target's own",
         [(c["start"], f) for c, f in figs][:5])
    T.ok(all(c["private_ws"] == c["private_clean"] + c["private_dirty"] and
             c["shared_clean"] + c["shared_dirty"] ==
             c["rss"] - c["private_ws"] for c in typed),
         "after a fork: a part's shared bytes are the rest of its Rss")
    T.kill(p)
    T.ok(T.wait_gone(child), "the child went with its parent")


def main():
    recorded()
    with tempfile.TemporaryDirectory() as tmp:
        errf = os.path.join(tmp, "stats")
        with open(errf, "w") as err:
            p, _ = T.start([sys.executable, PY], stderr=err)
        with open(errf) as f:
            text = f.read()
        want = {"arenas": stat(text, "arenas allocated current"),
                "bytes": stat(text, "bytes in allocated blocks"),
                "arena_size": arena_size(text)}
        print("# python %s: %r" % (sys.version.split()[0], want))
        if not T.ok(None not in want.values(),
                    "the target's own statistics read", text[-2000:]):
            return T.done()
        check(p.pid, want, ["-F"])
        check(p.pid, want, ["-b", "fork"])
        snap = T.vmscope_json(p.pid, "-b", "maps")
        T.ok(any(n["step"] == "cpython"
                 for n in snap["capture"].get("missing", [])),
             "without memory: the cpython step says it did not look")
        T.kept_in_file(*T.saved_and_loaded(p.pid, ["-F"], tmp), "python")
        T.eq(T.proc_state(p.pid) in "SR", True, "python is left running")
        T.kill(p)
        leak(tmp)
        shared(tmp)
    T.done()


main()
