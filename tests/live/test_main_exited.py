"""A process whose main thread called pthread_exit() while its workers run
(hostile_target "threads": 80 idle threads, the leader a zombie) is
captured by plain pss, -b pss -F and -b fork: the leader's own smaps and
status are empty, so vmscope reads a live thread's
(/proc/PID/task/TID/...). With the target SIGSTOPped: the regions are
exactly the lines of that thread's maps, Σ Rss and Swap equal its
smaps_rollup (Private and Shared: as read within the capture; vmscope's
own mappings move that split), the zombie leader is not listed as a thread, the
process keeps its own name, and it comes out untraced, still stopped, with
no child. MAIN_EXITED_ROUNDS captures per sampler (default 2)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

ROUNDS = int(os.environ.get("MAIN_EXITED_ROUNDS", "2"))
SAMPLERS = (("pss",), ("pss", "-F"), ("-b", "fork"))
forktest.become_subreaper()


def sums(snap):
    out = {"Rss": 0, "Private": 0, "Shared": 0, "Swap": 0}
    for r in snap["regions"]:
        out["Rss"] += r["rss"]
        out["Private"] += r["private_clean"] + r["private_dirty"]
        out["Shared"] += r["shared_clean"] + r["shared_dirty"]
        out["Swap"] += r["swap"]
    return out


def rollup_of(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.partition(":")
            if v.strip().endswith("kB"):
                out[k] = int(v.split()[0]) * 1024
    return {"Rss": out["Rss"],
            "Private": out["Private_Clean"] + out["Private_Dirty"],
            "Shared": out["Shared_Clean"] + out["Shared_Dirty"],
            "Private_Dirty": out["Private_Dirty"],
            "Swap": out["Swap"]}


def own(rollup):
    """What only the target changes: a clean file page turns from
    private to shared whenever any process on the machine maps it (a
    compiler starting maps libc), so the split of clean pages is left
    out; its dirty private pages, resident and swapped are its own."""
    return {k: rollup[k] for k in ("Rss", "Private_Dirty", "Swap")}


def maps_starts(path):
    with open(path) as f:
        return [int(line.split("-", 1)[0], 16) for line in f]


p, _ = vmstest.start([vmstest.target("hostile_target"), "threads"])
pid = p.pid
# the leader exits right after "ready": wait until it is a zombie
for _ in range(2000):
    if vmstest.proc_state(pid) == "Z" and len(vmstest.tids(pid)) > 80:
        break
    vmstest.time.sleep(0.005)
eq(vmstest.proc_state(pid), "Z", "the main thread has exited (a zombie "
   "leader) while %d threads run" % (len(vmstest.tids(pid)) - 1))
with open("/proc/%d/smaps" % pid) as f:
    eq(f.read(), "", "the leader's own smaps is empty")
live = [t for t in vmstest.tids(pid) if t != pid][0]
task = "/proc/%d/task/%d/" % (pid, live)
os.kill(pid, vmstest.signal.SIGSTOP)
for _ in range(2000):  # every thread but the zombie leader stopped
    if all(vmstest.proc_state(pid, t) == "T"
           for t in vmstest.tids(pid) if t != pid):
        break
    vmstest.time.sleep(0.005)
for b in SAMPLERS:
    name = " ".join(b)
    args = b if b[0] == "-b" else ("-b",) + b
    for i in range(ROUNDS):
        before = rollup_of(task + "smaps_rollup")
        r = vmstest.run_vmscope("-e", "json", *args, pid, timeout=60)
        after = rollup_of(task + "smaps_rollup")
        if not ok(r.returncode == 0, "%s #%d: captured (exit 0)"
                  % (name, i + 1), r.stderr.decode()):
            continue
        snap = vmstest.json.loads(r.stdout)
        eq([vmstest.hexint(x["start"]) for x in snap["regions"]],
           maps_starts(task + "maps"),
           "%s #%d: the regions are the lines of a live thread's maps"
           % (name, i + 1))
        got, kr = sums(snap), snap["capture"]["kernel_rollup"]
        eq((got["Rss"], got["Swap"]), (before["Rss"], before["Swap"]),
           "%s #%d: Σ Rss, Swap == the live thread's smaps_rollup"
           % (name, i + 1))
        # The split moves when vmscope itself maps a page the target alone
        # had (the observer effect): it ties to the rollup read at the
        # capture's instant, of the same live thread.
        tied, why = vmstest.split_ties(snap, got)
        if why:
            print("# %s #%d: %s" % (name, i + 1, why))
        ok(tied, "%s #%d: Σ Private, Shared == that thread's smaps_rollup "
           "read in the capture (or moved by sharing, said so)"
           % (name, i + 1), why)
        ok(kr["rss"] == before["Rss"], "%s #%d: the capture's rollup is "
           "the live thread's (Rss %d)" % (name, i + 1, kr["rss"]))
        eq(own(after), own(before), "%s #%d: smaps_rollup unchanged by the "
           "capture (Rss, Private_Dirty, Swap)" % (name, i + 1))
        tids = [t["tid"] for t in snap["threads"]]
        ok(pid not in tids and len(tids) == len(vmstest.tids(pid)) - 1,
           "%s #%d: every live thread listed, the exited leader not (%d)"
           % (name, i + 1, len(tids)))
        eq(snap["process"]["name"], "hostile_target",
           "%s #%d: the process keeps its name" % (name, i + 1))
        ok(snap["process"]["exe"] and snap["process"]["cmdline"],
           "%s #%d: its exe and command line are read" % (name, i + 1),
           snap["process"])
        eq(forktest.children(pid), [], "%s #%d: no clone, no zombie child"
           % (name, i + 1))
        ok(all(vmstest.proc_state(pid, t) == "T"
               for t in vmstest.tids(pid) if t != pid)
           and vmstest.tracer_pid(live) == 0,
           "%s #%d: still SIGSTOPped, untraced" % (name, i + 1))
vmstest.sigcont(pid)
ok(p.poll() is None, "the target is alive")
vmstest.kill(p)
vmstest.done()
