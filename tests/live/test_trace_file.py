#!/usr/bin/env python3
"""A trace saved with its snapshot (vmscope --trace -w FILE -- CMD), loaded
again (-l FILE) and compared (-d A B), on tests/targets/traced_calls.c
"hold N" (10 blocks of 3000 bytes leaked in hold_leak, N times 20 of 5000
in grow_leak, then it waits: the trace ends with --duration while it
runs, the snapshot is taken then, and the test kills it by its pid):

  - the live JSON report names both leaks with their exact figures, and
    the file's report (-l FILE -e json) is the same "trace" object, field
    by field, with the process's exit fields and pid; -l FILE -s prints
    the same call sites with the same counts;
  - sampled (--trace-sample, the seed printed and taken from
    VMSCOPE_SEED): the file keeps the mode, the mean and the seed;
  - the recorded fixture snap_trace.vms still reads back as the live JSON
    of its run (snap_trace.json): a file of this version stays readable;
  - a reader that does not know the section skips it (the section
    renamed: the snapshot loads, without a trace), and an untraced file
    has no "trace";
  - a malformed trace section (cut, a frame index past the table, a
    field missing, an unknown kind, a window backwards, a block's cell
    freed before it was made or of the wrong shape, too large) is
    refused: exit 4, one line naming the file and its trace section;
  - -d of two runs (hold 0, hold 2): hold_leak's and hold_map's sites the
    same, grow_leak
    added with +40 blocks, +200,000 bytes outstanding, in JSON and text;
    a file diffed with itself has no change of call site; with an
    untraced file a line says only one side has a trace;
  - a command that ends before the trace does ("spin", 2,000,000 pairs):
    its newest snapshot (taken while it ran) is saved with the whole
    trace, ended, its exit status 0; one that ends by exit() at once
    ("brief", hold_leak's 10 blocks; "quiet", no call) waits there for
    its last snapshot: its file has its map and the whole trace; one that
    ends by _exit() before it calls anything ("gone"): the report is
    printed, no file, exit 3 saying why.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

FIX = os.path.join(T.ROOT, "tests", "fixtures")
sys.path.insert(0, FIX)
import mksnap as M  # noqa: E402
import mksnap_trace as MT  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)


def traced_save(tmp, name, rounds, extra=()):
    """vmscope --trace -w NAME.vms -e json --duration 2 -- traced_calls hold
    ROUNDS: (the live JSON or None, the file, stderr). The program, which
    runs on after the trace, is found as vmscope's child and killed by
    its pid whatever happens."""
    path = os.path.join(tmp, name + ".vms")
    live = os.path.join(tmp, name + ".json")
    with open(os.path.join(tmp, name + ".err"), "w+b") as err:
        rc = T.run_launcher([T.VMSCOPE, "--trace", "-w", path, "-e", "json",
                             "-o", live, "--duration", "2"] + list(extra) +
                            ["--", T.target("traced_calls"), "hold",
                             str(rounds)], err, env=ENV)
        err.seek(0)
        msg = err.read().decode(errors="replace")
    try:
        d = json.load(open(live)) if rc == 0 else None
    except ValueError:
        d = None
    T.ok(d is not None and os.path.exists(path),
         "hold %d: --trace -w writes the file and prints the report (exit "
         "%s)" % (rounds, rc), msg)
    return d, path, msg


def load(path, *args):
    return T.run_vmscope("-l", path, *args)


def site(tr, fn):
    return [s for s in tr["sites"]
            if any(f["function"] == fn for f in s["frames"])]


def leaks(tr, rounds, what):
    h = site(tr, "hold_leak")
    g = site(tr, "grow_leak")
    T.ok(len(h) == 1 and h[0]["outstanding"] ==
         {"count": 10, "bytes": 30000} and h[0]["kind"] == "heap" and
         (rounds == 0 and not g or len(g) == 1 and g[0]["outstanding"] ==
          {"count": 20 * rounds, "bytes": 100000 * rounds}),
         "%s: hold_leak's 10 blocks of 3000 bytes and grow_leak's %d of "
         "5000, outstanding" % (what, 20 * rounds), (h, g))


def same_run(tmp):
    d, path, _ = traced_save(tmp, "one", 1)
    if not d:
        return None
    tr = d["trace"]
    leaks(tr, 1, "live")
    T.ok(tr["ended"] is False and d["process"]["exit_status"] is None and
         tr["window"]["to_ns"] > 0,
         "live: the trace ended with the program running (a window up to "
         "the snapshot)", tr["window"])
    r = load(path, "-e", "json")
    if not T.ok(r.returncode == 0, "-l FILE -e json: exit 0", r.stderr):
        return path
    f = json.loads(r.stdout)
    diff = T.differences(tr, f.get("trace"))
    T.ok(not diff, "the file's trace is the live one, field by field "
         "(%d sites, %d frames)" % (len(tr["sites"]),
                                    sum(len(s["frames"])
                                        for s in tr["sites"])), diff[:5])
    T.eq([f["process"].get(k) for k in ("pid", "exit_status", "signal")],
         [d["process"][k] for k in ("pid", "exit_status", "signal")],
         "the file's process: the live pid and exit fields")
    T.ok(len(f["regions"]) > 5 and any(
        x["path"] and x["path"].endswith("/traced_calls")
        for x in f["regions"]),
        "the file holds the program's map (its executable among %d "
        "regions)" % len(f["regions"]))
    r = load(path, "-s")
    text = r.stdout.decode(errors="replace")
    rows = [ln for ln in text.splitlines()
            if ln.startswith("heap ") or ln.startswith("mmap ")]
    T.ok(r.returncode == 0 and
         any("hold_leak" in ln and " 10 " in ln for ln in rows) and
         any("grow_leak" in ln and " 20 " in ln for ln in rows) and
         len(rows) == len(tr["sites"]),
         "-l FILE -s: the same call sites with their counts", text[-800:])
    return path


def sampled(tmp):
    seed = os.environ.get("VMSCOPE_SEED") or str(random.randrange(1 << 32))
    print("# seed %s (VMSCOPE_SEED=%s replays it)" % (seed, seed))
    ENV["VMSCOPE_SEED"] = seed
    try:
        d, path, _ = traced_save(tmp, "sampled", 1, ["--trace-sample=4096"])
    finally:
        del ENV["VMSCOPE_SEED"]
    if not d:
        return
    r = load(path, "-e", "json")
    f = json.loads(r.stdout) if r.returncode == 0 else {}
    tr = d["trace"]
    diff = T.differences(tr, f.get("trace"))
    T.ok(tr["mode"] == "sampled" and tr["sample_bytes"] == 4096 and
         tr["seed"] == int(seed) and not diff,
         "sampled (--trace-sample=4096): the file's trace is the live one, "
         "mode, mean and seed too", diff[:5])


def fixture():
    want = json.load(open(os.path.join(FIX, "snap_trace.json")))
    r = load(os.path.join(FIX, "snap_trace.vms"), "-e", "json")
    if not T.ok(r.returncode == 0, "snap_trace.vms loads", r.stderr):
        return
    f = json.loads(r.stdout)
    # keys the report gained after the recording (extended, not broken)
    added = ("trace.before: only in file",
             "trace.window.impacting_bytes: only in file",
             "trace.bad_records: only in file",
             "trace.kernel_maps: only in file",
             "trace.allocator_maps: only in file",
             "trace.dropped_threads: only in file")
    diff = [x for x in T.differences(want["trace"], f.get("trace"))
            if x not in added]
    T.ok(not diff, "snap_trace.vms (recorded) reads back as its run's live "
         "report, field by field (but for the keys added since)", diff[:5])
    leaks(f["trace"], 1, "snap_trace.vms")


def skipped(tmp, path):
    data = open(path, "rb").read()
    version = struct.unpack_from("<I", data, len(M.MAGIC))[0]
    secs = M.sections(data)
    renamed = [("tracex" if n == "trace" else n, c, p, s)
               for n, c, p, s in secs]
    other = os.path.join(tmp, "renamed.vms")
    open(other, "wb").write(M.build(renamed, version))
    a = load(path, "-e", "json")
    b = load(other, "-e", "json")
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    ja.pop("trace", None)
    for k in ("exit_status", "signal"):
        ja["process"].pop(k, None)
    T.ok(b.returncode == 0 and "trace" not in jb and ja == jb,
         "a reader that does not know the section skips it: the snapshot "
         "loads the same, without a trace")
    r = load(os.path.join(FIX, "snap_v1.vms"), "-e", "json")
    T.ok(r.returncode == 0 and "trace" not in json.loads(r.stdout) and
         "exit_status" not in json.loads(r.stdout)["process"],
         "an untraced file (snap_v1.vms) has no trace")
    return version


def malformed(tmp, path, version):
    st = M.stored(M.sections(open(path, "rb").read()))
    bad = [(n, MT.with_trace(st, fn)) for n, fn in MT.damages()]
    bad.append(("huge", MT.huge(st)))
    for name, secs in bad:
        p = os.path.join(tmp, "bad_%s.vms" % name)
        open(p, "wb").write(M.build(secs, version))
        r = load(p, "-s")
        lines = r.stderr.decode(errors="replace").splitlines()
        T.ok(r.returncode == 4 and len(lines) == 1 and p in lines[0] and
             "trace" in lines[0] and not r.stdout,
             "a trace section damaged (%s): exit 4, one line naming the "
             "file and its trace section" % name, lines)


def diffs(tmp, one):
    _, a, _ = traced_save(tmp, "zero", 0)
    _, b, _ = traced_save(tmp, "two", 2)
    if not (os.path.exists(a) and os.path.exists(b)):
        return
    r = T.run_vmscope("-d", a, b, "-e", "json")
    if not T.ok(r.returncode == 0, "-d A B -e json: exit 0", r.stderr):
        return
    tr = json.loads(r.stdout).get("trace") or {}
    g = [s for s in tr.get("sites", [])
         if any(f["function"] == "grow_leak" for f in s["frames"])]
    # the same in both: hold_leak's blocks and hold_map's map
    T.ok(tr.get("counts", {}).get("same") == 2 and
         tr["counts"]["added"] == 1 and tr["counts"]["changed"] == 0 and
         len(g) == 1 and g[0]["change"] == "added" and g[0]["a"] is None and
         g[0]["delta"]["outstanding"] == {"count": 40, "bytes": 200000} and
         g[0]["delta"]["impacting_bytes"] == 200000,
         "-d (hold 0, hold 2): hold_leak and hold_map the same, grow_leak "
         "added with "
         "+40 blocks, +200,000 bytes outstanding", tr.get("counts"))
    r = T.run_vmscope("-d", a, b, "-s")
    text = r.stdout.decode(errors="replace")
    T.ok(r.returncode == 0 and any(
        ln.startswith("added") and "grow_leak" in ln and "+40" in ln
        for ln in text.splitlines()) and "1 added, 0 removed, 0 changed, "
        "2 the same" in text, "-d A B -s: the added call site in the text",
        text[-600:])
    r = T.run_vmscope("-d", b, b, "-e", "json")
    tr = json.loads(r.stdout).get("trace") or {}
    T.ok(r.returncode == 0 and tr.get("sites") == [] and
         tr["counts"]["same"] == 3,
         "a traced file diffed with itself: no call site changed",
         tr.get("counts"))
    r = T.run_vmscope("-d", os.path.join(FIX, "snap_v1.vms"), b, "-s")
    T.ok(r.returncode == 0 and b"only B was saved with a trace" in r.stdout,
         "with an untraced file: only one side has a trace, said")


def ended_first(tmp):
    """spin: it ends by itself before the trace does (2,000,000 pairs):
    its newest snapshot is saved with the whole trace."""
    path = os.path.join(tmp, "spin.vms")
    live = os.path.join(tmp, "spin.json")
    r = subprocess.run([T.VMSCOPE, "--trace", "-w", path, "-e", "json",
                        "-o", live, "--", T.target("traced_calls"), "spin",
                        os.path.join(tmp, "spun")],
                       capture_output=True, env=ENV, timeout=300)
    if not T.ok(r.returncode == 0 and os.path.exists(path),
                "a command that ends first (spin): the file is written "
                "with its newest snapshot", r.stderr):
        return
    d = json.load(open(live))
    f = json.loads(load(path, "-e", "json").stdout)
    diff = T.differences(d["trace"], f.get("trace"))
    T.ok(d["trace"]["ended"] is True and f["process"]["exit_status"] == 0
         and d["process"]["exit_status"] == 0 and not diff and
         d["trace"]["events"] >= 4000000 and len(f["regions"]) > 5,
         "... its trace the whole run's (ended, exit status 0, the 4,000,000 "
         "calls), field by field as the live one, and its map",
         (d["trace"]["events"], diff[:3]))
    # brief, quiet: they end by exit() before any snapshot could be
    # taken while they ran, and wait there for one (vmscope.1, -w)
    for mode, calls in (("brief", 10), ("quiet", 0)):
        path = os.path.join(tmp, mode + ".vms")
        live = os.path.join(tmp, mode + ".json")
        r = subprocess.run([T.VMSCOPE, "--trace", "-w", path, "-e", "json",
                            "-o", live, "--", T.target("traced_calls"),
                            mode], capture_output=True, env=ENV,
                           timeout=120)
        if not T.ok(r.returncode == 0 and os.path.exists(path),
                    "a command that ends at once by exit() (%s): the file "
                    "is written with its snapshot at its exit" % mode,
                    (r.returncode, r.stderr[-500:])):
            continue
        d = json.load(open(live))
        f = json.loads(load(path, "-e", "json").stdout)
        leak = (site(f["trace"], "hold_leak") or [None])[0] if calls \
            else None
        T.eq((d["process"]["name"], f["process"]["name"]),
             ("traced_calls", "traced_calls"), "... %s: the live report "
             "and the file name the process alike (its comm, not argv[0])"
             % mode)
        T.ok(d["trace"]["ended"] is True and
             f["process"]["exit_status"] == 0 and
             not T.differences(d["trace"], f.get("trace")) and
             len(f["regions"]) > 5 and
             (not calls or (leak and leak["outstanding"] ==
                            {"count": calls, "bytes": calls * 3000})),
             "... %s: its map, and the whole trace (ended, exit status "
             "0%s)" % (mode, ", hold_leak's 10 blocks of 3000 bytes "
                             "outstanding" if calls else ", no call"),
             (d["trace"]["events"], leak))
    path = os.path.join(tmp, "gone.vms")
    r = subprocess.run([T.VMSCOPE, "--trace", "-w", path, "-s", "--",
                        T.target("traced_calls"), "gone"],
                       capture_output=True, env=ENV, timeout=120)
    err = r.stderr.decode(errors="replace")
    T.ok(r.returncode == 3 and "before a snapshot of it could be taken"
         in err and not os.path.exists(path) and
         b"0 calls recorded" in r.stdout,
         "a command that ends by _exit() before it calls anything (gone): "
         "the report printed, no file, exit 3 saying why",
         (r.returncode, err))


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-tracefile-")
    try:
        one = same_run(tmp)
        fixture()
        sampled(tmp)
        if one:
            version = skipped(tmp, one)
            malformed(tmp, one, version)
        diffs(tmp, one)
        ended_first(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
