#!/usr/bin/env python3
"""The window between two snapshots of one traced run (-d EARLIER LATER),
from the files `vmscope --trace --watch SECONDS -w DIR -- CMD` saves, on
tests/targets/traced_calls.c "hold 0" (10 blocks of 3000 bytes leaked in
hold_leak, 1 MiB mapped in hold_map, then each SIGUSR1 leaks 20 blocks of
5000 in grow_leak; the test sends them all the while once its handler is
in place, so the windows between ticks hold some):

  - --watch 0.3 --count 3 -w DIR saves three files, their reports up to
    each tick, and -e json prints the whole trace;
  - for each pair (A, B) of them, -d A B -e json has "trace_window", the
    report of A's tick to B's, and it is what A's and B's own reports say
    of every call site (no timing is assumed, only sums): allocated
    inside = what B allocated less what A had; alive at B = outstanding +
    lasting; alive at A = released + lasting; its window is A's end to
    B's; its calls recorded (events), dropped and unknown frees are B's
    less A's; grow_leak's blocks are of 5000 bytes (a tick may come while
    its handler is half way through its twenty);
  - the windows add up: (1, 2) and (2, 3) make (1, 3);
  - -d LATER EARLIER says to give them in order, and has no window; two
    files of two runs have none either;
  - --trace --watch with -s and no -w is a usage error (exit 1); -w FILE
    that is not a directory, exit 4.
"""
import glob
import json
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
IMPACTS = ("transient", "outstanding", "released", "lasting")


def catches_usr1(pid):
    """Whether pid has its SIGUSR1 handler (SigCgt): until then the
    signal would end it."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                if ln.startswith("SigCgt:"):
                    return bool(int(ln.split()[1], 16) &
                                (1 << (signal.SIGUSR1 - 1)))
    except (OSError, ValueError):
        pass
    return False


def watched(tmp, name, count):
    """vmscope --trace --watch 0.3 --count COUNT -w DIR -e json -- hold 0,
    SIGUSR1 sent to the program at every poll until vmscope ends: (the
    files, the live JSON or None, stderr)."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    live = os.path.join(tmp, name + ".json")
    def usr1(kid):
        if kid and catches_usr1(kid):
            try:
                os.kill(kid, signal.SIGUSR1)
            except OSError:
                pass

    with open(os.path.join(tmp, name + ".err"), "w+b") as err:
        rc = T.run_launcher([T.VMSCOPE, "--trace", "--watch", "0.3",
                             "--count", str(count), "-w", d, "-e", "json",
                             "-o", live, "--",
                             T.target("traced_calls"), "hold", "0"],
                            err, env=ENV, each=usr1)
        err.seek(0)
        msg = err.read().decode(errors="replace")
    try:
        live = json.load(open(live)) if rc == 0 else None
    except ValueError:
        live = None
    files = sorted(glob.glob(os.path.join(d, "*.vms")))
    T.ok(rc == 0 and len(files) == count and live is not None,
         "--trace --watch 0.3 --count %d -w DIR: %d files (names by "
         "time) and the whole trace printed" % (count, count),
         (rc, files, msg[-600:]))
    return files, live, msg


def key(s):
    return (s["kind"], tuple(f["function"] for f in s["frames"]))


def sites(tr):
    return {key(s): s for s in tr["sites"]}


def fig(s, what):
    z = {"count": 0, "bytes": 0}
    return (s or {}).get(what, z)


def add(*xs):
    return {k: sum(x[k] for x in xs) for k in ("count", "bytes")}


def sub(x, y):
    return {k: x[k] - y[k] for k in ("count", "bytes")}


def report(path):
    r = T.run_vmscope("-l", path, "-e", "json")
    if r.returncode != 0:
        return None
    return json.loads(r.stdout).get("trace")


def window(a, b):
    r = T.run_vmscope("-d", a, b, "-e", "json")
    if r.returncode != 0:
        return None
    return json.loads(r.stdout).get("trace_window")


def check_pair(files, reps, i, j):
    what = "-d file %d file %d" % (i + 1, j + 1)
    w = window(files[i], files[j])
    if not T.ok(w is not None, "%s -e json: a trace_window" % what):
        return None
    a, b = reps[i], reps[j]
    sa, sb, sw = sites(a), sites(b), sites(w)
    bad = []
    for k in set(sa) | set(sb) | set(sw):
        x, y, z = sa.get(k), sb.get(k), sw.get(k)
        made_w = add(fig(z, "transient"), fig(z, "outstanding"))
        made = sub(add(fig(y, "transient"), fig(y, "outstanding")),
                   add(fig(x, "transient"), fig(x, "outstanding")))
        if made_w != made:
            bad.append((k[1][:1], "allocated inside", made_w, made))
        alive_b = add(fig(z, "outstanding"), fig(z, "lasting"))
        if alive_b != fig(y, "outstanding"):
            bad.append((k[1][:1], "alive at B", alive_b,
                        fig(y, "outstanding")))
        alive_a = add(fig(z, "released"), fig(z, "lasting"))
        if alive_a != fig(x, "outstanding"):
            bad.append((k[1][:1], "alive at A", alive_a,
                        fig(x, "outstanding")))
    T.ok(not bad, "%s: every site's window (%d sites) is B's figures less "
         "A's" % (what, len(sw)), bad[:4])
    T.eq((w["window"]["from_ns"], w["window"]["to_ns"]),
         (a["window"]["to_ns"], b["window"]["to_ns"]),
         "%s: the window runs from A's snapshot to B's" % what)
    T.eq([w[k] for k in ("events", "dropped", "unknown_frees")],
         [b[k] - a[k] for k in ("events", "dropped", "unknown_frees")],
         "%s: the window's calls recorded (and dropped, and frees of "
         "unknown blocks) are B's less A's, not B's whole trace's" % what)
    g = [s for k, s in sw.items() if "grow_leak" in k[1]]
    # (in twenties only by chance: a tick's snapshot may come while the
    # handler is half way through its twenty)
    T.ok(all(s["outstanding"]["bytes"] == 5000 * s["outstanding"]["count"]
             for s in g),
         "%s: grow_leak's blocks in the window are of 5000 bytes each"
         % what, g)
    return w


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-tracewin-")
    try:
        files, live, _ = watched(tmp, "run", 3)
        reps = [report(f) for f in files]
        if len(files) == 3 and all(reps):
            ws = {}
            for i, j in ((0, 1), (1, 2), (0, 2)):
                ws[i, j] = check_pair(files, reps, i, j)
            if all(ws.values()):
                one, two, both = (sites(ws[0, 1]), sites(ws[1, 2]),
                                  sites(ws[0, 2]))
                bad = [k[1][:1] for k in set(one) | set(two) | set(both)
                       if add(fig(one.get(k), "outstanding"),
                              fig(one.get(k), "transient"),
                              fig(two.get(k), "outstanding"),
                              fig(two.get(k), "transient")) !=
                       add(fig(both.get(k), "outstanding"),
                           fig(both.get(k), "transient"))]
                T.ok(not bad, "the windows add up: what (1, 2) and (2, 3) "
                     "allocated is what (1, 3) did", bad)
                g = [s for k, s in both.items() if "grow_leak" in k[1]]
                T.ok(len(g) == 1 and g[0]["outstanding"]["count"] ==
                     fig(sites(reps[2]).get(key(g[0])), "outstanding")
                     ["count"] - fig(sites(reps[0]).get(key(g[0])),
                                     "outstanding")["count"],
                     "grow_leak's window (1, 3): the blocks file 3 holds "
                     "less file 1's", g)
            r = T.run_vmscope("-d", files[2], files[0], "-s")
            text = r.stdout.decode(errors="replace")
            T.ok(r.returncode == 0 and "give them in the order taken" in
                 text and "trace between A and B" not in text,
                 "-d LATER EARLIER: says to give them in order, no window",
                 text[-600:])
            other, _, _ = watched(tmp, "other", 1)
            if other:
                r = T.run_vmscope("-d", files[0], other[0], "-e", "json")
                T.ok(r.returncode == 0 and "trace_window" not in
                     json.loads(r.stdout),
                     "-d of two runs' files: no trace_window")
        r = T.run_vmscope("--trace", "--watch", "1", "-s", "--",
                          T.target("traced_calls"), "quiet")
        T.ok(r.returncode == 1 and b"give -w DIR" in r.stderr,
             "--trace --watch -s without -w: a usage error (exit 1) that "
             "says to give -w DIR", r.stderr)
        notdir = os.path.join(tmp, "file")
        open(notdir, "w").close()
        r = T.run_vmscope("--trace", "--watch", "1", "-w", notdir, "--",
                          T.target("traced_calls"), "quiet")
        T.ok(r.returncode == 4 and b"needs a directory" in r.stderr,
             "--trace --watch -w FILE: exit 4, needs a directory",
             r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
