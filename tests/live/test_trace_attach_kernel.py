#!/usr/bin/env python3
"""An attach with root: the malloc family from the injected library, the
mmap family from the kernel beside it (src/trace/tracer.h:
tracer_kernel_arm), merged into one report.

  - tests/targets/trace_both.c, started, is attached to (vmscope --trace
    PID -e json); once the kernel's trace runs (the shared file's header,
    read from the target's memory, says kernel_maps), it is told to make
    10 malloc(1 MiB) in big_block and free 4 of them, 12 mmaps of 5 pages
    through its GOT in map_block, 6 raw mmap system calls of 3 pages in
    raw_block (no GOT entry sees them), 3 sbrk of 16 pages in grow_break,
    one raw madvise(MADV_DONTNEED) of 5 pages, a PROT_NONE reservation of
    64 pages in reserve_area, an mprotect committing its first 16 pages
    in commit_pages and one putting 4 of them back to PROT_NONE in
    decommit_pages, a reservation of 8 pages grown to 16 by mremap in
    move_area and 4 of its pages committed in commit_moved. The report says the kernel traced the mmap family
    (attach.kernel, kernel_maps) and has: big_block's 6 outstanding and 4
    transient heap blocks, exactly, and no map of glibc's own for them
    (its mmaps and munmaps inside malloc and free are left out, counted
    in allocator_maps: at least the 14); map_block's 12 maps once each
    (not twice: the library stops recording when the kernel's trace
    runs); raw_block's 6 maps; grow_break's 3 growths of the break;
    madvised 1 call of 5 pages; reserve_area's map of 64 pages; a commit
    site by commit_pages of 16 pages, 12 outstanding and 4 transient (the
    decommit); move_area's map of 8 pages transient and its mremap's of
    16 outstanding, and commit_moved's commit of 4 pages (the reservation
    moved stays one).
  - A thread of the target that makes 5 raw mmap system calls the moment
    it sees its mmap GOT entry change: all 5 in the report (the kernel's
    trace is attached before the injection and armed between the
    library's start and its redirection of the entries); allocator_maps
    0 (the library's own mprotects of the attach are not the
    allocator's).
  - The same with VMSCOPE_TRACE_KERNEL=0 (the library alone, as an attach
    without the privilege is): attach.kernel false with the reason,
    kernel_maps false, no site for grow_break or raw_block, madvised
    null; big_block's, map_block's and the commit's sites as above (the
    library's mprotect entry sees the commit of a reservation its mmap
    entry saw).
  - The same with tracefs hidden from vmscope (a mount namespace of its
    own, empty directories over /sys/kernel/tracing and debug): the
    kernel's trace needs none (its programs sit on the BTF raw
    tracepoints of every system call, attached by name).
  - Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (vmscope run by
    setpriv with them out of its bounding set, root still, so the
    injection may be made): the library's trace, the report's text saying
    the kernel's was not had and why (CAP_BPF named).
  - The same commands under a traced launch (vmscope --trace -e json --
    trace_both): as the attach with the kernel's trace for big_block (no
    map of glibc's), map_block, grow_break (sbrk, interposed) and the
    commit by commit_pages (the library's mprotect: the reservation was
    its map); no raw_block site (no interposer sees a raw system call).
  - Each time: the target's answers and exit status equal an untraced
    run's, its GOT entries after the detach equal those before, it is not
    traced and no thread of it is stopped.
Needs root, a kernel with BTF and x86_64; skipped otherwise.
"""
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import (functions, got_slots, got_values,  # noqa: E402
                        no_thread_stopped, poll, untraced_now)

PG = os.sysconf("SC_PAGESIZE")
WORK = ["big 10", "bigfree 4", "map 12", "raw 6", "sbrk 3", "madv",
        "reserve 64", "commit 16", "decommit 4", "moved 8", "commitm 4"]
# the offset of kernel_maps in the shared file's header (base/tracewire.h)
KERNEL_MAPS_AT = 88


def cmd(p, line):
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def untraced():
    p, _ = T.start([T.target("trace_both")])
    out = [cmd(p, c) for c in WORK]
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    return out, rc


def kernel_maps(pid):
    """The kernel_maps word of the newest shared file the target maps, or
    None (none mapped yet)."""
    start = None
    for ln in open("/proc/%d/maps" % pid):
        if "vmscope-trace" in ln:
            start = int(ln.split("-")[0], 16)
    if start is None:
        return None
    with open("/proc/%d/mem" % pid, "rb") as m:
        m.seek(start + KERNEL_MAPS_AT)
        return int.from_bytes(m.read(4), "little")


def traced(plain, env=None, pre=(), text=False, want_kernel=True):
    """The target attached, told WORK, detached: the report (JSON, or
    the text with text) and vmscope's stderr. want_kernel: WORK is told
    once the kernel's trace runs and the library is attached, else once
    the library is attached."""
    app = T.target("trace_both")
    slots = got_slots(app)
    p, _ = T.start([app])
    before = got_values(p.pid, app, slots)
    rep = tempfile.NamedTemporaryFile(suffix=".out", delete=False)
    rep.close()
    try:
        v = subprocess.Popen(list(pre) + [
            T.VMSCOPE, "--trace", "-e", "text" if text else "json", "-o",
            rep.name, str(p.pid)], stderr=subprocess.PIPE,
            env=dict(os.environ, **(env or {})))
        # malloc's entry redirected first, mmap's last (trace/attach.c)
        mal = [k for k in slots if k[1] in ("malloc", "mmap")]

        def redirected():
            now = got_values(p.pid, app, mal)
            return all(now[k] != before[k] for k in mal)
        # kernel_maps is set as the kernel's trace is armed, before the
        # entries are redirected: the attach is done when both are
        if want_kernel:
            up = poll(lambda: (kernel_maps(p.pid) == 1 and redirected()) or
                      v.poll() is not None)
        else:
            up = poll(lambda: redirected() or v.poll() is not None)
        T.ok(up and v.poll() is None, "vmscope attached (%s)" %
             ("the kernel's trace running" if want_kernel else
              "the malloc GOT entry redirected"))
        out = [cmd(p, c) for c in WORK]
        v.send_signal(signal.SIGINT)
        err = v.communicate(timeout=120)[1]
        T.ok(v.returncode == 0, "vmscope detaches on SIGINT, exit 0", err)
        T.eq(got_values(p.pid, app, slots), before, "every GOT entry of "
             "the family after the detach equals its value before")
        T.ok(poll(lambda: untraced_now(p.pid)) and
             no_thread_stopped(p.pid),
             "after the detach: not traced, no thread stopped")
        p.stdin.write(b"end\n")
        p.stdin.flush()
        rc = p.wait(timeout=60)
        T.kill(p)
        T.eq((out, rc), plain, "the target's answers and exit status "
             "equal an untraced run's")
        body = open(rep.name).read()
    finally:
        os.unlink(rep.name)
    if text:
        return body, err
    try:
        return json.loads(body), err
    except ValueError:
        T.ok(False, "a JSON report", body)
        return None, err


def by(sites, kind, fn):
    """The sites of kind with fn in their stack."""
    return [s for s in sites if s["kind"] == kind and fn in functions(s)]


def figures(s):
    return {k: (s[k]["count"], s[k]["bytes"])
            for k in ("outstanding", "transient", "released", "lasting")}


def common(tr, what):
    big = by(tr["sites"], "heap", "big_block")
    T.eq([figures(s) for s in big],
         [{"outstanding": (6, 6 << 20), "transient": (4, 4 << 20),
           "released": (0, 0), "lasting": (0, 0)}],
         what + ": big_block's heap blocks, exactly (6 kept, 4 freed)")
    T.eq([s["kind"] for s in tr["sites"] if "big_block" in functions(s)],
         ["heap"], what + ": no map of glibc's own for big_block's blocks "
         "(its mmaps and munmaps inside malloc and free)")
    mp = by(tr["sites"], "mmap", "map_block")
    T.eq([figures(s) for s in mp],
         [{"outstanding": (12, 12 * 5 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         what + ": map_block's 12 maps, each once")


def commit_seen(tr, what):
    cm = by(tr["sites"], "commit", "commit_pages")
    T.eq([(functions(s)[0], s["outstanding"]["bytes"],
           s["transient"]["bytes"]) for s in cm],
         [("commit_pages", 12 * PG, 4 * PG)],
         what + ": the 16 pages of the reservation committed by "
         "commit_pages' mprotect (its stack first), 4 of them decommitted")
    # a reservation moved (or grown in place) by mremap stays reserved
    T.eq([figures(s) for s in by(tr["sites"], "mmap", "move_area")],
         [{"outstanding": (1, 16 * PG), "transient": (1, 8 * PG),
           "released": (0, 0), "lasting": (0, 0)}],
         what + ": move_area's reservation of 8 pages unmapped by its "
         "mremap, which maps 16")
    T.eq([(functions(s)[0], s["outstanding"]["bytes"],
           s["transient"]["bytes"]) for s in by(tr["sites"], "commit",
                                                 "commit_moved")],
         [("commit_moved", 4 * PG, 0)],
         what + ": 4 pages of the reservation mremap moved committed by "
         "commit_moved's mprotect (it stayed reserved)")


def both(plain):
    d, _ = traced(plain)
    if not d:
        return
    a, tr = d["attach"], d["trace"]
    T.ok(a.get("injected") is True and a.get("kernel") is True and
         tr["kernel_maps"] is True and tr["heap_traced"] is True,
         "the report says the library traced the heap and the kernel the "
         "mmap family", a)
    T.eq((tr["dropped"], tr["bad_records"]), (0, 0), "nothing dropped")
    common(tr, "library and kernel")
    T.ok(tr["allocator_maps"] >= 14, "the calls of glibc's malloc and "
         "free left out are counted (allocator_maps %d: 10 mmaps and 4 "
         "munmaps at least)" % tr["allocator_maps"])
    T.eq([figures(s) for s in by(tr["sites"], "mmap", "raw_block")],
         [{"outstanding": (6, 6 * 3 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "raw_block's 6 raw mmap system calls, from the kernel")
    T.eq([figures(s) for s in by(tr["sites"], "brk", "grow_break")],
         [{"outstanding": (3, 3 * 16 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "grow_break's 3 growths of the break, from the kernel")
    T.eq([functions(s)[0] for s in by(tr["sites"], "brk", "grow_break")],
         ["grow_break"], "its stack starts at sbrk's caller, as a "
         "launch's (the brk system call's wrapper and sbrk left out)")
    T.eq(tr["madvised"], {"count": 1, "bytes": 5 * PG},
         "the one madvise(MADV_DONTNEED) of 5 pages")
    T.eq([figures(s) for s in by(tr["sites"], "mmap", "reserve_area")],
         [{"outstanding": (1, 64 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "reserve_area's PROT_NONE reservation of 64 pages")
    commit_seen(tr, "the kernel's")


def from_redirection():
    """A thread that makes 5 raw mmap system calls the moment it sees its
    mmap GOT entry redirected: the kernel's trace, armed before the
    redirection, has all 5."""
    p, _ = T.start([T.target("trace_both")])
    T.eq(cmd(p, "watchraw 5"), "ok watchraw 5 1\n", "a thread watches "
         "the malloc GOT entry")
    rep = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    rep.close()
    try:
        v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o",
                              rep.name, str(p.pid)], stderr=subprocess.PIPE)
        T.ok(poll(lambda: kernel_maps(p.pid) == 1 or v.poll() is not None)
             and v.poll() is None, "vmscope attached, the kernel's trace "
             "running")
        T.eq(cmd(p, "joinraw"), "ok joinraw 0 5\n", "the thread saw the "
             "entry redirected and made its 5 calls")
        v.send_signal(signal.SIGINT)
        err = v.communicate(timeout=120)[1]
        T.ok(v.returncode == 0, "vmscope detaches on SIGINT, exit 0", err)
        p.stdin.write(b"end\n")
        p.stdin.flush()
        p.wait(timeout=60)
        T.kill(p)
        d = json.loads(open(rep.name).read())
    except ValueError:
        T.ok(False, "a JSON report")
        return
    finally:
        os.unlink(rep.name)
    T.eq([figures(s) for s in by(d["trace"]["sites"], "mmap", "raw_after")],
         [{"outstanding": (5, 5 * 2 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "the 5 raw mmap system calls made as the entry changed, each "
         "seen: the kernel's trace was armed before the redirection")
    T.eq(d["trace"]["allocator_maps"], 0, "no call of the allocator's in "
         "that trace, and the attach's own (the library's mprotects of the "
         "entries in RELRO) not counted as the allocator's")


def library_only(plain):
    d, _ = traced(plain, env={"VMSCOPE_TRACE_KERNEL": "0"},
                  want_kernel=False)
    if not d:
        return
    a, tr = d["attach"], d["trace"]
    T.ok(a.get("injected") is True and a.get("kernel") is False and
         "VMSCOPE_TRACE_KERNEL=0" in a.get("kernel_why", "") and
         tr["kernel_maps"] is False and tr["madvised"] is None,
         "VMSCOPE_TRACE_KERNEL=0: the library alone, the report says so", a)
    common(tr, "the library alone")
    T.eq([s["kind"] for s in tr["sites"]
          if set(functions(s)) & {"raw_block", "grow_break"}], [],
         "the library alone sees no raw system call, no brk (sbrk's entry "
         "is not redirected)")
    commit_seen(tr, "the library alone (its mprotect entry)")


def no_tracefs(plain):
    """The kernel's trace needs no tracefs: vmscope in a mount namespace
    of its own where /sys/kernel/tracing and /sys/kernel/debug are empty
    (tracefs is not mounted on every machine) still has the mmap family
    from the kernel."""
    if not shutil.which("unshare") or subprocess.run(
            ["unshare", "-m", "true"], capture_output=True).returncode:
        T.skip("no tracefs", "no unshare, or no mount namespace allowed")
        return
    hide = ("for d in /sys/kernel/tracing /sys/kernel/debug; do "
            "[ ! -d $d ] || mount -t tmpfs none $d || exit 9; done; "
            "exec \"$@\"")
    d, err = traced(plain, pre=["unshare", "-m", "--propagation",
                                "private", "sh", "-c", hide, "sh"])
    if not d:
        return
    T.ok(d["attach"].get("kernel") is True and
         d["trace"]["kernel_maps"] is True,
         "no tracefs: the kernel traced the mmap family", (d["attach"], err))
    T.eq([figures(s) for s in by(d["trace"]["sites"], "mmap", "raw_block")],
         [{"outstanding": (6, 6 * 3 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "no tracefs: raw_block's 6 raw mmap system calls, from the kernel")


def unprivileged(plain):
    if not os.path.exists("/usr/bin/setpriv"):
        T.skip("without CAP_BPF", "no setpriv")
        return
    pre = ["setpriv", "--bounding-set=-bpf,-perfmon,-sys_admin",
           "--inh-caps=-all", "--"]
    text, err = traced(plain, pre=pre, text=True, want_kernel=False)
    line = [ln for ln in text.splitlines() if ln.startswith("Kernel:")]
    T.ok(len(line) == 1 and line[0].startswith("Kernel:      no") and
         "CAP_BPF" in line[0] and "Attached:    the malloc and mmap" in text,
         "without CAP_BPF: the library's trace, the report saying the "
         "kernel's was not had and why", line or text[:400])


def launch(plain):
    r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "--",
                        T.target("trace_both")],
                       input="".join(c + "\n" for c in WORK + ["end"]),
                       capture_output=True, text=True, timeout=300)
    T.eq((r.returncode, r.stderr.splitlines()),
         (0, ["ready"] + [x.strip() for x in plain[0]]),
         "launched: exit 0, its answers (on vmscope's stderr) an untraced "
         "run's")
    try:
        tr = json.loads(r.stdout)["trace"]
    except ValueError:
        T.ok(False, "launched: a JSON report", r.stdout[:300])
        return
    common(tr, "launched")
    T.eq([figures(s) for s in by(tr["sites"], "brk", "grow_break")],
         [{"outstanding": (3, 3 * 16 * PG), "transient": (0, 0),
           "released": (0, 0), "lasting": (0, 0)}],
         "launched: grow_break's 3 sbrk growths")
    T.eq([functions(s)[0] for s in by(tr["sites"], "brk", "grow_break")],
         ["grow_break"], "launched: its stack starts at sbrk's caller")
    commit_seen(tr, "launched")
    T.eq(by(tr["sites"], "mmap", "raw_block"), [],
         "launched: no raw system call seen")


def main():
    if platform.machine() != "x86_64":
        T.skip("kernel beside the library", "x86_64 only")
        return T.done()
    if os.geteuid() != 0 or not os.path.exists("/sys/kernel/btf/vmlinux"):
        T.skip("kernel beside the library", "needs root and BTF")
        return T.done()
    plain = untraced()
    T.ok(all(ln.startswith("ok ") for ln in plain[0]) and plain[1] == 0,
         "the untraced run answers every command", plain)
    launch(plain)
    both(plain)
    from_redirection()
    library_only(plain)
    no_tracefs(plain)
    unprivileged(plain)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
