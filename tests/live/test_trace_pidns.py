#!/usr/bin/env python3
"""A traced process in a pid namespace other than vmscope's: vmscope's pid
(the shared header's consumer_pid) names no process there, so the tracer
library must not ask kill() whether vmscope lives (trace/record.c:
consumer_gone, base/tracewire.h: consumer_pidns). Before, a ring that
filled while vmscope was stopped found it "gone" (ESRCH) and the library
went pass-through (TW_PASS_ENDED) and gave the rings' pages back: the
records not yet read and every allocation after were lost, nothing
counted dropped.

  - attached: tests/targets/heap_attach.c started by unshare --pid --fork
    (pid 1 of a namespace of its own; not --mount-proc: an attach is
    refused to a process that does not see vmscope's /proc/PID/fd, which
    the library's open of the shared file takes: cli/run_attach.c,
    sees_as_we_do), vmscope --trace PID by its pid here, the kernel's
    trace off (VMSCOPE_TRACE_KERNEL=0: its ring buffer, full while
    vmscope is stopped, would drop records of its own);
  - launched and followed: vmscope --trace --trace-children -- unshare
    --pid --fork --mount-proc heap_attach: the child exec'd in the new
    namespace makes a file of its own from VMSCOPE_TRACE_FOLLOW
    (trace/follow.c), vmscope's pid namespace in it.
Each time vmscope is stopped (SIGSTOP, by its pid) while the target
leaks 200,000 40-byte blocks, far more records than its 1 MiB ring
holds, until the ring is seen full (its head and tail, read from the
target's memory, leave no room for a malloc's record: the library waits
on it), then let go (SIGCONT): the library did not go pass-through
(header) and the report counts every block the target leaked while
traced, nothing dropped. vmscope is never left stopped (continued in a
finally), and every process (the namespace's too) is killed by its pid.
Root only (the namespace; ptrace into it); the attach is x86_64's.
"""
import json
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import cmd, functions, poll, site  # noqa: E402

# base/tracewire.h: the header (192 bytes, passthrough at 64), the slots
# after it (64 bytes: state, tid, head, tail), each ring's size, and the
# room a malloc's record waits for (its long form, TW_EVENT_WORDS: 5
# words, whatever form it is written in: record.c, begin)
HEADER, PASSTHROUGH, SLOTS, SLOT, RING = 192, 64, 256, 64, 1 << 20
SLOT_LIVE, MALLOC_BYTES = 1, 5 * 8
MANY = 200000  # blocks leaked while vmscope is stopped: some 5 MiB of
# records (24 or 40 bytes each), five rings' worth

UNSHARE = shutil.which("unshare")


def trace_file(pid):
    """Where pid maps the shared file (offset 0), None when it maps none."""
    for ln in open("/proc/%d/maps" % pid):
        w = ln.split()
        if len(w) >= 6 and "vmscope-trace" in ln and int(w[2], 16) == 0:
            return int(w[0].split("-")[0], 16)
    return None


def wire(pid, at):
    """The header's passthrough and the (head, tail) of each live ring of
    the file pid maps at at."""
    with open("/proc/%d/mem" % pid, "rb") as m:
        m.seek(at)
        b = m.read(HEADER + SLOTS * SLOT)
    live = []
    for i in range(SLOTS):
        state, _, head, tail = struct.unpack_from("<IiQQ", b,
                                                  HEADER + i * SLOT)
        if state == SLOT_LIVE:
            live.append((head, tail))
    return struct.unpack_from("<I", b, PASSTHROUGH)[0], live


def waits(head, tail):
    """Whether a ring at head and tail has no room for a malloc's record
    (record.c, reserve: a record is never split at the ring's end)."""
    at = head % RING
    pad = RING - at if at + MALLOC_BYTES > RING else 0
    return head + pad + MALLOC_BYTES - tail > RING


def fill_while_stopped(v, p, tgt, at):
    """vmscope (v) stopped while the target (its stdin and stdout p's)
    leaks MANY blocks, until a ring of it waits for room or the library
    went pass-through; continued then, whatever happens. (Whether a ring
    was seen waiting, the passthrough then, the target's answer.)"""
    try:
        T.sigstop(v.pid)
        p.stdin.write(b"leak %d\n" % MANY)
        p.stdin.flush()
        poll(lambda: any(waits(*r) for r in wire(tgt, at)[1]) or
             wire(tgt, at)[0] != 0, timeout=120)
        pt, live = wire(tgt, at)
    finally:
        T.sigcont(v.pid)
    return (any(waits(*r) for r in live), pt,
            p.stdout.readline().decode())


def check(what, stopped, after, leaks, tr):
    """The figures of one case: a ring filled while vmscope was stopped
    and the library waited (stopped: fill_while_stopped's), not
    pass-through after either; the trace (tr, the target's) counts the
    `leaks` blocks leak_block made from main, nothing dropped."""
    filled, pt, answer = stopped
    T.ok(filled and pt == 0, "%s: a ring filled while vmscope was stopped "
         "and the library waited for it, not pass-through (passthrough "
         "%d; 1: vmscope taken for gone)" % (what, pt))
    T.eq(answer.split()[:3], ["ok", "leak", str(MANY)],
         "%s: the target leaked its %d blocks" % (what, MANY))
    T.eq(after, 0, "%s: vmscope continued, the library is still not "
         "pass-through" % what)
    if not T.ok(tr is not None, "%s: the target's trace in the report"
                % what):
        return
    leak = [s for s in site(tr["sites"], "leak_block")
            if "main" in functions(s)]
    T.eq((tr["dropped"], tr["bad_records"],
          [s["outstanding"] for s in leak]),
         (0, 0, [{"count": leaks, "bytes": 40 * leaks}]),
         "%s: nothing dropped, no bad record, leak_block's %d blocks "
         "all outstanding" % (what, leaks))


def child_of(pid):
    """pid's first child (unshare's: the target, pid 1 of its namespace;
    vmscope's: unshare), None if none came."""
    kids = []

    def seen():
        kids[:] = T.children(pid)
        return kids
    poll(seen, timeout=60)
    return kids[0] if kids else None


def own_namespace(what, tgt):
    with open("/proc/%d/status" % tgt) as f:
        nspid = [ln.split()[1:] for ln in f if ln.startswith("NSpid:")]
    return T.ok(nspid and len(nspid[0]) == 2 and nspid[0][-1] == "1",
                "%s: the target is pid 1 of a namespace of its own" % what,
                nspid)


def report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def report_file():
    """A file for a report (-o), made empty; finish() removes it."""
    f = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    f.close()
    return f


def in_namespace(what):
    """heap_attach as pid 1 of a pid namespace of its own (unshare's
    child): (the unshare, the target's pid here), the pid None when it
    is not so (said)."""
    p, _ = T.start([UNSHARE, "--pid", "--fork", "--kill-child",
                    T.target("heap_attach")])
    tgt = child_of(p.pid)
    return p, tgt if tgt and own_namespace(what, tgt) else None


def finish(vs, tgt, p, path):
    """Every vmscope of vs still running ended (continued first: never
    left stopped), the target and its unshare, and the report's file."""
    for x in vs:
        if x and x.poll() is None:
            for sig in (signal.SIGCONT, signal.SIGKILL):
                os.kill(x.pid, sig)
            x.wait(timeout=60)
    T.kill_gone(tgt)
    if p:
        T.kill(p)
    os.unlink(path)


def attached():
    what = "attached"
    p = v = tgt = None
    rep = report_file()
    try:
        p, tgt = in_namespace(what)
        if not tgt:
            return
        v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o",
                              rep.name, str(tgt)],
                             env=dict(os.environ, VMSCOPE_TRACE_KERNEL="0"),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        # the library has mapped the file: the injection runs in the
        # target's only thread, whose commands wait for it to end
        if not T.ok(poll(lambda: trace_file(tgt) or v.poll() is not None)
                    and v.poll() is None, "%s: vmscope attached" % what):
            return
        at = trace_file(tgt)
        cmd(p, "leak 10")  # its stack sent: each record after an event
        stopped = fill_while_stopped(v, p, tgt, at)
        cmd(p, "leak 5")  # recorded after it too
        after = wire(tgt, at)[0]
        v.send_signal(signal.SIGINT)
        err = v.communicate(timeout=120)[1]
        T.ok(v.returncode == 0, "%s: vmscope detaches on SIGINT, exit 0"
             % what, err.decode(errors="replace")[-400:])
        p.stdin.write(b"end\n")  # runs on untraced: ended as it ends
        p.stdin.flush()
        p.wait(timeout=60)
        d = report(rep.name)
        T.ok(d is not None and d["attach"]["injected"],
             "%s: the library injected" % what, d and d["attach"])
        check(what, stopped, after, 10 + MANY + 5, d and d["trace"])
    finally:
        finish((v,), tgt, p, rep.name)


def taken_over():
    """A vmscope SIGKILLed while attached to the target in its namespace
    leaves its entries redirected; the next vmscope takes them over (its
    pid, which said nothing there, is not taken for alive: record.c,
    vt_orphaned) and its trace is exact."""
    what = "attached again after a vmscope killed"
    p = v = w = tgt = None
    rep = report_file()
    env = dict(os.environ, VMSCOPE_TRACE_KERNEL="0")
    try:
        p, tgt = in_namespace(what)
        if not tgt:
            return
        v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", str(tgt)],
                             env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if not T.ok(poll(lambda: trace_file(tgt) or v.poll() is not None)
                    and v.poll() is None, "%s: the first attached" % what):
            return
        cmd(p, "leak 3")
        v.kill()
        v.wait(timeout=60)
        cmd(p, "leak 4")  # into the dead one's ring, which has room
        w = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o",
                              rep.name, str(tgt)], env=env,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        files = len([ln for ln in open("/proc/%d/maps" % tgt)
                     if "vmscope-trace" in ln])
        T.ok(poll(lambda: len([ln for ln in open("/proc/%d/maps" % tgt)
                               if "vmscope-trace" in ln]) > files or
                  w.poll() is not None) and w.poll() is None,
             "%s: the second maps its file" % what)
        cmd(p, "leak 7")
        w.send_signal(signal.SIGINT)
        err = w.communicate(timeout=120)[1]
        p.stdin.write(b"end\n")
        p.stdin.flush()
        p.wait(timeout=60)
        d = report(rep.name)
        leak = [s["outstanding"] for s in
                site(d["trace"]["sites"] if d else [], "leak_block")]
        T.ok((d and d["attach"]["injected"], leak) ==
             (True, [{"count": 7, "bytes": 280}]),
             "%s: the second took over, its trace exact (leak_block's 7 "
             "blocks)" % what,
             (leak, d and d["attach"], err.decode(errors="replace")[-400:]))
    finally:
        finish((v, w), tgt, p, rep.name)


def followed():
    what = "launched, its child followed"
    v = kid = tgt = None
    rep = report_file()
    err = tempfile.TemporaryFile()
    try:
        v, _ = T.start([T.VMSCOPE, "--trace", "--trace-children", "-e",
                        "json", "-o", rep.name, "--", UNSHARE, "--pid",
                        "--fork", "--mount-proc", "--kill-child",
                        T.target("heap_attach")], stderr=err)
        kid = child_of(v.pid)
        tgt = kid and child_of(kid)
        if not tgt or not own_namespace(what, tgt):
            return
        at = trace_file(tgt)
        if not T.ok(at, "%s: the target maps a file of its own" % what):
            return
        cmd(v, "leak 10")
        stopped = fill_while_stopped(v, v, tgt, at)
        cmd(v, "leak 5")
        after = wire(tgt, at)[0]
        v.stdin.write(b"end\n")
        v.stdin.flush()
        v.wait(timeout=120)
        err.seek(0)
        T.ok(v.returncode == 0, "%s: vmscope ends with the command, exit 0"
             % what, err.read().decode(errors="replace")[-400:])
        d = report(rep.name)
        procs = [x for x in (d or {}).get("trace", {}).get("processes", [])
                 if x["how"] == "exec" and "heap_attach" in x["command"]]
        T.ok(len(procs) == 1 and procs[0]["pid"] == tgt,
             "%s: the target followed, by its pid here" % what, procs)
        check(what, stopped, after, 10 + MANY + 5,
              procs[0]["trace"] if procs else None)
    finally:
        T.kill_gone(tgt)
        T.kill_gone(kid)
        if v:
            T.kill(v)  # SIGCONT first: never left stopped
        err.close()
        os.unlink(rep.name)


def main():
    if os.geteuid() != 0:
        T.skip("pid namespace", "not root (a namespace of its own, and "
               "ptrace into it)")
    elif not UNSHARE:
        T.skip("pid namespace", "no unshare")
    elif subprocess.run([UNSHARE, "--pid", "--fork", "true"],
                        capture_output=True).returncode != 0:
        T.skip("pid namespace", "unshare --pid --fork is not permitted here")
    else:
        if platform.machine() == "x86_64":
            attached()
            taken_over()
        else:
            T.skip("attached", "the injection is x86-64's")
        followed()
    T.done()


if __name__ == "__main__":
    main()
