#!/usr/bin/env python3
"""Following a traced command's children (vmscope --trace --trace-children).

  - A program that forks a child ("trace_children fork 7 4321"): the
    child's 7 blocks of 4321 bytes leaked in child_leak() are in the
    child's own report, exactly, and nowhere in the parent's; the parent's
    5 of 1234 in parent_leak() are in the launched process's report,
    where the contract puts it today; the 3333-byte block the parent made
    before the fork and the child freed (its copy) stays outstanding in
    the parent, and is one free of memory the child never allocated in
    the child's; "processes" lists both, pid, parent, how, command. The
    traced program's output and exit status are the untraced one's.
  - Without --trace-children the same program's trace is today's: no
    "processes", nothing of the child's.
  - A shell script running two such commands (sh -c "P fork 3 1111; P
    fork 4 2222"): each command is followed as exec'd, each of their
    children as forked by it, each leak with its exact count and bytes
    in its own process, in the JSON and in the text report (each process
    named by its pid and command); the output is the untraced one's.
  - A command run in the background by a script that ends at once (sh
    -c "P fork 2 500 &"): the trace waits for it (the shell says each
    child it makes as fork returns), its child's 2 blocks of 500 bytes in
    child_leak, exact.
  - Bounded: a script running 70 such commands (141 processes) follows
    64 processes, the launched one too, and counts the others; every
    command runs to its end, its output the untraced one's.
  - vmscope SIGKILLed mid-trace ("spin": the launched process, a child
    forked and one exec'd, each recording into its own file): all three
    run on to their normal end (each writes "done"; the parent sees both
    children exit 0).
  - What reaches vmscope's socket is checked (another program of the user
    sends to it, by the name in the traced process's environment): a
    message of the wrong magic, a short one, a file not sealed against
    shrinking, one of the wrong size, one whose header is not the wire's,
    a child announced with a pidfd of another process: none is followed
    or awaited; the trace's three processes are, and it ends with them.
  - Refused, exit 1: --trace-children without --trace, with a PID, and
    without -s or -e (the viewer).
"""
import fcntl
import json
import os
import socket
import struct
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
PROG = T.target("trace_children")


def trace(args, cmd, timeout=300):
    return subprocess.run([T.VMSCOPE, "--trace"] + args + ["--"] + cmd,
                          capture_output=True, timeout=timeout, env=ENV)


def trace_json(cmd, follow=True):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = trace((["--trace-children"] if follow else []) +
                  ["-e", "json", "-o", f.name], cmd)
        T.ok(r.returncode == 0, "trace of %s: exit 0" % " ".join(cmd[-3:]),
             r.stderr.decode(errors="replace"))
        try:
            return json.load(open(f.name)), r
        except ValueError:
            return None, r


def functions(site):
    return [f["function"] or "" for f in site["frames"]]


def sites_in(report, fn):
    """The heap sites of report whose innermost frame is fn."""
    return [s for s in report["sites"] if s["kind"] == "heap" and
            functions(s) and functions(s)[0] == fn]


def outstanding(report, fn):
    """fn's outstanding (count, bytes) summed over its sites."""
    got = sites_in(report, fn)
    return (sum(s["outstanding"]["count"] for s in got),
            sum(s["outstanding"]["bytes"] for s in got))


def forked():
    cmd = [PROG, "fork", "7", "4321"]
    plain = subprocess.run(cmd, capture_output=True, timeout=60)
    d, r = trace_json(cmd)
    if not d:
        return
    T.eq((r.stdout, d["process"]["exit_status"]),
         (plain.stdout, plain.returncode),
         "fork: the traced program's output and exit status are the "
         "untraced one's")
    tr = d["trace"]
    T.eq(tr.get("children"), {"followed": 1, "not_followed": 0,
                              "limit": 64},
         "fork: one child followed, none left out")
    ps = tr.get("processes") or []
    if not T.ok(len(ps) == 2, "fork: two processes listed", ps):
        return
    top, kid = ps
    T.ok(top["how"] == "launched" and top["pid"] == d["process"]["pid"]
         and top["trace"] is None and top["ended"],
         "fork: the launched process first, its report the trace's own",
         top)
    T.ok(kid["how"] == "fork" and kid["ppid"] == top["pid"] and
         kid["pid"] != top["pid"] and kid["ended"] and
         kid["command"] == " ".join(cmd) and kid["trace"],
         "fork: the child, forked by it, its command line, ended",
         {k: kid[k] for k in ("pid", "ppid", "how", "command", "ended")})
    if not kid["trace"]:
        return
    ct = kid["trace"]
    T.eq(outstanding(ct, "child_leak"), (7, 7 * 4321),
         "fork: the child's 7 blocks of 4321 bytes in child_leak, in the "
         "child's report")
    T.eq(outstanding(tr, "child_leak"), (0, 0),
         "fork: nothing of child_leak in the parent's report")
    T.eq(outstanding(tr, "parent_leak"), (5, 5 * 1234),
         "fork: the parent's 5 blocks of 1234 bytes in parent_leak, in "
         "the launched process's report")
    T.eq((outstanding(ct, "parent_leak"), outstanding(ct, "before_fork")),
         ((0, 0), (0, 0)),
         "fork: nothing of the parent's allocations in the child's report")
    T.eq(outstanding(tr, "before_fork"), (1, 3333),
         "fork: the block made before the fork, freed by the child, still "
         "outstanding in the parent")
    T.eq((ct["unknown_frees"], tr["unknown_frees"]), (1, 0),
         "fork: the child's free of its copy is its own free of a block it "
         "never allocated")
    T.eq((ct["dropped"], ct["bad_records"], tr["dropped"],
          tr["bad_records"]), (0, 0, 0, 0),
         "fork: nothing dropped, no record refused, in either")

    d, r = trace_json(cmd, follow=False)
    if d:
        T.ok("processes" not in d["trace"] and "children" not in d["trace"]
             and outstanding(d["trace"], "child_leak") == (0, 0) and
             outstanding(d["trace"], "parent_leak") == (5, 5 * 1234),
             "without --trace-children: today's trace, nothing of the "
             "child", sorted(d["trace"]))


def script():
    script = "%s fork 3 1111; %s fork 4 2222" % (PROG, PROG)
    cmd = ["sh", "-c", script]
    plain = subprocess.run(cmd, capture_output=True, timeout=60)
    d, r = trace_json(cmd)
    if not d:
        return
    T.eq((r.stdout, d["process"]["exit_status"]),
         (plain.stdout, plain.returncode),
         "script: the traced output and exit status are the untraced ones")
    ps = d["trace"].get("processes") or []
    for k, size in ((3, 1111), (4, 2222)):
        line = "%s fork %d %d" % (PROG, k, size)
        ex = [p for p in ps if p["how"] == "exec" and p["command"] == line]
        if not T.ok(len(ex) == 1, "script: '... fork %d %d' followed "
                    "exec'd, once" % (k, size),
                    [(p["pid"], p["how"], p["command"]) for p in ps]):
            continue
        kids = [p for p in ps if p["how"] == "fork" and
                p["ppid"] == ex[0]["pid"]]
        T.ok(len(kids) == 1 and kids[0]["command"] == line,
             "script: its child followed, forked by it", kids)
        T.eq(outstanding(ex[0]["trace"], "parent_leak"), (5, 5 * 1234),
             "script: fork %d: 5 blocks of 1234 in parent_leak, its own" % k)
        if kids:
            T.eq(outstanding(kids[0]["trace"], "child_leak"), (k, k * size),
                 "script: fork %d: its child's %d blocks of %d bytes in "
                 "child_leak" % (k, k, size))
            T.eq(outstanding(ex[0]["trace"], "child_leak"), (0, 0),
                 "script: fork %d: nothing of its child's in its own" % k)

    # the text report: each process by its pid and command, each leak's row
    r = trace(["--trace-children", "-s", "--bytes"], cmd)
    text = r.stdout.decode(errors="replace")
    T.ok(r.returncode == 0 and "\nChildren:    4 followed" in text,
         "script, text: exit 0, 4 children followed", text[-3000:])
    parts = text.split("\nProcess:     ")[1:]
    for k, size in ((3, 1111), (4, 2222)):
        line = "%s fork %d %d" % (PROG, k, size)
        heads = [(p.split("\n")[0], p) for p in parts]
        kid = [p for h, p in heads if h.endswith(" " + line) and
               "\nFollowed:    forked by " in p]
        rows = [ln.split() for ln in (kid[0] if kid else "").splitlines()
                if "child_leak (" in ln]
        T.ok(len(rows) == 1 and rows[0][:4] ==
             ["heap", str(k * size), str(k * size), str(k)],
             "script, text: fork %d's child named by its pid and command, "
             "child_leak's row %d blocks, %d bytes" % (k, k, k * size),
             rows or [h for h, _ in heads])


def background():
    line = "%s fork 2 500" % PROG
    d, r = trace_json(["sh", "-c", line + " >/dev/null &"])
    if not d:
        return
    ps = d["trace"].get("processes") or []
    ex = [p for p in ps if p["how"] == "exec" and p["command"] == line]
    kids = [p for p in ps if ex and p["how"] == "fork" and
            p["ppid"] == ex[0]["pid"]]
    T.ok(len(ex) == 1 and len(kids) == 1 and ex[0]["ended"] and
         kids[0]["ended"] and
         outstanding(ex[0]["trace"], "parent_leak") == (5, 5 * 1234) and
         outstanding(kids[0]["trace"], "child_leak") == (2, 1000),
         "background: the command the script left running waited for, "
         "its and its child's leaks exact",
         [(p["how"], p["command"], p["ended"], p["outstanding"])
          for p in ps])


def bounded():
    n = 70
    script = ('i=0; while [ "$i" -lt %d ]; do %s fork 1 100 || exit 9; '
              'i=$((i+1)); done' % (n, PROG))
    cmd = ["sh", "-c", script]
    plain = subprocess.run(cmd, capture_output=True, timeout=120)
    d, r = trace_json(cmd)
    if not d:
        return
    ch = d["trace"].get("children") or {}
    T.eq((r.stdout, d["process"]["exit_status"]),
         (plain.stdout, plain.returncode),
         "bounded: 70 commands, each run to its end, the output and exit "
         "status the untraced ones'")
    T.ok(ch.get("followed") == 63 and ch.get("limit") == 64 and
         ch.get("followed", 0) + ch.get("not_followed", 0) >= 2 * n and
         len(d["trace"]["processes"]) == 64,
         "bounded: 64 processes followed (the launched one too), the "
         "others (of 141) counted", ch)


def memfds(pid):
    """How many maps of a tracer's shared file pid has."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return sum("memfd:vmscope-trace" in ln for ln in f)
    except OSError:
        return -1


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def killed_midway():
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-children-")
    pids = []
    try:
        p = subprocess.Popen([T.VMSCOPE, "--trace", "--trace-children",
                              "-s", "-o", os.path.join(tmp, "report"), "--",
                              PROG, "spin", tmp], env=ENV,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        # each of the three recording into a file of its own: the launched
        # one its one (vmscope's), the forked child its parent's and its
        # own, the exec'd one its own
        top, fork_kid, exec_kid = None, None, None
        deadline = time.time() + 60
        while time.time() < deadline:
            kids = T.children(p.pid)
            top = kids[0] if kids else None
            pids = ([top] if top else []) + (T.children(top) if top else [])
            fork_kid = next((c for c in pids[1:]
                             if b"spin" in cmdline(c) and memfds(c) == 2),
                            None)
            exec_kid = next((c for c in pids[1:]
                             if b"spinleaf" in cmdline(c) and
                             memfds(c) == 1), None)
            if top and memfds(top) == 1 and fork_kid and exec_kid:
                break
            time.sleep(0.01)
        if not T.ok(top and fork_kid and exec_kid,
                    "spin: the launched process and both children traced, "
                    "each into its own file", pids):
            return
        p.kill()
        p.wait()
        open(os.path.join(tmp, "stop"), "w").close()
        T.ok(all(T.wait_gone(c, 120) for c in (top, fork_kid, exec_kid)),
             "vmscope SIGKILLed: the program and its two children end by "
             "themselves")

        def said(role):
            path = os.path.join(tmp, role)
            return open(path).read() if os.path.exists(path) else None
        T.eq((said("parent"), said("fork"), said("exec")),
             ("done 0 0\n", "done\n", "done\n"),
             "... each having run to its normal end (the children exit 0)")
    finally:
        for c in pids:  # left running by a failure: ended by pid
            if c and not T.wait_gone(c, 0.1):
                T.kill_gone(c)
        shutil.rmtree(tmp, ignore_errors=True)


# base/tracewire.h: the file's size (header 192 bytes, 256 slots of 64
# and rings of 1 MiB), the message (magic, version, how, ppid, child,
# command), its magic and TW_VERSION
FILE_BYTES = 192 + 256 * (64 + (1 << 20))
MSG = struct.Struct("<QIIii240s")
MAGIC, VERSION, EXEC, BORN = 0x31776c66736d76, 2, 1, 4


def memfd(size, sealed=True, header=True):
    """A file for vmscope's socket, the wire's header in it (header): each
    refused by the one check it fails."""
    fd = os.memfd_create("not-a-trace", os.MFD_CLOEXEC |
                         os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    if header:  # magic, version, slots, ring bytes, frames
        os.pwrite(fd, struct.pack("<QIIII", 0x31727476736d76, VERSION,
                                  256, 1 << 20, 48), 0)
    if sealed:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd


def environ_of(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return dict(e.split(b"=", 1) for e in f.read().split(b"\0")
                        if b"=" in e)
    except OSError:
        return {}


def hostile():
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-children-")
    out = os.path.join(tmp, "report.json")
    pids, p = [], None
    try:
        p = subprocess.Popen([T.VMSCOPE, "--trace", "--trace-children",
                              "-e", "json", "-o", out, "--", PROG, "spin",
                              tmp], env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        name, top = None, None
        deadline = time.time() + 60
        while time.time() < deadline and not (name and len(pids) == 3):
            kids = T.children(p.pid)
            top = kids[0] if kids else None
            pids = ([top] if top else []) + (T.children(top) if top else [])
            val = environ_of(top).get(b"VMSCOPE_TRACE_FOLLOW") if top \
                else None
            name = val.split(b":", 4)[4] if val else None
            time.sleep(0.01)
        if not T.ok(name and len(pids) == 3, "hostile: the traced program "
                    "and its two children running, the socket named", pids):
            p.kill()
            p.wait()
            return
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        addr = b"\0" + name
        me = os.pidfd_open(os.getpid())

        def msg(how=EXEC, magic=MAGIC, child=0):
            return MSG.pack(magic, VERSION, how, os.getpid(), child,
                            b"hostile")
        sent = [(msg(magic=MAGIC ^ 1), memfd(FILE_BYTES)),
                (msg()[:100], memfd(FILE_BYTES)),
                (msg(), memfd(FILE_BYTES, sealed=False)),
                (msg(), memfd(1 << 20)),
                (msg(), memfd(FILE_BYTES, header=False)),
                (msg(BORN, child=1), me)]  # a pidfd not of pid 1
        for body, fd in sent:
            s.sendmsg([body], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                struct.pack("i", fd))], 0, addr)
            if fd != me:
                os.close(fd)
        os.close(me)
        s.close()
        open(os.path.join(tmp, "stop"), "w").close()
        try:
            err = p.communicate(timeout=300)[1]
        except subprocess.TimeoutExpired:
            p.kill()
            err = p.communicate()[1]
        T.eq(p.returncode, 0, "hostile: vmscope ends with the program, "
             "exit 0 (%s)" % err.decode(errors="replace").strip()[-200:])
        try:
            d = json.load(open(out))
        except (OSError, ValueError):
            d = None
        if not T.ok(d, "hostile: a report"):
            return
        ps = d["trace"]["processes"]
        T.ok(sorted(x["how"] for x in ps) == ["exec", "fork", "launched"]
             and d["trace"]["children"]["not_followed"] == 0 and
             all(x["command"] != "hostile" for x in ps),
             "hostile: none of the six followed, counted or awaited; the "
             "program's three processes followed",
             [(x["pid"], x["how"], x["command"]) for x in ps])
    finally:
        if p and p.poll() is None:  # a failure: vmscope ended by pid
            p.kill()
            p.wait()
        for c in pids:  # left running by a failure: ended by pid
            if c and not T.wait_gone(c, 0.1):
                T.kill_gone(c)
        shutil.rmtree(tmp, ignore_errors=True)


def refusals():
    for args, what in ((["--trace-children", "-s", "--", "true"],
                        "without --trace"),
                       (["--trace", "--trace-children", "-s", "1"],
                        "with a PID"),
                       (["--trace", "--trace-children", "--", "true"],
                        "in the viewer")):
        r = subprocess.run([T.VMSCOPE] + args, capture_output=True,
                           timeout=60, env=ENV)
        T.ok(r.returncode == 1 and b"--trace-children" in r.stderr,
             "--trace-children %s: refused (1), saying so" % what,
             r.stderr)


def main():
    if not os.path.exists(LIB):
        T.skip("--trace-children", "the tracer library is not built")
        return T.done()
    forked()
    script()
    background()
    bounded()
    killed_midway()
    hostile()
    refusals()
    T.done()


if __name__ == "__main__":
    main()
