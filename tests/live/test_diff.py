#!/usr/bin/env python3
"""Diffs (-d A B): save a target, let it grow by a 100 MiB private mapping
and 20,000 small mallocs, save again, diff the two files:
  - private data grows by the 100 MiB (and by less than 16 MiB more);
  - that mapping is one change, "added", exactly its range, private data;
  - the heap's committed bytes grow by at least the bytes malloc'd;
  - -s prints the per-type table and the largest changes, the mapping
    first; -e csv and -e text print too;
  - a snapshot diffed with itself has no changes (JSON and -s), and a file
    against the live PID works;
  - two runs of the grower (ASLR moves every region) diff to no change;
    after one of them grows, to exactly its two real changes (the 100 MiB
    mapping added, the heap grown);
  - -d with one operand is a usage error (exit 1), and without -s/-e
    and without a terminal too (the diff screen needs one); a bad file
    exits 4.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

MIB = 1 << 20


def typ(d, side, name):
    return next(t for t in d[side]["types"] if t["type"] == name)


def two_runs(tmp):
    """ASLR: two processes of one program."""
    q1, _ = T.start([T.target("grower")])
    q2, _ = T.start([T.target("grower")])
    f1, f2 = os.path.join(tmp, "q1.vms"), os.path.join(tmp, "q2.vms")
    for q, f in ((q1, f1), (q2, f2)):
        r = T.run_vmscope("-F", "-w", f, q.pid)
        T.ok(r.returncode == 0, "saved run %d" % q.pid, r.stderr)
    r = T.run_vmscope("-d", f1, f2, "-e", "json")
    d = json.loads(r.stdout)
    T.ok(r.returncode == 0 and d["changes"]["regions"] == [],
         "two runs of the grower (pids %d, %d): no change, though ASLR "
         "moved every region" % (q1.pid, q2.pid),
         d["changes"]["regions"][:6])
    q2.stdin.write(b"grow\n")
    q2.stdin.flush()
    info = T.ready_fields(q2.stdout.readline().decode().replace(
        "grown", "ready"))
    r = T.run_vmscope("-F", "-d", f1, q2.pid, "-e", "json")
    d = json.loads(r.stdout)
    got = sorted((c["change"], c["type"]) for c in d["changes"]["regions"])
    added = [c for c in d["changes"]["regions"] if c["change"] == "added"]
    T.ok(r.returncode == 0 and
         got == [("added", "private_data"), ("grown", "heap")] and
         int(added[0]["start"], 16) == info["map"] and
         added[0]["b"]["size"] == info["map_size"],
         "after the second run grows: exactly the mapping added and the "
         "heap grown", d["changes"]["regions"][:6])
    T.kill(q1)
    T.kill(q2)


def main():
    with tempfile.TemporaryDirectory(prefix="vms-diff-") as tmp:
        fa, fb = os.path.join(tmp, "a.vms"), os.path.join(tmp, "b.vms")
        p, _ = T.start([T.target("grower")])
        r = T.run_vmscope("-F", "-w", fa, p.pid)
        T.ok(r.returncode == 0, "saved A", r.stderr)
        p.stdin.write(b"grow\n")
        p.stdin.flush()
        info = T.ready_fields(p.stdout.readline().decode().replace(
            "grown", "ready"))
        r = T.run_vmscope("-F", "-w", fb, p.pid)
        T.ok(r.returncode == 0, "saved B", r.stderr)

        r = T.run_vmscope("-d", fa, fb, "-e", "json")
        if not T.ok(r.returncode == 0, "-d A B -e json exits 0", r.stderr):
            T.done()
        d = json.loads(r.stdout)
        T.eq((d["format"], d["version"]), ("vmscope-diff", 1),
             "format vmscope-diff, version 1")
        ch = d["changes"]
        pd = next(t for t in ch["types"] if t["type"] == "private_data")
        grow = pd["b"]["committed"] - pd["a"]["committed"]
        T.ok(100 * MIB <= grow < 116 * MIB,
             "private data grows by the 100 MiB (%.1f MiB)" % (grow / MIB))
        T.eq(typ(d, "b", "private_data")["committed"] -
             typ(d, "a", "private_data")["committed"], grow,
             "the type delta agrees with the two sides' types")
        added = [c for c in ch["regions"] if c["change"] == "added" and
                 int(c["start"], 16) == info["map"]]
        T.ok(len(added) == 1 and
             int(added[0]["end"], 16) - int(added[0]["start"], 16) ==
             info["map_size"] and added[0]["type"] == "private_data" and
             added[0]["a"] is None and
             added[0]["b"]["committed"] == info["map_size"],
             "the 100 MiB mapping is listed as added (its range, private "
             "data, A null)", [c for c in ch["regions"]][:8])
        hp = next(t for t in ch["types"] if t["type"] == "heap")
        hgrow = hp["b"]["committed"] - hp["a"]["committed"]
        T.ok(hgrow >= info["malloced"],
             "the heap grows by at least the bytes malloc'd (%d >= %d)"
             % (hgrow, info["malloced"]))
        T.ok(any(c["change"] == "grown" and c["type"] == "heap"
                 for c in ch["regions"]), "the heap region is listed grown")

        r = T.run_vmscope("-d", fa, fb, "-s")
        out = r.stdout.decode(errors="replace")
        T.ok(r.returncode == 0 and "Private Data" in out and
             "Largest changes" in out, "-d A B -s prints the table and "
             "the largest changes", out)
        lines = out.splitlines()
        T.ok(lines[0].startswith("A: %s," % fa) and
             lines[1].startswith("B: %s," % fb),
             "-d A B -s names each side as it was given (the files)",
             lines[:2])
        first = out.split("Largest changes", 1)[-1].splitlines()[2:3]
        T.ok(first and "added" in first[0] and "+100.0 M" in first[0],
             "the largest change is the added 100 MiB", first)
        for fmt in ("csv", "text"):
            r = T.run_vmscope("-d", fa, fb, "-e", fmt)
            T.ok(r.returncode == 0 and len(r.stdout.splitlines()) > 10,
                 "-d A B -e %s prints" % fmt, r.stderr)

        r = T.run_vmscope("-d", fb, fb, "-e", "json")
        same = json.loads(r.stdout)
        T.ok(same["changes"]["regions"] == [] and
             not any(same["counts"].values()),
             "a snapshot diffed with itself has no changes")
        T.ok(all(v == 0 for t in same["changes"]["types"]
                 for v in t["delta"].values()),
             "... and no type delta")
        r = T.run_vmscope("-d", fb, fb, "-s")
        T.ok(b"No region changed." in r.stdout, "-s says no region changed")
        r = T.run_vmscope("-d", fb, p.pid, "-s")
        T.ok(r.returncode == 0, "-d FILE PID works", r.stderr)
        T.kill(p)
        two_runs(tmp)

        T.eq(T.run_vmscope("-d", fa).returncode, 1, "-d with one operand: "
             "usage error")
        T.eq(T.run_vmscope("-d", fa, fb).returncode, 1, "-d without -s or "
             "-e and without a terminal: usage error")
        bad = os.path.join(T.ROOT, "tests", "fixtures", "bad_snap_flip.vms")
        r = T.run_vmscope("-d", fa, bad, "-s")
        T.ok(r.returncode == 4 and bad.encode() in r.stderr,
             "-d with a bad file exits 4 naming it", r.stderr)
    T.done()


if __name__ == "__main__":
    main()
