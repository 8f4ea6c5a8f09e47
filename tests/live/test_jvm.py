#!/usr/bin/env python3
"""A HotSpot JVM's Java heap (the "jvm" step, src/analyze/runtimes/step_jvm.c)
for every collector and heap size: the range by the JVM's own account.

Starts tests/targets/JvmHeap.java (compiled once with javac when there is
one) under G1, Parallel and Serial at -Xmx256m, 512m and 2g, at 512m with
-XX:-UseCompressedClassPointers, G1 at 512m with -XX:-UseCompressedOops
(13 JVMs, and three more below; at most 4 at a time), and with -F checks
`vmscope -e json`:
  - one managed heap of runtime "jvm" whose range is the heap `jcmd PID
    GC.heap_info` prints (G1's "[start, end)"; the generations' "[start,
    committed end, reserved end)" of Parallel and Serial, their union),
    found from the JVM's VMStructs, so with no note from the jvm step;
  - every region inside it typed managed_heap, named Java heap, and
    covering it without a gap (so the viewer's allocations show it as
    one: model/alloc.c); where the kernel merged a neighbour's mapping
    with the heap's first or last region (a glibc mmapped chunk right
    below a heap among the mmaps, -XX:-UseCompressedOops: it happened
    under load), that region's part inside the heap is a managed_heap
    part of it, and counts;
  - its committed bytes equal the JVM's own committed: the generations'
    capacities in hsperfdata (G1 adds 8 bytes a space: rounded down to a
    page), and for G1 jcmd's "total" too; the kernel's read-write bytes
    of the range are waited for to agree first (G1 uncommits on a thread
    of its own after System.gc()), bounded;
  - its parts (eden, s0, s1, old, metaspace, class space: capacity, used,
    max) equal hsperfdata, read independently by tests/lib/hsperf.py
    before and after vmscope (taken only when both agree); its used too
    (figures "hsperfdata") for Parallel, Serial and Shenandoah; for G1
    its used is G1's own, jcmd GC.heap_info's (in K, rounded down, taken
    before and after and the same), where hsperfdata's sum of the spaces
    is not (JvmHeap keeps 256 KiB in the region being allocated in, which
    G1's hsperfdata counts only at its retirement), figures "G1 heap
    regions (VMStructs); parts: hsperfdata";
  - the class space named "JVM class space" is where `jcmd VM.info` says
    (none with -XX:-UseCompressedClassPointers).
Shenandoah at 512m the same way (its GC.heap_info: reserved region and
committed). ZGC at 512m (check_zgc): its heap is a memfd mapped in three
views; one managed heap at the remapped view jcmd VM.info names, the other
two named as views of it. G1 at 512m with -XX:-UsePerfData (no hsperfdata): its heap is still one
managed heap at jcmd's range with jcmd's committed and used (its
regions), without parts, and a note says why. For G1 at 512m also with -b fork, and saved with -w
and loaded with -l: the jvm heap, its parts and its regions' types and
names come back as a live capture has them; and G1's used is jcmd's also
without -F (the JVM running), with --all -e openmetrics, and (G1 at
256m) read from a gcore core with -l. Every JVM started is killed by its pid. Skipped
without java; the range checks are skipped without jcmd (a JRE)."""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import hsperf  # noqa: E402
import vmstest as T  # noqa: E402

MIB = 1 << 20
SRC = os.path.join(T.ROOT, "tests", "targets", "JvmHeap.java")


def perf_path(pid):
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if "/hsperfdata_" in line:
                return "/proc/%d/root%s" % (pid, line.split(None, 5)[5].strip())
    return None


def read_perf(pid):
    return hsperf.figures(hsperf.read(perf_path(pid)))


G1_USED = re.compile(r"garbage-first heap\s+total (?:reserved \d+K, "
                     r"committed )?\d+K, used (\d+)K")


def g1_used_k(pid):
    """G1's used() in K as jcmd GC.heap_info prints it (used()/K, rounded
    down), or None (not G1, or no jcmd)."""
    m = G1_USED.search(jcmd(pid, "GC.heap_info") or "")
    return int(m.group(1)) if m else None


def stable_capture(pid, extra, g1=False):
    """vmscope's JSON and hsperfdata figures the JVM did not change
    around it (before == after); with g1, jcmd's used too (the third
    item, in K)."""
    for _ in range(5):
        before = read_perf(pid), g1 and g1_used_k(pid)
        snap = T.vmscope_json(pid, *extra)
        after = read_perf(pid), g1 and g1_used_k(pid)
        if before == after:
            return snap, after[0], after[1]
    return snap, None, None


def gens(figs):
    """The generations hsperfdata holds, by number (ZGC's is 1 alone)."""
    return sorted(int(k.split(".")[1]) for k in figs
                  if re.fullmatch(r"gen\.\d+\.name", k))


def want_parts(figs):
    """The parts vmscope should report, by the JVM's names."""
    out = {}
    for g in gens(figs):
        k, spaces = 0, []
        while "gen.%d.space.%d.name" % (g, k) in figs:
            spaces.append(k)
            k += 1
        for k in spaces:
            pre = "gen.%d.space.%d." % (g, k)
            name = figs["gen.%d.name" % g] if len(spaces) == 1 \
                else figs[pre + "name"]
            out[name] = (figs.get(pre + "capacity"), figs.get(pre + "used"),
                         figs.get(pre + "max"), True)
    for grp in ("metaspace", "class space"):
        out[grp] = (figs.get(grp + ".capacity"), figs.get(grp + ".used"),
                    figs.get(grp + ".max"), False)
    return out


def jcmd(pid, *cmd):
    if not shutil.which("jcmd"):
        return None
    r = T.subprocess.run(["jcmd", str(pid)] + list(cmd), capture_output=True,
                         timeout=60)
    return r.stdout.decode(errors="replace") if r.returncode == 0 else None


GEN = re.compile(r"^\s*(\S.*?)\s+total (\d+)K, used \d+K "
                 r"\[0x([0-9a-f]+), 0x([0-9a-f]+)(?:, 0x([0-9a-f]+))?\)",
                 re.M)


SHEN = re.compile(r"(\d+)K committed.*?Reserved region:\s*- \[0x([0-9a-f]+), "
                  r"0x([0-9a-f]+)\)", re.S)


def heap_info(pid):
    """jcmd GC.heap_info's heap: (start, end, {name: total bytes}), the
    union of its generations' reserved ranges (one range, or None);
    Shenandoah's reserved region and committed ("shenandoah")."""
    info = jcmd(pid, "GC.heap_info")
    gens = GEN.findall(info or "")
    shen = SHEN.search(info or "")
    if shen and "Shenandoah" in info:
        return (int(shen.group(2), 16), int(shen.group(3), 16),
                {"shenandoah": int(shen.group(1)) * 1024})
    if not gens:
        return None
    rng = sorted((int(g[2], 16), int(g[4] or g[3], 16)) for g in gens)
    if any(rng[i][1] != rng[i + 1][0] for i in range(len(rng) - 1)):
        return None
    return rng[0][0], rng[-1][1], {g[0]: int(g[1]) * 1024 for g in gens}


def jvm_committed(figs, page):
    """The JVM's committed heap bytes by hsperfdata: its generations'
    capacities (G1's 8 bytes a space rounded off)."""
    total = sum(figs.get("gen.%d.capacity" % g, 0) for g in gens(figs))
    return total // page * page


def rw_bytes(pid, lo, hi):
    return sum(min(m["end"], hi) - max(m["start"], lo) for m in T.maps(pid)
               if m["perms"].startswith("rw") and m["end"] > lo
               and m["start"] < hi)


def settle(pid, lo, hi):
    """Waits (up to 20 s) until the kernel's read-write bytes of the
    heap's range equal the JVM's own committed (hsperfdata): G1 gives back
    what it shrank on a thread of its own after System.gc()."""
    page = os.sysconf("SC_PAGE_SIZE")
    for _ in range(40):
        if rw_bytes(pid, lo, hi) == jvm_committed(read_perf(pid), page):
            return True
        T.time.sleep(0.5)
    return False


def heap_pieces(snap, start, end):
    """The regions inside [start, end), and the typed parts inside it of
    the regions that reach past it (a neighbour's mapping the kernel
    merged with the heap's first or last: a glibc mmapped chunk right
    below a heap among the mmaps), as (region, part)."""
    inside, parts = [], []
    for r in snap["regions"]:
        lo, hi = T.hexint(r["start"]), T.hexint(r["end"])
        if lo >= start and hi <= end:
            inside.append(r)
        elif lo < end and hi > start:
            parts += [(r, c) for c in r["children"] if c.get("type") and
                      T.hexint(c["start"]) >= start and
                      T.hexint(c["end"]) <= end]
    return inside, parts


def check(label, pid, extra, ccp=True):
    truth = heap_info(pid)
    if truth:
        settle(pid, truth[0], truth[1])
    g1 = bool(truth) and "garbage-first heap" in truth[2]
    snap, figs, jcmd_k = stable_capture(pid, extra, g1)
    if not T.ok(figs is not None, "%s: hsperfdata%s stable around the "
                "capture" % (label, " and jcmd's used" if g1 else "")):
        return
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    if not T.ok(len(jvm) == 1, "%s: one managed heap of runtime jvm" % label,
                (snap["managed"], snap["capture"].get("missing"),
                 snap["capture"].get("partial"),
                 [(r["start"], r["end"], r["path"]) for r in snap["regions"]
                  if r.get("path") and "hsperf" in r["path"]])):
        return
    m = jvm[0]
    start, end = T.hexint(m["start"]), T.hexint(m["end"])
    notes = [n for n in snap["capture"]["missing"] if n["step"] == "jvm"]
    T.ok(not notes, "%s: found by the JVM's own account (no note)" % label,
         notes)
    if truth:
        T.ok((start, end) == truth[:2] and m["reserved"] == end - start,
             "%s: its range %#x-%#x (%d MiB) is jcmd GC.heap_info's "
             "%#x-%#x" % (label, start, end, (end - start) >> 20,
                          truth[0], truth[1]))
    else:
        T.skip("%s: jcmd GC.heap_info" % label,
               "jcmd not installed (a JRE), or no heap range printed")
    inside, parts = heap_pieces(snap, start, end)
    pieces = sorted(inside + [c for _, c in parts],
                    key=lambda x: T.hexint(x["start"]))
    at = start
    for x in pieces:
        at = T.hexint(x["end"]) if T.hexint(x["start"]) == at else -1
    T.ok(inside + parts and at == end and
         all(x["type"] == "managed_heap" and
             x["detail" if "detail" in x else "name"].startswith("Java heap")
             for x in pieces),
         "%s: its %d regions and %d parts of regions reaching past it are "
         "typed managed_heap, named Java heap, and cover it (one "
         "allocation)" % (label, len(inside), len(parts)),
         [(x["start"], x["end"], x["type"], x.get("detail", x.get("name")))
          for x in pieces])
    if parts:
        print("# %s: a region reaches past the heap (the kernel merged a "
              "neighbour's mapping with it): %s" %
              (label, [(r["start"], r["end"], r["detail"]) for r, _ in parts]))
    page = os.sysconf("SC_PAGE_SIZE")
    own = jvm_committed(figs, page)
    T.ok(m["committed"] == own
         and m["committed"] == sum(x["committed"] for x in pieces),
         "%s: committed %d is the JVM's own (hsperfdata capacities %d) and "
         "its regions' and parts'" % (label, m["committed"], own))
    if truth and "garbage-first heap" in truth[2]:
        T.eq(m["committed"], truth[2]["garbage-first heap"],
             "%s: ... and jcmd's G1 total" % label)
    if truth and "shenandoah" in truth[2]:
        T.eq(m["committed"], truth[2]["shenandoah"],
             "%s: ... and jcmd's Shenandoah committed" % label)
    want = want_parts(figs)
    got = {p["name"]: (p["capacity"], p["used"], p["max"], p["in_heap"])
           for p in m["parts"]}
    T.ok(got == want, "%s: parts equal the JVM's own hsperfdata: %s"
         % (label, ", ".join("%s %s/%s" % (k, v[1], v[0])
                             for k, v in sorted(got.items()))),
         "got %r\nwant %r" % (got, want))
    used = sum(v[1] for v in want.values() if v[3])
    if g1:
        check_g1_used(label, m, jcmd_k, used)
    else:
        T.eq(m["figures"], "hsperfdata", "%s: figures from hsperfdata"
             % label)
        T.eq(m["used"], used, "%s: used %d is the heap spaces' used"
             % (label, used))
    vi = jcmd(pid, "VM.info")
    cm = vi and re.search(r"Compressed class space mapped at: 0x([0-9a-f]+)-"
                          r"0x([0-9a-f]+)", vi)
    named = [r for r in snap["regions"] if r["detail"] == "JVM class space"]
    if cm:
        T.ok(ccp and named
             and T.hexint(named[0]["start"]) == int(cm.group(1), 16)
             and T.hexint(named[-1]["end"]) == int(cm.group(2), 16),
             "%s: JVM class space at 0x%s-0x%s as jcmd VM.info says"
             % (label, cm.group(1), cm.group(2)))
    elif vi and not ccp:
        T.ok(not named, "%s: no compressed class space, none named" % label,
             [r["start"] for r in named])
    else:
        T.skip("%s: class space" % label, "jcmd not installed")


def check_g1_used(label, m, jcmd_k, spaces):
    """G1: the heap's used is G1's own used() (jcmd GC.heap_info's, in K,
    taken before and after the capture and the same), the sum of its
    regions' top - bottom; not hsperfdata's sum of its spaces (jstat's),
    which leaves out the region being allocated in (JvmHeap keeps 256 KiB
    there) until a collection or its retirement."""
    T.eq(m["figures"], "G1 heap regions (VMStructs); parts: hsperfdata",
         "%s: used from G1's regions, parts from hsperfdata" % label)
    T.ok(m["used"] is not None and m["used"] // 1024 == jcmd_k,
         "%s: used %s bytes (%sK) is jcmd GC.heap_info's %dK (before and "
         "after); hsperfdata's sum of the spaces (jstat's) %d (%dK) is not"
         % (label, m["used"], m["used"] // 1024 if m["used"] else "-",
            jcmd_k, spaces, spaces // 1024))
    T.ok(spaces // 1024 != jcmd_k,
         "%s: ... the case is exercised: hsperfdata's sum %dK is not jcmd's "
         "%dK (the region being allocated in)" % (label, spaces // 1024,
                                                  jcmd_k))


def vm_info_hex(info, name):
    m = re.search(r"^ %s:\s+(?:\S+ \()?0x([0-9a-f]+)" % name, info, re.M)
    return int(m.group(1), 16) if m else None


def check_zgc(label, pid):
    """ZGC: the heap is a memfd ("java_heap") mapped in three views; the
    JVM's own account (jcmd VM.info: "ZGC Metadata Bits", "Offset Max")
    says where the remapped view lies. One managed heap there, its
    committed the JVM's (hsperfdata; jcmd's capacity in MiB), the kernel's
    bytes of the memfd in that view; the other two views named as views
    of it and left shareable (counted once)."""
    info = jcmd(pid, "VM.info")
    remapped = info and vm_info_hex(info, "Remapped")
    span = info and vm_info_hex(info, "Offset Max")
    cap = info and re.search(r"ZHeap\s+used \d+M, capacity (\d+)M", info)
    if not (remapped and span and cap):
        T.skip("%s: the heap by jcmd VM.info" % label, "jcmd not installed "
               "(a JRE), or no ZGC globals printed")
        return
    snap, figs, _ = stable_capture(pid, ["-F"])
    if not T.ok(figs is not None, "%s: hsperfdata stable around the capture"
                % label):
        return
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    notes = [n for n in snap["capture"]["missing"] if n["step"] == "jvm"]
    if not T.ok(len(jvm) == 1 and not notes, "%s: one managed heap of "
                "runtime jvm, no note" % label, (snap["managed"], notes)):
        return
    m = jvm[0]
    start, end = T.hexint(m["start"]), T.hexint(m["end"])
    T.ok(start == remapped and end <= remapped + span and
         m["reserved"] == end - start,
         "%s: it is the remapped view, %#x-%#x (%d MiB reserved), within "
         "jcmd's remapped bit %#x and offset max %#x"
         % (label, start, end, (end - start) >> 20, remapped, span))
    memfd = [x for x in T.maps(pid) if "/memfd:java_heap" in (x["path"] or "")
             and "s" in x["perms"]]
    in_view = sum(x["end"] - x["start"] for x in memfd
                  if remapped <= x["start"] < remapped + span)
    own = jvm_committed(figs, os.sysconf("SC_PAGE_SIZE"))
    T.ok(m["committed"] == own == in_view and own >> 20 == int(cap.group(1)),
         "%s: committed %d is the JVM's own (hsperfdata %d, jcmd's capacity "
         "%s M) and the memfd's pages in that view (%d)"
         % (label, m["committed"], own, cap.group(1), in_view))
    inside, _ = heap_pieces(snap, start, end)
    T.ok(inside and all(x["type"] == "managed_heap" and
                        x["detail"].startswith("Java heap") for x in inside)
         and sum(T.hexint(x["end"]) - T.hexint(x["start"])
                 for x in inside) == end - start,
         "%s: its %d regions are typed managed_heap, named Java heap, and "
         "cover it" % (label, len(inside)))
    views = [r for r in snap["regions"] if "/memfd:java_heap" in
             (r.get("path") or "") and not start <= T.hexint(r["start"]) < end]
    T.ok(len(views) >= 2 and all(
        r["type"] == "shareable" and r["detail"].startswith("JVM heap view (ZGC")
        for r in views), "%s: the marked views' %d mappings are named views "
        "of the heap, shareable, not a second heap" % (label, len(views)),
        [(r["start"], r["type"], r["detail"]) for r in views])
    want = want_parts(figs)
    got = {p["name"]: (p["capacity"], p["used"], p["max"], p["in_heap"])
           for p in m["parts"]}
    T.ok(got == want, "%s: parts equal the JVM's own hsperfdata" % label,
         "got %r\nwant %r" % (got, want))


def check_noperf(label, pid):
    """-XX:-UsePerfData: no hsperfdata, the heap still where VMStructs
    says, its committed G1's own (jcmd), its used too (its regions: jcmd's,
    taken before and after), its spaces unknown (a note)."""
    truth = heap_info(pid)
    if not truth:
        T.skip("%s: the heap without hsperfdata" % label, "jcmd not "
               "installed (a JRE), or no heap range printed")
        return
    total = truth[2].get("garbage-first heap")
    for _ in range(40):
        if rw_bytes(pid, truth[0], truth[1]) == total:
            break
        T.time.sleep(0.5)
        truth = heap_info(pid) or truth
        total = truth[2].get("garbage-first heap")
    for _ in range(5):
        before = g1_used_k(pid)
        snap = T.vmscope_json(pid, "-F")
        after = g1_used_k(pid)
        if before == after:
            break
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    if not T.ok(len(jvm) == 1, "%s: one managed heap of runtime jvm" % label,
                (snap["managed"], [n for n in snap["capture"].get("missing")
                                   or [] if n["step"] == "jvm"])):
        return
    m = jvm[0]
    start, end = T.hexint(m["start"]), T.hexint(m["end"])
    T.ok((start, end) == truth[:2] and m["committed"] == total,
         "%s: its range %#x-%#x and committed %d are jcmd's" %
         (label, start, end, m["committed"]), (truth, m))
    notes = [n["why"] for n in snap["capture"]["missing"]
             if n["step"] == "jvm"]
    T.ok(m["parts"] == [] and len(notes) == 1 and "hsperfdata" in notes[0]
         and "its spaces are not known" in notes[0],
         "%s: no parts, and a note says why: %s" % (label, notes))
    T.ok(before is not None and before == after and m["used"] is not None
         and m["used"] // 1024 == after
         and m["figures"] == "G1 heap regions (VMStructs)",
         "%s: used %s (figures: %s) is jcmd GC.heap_info's %sK, before and "
         "after: G1's regions need no hsperfdata"
         % (label, m["used"], m["figures"], after))


def check_all(label, pid):
    """--all -e openmetrics PID (nothing stopped: G1's regions are read
    while the JVM runs, taken when its collection count did not move):
    its vmscope_managed_used_bytes is jcmd's used, taken before and
    after."""
    for _ in range(5):
        before = g1_used_k(pid)
        r = T.run_vmscope("--all", "-e", "openmetrics", str(pid))
        after = g1_used_k(pid)
        if before == after:
            break
    got = [v for name, lab, v in T.om_samples(r.stdout.decode())
           if name == "vmscope_managed_used_bytes"
           and lab.get("pid") == str(pid) and lab.get("runtime") == "jvm"]
    T.ok(r.returncode == 0 and before is not None and before == after
         and len(got) == 1 and int(got[0]) // 1024 == after,
         "%s: vmscope_managed_used_bytes %s is jcmd GC.heap_info's %sK "
         "(before %sK)" % (label, got, after, before), r.stderr)


def cored(label, pid, tmp):
    """A core of the JVM (gcore), loaded with -l: its G1 heap's used read
    in the core's memory is jcmd's, taken before and after the dump."""
    if not shutil.which("gcore"):
        T.skip("%s: a core's G1 used" % label, "gdb's gcore not installed")
        return
    for _ in range(3):
        before = g1_used_k(pid)
        core = T.gcore(pid, tmp)
        after = g1_used_k(pid)
        if before == after:
            break
        os.unlink(core)
    r = T.run_vmscope("-l", core, "-e", "json")
    os.unlink(core)
    snap = T.json.loads(r.stdout) if r.returncode == 0 else {"managed": []}
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    T.ok(before is not None and before == after and len(jvm) == 1
         and jvm[0]["used"] is not None and jvm[0]["used"] // 1024 == after
         and jvm[0]["figures"].startswith("G1 heap regions"),
         "%s: used %s (figures: %s) is jcmd GC.heap_info's %sK"
         % (label, jvm and jvm[0]["used"], jvm and jvm[0]["figures"], after),
         r.stderr)


def saved(label, pid, tmp):
    """-w FILE then -l FILE: the jvm step's result comes back from the
    file (a loaded snapshot cannot read the hsperfdata file again)."""
    path = os.path.join(tmp, "jvm.vms")
    for _ in range(3):
        before = read_perf(pid)
        r = T.run_vmscope("-F", "-w", path, pid)
        after = read_perf(pid)
        if before == after:
            break
    if not T.ok(r.returncode == 0, "%s: -w saves it" % label, r.stderr):
        return
    live = T.vmscope_json(pid, "-F")
    r = T.run_vmscope("-l", path, "-e", "json")
    if not T.ok(r.returncode == 0, "%s: -l loads it" % label, r.stderr):
        return
    loaded = T.json.loads(r.stdout)

    def jvm(snap):
        return [m for m in snap["managed"] if m["runtime"] == "jvm"]

    def named(snap):
        return [(x["start"], x["type"], x["detail"]) for x in snap["regions"]
                if x["type"] == "managed_heap"
                or (x["detail"] or "").startswith(("JVM ", "Java heap"))]
    T.ok(jvm(loaded) == jvm(live) and jvm(live),
         "%s: the loaded file's jvm heap and parts equal a live capture's"
         % label, "loaded %r\nlive %r" % (jvm(loaded), jvm(live)))
    T.ok(named(loaded) == named(live),
         "%s: ... and so do its regions' types and names (%d)"
         % (label, len(named(live))))
    T.ok(not [n for n in loaded["capture"]["missing"] if n["step"] == "jvm"],
         "%s: ... with no note from the jvm step" % label,
         loaded["capture"]["missing"])


CONFIGS = [(gc, xmx, ()) for gc in ("G1", "Parallel", "Serial")
           for xmx in ("256m", "512m", "2g")] + \
    [(gc, "512m", ("-XX:-UseCompressedClassPointers",))
     for gc in ("G1", "Parallel", "Serial")] + \
    [("G1", "512m", ("-XX:-UseCompressedOops",)),
     ("G1", "512m", ("-XX:-UsePerfData",)),
     ("Shenandoah", "512m", ()), ("Z", "512m", ())]
AT_ONCE = 4


def launcher(tmp):
    """How to run JvmHeap: its class compiled once, or the source."""
    if shutil.which("javac"):
        r = T.subprocess.run(["javac", "-d", tmp, SRC], capture_output=True,
                             timeout=120)
        if r.returncode == 0:
            return ["-cp", tmp, "JvmHeap"]
    return [SRC]


def run_one(cfg, proc, line, tmp):
    gc, xmx, flags = cfg
    label = " ".join(["%s %s" % (gc, xmx)] + list(flags))
    pid = proc.pid
    if not T.ok(line == "ready %d" % pid, "%s: JVM %d ready" % (label, pid),
                line):
        return
    ccp = "-XX:-UseCompressedClassPointers" not in flags
    if "-XX:-UsePerfData" in flags:
        check_noperf("%s -F" % label, pid)
        return
    if gc == "Z":
        check_zgc("%s -F" % label, pid)
        saved("%s -w/-l" % label, pid, tmp)
        return
    check("%s -F" % label, pid, ["-F"], ccp)
    if (gc, xmx, flags) == ("G1", "512m", ()):
        check("%s -b fork" % label, pid, ["-b", "fork"], ccp)
        check("%s running" % label, pid, [], ccp)
        check_all("%s --all" % label, pid)
        saved("%s -w/-l" % label, pid, tmp)
    if (gc, xmx, flags) == ("G1", "256m", ()):
        cored("%s core" % label, pid, tmp)


def main():
    if not shutil.which("java"):
        T.skip("jvm", "java is not installed (openjdk-17-jre-headless)")
        T.done()
    tmp = tempfile.mkdtemp(prefix="vms-jvm-")
    try:
        run = launcher(tmp)
        for i in range(0, len(CONFIGS), AT_ONCE):
            batch = CONFIGS[i:i + AT_ONCE]
            procs = [T.start(["java", "-XX:+Use%sGC" % gc, "-Xmx" + xmx]
                             + list(flags) + run, ready=False)[0]
                     for gc, xmx, flags in batch]
            try:
                lines = [p.stdout.readline().decode(errors="replace")
                         .strip() for p in procs]
                for cfg, p, line in zip(batch, procs, lines):
                    run_one(cfg, p, line, tmp)
            finally:
                for p in procs:
                    T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
