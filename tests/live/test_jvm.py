#!/usr/bin/env python3
"""A HotSpot JVM's Java heap (the "jvm" step, src/analyze/runtimes/step_jvm.c).

Starts tests/targets/JvmHeap.java (java -Xmx384m, G1 and Serial) and, with
-F (the target held while read) and -b fork, checks `vmscope -e json`:
  - one managed heap of runtime "jvm" whose reservation is 384 MiB, below
    32 GiB (compressed oops), every region inside it typed managed_heap
    and the regions covering it without a gap;
  - its parts (eden, s0, s1, old, metaspace, class space: capacity, used,
    max) and used equal the JVM's own hsperfdata, read independently by
    tests/lib/hsperf.py from the file the JVM maps (read before and after
    vmscope; taken only when both agree: the idle JVM did not change them);
  - where jcmd is installed (a JDK), the heap's range and committed bytes
    equal `jcmd PID GC.heap_info` ("total NK ... [start, end)") and the
    class space named "JVM class space" is where `jcmd VM.info` says;
  - saved with -w and loaded with -l, the jvm heap, its parts and its
    regions' types and names come back as a live capture has them.
Every JVM started is killed by its pid. Skipped without java."""
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


def stable_capture(pid, extra):
    """vmscope's JSON and hsperfdata figures the JVM did not change
    around it (before == after)."""
    for _ in range(3):
        before = read_perf(pid)
        snap = T.vmscope_json(pid, *extra)
        after = read_perf(pid)
        if before == after:
            return snap, after
    return snap, None


def want_parts(figs):
    """The parts vmscope should report, by the JVM's names."""
    out = {}
    g = 0
    while "gen.%d.name" % g in figs:
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
        g += 1
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


HEAP_INFO = re.compile(r"total (\d+)K, used \d+K \[0x([0-9a-f]+), "
                       r"0x([0-9a-f]+)\)")


def settle(pid):
    """Waits (up to 20 s) until the JVM has given back what it shrank:
    G1 uncommits on a thread of its own after System.gc() (JDK 16+), so
    for a while after "ready" the kernel still maps the old size while
    the JVM already counts the new one. Settled: the read-write bytes of
    the heap's range in /proc/PID/maps equal jcmd's committed total.
    Without jcmd, nothing to wait on (nor to compare with)."""
    for _ in range(40):
        info = jcmd(pid, "GC.heap_info")
        hm = info and HEAP_INFO.search(info)
        if not hm:
            return
        lo, hi = int(hm.group(2), 16), int(hm.group(3), 16)
        rw = sum(min(m["end"], hi) - max(m["start"], lo)
                 for m in T.maps(pid)
                 if m["perms"].startswith("rw") and m["end"] > lo
                 and m["start"] < hi)
        if rw == int(hm.group(1)) * 1024:
            return
        T.time.sleep(0.5)


def check(label, pid, extra):
    settle(pid)
    snap, figs = stable_capture(pid, extra)
    if not T.ok(figs is not None, "%s: hsperfdata stable around the capture"
                % label):
        return
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    if not T.ok(len(jvm) == 1, "%s: one managed heap of runtime jvm" % label,
                snap["managed"]):
        return
    m = jvm[0]
    start, end = T.hexint(m["start"]), T.hexint(m["end"])
    T.ok(m["reserved"] == 384 * MIB and end - start == 384 * MIB,
         "%s: its reservation is 384 MiB (%d)" % (label, m["reserved"]))
    T.ok(end <= 32 << 30, "%s: below 32 GiB (compressed oops): %#x-%#x"
         % (label, start, end))
    inside = [r for r in snap["regions"]
              if T.hexint(r["start"]) >= start and T.hexint(r["end"]) <= end]
    covered = sum(T.hexint(r["end"]) - T.hexint(r["start"]) for r in inside)
    T.ok(inside and all(r["type"] == "managed_heap" for r in inside)
         and covered == end - start,
         "%s: its %d regions are typed managed_heap and cover it"
         % (label, len(inside)),
         [(r["start"], r["type"]) for r in inside])
    T.ok(m["committed"] == sum(r["committed"] for r in inside),
         "%s: committed %d is its regions' committed bytes"
         % (label, m["committed"]))
    T.eq(m["figures"], "hsperfdata", "%s: figures from hsperfdata" % label)
    want = want_parts(figs)
    got = {p["name"]: (p["capacity"], p["used"], p["max"], p["in_heap"])
           for p in m["parts"]}
    T.ok(got == want, "%s: parts equal the JVM's own hsperfdata: %s"
         % (label, ", ".join("%s %s/%s" % (k, v[1], v[0])
                             for k, v in sorted(got.items()))),
         "got %r\nwant %r" % (got, want))
    used = sum(v[1] for v in want.values() if v[3])
    T.eq(m["used"], used, "%s: used %d is the heap spaces' used" % (label, used))
    info = jcmd(pid, "GC.heap_info")
    hm = info and HEAP_INFO.search(info)
    if hm:
        T.ok((int(hm.group(2), 16), int(hm.group(3), 16)) == (start, end)
             and int(hm.group(1)) * 1024 == m["committed"],
             "%s: jcmd GC.heap_info: total %sK [0x%s, 0x%s)"
             % (label, hm.group(1), hm.group(2), hm.group(3)))
    else:
        T.skip("%s: jcmd GC.heap_info" % label,
               "jcmd not installed (a JRE), or this collector prints no "
               "single heap range" if not info else "no single heap range "
               "in: %s" % info.splitlines()[1:2])
    vi = jcmd(pid, "VM.info")
    cm = vi and re.search(r"Compressed class space mapped at: 0x([0-9a-f]+)-"
                          r"0x([0-9a-f]+)", vi)
    named = [r for r in snap["regions"] if r["detail"] == "JVM class space"]
    if cm:
        T.ok(named and T.hexint(named[0]["start"]) == int(cm.group(1), 16)
             and T.hexint(named[-1]["end"]) == int(cm.group(2), 16),
             "%s: JVM class space at 0x%s-0x%s as jcmd VM.info says"
             % (label, cm.group(1), cm.group(2)))
    else:
        T.skip("%s: class space" % label, "jcmd not installed, or no "
               "compressed class space")


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
                or (x["detail"] or "").startswith("JVM ")]
    T.ok(jvm(loaded) == jvm(live) and jvm(live),
         "%s: the loaded file's jvm heap and parts equal a live capture's"
         % label, "loaded %r\nlive %r" % (jvm(loaded), jvm(live)))
    T.ok(named(loaded) == named(live),
         "%s: ... and so do its regions' types and names (%d)"
         % (label, len(named(live))))
    T.ok(not [n for n in loaded["capture"]["missing"] if n["step"] == "jvm"],
         "%s: ... with no note from the jvm step" % label,
         loaded["capture"]["missing"])


def main():
    if not shutil.which("java"):
        T.skip("jvm", "java is not installed (openjdk-17-jre-headless)")
        T.done()
    for gc in ("G1", "Serial"):
        p, line = T.start(["java", "-XX:+Use%sGC" % gc, "-Xmx384m", SRC],
                          timeout=90)
        try:
            pid = p.pid
            T.ok(line == "ready %d" % pid, "%s: JVM %d ready" % (gc, pid))
            check("%s -F" % gc, pid, ["-F"])
            if gc == "G1":
                check("%s -b fork" % gc, pid, ["-b", "fork"])
                tmp = tempfile.mkdtemp(prefix="vms-jvm-")
                try:
                    saved("%s -w/-l" % gc, pid, tmp)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
        finally:
            T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
