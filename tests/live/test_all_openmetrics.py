#!/usr/bin/env python3
"""test_all_openmetrics — `vmscope --all -e openmetrics`: many processes in
one OpenMetrics exposition (issue 32 item 1), against targets it starts
and the kernel's own figures:

  - --all: valid by `promtool check metrics` (when prometheus's promtool is
    installed), every started target in it with its comm and the unit its
    cgroup names, the sum of its working set over the types but the page
    table equal to the kernel's Rss (smaps_rollup), each family's samples
    together;
  - -n NAME: exactly the processes of that name;
  - PIDs: exactly those, a PID that does not exist counted as
    reason="exited"; another user's targets (run as nobody) counted as
    reason="permission", never dropped;
  - --top=1 of three targets: one row with a pid, the other two summed in a
    pid="other" row of their comm (vmscope_summed_processes 2), the working
    sets adding up to the kernel's;
  - a PID given twice: in it once (every series once, each family's
    samples still together), a missing one given twice counted once;
  - a thread's id (/proc/TID reads as if it were a process) counts as its
    process: given with the process's pid, the process once, under its
    own comm (not the thread's, its address space not twice); given
    alone, the process; each said in a line on stderr;
  - a cgroup path: "/" takes every process, one that holds none is an
    error (2); a cgroup v2 directory this test makes under the cgroup2
    mount (/proc/self/mountinfo's: /sys/fs/cgroup, or
    /sys/fs/cgroup/unified on a hybrid host; as root) with a started
    target moved into it: exactly that process, its unit label the
    directory's name; the same with the directory a unit's (NAME.service)
    and the target in its subgroup "payload", as a unit that manages its
    own subtree has them: the unit label still NAME.service; the target
    moved back and the directories removed after;
  - a glibc target's heaps (tests/targets/heap_arenas.c: five arenas,
    nothing allocated after it printed its own mallinfo2()): in use and
    free per allocator equal to its mallinfo2's uordblks and fordblks
    (walked twice while it runs, nothing stopped: its state stays S, no
    tracer); with --top=1 its heap figures are in its row or summed into
    its comm's pid="other" row, never lost; the same for a main arena that
    is not contiguous (tests/targets/heap_noncontig.c: its segments found
    by reading chunk headers); its size and regions per type
    (its five threads' stacks among them), and a one-thread target's, as
    a whole capture (-e openmetrics PID) finds them;
  - a CPython target's managed heap, committed and used, as -e json gives
    them for it, its arenas placed by obmalloc's own vector (-e json's
    detail of each says so) and the Managed Heap type's size and blocks
    in --all as -e json's (--all's search of the vector and its look-ups
    in the run's cache of ELF files skip what one capture reads), and its
    glibc heap beside it;
  - a zombie named by PID counted as reason="no_memory"; --all leaves it
    out without counting it, and the kernel threads (kthreadd's children,
    told by their exe alone) too;
  - a process whose main thread exited while its 81 threads run on
    (hostile_target "threads": a zombie leader, its own smaps empty): in
    the exposition, named by PID (or by a live thread's id) and in --all,
    its working set a live thread's smaps_rollup Rss (as -s reads it),
    not counted no_memory;
  - the reader ahead (a second thread reads each process's pidfd, stat,
    cgroup and first 256 KiB of smaps while the process before is
    captured): a process of 3000 regions (smaps over 1 MB, most of it read
    after the handover) between two others: its size and regions per type
    as a whole capture's, its working set and theirs the kernel's Rss;
    150 processes killed at random times (seeded, VMSCOPE_SEED) while
    --all reads them, each reaped at once: every one read or counted
    (exited, or no_memory between exit and reaping), none capture_failed
    (a process that exits during its capture is "exited");
  - usage: --all without -e openmetrics, with -b fork, --top without --all.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

SAMPLE = T.OM_SAMPLE


def run(*args, pre=()):
    return subprocess.run(list(pre) + [T.VMSCOPE] + list(args),
                          capture_output=True, text=True, timeout=300)


samples = T.om_samples


def families_together(text):
    """Every family's samples in one run of lines (OpenMetrics)."""
    seen, last = set(), None
    for line in text.split("\n"):
        m = SAMPLE.match(line)
        if not m:
            continue
        if m.group(1) != last:
            if m.group(1) in seen:
                return False
            seen.add(m.group(1))
            last = m.group(1)
    return True


def rollup_rss(pid, tid=None):
    at = "%d/task/%d" % (pid, tid) if tid else "%d" % pid
    for line in open("/proc/%s/smaps_rollup" % at):
        if line.startswith("Rss:"):
            return int(line.split()[1]) * 1024
    return None


def ws_of(ss, pid):
    return sum(v for n, lb, v in ss if n == "vmscope_ws_bytes" and
               lb.get("pid") == str(pid) and lb.get("type") != "page_table")


def layout_of(ss, pid):
    """{(family, type): value} of the size and region count per type."""
    return {(n, lb["type"]): v for n, lb, v in ss
            if n in ("vmscope_size_bytes", "vmscope_blocks") and
            lb.get("pid") == str(pid) and "type" in lb}


def unit_name(path):
    """The unit a cgroup path names: its innermost part ending in .service
    or .scope, else its last part."""
    parts = [p for p in path.split("/") if p]
    units = [p for p in parts if re.search(r".\.(service|scope)$", p)]
    return units[-1] if units else (parts[-1] if parts else "")


def unit_of(pid):
    for line in open("/proc/%d/cgroup" % pid):
        if line.startswith("0::"):
            return unit_name(line.strip()[3:])
    return ""


def cgroup2_mount():
    """The mount point of a cgroup2 file system, from mountinfo, or None."""
    for line in open("/proc/self/mountinfo"):
        pre, _, post = line.partition(" - ")
        if post.split(" ")[0] == "cgroup2":
            return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)),
                          pre.split(" ")[4])
    return None


def own_cgroup(pid):
    for line in open("/proc/%d/cgroup" % pid):
        if line.startswith("0::"):
            return line.strip()[3:]
    return None


def in_a_cgroup(pids, comm, sub=None):
    """A target moved into a cgroup v2 directory made for it: exactly it in
    --all of that directory, with the directory's name as its unit. With
    sub, the directory is a unit's (NAME.service) and the target is moved
    into its subgroup sub, as a unit that manages its own subtree does
    (Delegate=: systemd-nspawn's payload): the unit is still the
    service's name, not the subgroup's."""
    mnt = cgroup2_mount()
    why = None
    if os.geteuid() != 0:
        why = "needs root (a cgroup made and a process moved into it)"
    elif not mnt:
        why = "no cgroup2 file system mounted"
    elif own_cgroup(pids[0]) is None:
        why = "no cgroup v2 line in /proc/PID/cgroup"
    name = "vmscope-test-%d" % os.getpid() + (".service" if sub else "")
    d = os.path.join(mnt or "/", name)
    into = os.path.join(d, sub) if sub else d
    if not why:
        try:
            os.mkdir(d)
            if sub:
                os.mkdir(into)
        except OSError as e:
            why = "cannot make %s: %s" % (into, e)
            if os.path.isdir(d):
                os.rmdir(d)
    if why:
        T.skip("a cgroup v2 directory%s: exactly its process, unit its name"
               % (" (its process in a subgroup)" if sub else ""), why)
        return
    back = os.path.join(mnt, own_cgroup(pids[0]).lstrip("/"), "cgroup.procs")
    moved = False
    try:
        with open(os.path.join(into, "cgroup.procs"), "w") as f:
            f.write("%d\n" % pids[0])
        moved = True
        r = run("--all", "-e", "openmetrics", d + "/")
        got = [(lb["pid"], lb["comm"], lb["unit"])
               for n, lb, v in samples(r.stdout)
               if n == "vmscope_largest_free_bytes"]
        T.ok(r.returncode == 0 and got == [(str(pids[0]), comm, name)] and
             unit_of(pids[0]) == name,
             "a cgroup v2 directory (%s) with a target moved in%s: "
             "exactly that process, its unit the directory's name"
             % (d, " (into its subgroup %s)" % sub if sub else ""),
             (got, r.stderr))
    finally:
        if moved:
            with open(back, "w") as f:
                f.write("%d\n" % pids[0])
        # the move is done when the write returns; rmdir fails only while
        # a process is in it
        if sub:
            os.rmdir(into)
        os.rmdir(d)


# The parent churn() starts: its children (asleep) on one line, then each
# killed at its time (seconds after that line, in order) and reaped at
# once: exits spread over about the time --all takes to read them all.
REAPER = """
import signal, subprocess, sys, time
kids = [subprocess.Popen(["sleep", "3600"]) for _ in sys.argv[1:]]
print(" ".join(str(k.pid) for k in kids), flush=True)
t0 = time.monotonic()
for k, at in sorted(zip(kids, map(float, sys.argv[1:])), key=lambda x: x[1]):
    time.sleep(max(0.0, t0 + at - time.monotonic()))
    k.send_signal(signal.SIGKILL)
    k.wait()
"""


def reader_ahead(pids):
    """--all reads each process's start a few processes ahead, on a second
    thread: a process whose smaps is many times what is read ahead (the
    rest read after), and processes that exit while --all runs."""
    mr, _ = T.start([T.target("manyregions"), "3000"])
    T.ok(len(open("/proc/%d/smaps" % mr.pid).read()) > 4 * 256 * 1024,
         "manyregions 3000: its smaps is more than four times the 256 KiB "
         "read ahead")
    r = run("--all", "-e", "openmetrics", str(pids[0]), str(mr.pid),
            str(pids[1]))
    ss = samples(r.stdout)
    whole = layout_of(samples(run("-e", "openmetrics",
                                  str(mr.pid)).stdout), mr.pid)
    T.ok(r.returncode == 0 and whole and layout_of(ss, mr.pid) == whole,
         "a smaps read mostly after its first chunk: --all's size and "
         "regions per type = a whole capture's", (layout_of(ss, mr.pid),
                                                  whole))
    T.eq(ws_of(ss, mr.pid), rollup_rss(mr.pid),
         "a smaps read mostly after its first chunk: working set = "
         "smaps_rollup Rss")
    T.ok(all(ws_of(ss, p) == rollup_rss(p) for p in pids[:2]),
         "the processes before and after it: their working sets = their "
         "smaps_rollup Rss")
    T.kill(mr)
    churn()


def churn(rounds=3):
    """Processes killed at random times (seeded) while --all reads them,
    each reaped at once: every one in the exposition or counted
    (exited, or no_memory for one seen between its exit and its reaping),
    none counted as a failed capture. A kill falls inside a capture in
    about every other round: three rounds."""
    rnd = T.rng()
    n = 150
    for k in range(rounds):
        # --all takes some 0.3 ms a process here, and starts in a few
        times = ["%.4f" % rnd.uniform(0, 0.08) for _ in range(n)]
        reaper = subprocess.Popen([sys.executable, "-c", REAPER] + times,
                                  stdout=subprocess.PIPE, text=True)
        kids = reaper.stdout.readline().split()
        r = run("--all", "-e", "openmetrics", *kids)
        reaper.wait(timeout=120)
        ss = samples(r.stdout)
        read = {lb["pid"] for n_, lb, v in ss
                if n_ == "vmscope_largest_free_bytes"}
        counted = unread(ss, "exited") + unread(ss, "no_memory")
        T.ok(r.returncode == 0 and len(kids) == n and read <= set(kids) and
             len(read) + counted == n and
             unread(ss, "capture_failed") == 0 and
             unread(ss, "permission") == 0,
             "round %d, %d processes killed while --all runs: %d read, %d "
             "counted exited or no_memory, none capture_failed"
             % (k + 1, n, len(read), counted), r.stdout[-800:] + r.stderr)


def kthreads_left_out(text):
    """The kernel threads (kthreadd, pid 2 where /proc/2/stat has
    PF_KTHREAD, and its children: --all tells them by their exe alone)
    not in --all's exposition, nor counted."""
    try:
        st = open("/proc/2/stat").read()
        kids = open("/proc/2/task/2/children").read().split()
    except OSError:
        T.skip("--all: kernel threads left out", "no /proc/2 here")
        return
    if not int(st[st.rindex(")") + 2:].split()[6]) & 0x00200000:
        T.skip("--all: kernel threads left out",
               "pid 2 is no kernel thread (a pid namespace)")
        return
    kt = {"2"} | set(kids)
    ss = samples(text)
    shown = {lb.get("pid") for n, lb, v in ss} & kt
    T.ok(len(kt) > 1 and not shown and unread(ss, "no_memory") == 0,
         "--all: none of the %d kernel threads in it, none counted"
         % len(kt), sorted(shown)[:10])


def unread(ss, reason):
    return sum(v for n, lb, v in ss if n == "vmscope_unread_processes"
               and lb.get("reason") == reason)


def main():
    # everykind under a name of this run's own: -n NAME and --top's sums
    # see only these three, whatever else runs on the machine
    tmp = tempfile.mkdtemp(prefix="vmscope-all-")
    exe = os.path.join(tmp, "vmsall%d" % (os.getpid() % 1000000))
    shutil.copy(T.target("everykind"), exe)
    procs = [T.start([exe])[0] for _ in range(3)]
    pids = [p.pid for p in procs]
    comm = open("/proc/%d/comm" % pids[0]).read().strip()

    r = run("--all", "-e", "openmetrics")
    T.eq(r.returncode, 0, "--all -e openmetrics: exit 0")
    text = r.stdout
    T.ok(text.endswith("# EOF\n"), "one exposition, ending # EOF")
    T.ok(families_together(text), "each family's samples together")
    promtool = shutil.which("promtool")
    if promtool:
        c = subprocess.run([promtool, "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=120)
        T.ok(c.returncode == 0, "promtool check metrics", c.stdout + c.stderr)
    else:
        T.skip("promtool check metrics", "promtool (prometheus) not "
               "installed: scripts/deps.sh")
    ss = samples(text)
    for pid in pids:
        lb = [lb for n, lb, v in ss if n == "vmscope_largest_free_bytes"
              and lb.get("pid") == str(pid)]
        T.ok(len(lb) == 1 and lb[0]["comm"] == comm and
             lb[0]["unit"] == unit_of(pid),
             "target %d in it with its comm and unit" % pid, lb)
        T.eq(ws_of(ss, pid), rollup_rss(pid),
             "target %d: working set over the types = smaps_rollup Rss"
             % pid)

    r = run("--all", "-e", "openmetrics", "-n", comm)
    got = {lb["pid"] for n, lb, v in samples(r.stdout)
           if n == "vmscope_largest_free_bytes"}
    T.eq(got, {str(p) for p in pids}, "-n NAME: exactly its processes")

    gone = 4194304
    while os.path.exists("/proc/%d" % gone):
        gone -= 1
    r = run("--all", "-e", "openmetrics", str(pids[0]), str(gone))
    ss = samples(r.stdout)
    got = {lb["pid"] for n, lb, v in ss if n == "vmscope_largest_free_bytes"}
    T.eq(got, {str(pids[0])}, "PIDs: exactly the one that exists")
    T.eq(unread(ss, "exited"), 1, "PIDs: the missing one counted, exited")
    # the output opened first: a file that cannot be written is said
    # before any process is read (here the PID named is gone: reading
    # first said "no process matches", exit 2)
    r = run("--all", "-e", "openmetrics", "-o",
            "/nonexistent-vmscope/dir/x.prom", str(gone))
    T.ok(r.returncode == 4 and "/nonexistent-vmscope/dir/x.prom" in
         r.stderr and "no process matches" not in r.stderr,
         "-o in a directory that is missing: exit 4 before any process "
         "is read", "exit %d: %s" % (r.returncode, r.stderr))
    r = run("--all", "-e", "openmetrics", str(gone), str(gone - 1)
            if not os.path.exists("/proc/%d" % (gone - 1)) else str(gone))
    T.ok(r.returncode == 2 and r.stdout == "" and
         "no process matches the PID" in r.stderr and str(gone) in r.stderr,
         "PIDs none of which runs: exit 2, no exposition, as for -n and "
         "a cgroup", "exit %d: %s" % (r.returncode, r.stderr))

    r = run("--all", "-e", "openmetrics", str(pids[1]), str(gone),
            str(pids[1]), str(gone))
    ss = samples(r.stdout)
    series = [ln for ln in r.stdout.split("\n") if SAMPLE.match(ln)]
    T.ok(r.returncode == 0 and len(series) == len(set(series)) and
         families_together(r.stdout) and
         len([1 for n, lb, v in ss if n == "vmscope_largest_free_bytes"])
         == 1 and unread(ss, "exited") == 1,
         "a PID given twice: every series once, the missing one given "
         "twice counted once", r.stdout[-2000:])

    w, line = T.start([T.target("renamed"), "vmsallmain", "vmsallworker"])
    tid = int(line.split()[1])
    r = run("--all", "-e", "openmetrics", str(w.pid), str(tid))
    series = [ln for ln in r.stdout.split("\n") if SAMPLE.match(ln)]
    lf = [lb for n, lb, v in samples(r.stdout)
          if n == "vmscope_largest_free_bytes"]
    T.ok(r.returncode == 0 and len(series) == len(set(series)) and
         families_together(r.stdout) and
         [(lb["pid"], lb["comm"]) for lb in lf] ==
         [(str(w.pid), "vmsallmain")] and
         ws_of(samples(r.stdout), w.pid) == rollup_rss(w.pid),
         "a PID and a thread of it: the process once, under its comm",
         lf)
    T.ok(r.stderr.strip() == "vmscope: %d is a thread of process %d: "
         "counting %d" % (tid, w.pid, w.pid),
         "... a line on stderr says the thread's id counts as its "
         "process", r.stderr)
    r = run("--all", "-e", "openmetrics", str(tid))
    T.eq([lb["pid"] for n, lb, v in samples(r.stdout)
          if n == "vmscope_largest_free_bytes"], [str(w.pid)],
         "a thread's id alone: its process")
    # past a few PIDs /proc is listed to tell threads apart (run_all_list.c
    # FEW_PIDS, 8): the thread's id among nine
    r = run("--all", "-e", "openmetrics", str(tid), *[str(w.pid)] * 8)
    T.ok([lb["pid"] for n, lb, v in samples(r.stdout)
          if n == "vmscope_largest_free_bytes"] == [str(w.pid)] and
         "is a thread of process %d" % w.pid in r.stderr,
         "the thread's id among nine PIDs (/proc listed): its process, "
         "once, and the line on stderr", r.stderr)
    T.kill(w)

    # a zombie: this test's child, exited, not yet reaped
    z = subprocess.Popen(["true"])
    deadline = time.time() + 60
    while time.time() < deadline:
        st = open("/proc/%d/stat" % z.pid).read()
        if st[st.rindex(")") + 2] == "Z":
            break
        time.sleep(0.01)  # polling its state, bounded by the deadline
    r = run("--all", "-e", "openmetrics", str(z.pid))
    T.eq(unread(samples(r.stdout), "no_memory"), 1,
         "a zombie named by PID: counted, reason=no_memory")
    r = run("--all", "-e", "openmetrics")
    T.ok(not any(lb.get("pid") == str(z.pid) for n, lb, v in
                 samples(r.stdout)) and unread(samples(r.stdout),
                                               "no_memory") == 0,
         "--all leaves a zombie out, uncounted")
    z.wait()
    kthreads_left_out(r.stdout)

    h, _ = T.start([T.target("hostile_target"), "threads"])
    deadline = time.time() + 60
    while time.time() < deadline and not (
            T.proc_state(h.pid) == "Z" and len(T.tids(h.pid)) > 80):
        time.sleep(0.005)  # polling its state, bounded by the deadline
    live = [t for t in T.tids(h.pid) if t != h.pid][0]
    # its threads may still be touching their first pages (stacks) when
    # the main thread is a zombie: a capture counts when the kernel's Rss
    # is the same before and after it (a few tries)
    for _ in range(20):
        before = rollup_rss(h.pid, live)
        r = run("--all", "-e", "openmetrics", str(h.pid))
        after = rollup_rss(h.pid, live)
        if before == after:
            break
    ss = samples(r.stdout)
    T.ok(T.proc_state(h.pid) == "Z" and unread(ss, "no_memory") == 0 and
         ws_of(ss, h.pid) == after and before == after,
         "a process whose main thread exited, named by PID: read through "
         "a live thread (working set %d, its smaps_rollup Rss %d before "
         "the capture and %d after), not no_memory"
         % (ws_of(ss, h.pid), before, after), r.stderr)
    r = run("--all", "-e", "openmetrics", str(live))
    ss = samples(r.stdout)
    T.ok(unread(ss, "no_memory") == 0 and
         {lb["pid"] for n, lb, v in ss
          if n == "vmscope_largest_free_bytes"} == {str(h.pid)},
         "... named by a live thread's id: the process, by its pid",
         r.stderr)
    r = run("--all", "-e", "openmetrics")
    T.ok(ws_of(samples(r.stdout), h.pid) > 0,
         "--all: the process whose main thread exited is in it")
    T.kill(h)

    if os.geteuid() == 0 and shutil.which("setpriv"):
        r = run("--all", "-e", "openmetrics", *map(str, pids),
                pre=["setpriv", "--reuid=65534", "--regid=65534",
                     "--clear-groups"])
        ss = samples(r.stdout)
        T.ok(r.returncode == 0 and unread(ss, "permission") == 3 and
             not any(n == "vmscope_largest_free_bytes" for n, _, _ in ss),
             "as nobody: root's three counted, reason=permission",
             r.stdout[-1500:] + r.stderr)
    else:
        T.skip("as nobody: counted with reason=permission",
               "needs root and setpriv")

    r = run("--all", "-e", "openmetrics", "--top=1", "-n", comm)
    ss = samples(r.stdout)
    rows = {lb["pid"] for n, lb, v in ss if n == "vmscope_ws_bytes"}
    T.ok(len(rows) == 2 and "other" in rows and rows - {"other"} <=
         {str(p) for p in pids}, "--top=1: one process, one other row",
         rows)
    summed = [v for n, lb, v in ss if n == "vmscope_summed_processes"]
    T.eq(summed, [2.0], "--top=1: the other row sums two")
    total = sum(v for n, lb, v in ss if n == "vmscope_ws_bytes" and
                lb.get("type") != "page_table")
    T.eq(total, sum(rollup_rss(p) for p in pids),
         "--top=1: the working sets add up to the kernel's Rss")

    r = run("--all", "-e", "openmetrics", "/")
    got = {lb["pid"] for n, lb, v in samples(r.stdout)
           if n == "vmscope_largest_free_bytes"}
    T.ok(r.returncode == 0 and {str(p) for p in pids} <= got,
         "cgroup /: every process, the targets among them",
         "exit %d, the targets missing %r: %s" % (
             r.returncode, sorted({str(p) for p in pids} - got),
             r.stderr[-3000:]))
    r = run("--all", "-e", "openmetrics", "/no/such/cgroup-vmscope")
    T.ok(r.returncode == 2 and "no process matches" in r.stderr,
         "a cgroup path that holds no process: exit 2", r.stderr)
    in_a_cgroup(pids, comm)
    in_a_cgroup(pids, comm, sub="payload")

    # a runtime's managed heap: the figures -e json gives for that process
    py = os.path.join(T.ROOT, "tests", "targets", "pyarenas.py")
    pp, _ = T.start([sys.executable, py], stderr=subprocess.DEVNULL)
    snap = T.vmscope_json(pp.pid)
    ms = [m for m in snap["managed"] if m["runtime"] == "cpython"]
    r = run("--all", "-e", "openmetrics", str(pp.pid))
    ss = samples(r.stdout)
    got = {n: v for n, lb, v in ss if lb.get("runtime") == "cpython"}
    T.eq(got.get("vmscope_managed_committed_bytes"),
         float(sum(m["committed"] for m in ms)) if ms else None,
         "cpython's managed heap committed = -e json's")
    used = [m["used"] for m in ms if m["used"] is not None]
    T.eq(got.get("vmscope_managed_used_bytes"),
         float(sum(used)) if used else None,
         "cpython's managed heap used = -e json's (absent when unknown)")
    T.ok(any(n == "vmscope_heap_in_use_bytes" and
             lb.get("allocator") == "glibc" and v > 0 for n, lb, v in ss),
         "cpython: its glibc heap's bytes in use beside its arenas")
    # its arenas placed by obmalloc's own vector, and --all's Managed
    # Heap type as one capture's (--all's look-ups in the run's cache of
    # ELF files, not a walk of each file's symbols)
    T.ok(ms and all("arenas vector" in m["detail"] for m in ms),
         "cpython: each arena's range as obmalloc's arenas vector says")
    mh = [t for t in snap["types"] if t["type"] == "managed_heap"]
    for key, fam in (("size", "vmscope_size_bytes"),
                     ("blocks", "vmscope_blocks")):
        T.eq([v for n, lb, v in ss if n == fam and
              lb.get("type") == "managed_heap"],
             [float(mh[0][key])] if mh else [],
             "cpython: the Managed Heap type's %s = -e json's" % key)

    # a glibc target that printed its own mallinfo2 and mallocs no more
    hp, line = T.start([T.target("heap_arenas"), "normal", "4"])
    want = T.ready_fields(line)
    r = run("--all", "-e", "openmetrics", str(hp.pid))
    ss = samples(r.stdout)
    got = {n: v for n, lb, v in ss if lb.get("allocator") == "glibc" and
           lb.get("pid") == str(hp.pid)}
    T.eq(got, {"vmscope_heap_in_use_bytes": float(want["uordblks"]),
               "vmscope_heap_free_bytes": float(want["fordblks"])},
         "glibc heaps: in use and free = the target's mallinfo2 "
         "uordblks and fordblks")
    st = open("/proc/%d/status" % hp.pid).read()
    T.ok(re.search(r"^TracerPid:\s+0$", st, re.M) and
         T.proc_state(hp.pid) in "SR",
         "the target was walked running: not traced, not stopped")
    # a main arena that is not contiguous (sbrk failed: its segments
    # found by reading chunk headers, which the lists-only walk of a
    # running target does too): the same figures (it was SIGFPE)
    np_, line = T.start([T.target("heap_noncontig")])
    nwant = T.ready_fields(line)
    r = run("--all", "-e", "openmetrics", str(np_.pid))
    got = {n: v for n, lb, v in samples(r.stdout)
           if lb.get("allocator") == "glibc" and
           lb.get("pid") == str(np_.pid)}
    T.eq((r.returncode, got),
         (0, {"vmscope_heap_in_use_bytes": float(nwant["uordblks"]),
              "vmscope_heap_free_bytes": float(nwant["fordblks"])}),
         "a main arena not contiguous: exit 0, in use and free = its "
         "mallinfo2's")
    T.kill(np_)
    # the lean capture of --all (threads without names, the task list
    # read only for more than one thread, its own identity) finds the
    # layout a whole capture finds: every type's size and regions, the
    # stacks of its five threads among them, and of a one-thread target
    for pid in (hp.pid, pids[0]):
        lean = layout_of(samples(run("--all", "-e", "openmetrics",
                                     str(pid)).stdout), pid)
        whole = layout_of(samples(run("-e", "openmetrics",
                                      str(pid)).stdout), pid)
        T.ok(lean and lean == whole,
             "target %d: --all's size and regions per type = a whole "
             "capture's" % pid, (lean, whole))
    if promtool:
        c = subprocess.run([promtool, "check", "metrics"], input=r.stdout,
                           capture_output=True, text=True, timeout=120)
        T.ok(c.returncode == 0, "with heap families: promtool check "
             "metrics", c.stdout + c.stderr)
    reader_ahead(pids)
    # --top=1 of the heap target and the CPython one: whichever is summed,
    # its heap figures are in its comm's other row
    r = run("--all", "-e", "openmetrics", "--top=1", str(hp.pid),
            str(pp.pid))
    ss = samples(r.stdout)
    heap = [(lb["pid"], v) for n, lb, v in ss
            if n == "vmscope_heap_in_use_bytes"]
    alone = sum(v for n, lb, v in samples(
        run("--all", "-e", "openmetrics", str(pp.pid)).stdout)
        if n == "vmscope_heap_in_use_bytes")
    T.ok(len(heap) == 2 and "other" in {p for p, v in heap} and
         sum(v for p, v in heap) == want["uordblks"] + alone,
         "--top=1: the summed process's heap figures in its other row, "
         "the two adding up to each one's own", (heap, alone))

    for args, what in ((["--all", "-s"], "--all without -e openmetrics"),
                       (["--all", "-e", "json"], "--all -e json"),
                       (["--all", "-e", "openmetrics", "-b", "fork"],
                        "--all -b fork"),
                       (["-e", "openmetrics", "--top=2", "1"],
                        "--top without --all"),
                       (["--all", "-e", "openmetrics", "--top=0"],
                        "--top=0")):
        r = run(*args)
        T.eq(r.returncode, 1, "usage error: %s" % what)
    T.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
