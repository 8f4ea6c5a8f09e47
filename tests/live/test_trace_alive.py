#!/usr/bin/env python3
"""Whether vmscope lives, told to a traced process in another pid
namespace: by the robust mutex vmscope holds in the shared header
(base/tracewire.h: consumer_lock), whose owner the kernel clears when
vmscope dies, not by vmscope's pid (which names nobody there). Before,
the library took vmscope for alive from another namespace (its pid could
not tell), and an attach's take-over took it for gone:

  - gone: vmscope SIGKILLed while attached to heap_attach, pid 1 of a
    pid namespace of its own (unshare --pid --fork, as
    test_trace_pidns.py starts it), then the target leaks far more than
    its ring holds: the library finds vmscope gone (TW_PASS_ENDED, not
    TW_PASS_LAGGED after waiting TW_WAIT_NS for a heartbeat that never
    moves) and gives the rings' pages back (record.c: rings_let_go), so
    the shared file's Rss in the target is below one ring's 1 MiB,
    where a full ring kept it at 1 MiB and more;
  - alive: a first vmscope attached there and running, a second
    vmscope --trace PID (the viewer's form) is refused (exit non-zero,
    "another vmscope traces it"), and the first's trace stays exact (before, the second
    took the entries over: the first lost what came after).
Every process is killed by its pid (vmscope continued first: never left
stopped). Root only (the namespace; ptrace into it); the attach is
x86_64's.
"""
import os
import platform
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmstest as T  # noqa: E402
from attachtest import cmd, functions, poll, site  # noqa: E402
import test_trace_pidns as N  # noqa: E402

PASS_ENDED, PASS_LAGGED = 1, 2
ENV = dict(os.environ, VMSCOPE_TRACE_KERNEL="0")


def file_rss_kb(pid):
    """The Rss (kB) of every mapping of pid's shared trace files."""
    kb, ours = 0, False
    for ln in open("/proc/%d/smaps" % pid):
        w = ln.split()
        if w and "-" in w[0] and len(w) >= 5 and ":" not in w[0]:
            ours = "vmscope-trace" in ln
        elif ours and w[0] == "Rss:":
            kb += int(w[1])
    return kb


def trace_files(pid):
    """How many of pid's mappings are of a shared trace file."""
    return len([ln for ln in open("/proc/%d/maps" % pid)
                if "vmscope-trace" in ln])


def attach(tgt, out=None):
    """vmscope --trace -e json [-o out] tgt, started (not awaited)."""
    return subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json"] +
                            (["-o", out] if out else []) + [str(tgt)],
                            env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def mapped(v, tgt):
    """Whether v attached: its file mapped in tgt, v running."""
    return poll(lambda: N.trace_file(tgt) or v.poll() is not None) and \
        v.poll() is None


def gone():
    what = "vmscope SIGKILLed"
    p = v = tgt = None
    rep = N.report_file()
    try:
        p, tgt = N.in_namespace(what)
        if not tgt:
            return
        v = attach(tgt)
        if not T.ok(mapped(v, tgt), "%s: attached" % what):
            return
        at = N.trace_file(tgt)
        cmd(p, "leak 10")  # its ring in use: some of its pages resident
        v.kill()
        v.wait(timeout=60)
        answer = cmd(p, "leak %d" % N.MANY)  # five rings' worth
        pt = N.wire(tgt, at)[0]
        rss = file_rss_kb(tgt)
        T.eq(answer.split()[:3], ["ok", "leak", str(N.MANY)],
             "%s: the target leaked its %d blocks" % (what, N.MANY))
        T.ok(pt == PASS_ENDED, "%s: the library found vmscope gone and "
             "went pass-through (passthrough %d; %d: it waited for a "
             "heartbeat, lagged)" % (what, pt, PASS_LAGGED))
        T.ok(rss < N.RING // 1024, "%s: the rings' pages given back (the "
             "trace file's Rss in the target %d kB, a ring %d kB)"
             % (what, rss, N.RING // 1024))
    finally:
        N.finish((v,), tgt, p, rep.name)


def alive():
    what = "a second vmscope"
    p = v = w = tgt = None
    rep = N.report_file()
    try:
        p, tgt = N.in_namespace(what)
        if not tgt:
            return
        v = attach(tgt, rep.name)
        if not T.ok(mapped(v, tgt), "%s: the first attached" % what):
            return
        cmd(p, "leak 3")
        files = trace_files(tgt)
        # the viewer's form, on a terminal of its own: refused, it says
        # why and exits 3 (-s or -e would trace the mmap family from the
        # kernel instead)
        pty, tty = os.openpty()
        try:
            w = subprocess.Popen([T.VMSCOPE, "--trace", str(tgt)],
                                 env=dict(ENV, TERM="xterm"), stdin=tty,
                                 stdout=tty, stderr=subprocess.PIPE)
        finally:
            os.close(tty)
        # refused: it ends; taking over: its file mapped beside the first's
        poll(lambda: w.poll() is not None or trace_files(tgt) > files,
             timeout=300)
        if w.poll() is None:  # took over: its viewer ends at once
            w.kill()
        err = w.communicate(timeout=120)[1]
        os.close(pty)
        said = err.decode(errors="replace")
        T.ok(w.returncode != 0 and "another vmscope traces it" in said,
             "%s: refused while the first traces the target (exit %d)"
             % (what, w.returncode), said[-600:])
        cmd(p, "leak 4")
        v.send_signal(signal.SIGINT)
        err = v.communicate(timeout=120)[1]
        T.ok(v.returncode == 0, "%s: the first detaches on SIGINT, exit 0"
             % what, err.decode(errors="replace")[-400:])
        p.stdin.write(b"end\n")
        p.stdin.flush()
        p.wait(timeout=60)
        d = N.report(rep.name)
        leak = [s["outstanding"] for s in
                site(d["trace"]["sites"] if d else [], "leak_block")
                if "main" in functions(s)]
        T.eq(leak, [{"count": 7, "bytes": 280}],
             "%s: the first's trace exact (leak_block's 3 + 4 blocks)"
             % what)
    finally:
        N.finish((v, w), tgt, p, rep.name)


def main():
    if os.geteuid() != 0:
        T.skip("pid namespace", "not root (a namespace of its own, and "
               "ptrace into it)")
    elif not N.UNSHARE:
        T.skip("pid namespace", "no unshare")
    elif platform.machine() != "x86_64":
        T.skip("attached", "the injection is x86-64's")
    elif subprocess.run([N.UNSHARE, "--pid", "--fork", "true"],
                        capture_output=True).returncode != 0:
        T.skip("pid namespace", "unshare --pid --fork is not permitted here")
    else:
        gone()
        alive()
    T.done()


if __name__ == "__main__":
    main()
