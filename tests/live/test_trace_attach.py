#!/usr/bin/env python3
"""The mmap family of a process already running, traced from the kernel
(vmscope --trace PID -e json|-s: src/trace/bpfmaps.h, an eBPF program).

  - tests/targets/mmap_calls.c, started and left waiting, is attached to;
    told to go, it makes 12 mmaps of 5 pages in map_blocks, munmaps 5 of
    them, mremaps one from 5 pages to 8 in remap_block, grows its break 4
    times by 16 pages in grow_break (then moves it back) and exits. The
    report names each function as the call site with exact counts and
    bytes: map_blocks 6 transient (5 unmapped, 1 moved by mremap) and 6
    outstanding blocks; remap_block 1 outstanding of 8 pages; grow_break
    4 transient growths; each called from main (the target is built
    without frame pointers, and mremap's wrapper has a frame: the stack
    is unwound by the call frame information). Nothing dropped, the heap
    said not traced, the process's end seen; its one madvise
    (MADV_DONTNEED of 5 pages) counted.
  - The target's own results (its output line, which sums what it reads
    back from its memory, and its exit status) equal an untraced run's.
  - A thread's mmaps (thread_blocks: 3 of 7 pages) are its process's,
    under start_thread.
  - The text report says the heap is not traced.
  - A library the target loads (dlopen) after the attach: the mmaps its
    function makes are named by it (the module read when its first frame
    is met), called from main; the trace ended by SIGINT to vmscope.
  - vmscope SIGKILLed while it traces: the target runs on, its output and
    exit status those of an untraced run.
  - Without root (setpriv to nobody, no capabilities, its target nobody's
    too): refused with exit 2, the message naming CAP_BPF.
Needs root and a kernel with BTF; skipped otherwise.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

PG = os.sysconf("SC_PAGESIZE")
# the kernel's view only: the tracer library injected is
# test_trace_attach_heap.py's (and test_trace_attach_kill.py's)
os.environ["VMSCOPE_TRACE_KERNEL"] = "1"


LIB_C = r"""
#include <sys/mman.h>
#include <unistd.h>
int lib_maps(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < 2; i++) {
		char *p = mmap(0, 3 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		p[0] = 1;
	}
	return 2;
}
"""


def untraced(extra=()):
    p, _ = T.start([T.target("mmap_calls")] + list(extra))
    p.stdin.write(b"go\n")
    p.stdin.flush()
    line = p.stdout.readline().decode()
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    return line, rc


def attached(vpid, timeout=60):
    """Polls until vmscope (vpid) has its programs attached: the epoll
    descriptor of its ring buffer is made after the last attach."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            fds = os.listdir("/proc/%d/fd" % vpid)
        except FileNotFoundError:
            return False
        for fd in fds:
            try:
                if "eventpoll" in os.readlink("/proc/%d/fd/%s" % (vpid, fd)):
                    return True
            except OSError:
                pass
        time.sleep(0.01)
    return False


def traced(args, extra=(), interrupt=False):
    """(the report's text, the target's output line, its exit status,
    vmscope's exit status and stderr). interrupt: the trace ended by
    SIGINT to vmscope before the target is told to exit."""
    p, _ = T.start([T.target("mmap_calls")] + list(extra))
    out = tempfile.NamedTemporaryFile(suffix=".out", delete=False)
    out.close()
    try:
        v = subprocess.Popen([T.VMSCOPE, "--trace", "--duration=120", "-o",
                              out.name] + args + [str(p.pid)],
                             stderr=subprocess.PIPE)
        ok = attached(v.pid)
        T.ok(ok, "vmscope attaches (%s)" % " ".join(args))
        p.stdin.write(b"go\n")
        p.stdin.flush()
        line = p.stdout.readline().decode()
        if interrupt:
            v.send_signal(signal.SIGINT)
            err = v.communicate(timeout=120)[1]
        p.stdin.write(b"end\n")
        p.stdin.flush()
        rc = p.wait(timeout=60)
        T.kill(p)
        if not interrupt:
            err = v.communicate(timeout=120)[1]
        return open(out.name).read(), line, rc, v.returncode, err
    finally:
        os.unlink(out.name)


def functions(site):
    return [f["function"] or "" for f in site["frames"]]


def sites_of(sites, kind, fn):
    """The sites of kind whose innermost frame is fn, summed."""
    got = {k: {"count": 0, "bytes": 0} for k in
           ("transient", "outstanding", "released", "lasting")}
    n = 0
    for s in sites:
        if s["kind"] == kind and s["frames"] and functions(s)[0] == fn:
            n += 1
            for k in got:
                got[k]["count"] += s[k]["count"]
                got[k]["bytes"] += s[k]["bytes"]
    return n, got


def counts(t, o):
    return {"transient": {"count": t, "bytes": t * 5 * PG},
            "outstanding": {"count": o, "bytes": o * 5 * PG},
            "released": {"count": 0, "bytes": 0},
            "lasting": {"count": 0, "bytes": 0}}


def main():
    if os.geteuid() != 0 or not os.path.exists("/sys/kernel/btf/vmlinux"):
        T.skip("attach to a running process", "needs root and BTF")
        return T.done()
    plain = untraced()
    text, line, rc, vrc, err = traced(["-e", "json"])
    T.eq((line, rc), plain, "the target's output and exit status are the "
         "untraced run's")
    T.ok(vrc == 0, "vmscope --trace PID -e json: exit 0", err)
    try:
        d = json.loads(text)
    except ValueError:
        T.ok(False, "a JSON report", text[:500])
        return T.done()
    tr = d["trace"]
    T.eq((tr["attached"], tr["heap_traced"], tr["dropped"], tr["ended"],
          tr["before"]), (True, False, 0, True, None),
         "attached, heap not traced (nor walked: no \"before\"), nothing "
         "dropped, the process's end")
    T.eq(tr["madvised"], {"count": 1, "bytes": 5 * PG},
         "madvise_block's MADV_DONTNEED counted, with its bytes")
    sites = tr["sites"]
    n, got = sites_of(sites, "mmap", "map_blocks")
    T.ok(got == counts(6, 6), "map_blocks: 12 mmaps of 5 pages, 6 freed "
         "(5 munmaps, 1 mremap), 6 outstanding",
         (got, [(x["kind"], x["transient"]["count"],
                 x["outstanding"]["count"], functions(x)[:3],
                 [f["module"] for f in x["frames"][:1]]) for x in sites]))
    n, got = sites_of(sites, "mmap", "remap_block")
    T.eq(got["outstanding"], {"count": 1, "bytes": 8 * PG},
         "remap_block: the block mremapped to 8 pages, outstanding")
    n, got = sites_of(sites, "brk", "grow_break")
    T.eq((got["transient"], got["outstanding"]["count"]),
         ({"count": 4, "bytes": 4 * 16 * PG}, 0),
         "grow_break: 4 growths of 16 pages, freed by the break's return")
    n, got = sites_of(sites, "mmap", "thread_blocks")
    T.ok(got["outstanding"] == {"count": 3, "bytes": 3 * 7 * PG} and
         got["transient"]["count"] == 0 and
         all("start_thread" in functions(x) for x in sites
             if x["frames"] and functions(x)[0] == "thread_blocks"),
         "thread_blocks: its thread's 3 mmaps of 7 pages, outstanding, "
         "under start_thread", got)
    mine = [s for s in sites if s["frames"] and functions(s)[0] in
            ("map_blocks", "remap_block", "grow_break")]
    T.ok(len(mine) >= 3 and
         all(s["frames"][0]["module"].endswith("/mmap_calls") and
             functions(s)[1:2] == ["main"] for s in mine),
         "each call site in the target's executable, called from main "
         "(unwound through glibc's wrappers and a program without frame "
         "pointers)", [functions(s) for s in mine])

    text, line, rc, vrc, err = traced(["-s"])
    T.eq((line, rc), plain, "-s: the target's output and exit status are "
         "the untraced run's")
    T.ok(vrc == 0 and "Heap:        not traced" in text and
         "Ended:       it exited within the trace\n" in text and
         "map_blocks" in text and "grow_break" in text,
         "-s: the text report names the call sites and says the heap is "
         "not traced", (vrc, text[:800], err))

    # a library loaded after the attach: its module read when its first
    # frame is met (the trace ended by SIGINT while the target lives)
    tmp = tempfile.mkdtemp(prefix="vmscope-attach-")
    try:
        src, lib = os.path.join(tmp, "mc.c"), os.path.join(tmp, "libmc.so")
        open(src, "w").write(LIB_C)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-g", "-o", lib,
                        src], check=True)
        plain_lib = untraced([lib])
        text, line, rc, vrc, err = traced(["-e", "json"], [lib], True)
        T.eq((line, rc), plain_lib, "with a library loaded (dlopen) while "
             "traced: the target's output and exit status are the "
             "untraced run's")
        d = json.loads(text) if vrc == 0 else None
        T.ok(d is not None and not d["trace"]["ended"],
             "ended by SIGINT: a report, the target not ended", (vrc, err))
        if d:
            lm = [x for x in d["trace"]["sites"] if x["frames"] and
                  functions(x)[0] == "lib_maps"]
            T.ok(len(lm) == 1 and lm[0]["outstanding"] ==
                 {"count": 2, "bytes": 6 * PG} and
                 lm[0]["frames"][0]["module"] == lib and
                 functions(lm[0])[1:2] == ["main"],
                 "lib_maps in the library loaded after the attach: its 2 "
                 "mmaps, named, called from main",
                 [(functions(x)[:3], x["outstanding"]) for x in
                  d["trace"]["sites"]])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # vmscope killed while it traces: the target goes on as untraced
    p, _ = T.start([T.target("mmap_calls")])
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-s", str(p.pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    T.ok(attached(v.pid), "vmscope attaches (to be killed)")
    v.kill()
    v.wait(timeout=60)
    p.stdin.write(b"go\n")
    p.stdin.flush()
    line = p.stdout.readline().decode()
    p.stdin.write(b"end\n")
    p.stdin.flush()
    T.eq((line, p.wait(timeout=60)), plain, "vmscope SIGKILLed while "
         "tracing: the target's output and exit status are the untraced "
         "run's")
    T.kill(p)

    if not shutil.which("setpriv"):
        T.skip("refused without privileges", "no setpriv")
        return T.done()
    # both nobody: the maps may be read, the eBPF program not loaded
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              "--inh-caps=-all", "--bounding-set=-all"]
    p, _ = T.start(nobody + [T.target("mmap_calls")])
    r = subprocess.run(nobody + [T.VMSCOPE, "--trace", "-s", str(p.pid)],
                       capture_output=True, timeout=60)
    T.ok(r.returncode == 2 and b"CAP_BPF" in r.stderr and
         len(r.stderr.decode().splitlines()) == 1,
         "without root or CAP_BPF: refused (2), saying what is needed",
         (r.returncode, r.stderr))
    T.eq(T.proc_state(p.pid) in ("S", "R"), True,
         "the target runs on after the refusal")
    T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
