"""How much the pss sampler touches its target, seen by strace.

Without --freeze vmscope never calls ptrace: it only reads /proc. With
--freeze it stops the target for the capture and once more for all the
memory the classifier reads (the arena headers), and lets it go each time:
every PTRACE_SEIZE has its PTRACE_DETACH, and afterwards the target runs,
untraced. Memory is read from the live target through /proc/PID/mem only
where pagemap says pages are present: the target's page-table size (VmPTE)
and resident size do not grow because vmscope looked. (Its file pages may
be reclaimed meanwhile, by memory pressure or a DAMON pageout scheme, and
faulted back by the target itself when a stop ends and its system call is
restarted: RssFile may grow only with the target's own fault counts.)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as t  # noqa: E402


def traced_run(args, out):
    """vmscope under strace -f, counting its ptrace requests."""
    # LeakSanitizer cannot run under a tracer: a sanitizer build is checked
    # for leaks by the other tests, not here.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=ptrace", "-o", out,
                        t.VMSCOPE] + [str(a) for a in args],
                       capture_output=True, timeout=120, env=env)
    with open(out) as f:
        calls = re.findall(r"ptrace\((PTRACE_\w+)", f.read())
    return r, calls


def footprint(pid):
    """VmPTE, RssAnon, RssFile (bytes) and the process's own minor and major
    faults (the faults vmscope's reads could cause are remote ones, which
    the kernel does not count to the target)."""
    with open("/proc/%d/stat" % pid) as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    return (t.status_kb(pid, "VmPTE"), t.status_kb(pid, "RssAnon"),
            t.status_kb(pid, "RssFile"), int(fields[7]) + int(fields[9]))


def main():
    if not shutil.which("strace"):
        t.skip("pss sampler and ptrace", "strace is not installed")
        return t.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-inv-")
    try:
        p, line = t.start([t.target("everykind"),
                           os.path.join(tmp, "data")])
        nthreads = len(t.tids(p.pid))
        pte0, anon0, file0, flt0 = footprint(p.pid)

        r, calls = traced_run(["-e", "json", p.pid], os.path.join(tmp, "a"))
        t.eq(r.returncode, 0, "pss: the capture succeeds")
        t.eq(calls, [], "pss without --freeze makes no ptrace call")

        r, calls = traced_run(["-F", "-e", "json", p.pid],
                              os.path.join(tmp, "b"))
        t.eq(r.returncode, 0, "pss -F: the capture succeeds")
        seizes = calls.count("PTRACE_SEIZE")
        t.eq(seizes, 2 * nthreads,
             "pss -F: stops the target twice: for the capture, and once for "
             "all the memory the classifier reads (%d threads)" % nthreads)
        t.eq(calls.count("PTRACE_DETACH"), seizes,
             "pss -F: every seized thread is detached")
        t.eq(seizes % nthreads, 0, "pss -F: each stop takes every thread")
        # the arenas' heaps (glibc's mmapped chunks are typed heap too,
        # found by the walk, not by a header)
        heaps = [x for x in t.vmscope_json(p.pid, "-F")["regions"]
                 if x["type"] == "heap" and x["perms"] == "rw-p"
                 and x["path"] is None
                 and x["detail"] != "glibc malloc (mmapped chunk)"]
        t.ok(heaps and all(x["detail"].startswith("arena 0x") for x in heaps),
             "pss -F: every arena was confirmed by reading its header",
             [x["detail"] for x in heaps])
        t.eq((t.proc_state(p.pid) in "tT", t.tracer_pid(p.pid)), (False, 0),
             "pss -F: the target runs on, untraced")
        pte, anon, file_, flt = footprint(p.pid)
        t.eq((pte, anon), (pte0, anon0),
             "reading memory built no page tables and faulted no anonymous "
             "page in (VmPTE, RssAnon)")
        t.ok(file_ <= file0 or flt > flt0,
             "no file page faulted in but by the target itself (RssFile "
             "%d -> %d K, its own faults %d -> %d)"
             % (file0 // 1024, file_ // 1024, flt0, flt))
        t.kill(p)
    finally:
        t.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    return t.done()


main()
