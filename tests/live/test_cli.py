#!/usr/bin/env python3
"""The command line: exit statuses, one-line messages, outputs.

  - no such process: 2, "no such process"; a kernel thread: 2 or 3, one
    line saying so;
  - another user's process as a non-root user (setpriv to uid 65534, when
    run as root; pid 1 otherwise): 2 and a message naming the uids, with and
    without -F; root reads another user's process (and freezes it), but
    not without CAP_SYS_PTRACE (a message saying so); --list as uid 65534
    shows root's process with PSS '-' and why;
  - bad options: 1, a message on stderr, nothing on stdout;
  - -o: a missing directory (4), a directory in the way (4), a write error
    (RLIMIT_FSIZE: 4): no file and no temporary file left; a good -o writes
    complete JSON and replaces an old file;
  - a process that exits during capture (exit 2 or 3 with one line, never a
    signal, never a short snapshot passed off as whole), with and without
    -F; a process whose regions vanish and reappear while it is read (0, a
    well-formed export, not left stopped or traced); vmscope -F killed with
    SIGKILL mid-capture (the target runs on, untraced); /proc not mounted
    (a one-line message, 2 or 3);
  - the summary has every type label and column; --list has a known pid and
    name; -n NAME finds a uniquely named process, and refuses an unknown or
    ambiguous name; -- CMD launches, reports and leaves nothing behind,
    even when vmscope dies of SIGPIPE (`| head`);
  - every CSV row has as many fields as the header; text, CSV and JSON agree
    on the figures (same stopped process);
  - a thread's id (/proc/TID reads as if it were a process) stands for its
    process: -s TID and -e json TID show the process (its pid, its name,
    not the thread's), saying so in one line on stderr; -d TID PID
    compares the process with itself.
"""
import csv
import fcntl
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

TYPE_LABELS = ["Image", "Mapped File", "Shareable", "Heap", "Managed Heap",
               "Stack", "Private Data", "Page Table", "Free", "Total"]
COLUMNS = ["Size", "Committed", "Private", "Total WS", "Private WS",
           "Shareable WS", "Shared WS", "Locked WS", "PSS", "Swap", "Blocks",
           "Largest"]
JSON_TYPES = ["image", "mapped_file", "shareable", "heap", "managed_heap",
              "stack", "private_data", "page_table", "free"]


def err_lines(r):
    return [l for l in r.stderr.decode(errors="replace").splitlines() if l]


def one_line_error(r, rc, what, pattern=None):
    """rc as expected, stdout empty, the first stderr line starts with
    'vmscope' and matches pattern; at most a 'Try --help' hint after it."""
    lines = err_lines(r)
    ok = (r.returncode == rc and not r.stdout and len(lines) >= 1 and
          "vmscope" in lines[0] and
          all(l.startswith("Try ") for l in lines[1:]) and
          (pattern is None or re.search(pattern, lines[0], re.I)))
    T.ok(ok, "%s: exit %d, one line%s" % (what, rc,
                                          pattern and " /%s/" % pattern or ""),
         "exit %d, stderr %r, stdout %r" % (r.returncode, lines,
                                            r.stdout[:200]))
    return lines[0] if lines else ""


def dead_pid():
    """A pid that is not in use: a child that ran and was reaped."""
    p = subprocess.Popen(["true"])
    p.wait()
    pid = p.pid
    while os.path.exists("/proc/%d" % pid):
        pid += 7919
    return pid


def no_temp_left(d, what):
    left = [n for n in os.listdir(d) if ".tmp" in n]
    T.eq(left, [], "%s: no temporary file left" % what)


def as_nobody(args, **kw):
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                           "--clear-groups", T.VMSCOPE] + [str(a)
                                                           for a in args],
                          capture_output=True, timeout=60, **kw)


def test_no_such_process():
    pid = dead_pid()
    for args in (("-s", pid), ("-e", "json", pid), ("-F", "-s", pid),
                 ("-e", "csv", "-o", "/tmp/vmscope-never-%d.csv" % pid, pid)):
        r = T.run_vmscope(*args)
        one_line_error(r, 2, "no such process (%s)" % " ".join(
            str(a) for a in args[:-1]), "no such process")
    T.ok(not os.path.exists("/tmp/vmscope-never-%d.csv" % pid),
         "no such process: -o wrote no file")


def test_permissions(ek):
    if os.geteuid() != 0:
        # a non-root user against pid 1 (root's)
        for extra in ((), ("-F",)):
            r = T.run_vmscope(*extra, "-s", 1)
            line = one_line_error(r, 2, "another user's process%s"
                                  % (" -F" if extra else ""),
                                  "not permitted")
            T.ok("uid 0" in line, "... the message names the owner's uid",
                 line)
        T.skip("root reads another user's process", "not root")
        return
    if not shutil.which("setpriv"):
        T.skip("another user's process", "setpriv is not installed")
        return
    if as_nobody(["-V"]).returncode != 0:
        T.skip("another user's process", "uid 65534 cannot run %s (the "
               "permissions of its directories)" % T.VMSCOPE)
        return
    for extra in ((), ("-F",), ("-e", "json")):
        args = list(extra) + (["-s"] if "-e" not in extra else []) + [ek.pid]
        r = as_nobody(args)
        line = one_line_error(r, 2, "uid 65534 on root's process (%s)"
                              % " ".join(extra), "not permitted")
        T.ok("uid 0" in line and "65534" in line,
             "... the message names both uids", line)
    T.eq(T.proc_state(ek.pid) in "tT", False,
         "uid 65534's attempt left root's process running")
    # root against a process of another user
    p, _ = T.start(["setpriv", "--reuid=65534", "--regid=65534",
                    "--clear-groups", T.target("manyregions"), "10"])
    for extra in ((), ("-F",)):
        r = T.run_vmscope("-e", "json", *extra, p.pid)
        T.eq(r.returncode, 0, "root reads uid 65534's process%s"
             % (" -F" if extra else ""))
        if r.returncode == 0:
            j = json.loads(r.stdout)
            T.eq(j["process"].get("uid"), 65534, "... and reports its uid")
    T.eq(T.tracer_pid(p.pid), 0, "... and leaves it untraced")
    # root without CAP_SYS_PTRACE cannot freeze another user's process
    r = subprocess.run(["setpriv", "--bounding-set=-sys_ptrace", T.VMSCOPE,
                        "-F", "-s", str(p.pid)], capture_output=True,
                       timeout=60)
    line = one_line_error(r, 2, "root without CAP_SYS_PTRACE, -F on uid "
                          "65534's process", "CAP_SYS_PTRACE")
    T.ok("without CAP_SYS_PTRACE" in line, "... says the capability is "
         "missing", line)
    # --list as uid 65534: root's process is listed, its PSS '-' and why
    r = as_nobody(["--list"])
    mine = [l for l in r.stdout.decode().splitlines()
            if l.split()[:1] == [str(ek.pid)]]
    T.ok(r.returncode == 0 and mine and mine[0].split()[4] == "-" and
         "(other user)" in mine[0],
         "--list as uid 65534: root's process with PSS '-' and why", mine)
    # uid 65534 reads its own process
    r = as_nobody(["-e", "json", p.pid])
    T.eq(r.returncode, 0, "uid 65534 reads its own process",
         ) if r.returncode == 0 else T.ok(
        False, "uid 65534 reads its own process", err_lines(r))
    T.kill(p)


def test_kernel_thread():
    """kthreadd (pid 2) has no address space."""
    try:
        with open("/proc/2/stat") as f:
            is_kthreadd = "(kthreadd)" in f.read()
    except OSError:
        is_kthreadd = False
    if not is_kthreadd:
        T.skip("a kernel thread", "pid 2 is not kthreadd here (a container?)")
        return
    r = T.run_vmscope("-s", 2)
    one_line_error(r, r.returncode if r.returncode in (2, 3) else 3,
                   "a kernel thread (pid 2): exit 2 or 3", "kernel thread")


def test_usage(ek):
    cases = [
        (["--bogus"], None),
        (["-e", "bogus", ek.pid], "bogus"),
        (["-s", "abc"], "abc"),
        (["-s", "0"], None),
        (["-s", ek.pid, "7"], None),
        (["-s"], None),
        (["-s", "-e", "json", ek.pid], None),
        (["-b", "nope", "-s", ek.pid], "nope"),
        (["-o", "/tmp/x", ek.pid], None),
        (["--list", "--sort=bogus"], "bogus"),
        (["-s", "-n", "x", ek.pid], None),
        (["--delay=-1", "-s", "--", "true"], None),
        # one side given, an option taken for the other: a usage error,
        # not "cannot open -s" (4)
        (["-d", "a.vms", "-s"], "two snapshots"),
        (["-d", "-s", "a.vms"], "two snapshots"),
        # getopt's own words, said as every other message: "vmscope: "
        # first, a control byte given escaped, never raw
        (["--x\x1b[2J"], r"^vmscope: unknown .*--x\\x1b\[2J$"),
        (["-\x1b"], r"^vmscope: unknown option -\\x1b$"),
        (["--summary=3"], r"^vmscope: --summary takes no value"),
        (["-b"], r"^vmscope: -b needs a value"),
        (["--output"], r"^vmscope: --output needs a value"),
        # a letter inside a cluster after a long option: the letter named,
        # not the word before (getopt has not moved past the cluster)
        (["--bytes", "-Xs", "1"], r"^vmscope: unknown option -X$"),
        (["-sb"], r"^vmscope: -b needs a value"),
    ]
    for args, pat in cases:
        r = T.run_vmscope(*args)
        one_line_error(r, 1, "usage: vmscope %s" % " ".join(
            ascii(str(a))[1:-1] for a in args), pat)
    r = T.run_vmscope("--help")
    T.ok(r.returncode == 0 and b"usage" in r.stdout.lower(),
         "--help: exit 0, usage on stdout")
    r = T.run_vmscope("-V")
    T.ok(r.returncode == 0 and r.stdout.startswith(b"vmscope "),
         "-V: exit 0, the version")


def test_output(ek, tmp):
    d = os.path.join(tmp, "out")
    os.mkdir(d)
    # -w and -o naming one file (spelt two ways): refused before either
    # is written, not the snapshot overwritten by the summary
    for o in ("same.vms", os.path.join("..", "out", ".", "same.vms")):
        r = T.run_vmscope("-w", os.path.join(d, "same.vms"), "-o",
                          os.path.join(d, o), "-s", ek.pid)
        one_line_error(r, 1, "-w and -o of one file (%s)" % o, "both name")
    T.eq(os.listdir(d), [], "-w and -o of one file: nothing written")
    # a missing directory
    r = T.run_vmscope("-e", "json", "-o", os.path.join(d, "no", "x.json"),
                      ek.pid)
    one_line_error(r, 4, "-o into a missing directory", None)
    T.eq(os.listdir(d), [], "-o into a missing directory: nothing created")
    # a directory in the way: the rename fails
    os.mkdir(os.path.join(d, "isdir"))
    r = T.run_vmscope("-e", "json", "-o", os.path.join(d, "isdir"), ek.pid)
    one_line_error(r, 4, "-o onto a directory", None)
    no_temp_left(d, "-o onto a directory")
    # a write error: the file size limit
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    out = os.path.join(d, "big.json")
    r = T.run_vmscope("-e", "json", "-o", out, ek.pid, preexec_fn=limit)
    one_line_error(r, 4, "-o with a write error (RLIMIT_FSIZE)", None)
    T.ok(not os.path.exists(out), "-o with a write error: no file")
    no_temp_left(d, "-o with a write error")
    # a good one, over an old file
    with open(out, "w") as f:
        f.write("old")
    r = T.run_vmscope("-e", "json", "-o", out, ek.pid)
    T.ok(r.returncode == 0 and not r.stdout, "-o FILE: exit 0, nothing on "
         "stdout", err_lines(r))
    try:
        with open(out) as f:
            j = json.load(f)
        T.ok(j["format"] == "vmscope" and j["process"]["pid"] == ek.pid and
             len(j["regions"]) > 10,
             "-o FILE: the old file is replaced by complete JSON")
    except ValueError as e:
        T.ok(False, "-o FILE: complete JSON", e)
    no_temp_left(d, "-o FILE")
    r = T.run_vmscope("-s", "-o", os.path.join(d, "sum.txt"), ek.pid)
    with open(os.path.join(d, "sum.txt")) as f:
        T.ok(r.returncode == 0 and "Total" in f.read(),
             "-s -o FILE writes the summary")


def test_exits_during_capture():
    """manyregions exits after a few ms while vmscope reads it."""
    bad = []
    outcomes = {}
    rnd = T.rng(7)
    for i in range(14):
        ms = [0, 2, 5, 10, 20, 30, 45][i % 7] + rnd.randint(0, 3)
        freeze = ("-F",) if i % 2 else ()
        p, _ = T.start([T.target("manyregions"), "20000", "exit:%d" % ms])
        reap = threading.Thread(target=p.wait) if i % 4 >= 2 else None
        if reap:  # half the time the pid goes away entirely
            reap.start()
        r = T.run_vmscope("-e", "json", *freeze, p.pid)
        lines = err_lines(r)
        outcomes[r.returncode] = outcomes.get(r.returncode, 0) + 1
        if r.returncode == 0:
            j = json.loads(r.stdout)
            n = sum(1 for x in j["regions"] if x["perms"] in ("rw-p", "r--p")
                    and not x["path"])
            if n < 20000 and not j["capture"]["partial"]:
                bad.append((ms, freeze, "short snapshot not marked partial",
                            len(j["regions"])))
        elif r.returncode not in (2, 3) or len(lines) != 1 or \
                not lines[0].startswith("vmscope: "):
            bad.append((ms, freeze, r.returncode, lines))
        if reap:
            reap.join(10)
        T.kill(p)
    T.ok(not bad, "a process exiting during capture: exit 0 with the whole "
         "snapshot, or 2/3 with one line (outcomes %r)" % outcomes, bad)


def test_churn():
    """Regions vanish and reappear between the reads."""
    p, _ = T.start([T.target("manyregions"), "3000", "churn"])
    for extra in ((), ("-F",)):
        label = "regions churning%s" % (" -F" if extra else "")
        r = T.run_vmscope("-e", "json", *extra, p.pid)
        T.eq(r.returncode, 0, "%s: exit 0" % label)
        if r.returncode == 0:
            j = json.loads(r.stdout)
            spans = [(T.hexint(x["start"]), T.hexint(x["end"]))
                     for x in j["regions"]]
            T.ok(all(a < b for a, b in spans) and
                 all(spans[i][1] <= spans[i + 1][0]
                     for i in range(len(spans) - 1)),
                 "%s: regions sorted, non-empty, not overlapping" % label)
        T.ok(T.proc_state(p.pid) not in "tT" and T.tracer_pid(p.pid) == 0,
             "%s: the process runs on, untraced" % label)
    T.kill(p)


def test_killed_while_frozen():
    """vmscope -F killed (SIGKILL) at random moments of its capture: the
    kernel detaches the target, which must run on, untraced."""
    p, _ = T.start([T.target("manyregions"), "20000"])
    rnd = T.rng(11)
    bad = []
    for i in range(8):
        v = subprocess.Popen([T.VMSCOPE, "-F", "-e", "json", str(p.pid)],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0.0, 0.08))
        v.kill()
        v.wait()
        deadline = time.time() + 5
        while time.time() < deadline and (
                T.tracer_pid(p.pid) or T.proc_state(p.pid) in "tT"):
            time.sleep(0.01)
        if T.tracer_pid(p.pid) or T.proc_state(p.pid) in "tT":
            bad.append((i, T.proc_state(p.pid), T.tracer_pid(p.pid)))
    T.ok(not bad, "vmscope -F killed mid-capture leaves the target running "
         "and untraced", bad)
    T.kill(p)


def test_proc_unmounted(ek):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        T.skip("/proc not mounted", "needs root and unshare")
        return
    if T.sanitizer_build():
        T.skip("/proc not mounted", "a sanitizer build: LeakSanitizer "
               "itself needs /proc")
        return
    probe = subprocess.run(["unshare", "-m", "--propagation", "private",
                            "true"], capture_output=True)
    if probe.returncode != 0:
        T.skip("/proc not mounted", "unshare -m is not permitted here")
        return
    for args in (["-s", ek.pid], ["-F", "-e", "json", ek.pid], ["--list"]):
        r = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c",
             'mount -t tmpfs none /proc && exec "$@"', "sh", T.VMSCOPE] +
            [str(a) for a in args], capture_output=True, timeout=60)
        one_line_error(r, 2 if r.returncode == 2 else 3,
                       "/proc not mounted (%s)" % " ".join(map(str, args)),
                       "/proc")


def test_summary_list_name(ek, tmp):
    r = T.run_vmscope("-s", ek.pid)
    out = r.stdout.decode()
    T.eq(r.returncode, 0, "-s: exit 0")
    rows = {l.split("  ")[0].strip() for l in out.splitlines()}
    T.ok(all(any(l.startswith(lab + " ") for l in out.splitlines())
             for lab in TYPE_LABELS),
         "-s: a row for every type and the total",
         [lab for lab in TYPE_LABELS if lab not in rows])
    header = next((l for l in out.splitlines() if l.startswith("Type")), "")
    T.ok(all(c in header for c in COLUMNS), "-s: every column",
         [c for c in COLUMNS if c not in header])

    r = T.run_vmscope("--list")
    mine = [l for l in r.stdout.decode().splitlines()
            if l.split()[:1] == [str(ek.pid)]]
    T.ok(r.returncode == 0 and mine and "everykind" in mine[0],
         "--list: has the target's pid and name", mine)
    r = T.run_vmscope("--list", "--sort=pid")
    pids = [int(l.split()[0]) for l in r.stdout.decode().splitlines()[1:]]
    T.ok(r.returncode == 0 and pids == sorted(pids) and ek.pid in pids,
         "--list --sort=pid: sorted by pid")

    # -n NAME: a uniquely named copy of a target
    name = "vmsn%06d" % random.randint(0, 999999)
    exe = os.path.join(tmp, name)
    shutil.copy(T.target("manyregions"), exe)
    p, _ = T.start([exe, "10"])
    r = T.run_vmscope("-n", name, "-e", "json")
    T.ok(r.returncode == 0 and json.loads(r.stdout)["process"]["pid"] ==
         p.pid, "-n NAME: finds the uniquely named process",
         err_lines(r))
    r = T.run_vmscope("-n", name + "x", "-s")
    one_line_error(r, 2, "-n NAME: no such name", "no process named")
    p2, _ = T.start([exe, "10"])
    r = T.run_vmscope("-n", name, "-s")
    line = one_line_error(r, 1, "-n NAME: two processes of that name", None)
    T.ok(str(p.pid) in line and str(p2.pid) in line,
         "... the message lists both pids", line)
    T.kill(p)
    T.kill(p2)


def test_thread_id():
    p, line = T.start([T.target("renamed"), "vmsmain", "vmsworker"])
    tid = int(line.split()[1])
    r = T.run_vmscope("-s", tid)
    T.ok(r.returncode == 0 and r.stdout.decode().startswith(
        "Process:     %d vmsmain\n" % p.pid),
         "-s TID: its process, with the process's name",
         r.stdout[:80] + r.stderr)
    T.eq(err_lines(r), ["vmscope: %d is a thread of process %d: showing "
                        "%d" % (tid, p.pid, p.pid)],
         "-s TID: one line on stderr saying so")
    r = T.run_vmscope("-e", "json", tid)
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    T.ok(j.get("process", {}).get("pid") == p.pid and
         j["process"]["name"] == "vmsmain" and
         not any(t["tid"] == tid and t["name"] != "vmsworker"
                 for t in j["threads"]),
         "-e json TID: the process, the thread among its threads",
         j.get("process", r.stderr))
    r = T.run_vmscope("-d", tid, p.pid, "-e", "json")
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    T.ok(j.get("a", {}).get("process", {}).get("pid") == p.pid,
         "-d TID PID: the process on both sides", r.stderr)
    r = T.run_vmscope("-s", p.pid)
    T.ok(r.returncode == 0 and not r.stderr, "-s PID: nothing on stderr",
         r.stderr)
    T.kill(p)


def procs_with(arg):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if arg.encode() in f.read():
                        out.append(int(d))
            except OSError:
                pass
    return out


def test_launch(tmp):
    data = os.path.join(tmp, "launched-%d.dat" % random.randint(0, 10**9))
    r = T.run_vmscope("-e", "json", "--delay=0.5", "--",
                      T.target("everykind"), data)
    T.eq(r.returncode, 0, "-- CMD: exit 0")
    if r.returncode == 0:
        j = json.loads(r.stdout)
        T.ok(j["process"]["name"] == "everykind" and
             data in j["process"]["cmdline"] and
             any(x["path"] == data for x in j["regions"]),
             "-- CMD: reports the launched process",
             (j["process"], len(j["regions"])))
    deadline = time.time() + 5
    while procs_with(data) and time.time() < deadline:
        time.sleep(0.02)
    T.eq(procs_with(data), [], "-- CMD: leaves no process behind")
    # ended by SIGTERM first (vmscope.1, --delay), which it may handle
    # (as the launched everykind above needs, its handler is set long
    # before --delay's end)
    said = os.path.join(tmp, "got-term")
    prog = ("import signal, sys, time\n"
            "def term(*_):\n"
            "    open(%r, 'w').write('TERM')\n"
            "    sys.exit(0)\n"
            "signal.signal(signal.SIGTERM, term)\n"
            "while True: time.sleep(60)\n" % said)
    r = T.run_vmscope("-s", "--delay=0.5", "--", sys.executable, "-c", prog)
    T.ok(r.returncode == 0 and os.path.exists(said),
         "-- CMD: ended by SIGTERM, which it may handle",
         "exit %d, %r" % (r.returncode, r.stderr[-300:]))
    # vmscope killed by SIGPIPE (`vmscope -e json -- CMD | head`): CMD
    # must not outlive it
    exe = os.path.join(tmp, "vmsorph%06d" % random.randint(0, 999999))
    shutil.copy(T.target("manyregions"), exe)
    # A pipe of one page: the export (of whatever the target holds by
    # then) cannot all fit in it before the reader goes away, however
    # loaded the machine is.
    rfd, wfd = os.pipe()
    fcntl.fcntl(wfd, 1031, 4096)  # F_SETPIPE_SZ
    v = subprocess.Popen([T.VMSCOPE, "-e", "json", "--delay=0.2", "--", exe,
                          "20000"], stdout=wfd, stderr=subprocess.DEVNULL)
    os.close(wfd)
    with os.fdopen(rfd, "rb", buffering=0) as f:
        head = f.read(10)
    rc = v.wait(timeout=60)
    deadline = time.time() + 5
    while procs_with(exe) and time.time() < deadline:
        time.sleep(0.02)
    left = procs_with(exe)
    for pid in left:  # clean up after a failure: these are ours
        os.kill(pid, signal.SIGKILL)
    T.ok(head.startswith(b"{") and rc == -signal.SIGPIPE and not left,
         "-- CMD | head: vmscope dies of SIGPIPE and CMD with it",
         "head %r, exit %r, left %r" % (head, rc, left))
    r = T.run_vmscope("-s", "--", os.path.join(tmp, "no-such-program"))
    one_line_error(r, 1, "-- CMD that does not exist", "cannot run")


# Pss and Shared of a library's pages depend on which processes map them at
# that instant, the vmscope reading them included (its CSV path touches
# other libc pages than its JSON path): left out for images and the total.
SHARING = ("pss", "shared_ws")


def compared(j):
    """The figures test_formats_agree compares (see SHARING)."""
    def strip(d, t):
        return {k: v for k, v in d.items()
                if t not in ("image", "total") or k not in SHARING}
    return ([strip(t, t["type"]) for t in j["types"]],
            strip(j["totals"], "total"))


def flanked(pid, *args, tries=10):
    """Runs vmscope ARGS between two JSON exports of the stopped pid and
    retries until those agree (the Pss and shared counts of a stopped
    process still move when other processes map or unmap the same
    libraries). Returns (json, the run, stable?)."""
    for _ in range(tries):
        a = T.run_vmscope("-e", "json", pid)
        r = T.run_vmscope(*args, pid)
        b = T.run_vmscope("-e", "json", pid)
        if a.returncode or b.returncode or r.returncode:
            break
        ja, jb = json.loads(a.stdout), json.loads(b.stdout)
        if compared(ja) == compared(jb):
            return ja, r, True
    return (json.loads(a.stdout) if a.returncode == 0 else None), r, False


def test_formats_agree(ek):
    """The same stopped process in every format, all figures (but SHARING
    for images and the total)."""
    T.sigstop(ek.pid)
    jc, rc, stc = flanked(ek.pid, "-e", "csv")
    jt, rt, stt = flanked(ek.pid, "-e", "text", "--bytes")
    js, rs, sts = flanked(ek.pid, "-s", "--bytes")
    T.sigcont(ek.pid)
    T.ok(jc and jt and js and rc.returncode == rt.returncode ==
         rs.returncode == 0, "json, csv, text and summary: exit 0")
    if not (jc and jt and js):
        return
    if not (stc and stt and sts):
        T.skip("csv, text and json agree", "other processes kept changing "
               "the sharing of its pages")
        return

    # csv
    rows = list(csv.reader(io.StringIO(rc.stdout.decode())))
    head = rows[0]
    T.ok(all(len(x) == len(head) for x in rows),
         "csv: every row has as many fields as the header (%d)" % len(head),
         [(i, len(x)) for i, x in enumerate(rows) if len(x) != len(head)][:5])
    recs = [dict(zip(head, x)) for x in rows[1:]]
    kinds = {x[head[0]] for x in recs}
    T.ok({"type", "total", "region", "child", "thread"} <= kinds,
         "csv: type, total, region, child and thread rows", kinds)
    creg = [x for x in recs if x[head[0]] == "region"]
    T.eq([(x["start"], x["end"], x["type"], int(x["rss"] if "rss" in x
                                                else x["ws"]))
          for x in creg],
         [(x["start"], x["end"], x["type"], x["rss"])
          for x in jc["regions"]],
         "csv and json: the same regions, types, rss")
    cols = ["size", "committed", "private", "ws", "private_ws",
            "shareable_ws", "shared_ws", "locked_ws", "pss", "swap", "blocks",
            "largest"]
    ctypes = {x["type"]: x for x in recs if x[head[0]] == "type"}
    jtypes = {x["type"]: x for x in jc["types"]}
    def tcols(t):
        return [c for c in cols if t not in ("image", "total") or
                c not in SHARING]
    T.eq({t: [int(ctypes[t][c]) for c in tcols(t)] for t in ctypes},
         {t: [jtypes[t][c] for c in tcols(t)] for t in jtypes},
         "csv and json: the same type rows")
    ctot = next(x for x in recs if x[head[0]] == "total")
    T.eq([int(ctot[c]) for c in tcols("total")[:-2]],
         [jc["totals"][c] for c in tcols("total")[:-2]],
         "csv and json: the same total")
    T.eq(sorted(jtypes), sorted(JSON_TYPES), "json: every type")

    # text: the summary table, exact with --bytes
    kcols = cols[:10]

    def table(out):
        res = {}
        for l in out.decode().splitlines():
            for lab in TYPE_LABELS:
                if re.match(r"^%s\s+\d" % re.escape(lab), l):
                    res[lab] = [int(v) for v in re.findall(
                        r"(\d+)", l[len(lab):])]
        return res

    def want(j):
        out = {}
        ty = {x["type"]: x for x in j["types"]}
        for lab, jt_ in zip(TYPE_LABELS[:-2], JSON_TYPES[:-1]):
            t = ty[jt_]
            out[lab] = [t[c] for c in kcols] + [t["blocks"], t["largest"]]
        out["Free"] = [ty["free"]["size"], ty["free"]["blocks"],
                       ty["free"]["largest"]]
        out["Total"] = [j["totals"][c] for c in kcols]
        return out

    skip = [kcols.index(c) for c in SHARING]

    def unshared(tab):
        return {k: [x for i, x in enumerate(v)
                    if k not in ("Image", "Total") or i not in skip]
                for k, v in tab.items()}

    for label, r, j in (("-s", rs, js), ("-e text", rt, jt)):
        got, w = unshared(table(r.stdout)), unshared(want(j))
        bad = [(k, got.get(k), v) for k, v in w.items()
               if got.get(k, [])[:len(v)] != v]
        T.ok(not bad, "text %s --bytes and json: the same figures, exact"
             % label, bad)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-cli-")
    os.chmod(tmp, 0o755)
    try:
        ek, _ = T.start([T.target("everykind"), os.path.join(tmp, "ek.dat")])
        test_no_such_process()
        test_kernel_thread()
        test_permissions(ek)
        test_usage(ek)
        test_output(ek, tmp)
        test_summary_list_name(ek, tmp)
        test_thread_id()
        test_formats_agree(ek)
        test_launch(tmp)
        test_exits_during_capture()
        test_churn()
        test_killed_while_frozen()
        test_proc_unmounted(ek)
        T.kill(ek)
    finally:
        T.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
