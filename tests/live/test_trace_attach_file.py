#!/usr/bin/env python3
"""An attached trace saved with its snapshot (vmscope --trace -w FILE
PID), as a launch's is (test_trace_file.py):

  - tests/targets/heap_attach.c, started, leaks 50 blocks; vmscope --trace
    -w FILE -e json -o REPORT PID attaches (the tracer injected), the
    target leaks 30 more blocks and frees 20 of the first 50, the trace
    ends (SIGINT). The report printed names leak_block's 30 outstanding
    blocks and the 50 alive before the attach, 20 of them released; the
    file loaded again (-l FILE -e json) has the same trace field by
    field, the "before" bucket with it, the process's pid, and its map
    (its executable among its regions); -l FILE -s lists the same call
    sites. The target is left running, untraced, its answers an
    untraced run's.
  - The same with the target ending within the trace: the report is
    printed (it ended), no file is written, exit 3, the message saying
    so.
  - Without -s or -e, -w alone: the file written, nothing printed.
x86_64 only (the injection's).
"""
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import poll, site, untraced_now, no_thread_stopped  # noqa

WORK = ["leak 30", "free 20"]


def cmd(p, line):
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def mapped(pid):
    """The inodes of vmscope's shared files pid maps (an attach's takes
    the place of the last one's: a new inode, not one more)."""
    with open("/proc/%d/maps" % pid) as f:
        return {ln.split()[4] for ln in f if "vmscope-trace" in ln}


def attached(p, args, cmds, end=False):
    """vmscope --trace ARGS PID while p runs cmds (then "end" if end):
    (its exit status, its stdout, its stderr, the answers)."""
    files = mapped(p.pid)
    v = subprocess.Popen([T.VMSCOPE, "--trace"] + args + [str(p.pid)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the library has mapped this vmscope's file: the injection runs in
    # the target's only thread, whose commands wait for it to end
    poll(lambda: mapped(p.pid) - files or v.poll() is not None)
    out = [cmd(p, c) for c in cmds]
    if end:
        p.stdin.write(b"end\n")
        p.stdin.flush()
        p.wait(timeout=60)
    else:
        v.send_signal(signal.SIGINT)
    o, e = v.communicate(timeout=180)
    return v.returncode, o, e.decode(errors="replace"), out


def untraced():
    p, _ = T.start([T.target("heap_attach")])
    out = [cmd(p, c) for c in ["leak 50"] + WORK]
    T.kill(p)
    return out


def saved(tmp, plain):
    app = T.target("heap_attach")
    path, rep = os.path.join(tmp, "a.vms"), os.path.join(tmp, "a.json")
    p, _ = T.start([app])
    out = [cmd(p, "leak 50")]
    rc, _, err, o = attached(p, ["-w", path, "-e", "json", "-o", rep], WORK)
    out += o
    T.ok(rc == 0 and os.path.exists(path) and os.path.exists(rep),
         "--trace -w FILE -e json -o REPORT PID: the file and the report "
         "written", err)
    T.ok(p.poll() is None and untraced_now(p.pid) and
         no_thread_stopped(p.pid) and out == plain,
         "the target runs on, untraced, no thread stopped, its answers an "
         "untraced run's", (out, plain))
    T.kill(p)
    if rc != 0 or not os.path.exists(path):
        return
    d = json.load(open(rep))
    tr = d["trace"]
    leak = site(tr["sites"], "leak_block")
    T.ok(d["attach"].get("injected") is True and len(leak) == 1 and
         leak[0]["outstanding"] == {"count": 30, "bytes": 1200},
         "the report: injected, leak_block's 30 blocks of 40 bytes "
         "outstanding", (d["attach"], leak))
    heaps = (tr.get("before") or {}).get("heaps") or []
    T.ok(len(heaps) == 1 and
         heaps[0]["at_start"] == {"count": 50, "bytes": 2000} and
         heaps[0]["released"] == {"count": 20, "bytes": 800},
         "the report: the 50 blocks alive before the attach, 20 of them "
         "released", tr.get("before"))
    r = T.run_vmscope("-l", path, "-e", "json")
    if not T.ok(r.returncode == 0, "-l FILE -e json: exit 0", r.stderr):
        return
    f = json.loads(r.stdout)
    diff = T.differences(tr, f.get("trace"))
    T.ok(not diff, "the file's trace is the one printed, field by field, "
         "\"before\" with it (%d sites)" % len(tr["sites"]), diff[:5])
    T.eq(f["process"].get("pid"), p.pid, "the file's process is the "
         "target")
    T.ok(any(x["path"] and x["path"].endswith("/heap_attach")
             for x in f["regions"]),
         "the file holds the target's map (its executable among %d "
         "regions)" % len(f["regions"]))
    r = T.run_vmscope("-l", path, "-s")
    text = r.stdout.decode(errors="replace")
    rows = [ln for ln in text.splitlines()
            if ln.startswith(("heap ", "mmap ", "brk "))]
    T.ok(r.returncode == 0 and len(rows) == len(tr["sites"]) and
         any("leak_block" in ln for ln in rows),
         "-l FILE -s: the same call sites", text[-600:])


def ended(tmp):
    path = os.path.join(tmp, "gone.vms")
    p, _ = T.start([T.target("heap_attach")])
    cmd(p, "leak 5")
    rc, o, err, _ = attached(p, ["-w", path, "-s"], ["leak 3"], end=True)
    T.kill(p)
    T.ok(rc == 3 and "no snapshot file was written" in err and
         not os.path.exists(path) and b"it exited within the trace" in o,
         "ended within the trace: the report printed, no file, exit 3, "
         "saying so", "exit %d: %s %r" % (rc, err[-300:], o[-300:]))


def alone(tmp):
    path = os.path.join(tmp, "alone.vms")
    p, _ = T.start([T.target("heap_attach")])
    cmd(p, "leak 5")
    rc, o, err, _ = attached(p, ["-w", path], ["leak 3"])
    T.ok(rc == 0 and os.path.exists(path) and o == b"",
         "-w alone: the file written, nothing printed, no viewer",
         "exit %d: %s %r" % (rc, err[-300:], o[-200:]))
    T.ok(p.poll() is None and untraced_now(p.pid),
         "-w alone: the target runs on, untraced")
    T.kill(p)


def main():
    if platform.machine() != "x86_64":
        T.skip("an attached trace saved", "x86_64 only")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-attach-file-")
    try:
        saved(tmp, untraced())
        ended(tmp)
        alone(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    main()
