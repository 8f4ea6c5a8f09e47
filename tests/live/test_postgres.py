#!/usr/bin/env python3
"""A postgres backend's glibc heap against the backend's own mallinfo2
(issue 28: every postgres backend's heap walk failed, its brk heap two
[heap] lines once it grew after the postmaster's fork).

The test makes a cluster in a temporary directory (initdb, as postgres's
own user where the test runs as root, else as itself), starts it on a
unix socket in that directory only (no TCP), and in one psql session
(one backend) sorts 300,000 rows in memory (work_mem 512MB). With the
backend idle (it allocates nothing while it waits for the next query),
vmscope captures it frozen (-F) and through the fork clone (-b fork);
then gdb calls mallinfo2() in the backend, the struct written on its
stack below the stack pointer (no malloc: the heap stays as captured),
and every field the walk reports must be the backend's own. Without gdb,
the walk is held to what it must satisfy by itself (whole, its in-use and
free bytes its arenas', its chunks at least the rows' sort) and the test
says so. A core of the checkpointer (gcore; its title "postgres:
checkpointer") is named as live, "postgres". The cluster is stopped by its
postmaster's pid (SIGINT: a fast shutdown), the psql session by its own.

Skipped where postgres (initdb, postgres) or psql is not installed
(scripts/deps.sh installs them)."""
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
          "fsmblks", "uordblks", "fordblks", "keepcost")
ROWS = 300000


def pg_bin(name):
    for d in sorted(os.listdir("/usr/lib/postgresql"), reverse=True) \
            if os.path.isdir("/usr/lib/postgresql") else []:
        p = os.path.join("/usr/lib/postgresql", d, "bin", name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def as_user(tmp):
    """The command prefix that runs a server as an unprivileged user (the
    test's own where it is not root), and gives that user tmp."""
    if os.geteuid() != 0:
        return []
    try:
        u = pwd.getpwnam("postgres")
    except KeyError:
        u = pwd.getpwnam("nobody")
    os.chown(tmp, u.pw_uid, u.pw_gid)
    return ["setpriv", "--reuid=%d" % u.pw_uid, "--regid=%d" % u.pw_gid,
            "--clear-groups"]


def wait_ready(data, server, deadline):
    """postmaster.pid's eighth line says "ready" once it accepts."""
    path = os.path.join(data, "postmaster.pid")
    while time.time() < deadline and server.poll() is None:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def ask(psql, sql, timeout=300):
    """Sends one statement to the session; its one result line."""
    psql.stdin.write(sql.encode() + b"\n")
    psql.stdin.flush()
    line = T._line_by(psql, time.time() + timeout)
    return line.strip() if line else line


def own_mallinfo2(pid):
    """The backend's mallinfo2(), called by gdb, the struct written 16 KiB
    below its stack pointer (the x86-64 ABI's hidden return pointer is the
    first argument's register)."""
    r = subprocess.run(
        ["gdb", "-nx", "-batch", "-p", str(pid),
         "-ex", "set $b = (unsigned long)$sp - 16384",
         "-ex", "call ((void (*)(unsigned long))mallinfo2)($b)",
         "-ex", "x/10gu $b"], capture_output=True, timeout=300)
    nums = []
    for ln in r.stdout.decode(errors="replace").splitlines():
        m = re.match(r"^0x[0-9a-f]+[^:]*:\s+(.*)$", ln)
        if m:
            nums += [int(v) for v in m.group(1).split()]
    if len(nums) != 10:
        raise RuntimeError("gdb did not give mallinfo2: %s %s" %
                           (r.stdout.decode()[-1000:],
                            r.stderr.decode()[-1000:]))
    return dict(zip(FIELDS, nums))


def check(pid, args, own):
    how = " ".join(args)
    snap = T.vmscope_json(pid, *args)
    m = snap["malloc"]
    if not T.ok(m is not None, "%s: glibc malloc walked" % how,
                snap["capture"].get("missing")):
        return
    T.eq(m["partial"], None, "%s: nothing partial" % how)
    main = [h for h in snap["heaps"] if h["kind"] == "glibc-main"]
    if not T.eq(len(main), 1, "%s: one main heap" % how):
        return
    h = main[0]
    print("# %s: arena %d in use %d free %d, %d chunks, %d segments" %
          (how, m["arena"], m["uordblks"], m["fordblks"], h["chunks"],
           len(h["segments"])))
    T.eq(h["partial"], None, "%s: the main heap's walk is whole" % how)
    if own:
        T.eq({k: m[k] for k in FIELDS}, own, "%s: every mallinfo2 field is "
             "the backend's own (gdb: call mallinfo2())" % how)
    heaps = [x for x in snap["heaps"] if x["kind"].startswith("glibc")]
    T.ok(sum(x["in_use"] for x in heaps) == m["uordblks"] and
         sum(x["free"] for x in heaps) == m["fordblks"] and
         h["chunks"] > 0 and h["overhead"] is not None,
         "%s: the arenas' in-use and free bytes are mallinfo2's, the main "
         "heap's chunks walked" % how, h)
    T.eq(T.proc_state(pid) in "SR" and T.tracer_pid(pid) == 0, True,
         "%s: the backend is left running, untraced" % how)


def checkpointer_core(postmaster, tmp):
    """A core of the checkpointer, retitled "postgres: checkpointer": its
    name is the live one (comm, "postgres"), not gdb's pr_fname (the
    title's first bytes)."""
    if not shutil.which("gcore"):
        T.skip("a checkpointer's core", "gcore is not installed")
        return
    ck = None
    for c in T.children(postmaster):
        try:
            with open("/proc/%d/cmdline" % c, "rb") as f:
                if f.read().startswith(b"postgres: checkpointer"):
                    ck = c
        except OSError:
            pass
    if not T.ok(ck, "the checkpointer found among the postmaster's "
                "children"):
        return
    with open("/proc/%d/comm" % ck) as f:
        comm = f.read().rstrip("\n")
    out = os.path.join(tmp, "core")
    r = subprocess.run(["gcore", "-o", out, str(ck)], capture_output=True,
                       timeout=300)
    core = "%s.%d" % (out, ck)
    if not T.ok(r.returncode == 0 and os.path.exists(core),
                "gcore wrote the checkpointer's core",
                r.stderr.decode()[-1000:]):
        return
    snap = T.run_vmscope("-l", core, "-e", "json")
    name = json.loads(snap.stdout)["process"]["name"] \
        if snap.returncode == 0 else None
    os.unlink(core)
    T.eq(name, comm, "the checkpointer's core is named as live (comm), "
         "not by its title")
    T.eq(T.proc_state(ck) in "SR" and T.tracer_pid(ck) == 0, True,
         "the checkpointer is left running, untraced")


def main():
    initdb, postgres, psql_bin = (pg_bin("initdb"), pg_bin("postgres"),
                                  shutil.which("psql"))
    if not (initdb and postgres and psql_bin):
        T.skip("a postgres backend's heap", "postgres or psql is not "
               "installed")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmspg")
    server = psql = None
    try:
        pre = as_user(tmp)
        data = os.path.join(tmp, "data")
        r = subprocess.run(pre + [initdb, "-D", data, "-A", "trust", "-U",
                                  "test", "--no-sync", "-E", "UTF8",
                                  "--locale=C"],
                           capture_output=True, timeout=300)
        if not T.ok(r.returncode == 0, "initdb made a cluster",
                    r.stderr.decode()[-2000:]):
            return T.done()
        log = open(os.path.join(tmp, "log"), "w")
        server, _ = T.start(pre + [postgres, "-D", data, "-k", tmp, "-c",
                                   "listen_addresses=", "-F"],
                            ready=False, stderr=log)
        if not T.ok(wait_ready(data, server, time.time() + 120),
                    "postgres is ready on its socket"):
            return T.done()
        psql, _ = T.start([psql_bin, "-X", "-q", "-A", "-t", "-h", tmp,
                           "-U", "test", "-d", "postgres"], ready=False,
                          stderr=subprocess.DEVNULL)
        backend = int(ask(psql, "SET work_mem = '512MB'; "
                                "SELECT pg_backend_pid();"))
        got = ask(psql, "SELECT count(*) FROM (SELECT g, md5(g::text) m "
                        "FROM generate_series(1, %d) g ORDER BY m "
                        "OFFSET 0) s;" % ROWS)
        T.eq(got, str(ROWS), "the backend sorted %d rows" % ROWS)
        with open("/proc/%d/maps" % backend) as f:
            heaps = sum(1 for ln in f if ln.rstrip().endswith("[heap]"))
        print("# backend %d: %d [heap] lines" % (backend, heaps))
        own = None
        if shutil.which("gdb"):
            # the backend is idle: as captured before and after gdb
            check(backend, ["-F"], None)
            own = own_mallinfo2(backend)
            print("# the backend's own mallinfo2: %r" % own)
        else:
            T.skip("the backend's own mallinfo2", "gdb is not installed: "
                   "the walk is held to its own consistency only")
        check(backend, ["-F"], own)
        check(backend, ["-b", "fork"], own)
        checkpointer_core(server.pid, tmp)
    finally:
        if psql:
            try:
                psql.stdin.close()
            except OSError:
                pass
            T.kill(psql)
        if server and server.poll() is None:
            os.kill(server.pid, signal.SIGINT)  # a fast shutdown
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
            T.ok(server.poll() is not None, "postgres stopped by its "
                 "postmaster's pid")
        if server:
            T.kill(server)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
