"""-b fork refuses a target whose memory cgroup is too close to its limit
for the clone (whose copies are charged there; the cgroup's OOM killer
would pick the target), and says why. Needs a writable memory cgroup
hierarchy (v1 or v2): a child cgroup is made, the target moved into it,
then moved back and the cgroup removed. Skipped where that is not allowed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()
V1 = "/sys/fs/cgroup/memory"
if os.path.isdir(V1):
    root, limit_file, ctl = V1, "memory.limit_in_bytes", "memory"
else:
    root, limit_file, ctl = "/sys/fs/cgroup", "memory.max", ""


def cgroup_of(pid):
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            n, ctls, path = line.rstrip("\n").split(":", 2)
            if (ctl and ctl in ctls.split(",")) or (not ctl and n == "0"):
                return path
    return None


def write(path, s):
    with open(path, "w") as f:
        f.write(s)


p, _ = vmstest.start([vmstest.target("fork_threads"), "sleep", "32"])
home = cgroup_of(p.pid)
cg = os.path.join(root, "vmstest_fork_%d" % os.getpid())
try:
    os.mkdir(cg)
    write(os.path.join(cg, "cgroup.procs"), str(p.pid))
except OSError as e:
    vmstest.skip("memory cgroup near its limit: refused", "cannot make a "
                 "memory cgroup here: %s" % e)
    cg = None
if cg:
    try:
        anon = vmstest.status_kb(p.pid, "RssAnon")
        # Charges made before the move may stay behind (v1), so the limit
        # is set from the target's anonymous memory, not the usage.
        try:
            write(os.path.join(cg, limit_file), str(anon // 2))
            limited = True
        except OSError as e:
            vmstest.skip("memory cgroup near its limit: refused",
                         "cannot set %s: %s" % (limit_file, e))
            limited = False
        if limited:
            r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
            err = r.stderr.decode()
            eq(r.returncode, 3, "memory cgroup near its limit: exit status 3")
            ok("memory cgroup" in err and "-b pss" in err,
               "memory cgroup near its limit: the message says why and what "
               "to do", err)
            ok(vmstest.tracer_pid(p.pid) == 0 and not forktest.children(p.pid),
               "memory cgroup near its limit: the target is left untouched")
    finally:
        if home is not None:
            try:
                write(os.path.join(root + home, "cgroup.procs"), str(p.pid))
            except OSError:
                pass
        vmstest.kill(p)
        try:
            os.rmdir(cg)
        except OSError as e:
            ok(False, "the test cgroup %s is removed" % cg, e)
vmstest.done()
