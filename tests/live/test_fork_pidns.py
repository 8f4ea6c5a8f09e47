"""-b fork on a target in its own PID namespace (unshare -pf --mount-proc):
the clone's pid in the target's namespace differs from its pid here, and
the wait4 injected into the target to reap the clone's zombie must be given
the former. After the capture the target has no child and no zombie, and
is running and untraced."""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()
unshare = shutil.which("unshare")
if not unshare:
    vmstest.skip("PID namespace", "no unshare")
    vmstest.done()
argv = [unshare, "-pf", "--mount-proc", "--kill-child"]
if os.geteuid() != 0:
    argv.insert(1, "-Ur")
if subprocess.run(argv + ["true"], capture_output=True).returncode != 0:
    vmstest.skip("PID namespace", "unshare -pf --mount-proc is not "
                 "permitted here")
    vmstest.done()

p, _ = vmstest.start(argv + [vmstest.target("fork_value")])
# The target is unshare's child (pid 1 in its namespace).
deadline = time.time() + 10
kids = forktest.children(p.pid)
while not kids and time.time() < deadline:
    time.sleep(0.01)
    kids = forktest.children(p.pid)
eq(len(kids), 1, "PID namespace: the target runs under unshare")
tgt = kids[0]
with open("/proc/%d/status" % tgt) as f:
    nspid = [ln.split()[1:] for ln in f if ln.startswith("NSpid:")][0]
ok(len(nspid) == 2 and nspid[-1] == "1", "PID namespace: the target is pid "
   "1 of its own namespace", nspid)
fails = []
for i in range(3):
    r = vmstest.run_vmscope("-b", "fork", "-s", tgt)
    if r.returncode != 0:
        fails.append(r.stderr.decode())
eq(fails, [], "PID namespace: three fork captures succeed")
eq(forktest.settled(tgt, timeout=5), [], "PID namespace: target untraced, "
   "running, no clone and no zombie")
eq(forktest.ask(p, "w"), "written", "PID namespace: the target still "
   "answers")
try:
    os.kill(tgt, 9)
except ProcessLookupError:
    pass
vmstest.kill(p)
forktest.reap(tgt, timeout=10)
vmstest.done()
