"""-b fork on a target whose main thread is signalled without pause (queued
real-time signals with a sequence number in si_value): every ptrace stop of
a fork capture (the freeze, the injected fork, the injected wait4 that reaps
the clone) that meets one of those signals must hand it back to the thread
as it was sent (siginfo kept, not re-sent with tgkill), and none may be
lost."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

ROUNDS = 30
forktest.become_subreaper()


def status(p):
    ans = forktest.ask(p, "status")
    return dict(kv.split("=") for kv in ans.split()[1:])


p, _ = vmstest.start([vmstest.target("fork_siginfo")])
fails = []
for i in range(ROUNDS):
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
    if r.returncode != 0:
        fails.append(r.stderr.decode())
eq(fails, [], "signalled target: %d fork captures succeed" % ROUNDS)
eq(forktest.settled(p.pid), [], "signalled target: untraced, running, no "
   "clone or zombie")
# The sender waits for each signal to be handled: it keeps going only if
# none was lost.
st = status(p)
first = int(st["got"])
deadline = time.time() + 10
while int(st["got"]) <= first + 100 and time.time() < deadline:
    time.sleep(0.01)
    st = status(p)
ok(int(st["got"]) > first + 100, "signalled target: signals still flow "
   "after the captures (none lost)", st)
eq(st["bad"], "0", "signalled target: every signal arrived with the "
   "siginfo it was sent with")
vmstest.kill(p)
vmstest.done()
