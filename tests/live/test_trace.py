#!/usr/bin/env python3
"""Allocation tracing of a launched command (vmscope --trace -- CMD).

  - MemoryTestApp (tests/targets/memorytestapp.cc, the WPR exercise's
    program, built without frame pointers): the report names each finding
    by its function with exact counts and sizes, in the JSON and the text:
    the 10 MB mmap outstanding in main; 4 transient 10 MB buffers, 40 MB,
    in ManipulateTemporaryBuffer under Operation1; 319 outstanding 40-byte
    news in InnerLoopOperation. Its output and exit status equal the
    untraced run's. The same with jemalloc preloaded (its allocator kept).
  - Through Debian's libraries (tests/targets/traced_calls.c "libc"): the
    nodes tsearch allocates and strdup's copies, each stack reaching the
    program's own function through libc, which has no frame pointers.
  - Threads, a signal handler, fork and exec ("mix"): each thread's leaks
    and frees counted exactly, the handler's 3 blocks, nothing of the
    forked child's 1,000 blocks, and the exec'd child runs untraced (no
    LD_PRELOAD of the tracer, no VMSCOPE_TRACE_FD).
  - vmscope SIGKILLed while it traces ("spin"): the program runs on to its
    normal end, not stopped, not killed. SIGHUP (a terminal that hung up)
    ends the trace as Ctrl-C does: the report written, exit 0, the
    program run on to its end.
  - Sampled (--trace-sample=64, the seed printed and taken from
    VMSCOPE_SEED; "memorytestapp churn"): the maps still exact (they are
    always recorded), the 319 40-byte blocks estimated within 30% (some
    200 samples: a miss that large is over 4 standard deviations), the
    report saying so; C++'s 200,000 news and deletes of NewDeleteLoop
    estimated within 30%, no free of an unrecorded block recorded, the
    calls recorded a quarter of the 400,000 at most.
  - What a preload cannot enter (a static program, a set-user-ID one, one
    with file capabilities run by a user, itself or as a script's
    interpreter) and what no trace has (a format other than
    text and json) is refused with a message, exit 1; so is the viewer
    without a terminal. A command the library never started in (the
    loader did not preload it) is said, exit 3, not an empty report. (-w:
    test_trace_file.py; a PID with -s or -e: test_trace_attach.py; a PID
    with -w: test_trace_attach_file.py; a PID sampled:
    test_trace_attach_sampled.py.)
"""
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
MB10 = 10 << 20
USER = 64002  # a uid with no passwd entry (setpriv): nothing is added


def trace(args, cmd, env=None, timeout=120):
    return subprocess.run([T.VMSCOPE, "--trace"] + args + ["--"] + cmd,
                          capture_output=True, timeout=timeout,
                          env=env or ENV)


def trace_json(cmd, env=None):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = trace(["-e", "json", "-o", f.name], cmd, env)
        T.ok(r.returncode == 0, "trace of %s: exit 0" % cmd[-1],
             r.stderr.decode(errors="replace"))
        try:
            return json.load(open(f.name)), r
        except ValueError:
            return None, r


def functions(site):
    return [f["function"] or "" for f in site["frames"]]


def find(sites, kind, fn):
    return [s for s in sites if s["kind"] == kind and
            any(fn in f for f in functions(s))]


def memorytestapp(env=None, how="glibc", app=None):
    app = app or T.target("memorytestapp")
    plain = subprocess.run([app], capture_output=True, env=env or ENV,
                           timeout=60)
    d, r = trace_json([app], env or ENV)
    if not d:
        T.ok(False, "%s: a JSON report" % how, r.stderr)
        return
    T.eq((r.stdout, d["process"]["exit_status"]),
         (plain.stdout, plain.returncode),
         "%s: the traced program's output and exit status are the "
         "untraced one's" % how)
    tr = d["trace"]
    T.eq((tr["mode"], tr["dropped"], tr["ended"]), ("exact", 0, True),
         "%s: exact, nothing dropped, the program's end" % how)
    sites = tr["sites"]
    main = [s for s in find(sites, "mmap", "main")
            if s["outstanding"]["count"]]
    T.ok(len(main) == 1 and main[0]["outstanding"] ==
         {"count": 1, "bytes": MB10} and
         main[0]["impacting_bytes"] == MB10 and
         functions(main[0])[0] == "main",
         "%s: the 10 MB mmap outstanding in main" % how, main)
    tmp = find(sites, "mmap", "ManipulateTemporaryBuffer")
    T.ok(len(tmp) == 1 and tmp[0]["transient"] ==
         {"count": 4, "bytes": 4 * MB10} and
         tmp[0]["outstanding"]["count"] == 0 and
         tmp[0]["impacting_bytes"] == 0 and
         "Operation1()" in functions(tmp[0]),
         "%s: 4 transient buffers, 40 MB, in ManipulateTemporaryBuffer "
         "under Operation1" % how, tmp)
    leak = find(sites, "heap", "InnerLoopOperation")
    T.ok(len(leak) == 1 and leak[0]["outstanding"] ==
         {"count": 319, "bytes": 319 * 40} and
         leak[0]["transient"]["count"] == 0,
         "%s: 319 outstanding 40-byte blocks in InnerLoopOperation" % how,
         leak)
    if how != "glibc":
        return
    r = trace(["-s"], [app], ENV)
    text = r.stdout.decode(errors="replace")
    lines = text.splitlines()

    def row(fn):
        return [ln for ln in lines if fn in ln]
    T.ok(r.returncode == 0 and
         any("10.0 M" in ln and "main (" in ln.split("  ")[-1][:40]
             for ln in row("main")) and
         any("40.0 M" in ln and " 4 " in ln
             for ln in row("ManipulateTemporaryBuffer")) and
         any(" 319 " in ln for ln in row("InnerLoopOperation")),
         "the text report names the three findings with their figures",
         text)


def libc_callers():
    d, _ = trace_json([T.target("traced_calls"), "libc"])
    if not d:
        return
    sites = d["trace"]["sites"]
    ts = find(sites, "heap", "tsearch")
    sd = find(sites, "heap", "strdup")
    T.ok(ts and sum(s["outstanding"]["count"] for s in ts) == 100 and
         all("own_function" in functions(s) for s in ts),
         "100 tsearch nodes, every stack through libc to own_function",
         [(s["outstanding"], functions(s)[:3]) for s in ts])
    T.ok(sd and sum(s["outstanding"]["count"] for s in sd) == 50 and
         all("own_function" in functions(s) for s in sd),
         "50 strdup copies, every stack through libc to own_function",
         [(s["outstanding"], functions(s)[:3]) for s in sd])


def mix():
    d, r = trace_json([T.target("traced_calls"), "mix"])
    if not d:
        return
    sites = d["trace"]["sites"]
    th = find(sites, "heap", "thread_leaks")
    T.ok(len(th) == 1 and th[0]["outstanding"] ==
         {"count": 400, "bytes": sum(100 * (1000 + i * 8)
                                     for i in range(4))} and
         th[0]["transient"] == {"count": 200, "bytes": sum(
             50 * (1000 + i * 8) for i in range(4))},
         "four threads: 400 blocks leaked and 200 freed, to the byte", th)
    h = find(sites, "heap", "on_usr1")
    T.ok(len(h) == 1 and h[0]["outstanding"] ==
         {"count": 3, "bytes": 3 * 777},
         "the signal handler's 3 blocks of 777 bytes", h)
    child = [s for s in sites if any(
        s[k]["count"] and s[k]["bytes"] % 555 == 0 and
        s[k]["count"] >= 1000 for k in ("outstanding", "transient"))]
    T.eq(child, [], "nothing of the forked child's 1,000 blocks")
    T.eq(d["trace"]["dropped"], 0, "mix: nothing dropped")
    out = r.stdout.decode(errors="replace")
    T.ok("child LD_PRELOAD=(unset) VMSCOPE_TRACE_FD=(unset)" in out,
         "the exec'd child runs untraced: no tracer in its environment",
         out)


def handoff():
    """Blocks made in one thread, moved by realloc and freed in another,
    their addresses given out again to the first: exact only when the
    threads' calls are read in the order they happened."""
    d, _ = trace_json([T.target("traced_calls"), "handoff"])
    if not d:
        return
    sites = d["trace"]["sites"]
    made = find(sites, "heap", "produce")
    moved = find(sites, "heap", "move_on")
    sizes = [24 + (i % 5) * 8 for i in range(20000)]
    kept = [n for i, n in enumerate(sizes) if i % 100 == 0]
    handed = [n for i, n in enumerate(sizes) if i % 100]
    T.ok(len(made) == 1 and made[0]["outstanding"] ==
         {"count": len(kept), "bytes": sum(kept)} and
         made[0]["transient"] == {"count": len(handed),
                                  "bytes": sum(handed)},
         "handoff: the producer's 200 kept blocks outstanding, the 19,800 "
         "handed on transient, to the byte", made)
    T.ok(len(moved) == 1 and moved[0]["outstanding"]["count"] == 0 and
         moved[0]["transient"] == {"count": len(handed),
                                   "bytes": sum(n + 40 for n in handed)},
         "handoff: the consumer's 19,800 realloc'd blocks all freed",
         moved)
    T.eq(d["trace"]["unknown_frees"], 0, "handoff: no free of an unknown "
         "block")


def spin_traced(tmp):
    """vmscope --trace -s -o TMP/report -- traced_calls spin TMP/done:
    (vmscope's Popen, the program's pid or None)."""
    p = subprocess.Popen([T.VMSCOPE, "--trace", "-s", "-o",
                          os.path.join(tmp, "report"), "--",
                          T.target("traced_calls"), "spin",
                          os.path.join(tmp, "done")],
                         env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    # the program is vmscope's child: wait for it to be running
    child = None
    deadline = time.time() + 30
    while time.time() < deadline and child is None:
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = f.read().split()
            child = int(kids[0]) if kids else None
        except OSError:
            break
        time.sleep(0.01)
    if not T.ok(child is not None, "the traced program started"):
        p.kill()
        p.wait()
    return p, child


def ran_to_end(tmp, child, what):
    done = os.path.join(tmp, "done")
    T.ok(T.wait_gone(child, 120), "%s: the program ends by itself" % what)
    T.ok(os.path.exists(done) and open(done).read() == "done\n",
         "... having run to its normal end (its last write done)")


def killed_midway():
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-")
    try:
        p, child = spin_traced(tmp)
        if child is None:
            return
        p.kill()
        p.wait()
        ran_to_end(tmp, child, "vmscope SIGKILLed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hung_up():
    """SIGHUP (the terminal gone) ends the trace as Ctrl-C does: the
    report written, exit 0; the program runs on untraced to its end."""
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-")
    try:
        p, child = spin_traced(tmp)
        if child is None:
            return
        p.send_signal(signal.SIGHUP)
        err = p.communicate(timeout=120)[1]
        path = os.path.join(tmp, "report")
        rep = open(path).read() if os.path.exists(path) else ""
        T.ok(p.returncode == 0 and rep.startswith("Process:") and
             "spin" in rep,
             "SIGHUP: the trace ends, its report written, exit 0",
             (p.returncode, err, rep[:300]))
        ran_to_end(tmp, child, "SIGHUP")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sampled():
    seed = os.environ.get("VMSCOPE_SEED") or str(random.randrange(1 << 32))
    print("# seed %s (VMSCOPE_SEED=%s replays it)" % (seed, seed))
    env = dict(ENV, VMSCOPE_SEED=seed)
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = trace(["--trace-sample=64", "-e", "json", "-o", f.name],
                  [T.target("memorytestapp"), "churn"],
                  dict(ENV, VMSCOPE_SEED=seed))
        if not T.ok(r.returncode == 0, "sampled: exit 0", r.stderr):
            return
        d = json.load(open(f.name))
    tr = d["trace"]
    T.eq((tr["mode"], tr["sample_bytes"], tr["seed"]),
         ("sampled", 64, int(seed)), "sampled: the mode, the mean and the "
         "seed said")
    sites = tr["sites"]
    main = [s for s in find(sites, "mmap", "main")
            if s["outstanding"]["count"]]
    tmp = find(sites, "mmap", "ManipulateTemporaryBuffer")
    T.ok(len(main) == 1 and main[0]["outstanding"] ==
         {"count": 1, "bytes": MB10} and len(tmp) == 1 and
         tmp[0]["transient"] == {"count": 4, "bytes": 4 * MB10},
         "sampled: every map still recorded, exact", (main, tmp))
    leak = find(sites, "heap", "InnerLoopOperation")
    got = leak[0]["outstanding"] if leak else {"count": 0, "bytes": 0}
    T.ok(0.7 * 319 <= got["count"] <= 1.3 * 319 and
         0.7 * 319 * 40 <= got["bytes"] <= 1.3 * 319 * 40,
         "sampled: the 319 40-byte blocks estimated within 30%", got)
    # C++'s new and delete sampled as malloc and free are: a delete
    # recorded only for a block recorded (every one was: each an unknown
    # free), the malloc inside new neither recorded nor counted again
    churn = find(sites, "heap", "NewDeleteLoop")
    est = {k: sum(s[k]["count"] for s in churn)
           for k in ("outstanding", "transient")}
    T.ok(est["outstanding"] == 0 and
         0.7 * 200000 <= est["transient"] <= 1.3 * 200000,
         "sampled: NewDeleteLoop's 200,000 news, all deleted, estimated "
         "within 30%", est)
    T.eq(tr["unknown_frees"], 0, "sampled: no delete or free of a block "
         "not recorded is recorded")
    # 1.6 MB in 8-byte blocks, one sample every 64 bytes: some 25,000
    # blocks recorded with their deletes, of the 400,000 calls
    T.ok(tr["events"] < 100000, "sampled: the calls recorded far below "
         "the 400,000 news and deletes (a quarter at most)", tr["events"])


def as_user(argv):
    return ["setpriv", "--reuid=%d" % USER, "--regid=%d" % USER,
            "--clear-groups"] + argv


def capabilities(tmp):
    """File capabilities make the kernel run a program secure for a user
    other than root (AT_SECURE: the loader ignores LD_PRELOAD): refused
    before it starts, itself or as a script's interpreter; as root they
    add nothing and it is traced."""
    what = "a program with file capabilities"
    if os.getuid() != 0 or not shutil.which("setcap") or \
            not shutil.which("setpriv"):
        T.skip(what, "needs root, setcap (libcap2-bin) and setpriv")
        return
    os.chmod(tmp, 0o755)
    capped = os.path.join(tmp, "capped")
    shutil.copy(T.target("traced_calls"), capped)
    if subprocess.run(["setcap", "cap_net_raw+ep", capped],
                      capture_output=True).returncode != 0:
        T.skip(what, "setcap failed here (no security attributes on %s's "
               "file system)" % tmp)
        return
    script = os.path.join(tmp, "capped.sh")
    open(script, "w").write("#!%s libc\n" % capped)
    os.chmod(script, 0o755)
    vms = os.path.join(tmp, "vmscope")
    lib = os.path.join(tmp, "libvmstrace.so")
    shutil.copy(T.VMSCOPE, vms)
    shutil.copy(LIB, lib)
    env = dict(ENV, VMSCOPE_TRACELIB=lib)
    for cmd, how in (([capped, "libc"], "itself"),
                     ([script], "as a script's interpreter")):
        r = subprocess.run(as_user([vms, "--trace", "-s", "--"] + cmd),
                           capture_output=True, timeout=120, env=env,
                           cwd=tmp)
        T.ok(r.returncode == 1 and b"file capabilities" in r.stderr and
             b"as root" in r.stderr and b"Trace:" not in r.stdout,
             "%s (%s), run by a user: refused, the reason said" %
             (what, how), (r.returncode, r.stderr, r.stdout[:200]))
    d, _ = trace_json([capped, "libc"])
    got = d and sum(s["outstanding"]["count"]
                    for s in find(d["trace"]["sites"], "heap", "tsearch") +
                    find(d["trace"]["sites"], "heap", "strdup"))
    T.eq(got, 150, "%s, run by root (secure only for another user): "
         "traced, its 150 blocks found" % what)


def never_started(tmp):
    """A command the tracer library never started in (the loader did not
    preload it: here, a file that is no library at all) is not an empty
    trace: said, exit 3, no report."""
    junk = os.path.join(tmp, "junk.so")
    open(junk, "w").write("not a library\n")
    r = trace(["-s"], [T.target("traced_calls"), "libc"],
              dict(ENV, VMSCOPE_TRACELIB=junk))
    T.ok(r.returncode == 3 and b"never started" in r.stderr and
         b"Trace:" not in r.stdout and
         b"100 tsearch nodes" in r.stderr,
         "a command the library never started in: said, exit 3, no "
         "report (the command ran, its output kept)",
         (r.returncode, r.stderr, r.stdout[:300]))


def refusals():
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-")
    try:
        static = None
        src = os.path.join(tmp, "s.c")
        open(src, "w").write("int main(void){return 0;}\n")
        if subprocess.run(["cc", "-static", "-o", os.path.join(tmp, "st"),
                           src], capture_output=True).returncode == 0:
            static = os.path.join(tmp, "st")
        if static:
            r = trace(["-s"], [static])
            T.ok(r.returncode == 1 and b"statically linked" in r.stderr,
                 "a static program is refused, the reason said", r.stderr)
        else:
            T.skip("a static program is refused", "no static libc to "
                   "link one (libc6-dev's libc.a)")
        suid = os.path.join(tmp, "suid")
        shutil.copy(T.target("traced_calls"), suid)
        os.chmod(suid, 0o755 | stat.S_ISUID)
        r = trace(["-s"], [suid, "libc"])
        T.ok(r.returncode == 1 and b"set-user-ID" in r.stderr,
             "a set-user-ID program is refused, the reason said", r.stderr)
        capabilities(tmp)
        never_started(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for args, what in ((["--trace-sample=0", "-s", "--", "true"],
                        "trace-sample"),
                       (["--", "true"], "viewer"),
                       (["-e", "csv", "--", "true"], "csv")):
        r = subprocess.run([T.VMSCOPE, "--trace"] + args,
                           capture_output=True, env=ENV, timeout=30)
        T.ok(r.returncode == 1 and what.encode() in r.stderr and
             len(r.stderr.decode().splitlines()) <= 2,
             "--trace %s: refused (1), saying so" % " ".join(args),
             r.stderr)


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    memorytestapp()
    jem = [p for p in ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",)
           if os.path.exists(p)]
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-je-")
    try:
        # linked with jemalloc (not preloaded: LD_PRELOAD would reach
        # vmscope too, and a sanitizer build wants its runtime first)
        app = os.path.join(tmp, "memorytestapp-je")
        src = os.path.join(T.ROOT, "tests", "targets", "memorytestapp.cc")
        if jem and shutil.which("g++") and subprocess.run(
                ["g++", "-O2", "-g", "-fomit-frame-pointer", "-o", app, src,
                 jem[0]], capture_output=True).returncode == 0:
            memorytestapp(None, "linked with jemalloc", app)
        else:
            T.skip("MemoryTestApp with jemalloc", "libjemalloc2 or g++ "
                   "not installed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    libc_callers()
    mix()
    handoff()
    killed_midway()
    hung_up()
    sampled()
    refusals()
    T.done()


if __name__ == "__main__":
    main()
