"""A vmscope stopped (SIGSTOP, as ^Z would) while it holds a target frozen
does not keep it frozen: the keeper lets the target go once vmscope has
stayed stopped for a second (-b pss -F and -b fork), and vmscope, continued,
says so ("let go ... stopped") or, if it had finished reading, succeeds.
The target (manyregions: 65,000 regions, so that reading its smaps takes a
while) comes out running and untraced with no child. STOPPED_ROUNDS per
sampler (default 2)."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

ROUNDS = int(os.environ.get("STOPPED_ROUNDS", "2"))
forktest.become_subreaper()


def frozen(pid):
    try:
        return any(vmstest.proc_state(pid, t) == "t"
                   for t in vmstest.tids(pid))
    except FileNotFoundError:
        return False


p, _ = vmstest.start([vmstest.target("manyregions"), "60000"])
for b in (("-b", "pss", "-F"), ("-b", "fork")):
    name = " ".join(b)
    for i in range(ROUNDS):
        v = subprocess.Popen([vmstest.VMSCOPE] + list(b) +
                             ["-s", str(p.pid)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        while v.poll() is None and not frozen(p.pid):
            time.sleep(0.001)
        caught = v.poll() is None
        if caught:
            os.kill(v.pid, signal.SIGSTOP)
            t0 = time.time()
            # the keeper lets it go; the harness's timeout fails a hang
            while frozen(p.pid) or vmstest.tracer_pid(p.pid):
                time.sleep(0.005)
            print("# %s #%d: let go %.2f s after vmscope stopped"
                  % (name, i + 1, time.time() - t0))
            ok(vmstest.proc_state(v.pid) == "T",
               "%s #%d: the target was let go while vmscope stayed "
               "stopped" % (name, i + 1))
            os.kill(v.pid, signal.SIGCONT)
        _, err = v.communicate(timeout=120)
        err = err.decode().strip()
        print("# %s #%d: exit %d %s" % (name, i + 1, v.returncode, err))
        ok(v.returncode == 0 or (v.returncode == 3 and "let go" in err and
                                 "stopped" in err),
           "%s #%d: vmscope ends with success or says the target was let "
           "go (%s)" % (name, i + 1, "stopped while frozen" if caught else
                        "finished first"), "exit %d: %s" % (v.returncode,
                                                           err))
        eq(forktest.settled(p.pid), [], "%s #%d: the target runs, untraced, "
           "without a child" % (name, i + 1))
_, stuck = forktest.reap_orphans({p.pid})
eq(stuck, [], "no keeper left behind")
vmstest.kill(p)
vmstest.done()
