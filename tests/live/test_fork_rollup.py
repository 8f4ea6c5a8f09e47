"""-b fork's counters come from the original, read before the fork: over
the exported regions, sum Rss, Private_Dirty and Swap equal
/proc/PID/smaps_rollup of a SIGSTOPped target exactly, before the capture
and after it (the clone gone, the target unaltered), and Private and
Shared the rollup the capture read (the clean pages' split moves whenever
any process maps a file page the target has). The export records the
backend and the freeze; the summary shows them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()


# A clean file page turns from private to shared whenever any process on
# the machine maps it (a compiler starting maps libc): the split of clean
# pages is compared with the rollup the capture read at its instant; Rss,
# the dirty private pages and swap are the target's own, compared with the
# rollup read before and after.
def sums(snap):
    out = {"Rss": 0, "Private": 0, "Shared": 0, "Private_Dirty": 0,
           "Swap": 0}
    for r in snap["regions"]:
        out["Rss"] += r["rss"]
        out["Private"] += r["private_clean"] + r["private_dirty"]
        out["Shared"] += r["shared_clean"] + r["shared_dirty"]
        out["Private_Dirty"] += r["private_dirty"]
        out["Swap"] += r["swap"]
    return out


def kernel(roll):
    return {"Rss": roll["Rss"], "Private_Dirty": roll["Private_Dirty"],
            "Swap": roll["Swap"]}


def own(d):
    return {k: d[k] for k in ("Rss", "Private_Dirty", "Swap")}


for name, argv in (("everykind", [vmstest.target("everykind")]),
                   ("fork_threads", [vmstest.target("fork_threads"),
                                     "compute", "8"])):
    if not os.path.exists(argv[0]):
        vmstest.skip("%s: counters tie to smaps_rollup" % name,
                     "target not built")
        continue
    p, _ = vmstest.start(argv)
    vmstest.sigstop(p.pid)
    before = kernel(vmstest.rollup(p.pid))
    snap = vmstest.vmscope_json(p.pid, "-b", "fork")
    after = kernel(vmstest.rollup(p.pid))
    got = sums(snap)
    kr = snap["capture"]["kernel_rollup"]
    eq(own(got), before, "%s: Σ Rss, Private_Dirty, Swap == smaps_rollup "
       "read before the capture" % name)
    tied, why = vmstest.split_ties(snap, got)
    if why:
        print("# %s: %s" % (name, why))
    ok(tied, "%s: Σ Private, Shared == the smaps_rollup the capture read "
       "(or moved by sharing, said so)" % name, why)
    eq(after, before, "%s: smaps_rollup unchanged by the capture (Rss, "
       "Private_Dirty, Swap)" % name)
    eq(snap["capture"]["backend"], "fork", "%s: backend fork" % name)
    ok(snap["capture"]["frozen"] and snap["capture"]["frozen_us"] > 0,
       "%s: the freeze is recorded (%s us)"
       % (name, snap["capture"]["frozen_us"]))
    eq([vmstest.hexint(r["start"]) for r in snap["regions"]],
       [m["start"] for m in vmstest.maps(p.pid)],
       "%s: the regions are exactly the lines of maps" % name)
    eq(vmstest.proc_state(p.pid), "T", "%s: a SIGSTOPped target stays "
       "stopped" % name)
    ok(not forktest.children(p.pid) and vmstest.tracer_pid(p.pid) == 0,
       "%s: no clone, no zombie, not traced" % name)
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
    out = r.stdout.decode()
    ok(r.returncode == 0 and "fork, frozen" in out,
       "%s: the summary names the fork sampler and its freeze" % name,
       r.stderr.decode() + out[:400])
    vmstest.sigcont(p.pid)
    vmstest.kill(p)
vmstest.done()
