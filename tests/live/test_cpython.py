#!/usr/bin/env python3
"""CPython's obmalloc arenas (step "cpython") against the interpreter's own
figures.

tests/targets/pyarenas.py fills obmalloc, writes sys._debugmallocstats()
to a file and blocks without allocating: vmscope must find as many arenas
as "# arenas allocated current", their pools' blocks in use must add up to
"# bytes in allocated blocks" exactly, and the regions it types managed
heap must hold those arenas (committed within a few percent of arenas x
arena size). Captured frozen (-F) and through the fork clone (-b fork)."""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, "..", "targets", "pyarenas.py")


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
    T.ok(total * 0.95 <= mh["committed"] <= total * 1.10,
         "%s: Managed Heap committed within a few percent of the arenas' "
         "bytes (%d of %d)" % (how, mh["committed"], total))
    bad = [m for m in py
           if (T.region_of(snap, int(m["start"], 16)) or {}).get("type")
           != "managed_heap"]
    T.ok(py and not bad, "%s: the arenas lie in managed heap regions" % how,
         bad[:5])


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
              if (T.region_of(snap, int(m["start"], 16)) or {}).get("type")
              == "managed_heap" and 0 <= m["used"] <= m["reserved"]]
    T.ok(py and inside == py, "the recorded snapshot: %d arenas, each in a "
         "managed heap region, its blocks in use within its size" % len(py))


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
    T.done()


main()
