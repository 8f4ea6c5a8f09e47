"""The fork sampler's fast freeze (src/linux/fastfreeze.h): smaps read
just before the freeze, Rss and Swap inside it through PAGEMAP_SCAN.

On a SIGSTOPped target (tests/targets/pagekinds: written, read and
untouched pages, huge pages, shared memory, a file, a guard page where the
kernel has them) nothing moves between
the two reads: the export says freeze_counters "pagemap_scan", no region
is approximate, each region's Rss and Swap equal the kernel's smaps read
by this test, and the sums equal smaps_rollup exactly. --exact reads every
counter in the freeze ("smaps") and gives the same figures; -w always
does (a snapshot file keeps the smaps text it shows).

On a running target whose Rss never stays still (pagekinds grow: a thread
writes one new page after another), some capture finds a region that
moved: approx_regions counts the regions marked "approx", every region's
split adds up to its Rss, and the target is left running, untraced, with
no child. On one whose layout never stays still (pagekinds churn) some
capture finds the layout moved and reads smaps again in the freeze
("smaps"), and every capture succeeds (its maps and smaps, read while it
runs, show records that overlap now and then: read again), with -b pss
too.

The large anonymous regions are read from the clone's page tables after
the fork, not from the target's once it runs again: pagekinds watch
empties a 4 MiB region the moment the process has a child (the clone),
and writes it again once the child is gone; each capture must still give
it its 4 MiB (of the fork's instant), not marked approx, while the target
says it emptied the region after the fork (a read of the target instead
would find 0): captures until it said so three times (its thread, which
looks every 50 us, may miss a clone on a loaded machine), at most 12.

Where the kernel lacks PAGEMAP_SCAN (before 6.7), or its scan takes the
huge zero page for a page (6.7 to 6.15: found by the probe vmscope makes,
made here too, not by the version), the default is the exact path: that is
checked instead, and the rest is skipped."""
import ctypes
import fcntl
import json
import os
import select
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()
ROUNDS = int(os.environ.get("FASTFREEZE_ROUNDS", "8"))


def have_pagemap_scan():
    """The ioctl on an empty range of our own pagemap: 0, or ENOTTY."""
    arg = (ctypes.c_uint64 * 12)(96, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    req = (3 << 30) | (96 << 16) | (ord("f") << 8) | 16
    with open("/proc/self/pagemap", "rb") as f:
        try:
            fcntl.ioctl(f.fileno(), req, arg)
            return True
        except OSError:
            return False


PRESENT, SWAPPED, PFNZERO = 1 << 3, 1 << 4, 1 << 5


def scan_tells_zero_apart():
    """vmscope's probe (pmscan_zero_ok in src/linux/pmscan.c), here: a
    huge page of our own read-faulted (the huge zero page, where the
    kernel uses one), scanned, and what the scan calls resident compared
    with smaps's Rss. Linux 6.7 to 6.15 call the huge zero page present,
    and vmscope then reads every counter in the freeze instead; found by
    the kernel's answer, not its version."""
    import mmap
    huge = 2 << 20
    m = mmap.mmap(-1, 2 * huge, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                  mmap.PROT_READ | mmap.PROT_WRITE)
    at = ctypes.c_char.from_buffer(m)
    base = ctypes.addressof(at)
    h = (base + huge - 1) & ~(huge - 1)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE, h - base, huge)
    m[h - base]  # a read: the huge zero page, if used
    vec = (ctypes.c_uint64 * (3 * 8))()
    arg = (ctypes.c_uint64 * 12)(96, 0, h, h + huge, 0,
                                 ctypes.addressof(vec), 8, 0, 0, 0,
                                 PRESENT | SWAPPED,
                                 PRESENT | SWAPPED | PFNZERO)
    req = (3 << 30) | (96 << 16) | (ord("f") << 8) | 16
    with open("/proc/self/pagemap", "rb") as f:
        n = fcntl.ioctl(f.fileno(), req, arg)
    scanned = sum(vec[3 * i + 1] - vec[3 * i] for i in range(n)
                  if vec[3 * i + 2] & PRESENT and
                  not vec[3 * i + 2] & PFNZERO)
    rss = smaps_at(os.getpid(), h).get("Rss")
    del at
    m.close()
    return rss == scanned


def smaps_by_start(pid):
    return {k: v for k, (e, v) in smaps_ends(pid).items()}


def smaps_at(pid, addr):
    """The figures of pid's region that holds addr."""
    return next((v for k, (e, v) in smaps_ends(pid).items()
                 if k <= addr < e), {})


def smaps_ends(pid):
    out, cur = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            first = line.split(None, 1)[0]
            if "-" in first and not first.endswith(":"):
                lo, hi = first.split("-")
                cur = int(lo, 16)
                out[cur] = (int(hi, 16), {})
            elif line.endswith("kB\n"):
                k, v = line.split(":")
                out[cur][1][k] = int(v.split()[0]) * 1024
    return out


def split_adds_up(r):
    return (r["private_clean"] + r["private_dirty"] + r["shared_clean"] +
            r["shared_dirty"]) == r["rss"]


def sums(snap):
    return {"Rss": sum(r["rss"] for r in snap["regions"]),
            "Swap": sum(r["swap"] for r in snap["regions"]),
            "Private": sum(r["private_clean"] + r["private_dirty"]
                           for r in snap["regions"]),
            "Shared": sum(r["shared_clean"] + r["shared_dirty"]
                          for r in snap["regions"])}


def kernel(roll):
    return {"Rss": roll["Rss"], "Swap": roll["Swap"],
            "Private": roll["Private_Clean"] + roll["Private_Dirty"],
            "Shared": roll["Shared_Clean"] + roll["Shared_Dirty"]}


def counters(snap):
    """Rss and Swap, and the split of anonymous memory: Pss and the split
    of a library's pages move as other processes map it."""
    keys = ("private_clean", "private_dirty", "shared_clean", "shared_dirty")
    return [(r["start"], r["rss"], r["swap"]) +
            (tuple(r[k] for k in keys) if not r["inode"] else ())
            for r in snap["regions"]]


def still(scan, why):
    p, line = vmstest.start([vmstest.target("pagekinds"), "still"])
    guard = "guard=1" in line
    vmstest.sigstop(p.pid)
    roll = kernel(vmstest.rollup(p.pid))
    mine = smaps_by_start(p.pid)
    fast = vmstest.vmscope_json(p.pid, "-b", "fork")
    cap = fast["capture"]
    if not scan:
        eq(cap["freeze_counters"], "smaps", "%s: the default reads every "
           "counter in the freeze" % why)
        vmstest.kill(p)
        return
    eq(cap["freeze_counters"], "pagemap_scan",
       "stopped: the fast freeze is the default")
    eq(cap["approx_regions"], 0, "stopped: no region approximate")
    eq([r["start"] for r in fast["regions"] if "approx" in r["state"]], [],
       "stopped: no region marked approx")
    bad = [r["start"] for r in fast["regions"]
           if r["rss"] != mine[vmstest.hexint(r["start"])]["Rss"] or
           r["swap"] != mine[vmstest.hexint(r["start"])]["Swap"]]
    eq(bad, [], "stopped: every region's Rss and Swap are the kernel's "
       "(%d regions%s)" % (len(fast["regions"]),
                           ", a guard page among them" if guard else
                           "; no guard pages in this kernel"))
    eq(sums(fast), roll, "stopped: Σ Rss, Swap, Private, Shared == "
       "smaps_rollup")
    exact = vmstest.vmscope_json(p.pid, "-b", "fork", "--exact")
    eq(exact["capture"]["freeze_counters"], "smaps",
       "--exact: every counter read in the freeze")
    eq(counters(exact), counters(fast), "--exact: the same Rss and Swap, "
       "the same split of anonymous memory")
    out = vmstest.run_vmscope("-b", "fork", "-s", p.pid).stdout.decode()
    ok("Rss and Swap read in it" in out and "0 regions approx" in out,
       "the summary says how the freeze read its counters", out[:300])
    tmp = tempfile.mkdtemp(prefix="vms-ff-")
    path = os.path.join(tmp, "pk.vms")
    r = vmstest.run_vmscope("-b", "fork", "-w", path, "-e", "json", p.pid)
    ok(r.returncode == 0 and b'"freeze_counters":"smaps"' in
       r.stdout.replace(b" ", b""), "-w: every counter read in the freeze",
       r.stderr.decode())
    r = vmstest.run_vmscope("-l", path, "-e", "json")
    ok(r.returncode == 0 and b'"freeze_counters":"smaps"' in
       r.stdout.replace(b" ", b""), "-l: the file says so too")
    shutil.rmtree(tmp)
    eq(vmstest.proc_state(p.pid), "T", "a SIGSTOPped target stays stopped")
    vmstest.kill(p)


def growing():
    p, line = vmstest.start([vmstest.target("pagekinds"), "grow"])
    grow = int(line.split("grow=")[1].split()[0], 16)
    seen, grow_marked, bad = 0, 0, []
    for _ in range(ROUNDS):
        snap = vmstest.vmscope_json(p.pid, "-b", "fork")
        cap = snap["capture"]
        marked = [r for r in snap["regions"] if "approx" in r["state"]]
        if cap["freeze_counters"] != "pagemap_scan" or \
                cap["approx_regions"] != len(marked):
            bad.append((cap["freeze_counters"], cap["approx_regions"],
                        len(marked)))
        bad += [r["start"] for r in snap["regions"] if not split_adds_up(r)]
        seen += cap["approx_regions"]
        grow_marked += any(vmstest.hexint(r["start"]) <= grow <
                           vmstest.hexint(r["end"]) for r in marked)
    eq(bad, [], "running: approx_regions counts the marked regions, and "
       "every split adds up to its Rss (%d captures)" % ROUNDS)
    ok(grow_marked > 0, "running: the region being written is marked "
       "approx in %d of %d captures (%d marks in all)"
       % (grow_marked, ROUNDS, seen))
    ok(vmstest.proc_state(p.pid) in "RS" and vmstest.tracer_pid(p.pid) == 0
       and not forktest.children(p.pid),
       "running: the target runs on, untraced, with no child")
    vmstest.kill(p)


def churning():
    p, _ = vmstest.start([vmstest.target("pagekinds"), "churn"])
    how, bad = [], []
    for _ in range(ROUNDS):
        r = vmstest.run_vmscope("-b", "fork", "-e", "json", p.pid)
        if r.returncode:
            bad.append(r.stderr.decode()[-200:])
            continue
        snap = json.loads(r.stdout)
        how.append(snap["capture"]["freeze_counters"])
        bad += [x["start"] for x in snap["regions"] if not split_adds_up(x)]
    eq(bad, [], "layout moving: every capture succeeds, every split adds "
       "up")
    fails = [r.stderr.decode()[-200:] for r in
             (vmstest.run_vmscope("-b", "pss", "-e", "json", p.pid)
              for _ in range(ROUNDS)) if r.returncode]
    eq(fails, [], "layout moving: -b pss succeeds every time too")
    # A file keeps the text of the read that counted, not of one that was
    # read again: each loads back.
    tmp = tempfile.mkdtemp(prefix="vms-ff-")
    bad = []
    for i in range(ROUNDS):
        path = os.path.join(tmp, "c%d.vms" % i)
        w = vmstest.run_vmscope("-b", "pss", "-w", path, p.pid)
        r = vmstest.run_vmscope("-l", path, "-e", "json")
        if w.returncode or r.returncode:
            bad.append((w.stderr + r.stderr).decode()[-200:])
    shutil.rmtree(tmp)
    eq(bad, [], "layout moving: -b pss -w saves a file that loads, every "
       "time")
    ok("smaps" in how, "layout moving: smaps read again in the freeze "
       "when the layout moved (%s)" % ", ".join(how))
    ok(vmstest.tracer_pid(p.pid) == 0 and not forktest.children(p.pid),
       "layout moving: the target untraced, with no child")
    vmstest.kill(p)


def emptied_lines(p, want, wait=10):
    """The next want "emptied N" lines the target prints, polled for at
    most wait seconds."""
    out, end = [], time.time() + wait
    while len(out) < want and time.time() < end:
        r, _, _ = select.select([p.stdout], [], [], end - time.time())
        if not r:
            break
        line = p.stdout.readline().decode(errors="replace")
        if not line:
            break
        out.append(line.strip())
    return out


def watched():
    p, line = vmstest.start([vmstest.target("pagekinds"), "watch"])
    if "children=1" not in line:
        vmstest.skip("large regions read in the clone, not the target",
                     "the kernel does not list a thread's children")
        vmstest.kill(p)
        return
    w = int(line.split("watch=")[1].split()[0], 16)
    got, emptied = [], []
    # captures until the target has emptied the region under three of
    # them: its thread looks for a child every 50 us and may miss a
    # clone that came and went (a loaded machine: once in a make check)
    while len(emptied) < 3 and len(got) < 12:
        # written whole again after the last clone is gone
        deadline = time.time() + 10
        while (smaps_at(p.pid, w).get("Rss") != 4 << 20 and
               time.time() < deadline):
            time.sleep(0.01)
        snap = vmstest.vmscope_json(p.pid, "-b", "fork")
        r = [r for r in snap["regions"]
             if vmstest.hexint(r["start"]) <= w < vmstest.hexint(r["end"])]
        got.append((r[0]["rss"], r[0]["state"]) if r else None)
        # said while the clone lived, so before vmscope returned
        emptied += emptied_lines(p, 1, wait=2)
    bad = [g for g in got
           if g is None or g[0] != 4 << 20 or "approx" in g[1]]
    eq(bad, [], "the region the target empties once forked: 4 MiB, of the "
       "fork's instant, not approx, in each capture (%s)" % got)
    eq(len(emptied), 3, "and the target emptied it under three of the %d "
       "captures (%s): read in the target, it would be 0"
       % (len(got), emptied))
    vmstest.kill(p)


scan, why = have_pagemap_scan(), "no PAGEMAP_SCAN in this kernel"
if scan and not scan_tells_zero_apart():
    scan, why = False, ("this kernel's PAGEMAP_SCAN takes the huge zero "
                        "page for a page (Linux 6.7-6.15)")
print("# the fast freeze: %s" % ("used" if scan else "not used: " + why))
still(scan, why)
if scan:
    growing()
    churning()
    watched()
else:
    vmstest.skip("a running target's moved regions marked approx", why)
vmstest.done()
