"""A large multi-threaded target SIGKILLed at random moments while vmscope
captures it (-b fork and -b pss -F in turn, HOSTILE_KILLS trials): vmscope
never hangs (the harness's timeout fails the test) and ends with success or
a message, the target's parent can reap it at once, and no keeper, clone or
zombie is left behind.

The attach pass (issue 30, item 5): HOSTILE_ATTACH_KILLS more trials
(default 10; 6 on the sanitizer build) of the same target SIGKILLed at a
random moment of an attach (vmscope --trace --duration=5 -s PID: its walk
before the injection, the injection, the trace, the detach), with the same checks: vmscope ends with
its report (the process ended within the trace) or a message, the target
is reaped at once, nothing is left behind."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq  # noqa: E402

# Fewer trials on the sanitizer build's pass (make check's time): the
# timing of the kills is the plain pass's to cover, the sanitizers watch
# the same paths.
KILLS = int(os.environ.get("HOSTILE_KILLS",
                           "20" if vmstest.sanitizer_build() else "50"))
ATTACH_KILLS = int(os.environ.get(
    "HOSTILE_ATTACH_KILLS", "6" if vmstest.sanitizer_build() else "10"))
MB = os.environ.get("HOSTILE_MB", "200")
rng = vmstest.rng()
forktest.become_subreaper()

wrong = []
ATTACH = ("--trace", "--duration=5")
for i in range(KILLS + ATTACH_KILLS):
    b = (ATTACH if i >= KILLS else ("-b", "fork") if i % 2 == 0
         else ("-b", "pss", "-F"))
    p, _ = vmstest.start([vmstest.target("fork_threads"), "compute", MB])
    v = subprocess.Popen([vmstest.VMSCOPE] + list(b) + ["-s", str(p.pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # the kill's moment (an attach's walk, injection and trace take
    # longer than a capture)
    time.sleep(rng.uniform(0, 0.6 if b == ATTACH else 0.12))
    os.kill(p.pid, signal.SIGKILL)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        wrong.append("trial %d (%s): the killed target could not be reaped"
                     % (i, " ".join(b)))
    vmstest.kill(p)
    try:
        _, err = v.communicate(timeout=60)
        if b == ATTACH:
            print("# attach trial %d: exit %d%s" % (
                i, v.returncode, (": " + err.decode(errors="replace")
                                  .strip().splitlines()[-1][:160])
                if err.strip() else ""))
        if v.returncode != 0 and not err.strip():
            wrong.append("trial %d (%s): exit %d without a message"
                         % (i, " ".join(b), v.returncode))
    except subprocess.TimeoutExpired:
        v.kill()
        v.wait()
        wrong.append("trial %d (%s): vmscope hung" % (i, " ".join(b)))
    _, stuck = forktest.reap_orphans(set(), timeout=20)
    if stuck:
        wrong.append("trial %d (%s): keeper(s) %r did not finish"
                     % (i, " ".join(b), stuck))
eq(wrong, [], "%d SIGKILLs of a %s MB multi-threaded target mid-capture "
   "and %d mid-attach: reaped by its parent at once, vmscope ends with "
   "success or a message, nothing left behind" % (KILLS, MB, ATTACH_KILLS))
vmstest.done()
