"""-b fork on a multi-threaded target: one thread asleep in a system call,
one computing, one blocked in read(). Whichever the fork is injected into
(the main thread, each role in turn), all resume correctly: no EINTR
surfacing from the sleep, no short sleep, no lost signal, no lost input,
memory and registers intact, threads all there, no clone, no zombie."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

ROUNDS = 8
forktest.become_subreaper()
for role in ("sleep", "read", "compute"):
    p, line = vmstest.start([vmstest.target("fork_threads"), role, "16"])
    ntids = len(vmstest.tids(p.pid))
    sent = 0
    fails = []
    for i in range(ROUNDS):
        os.kill(p.pid, signal.SIGRTMIN + 1)
        sent += 1
        r = vmstest.run_vmscope("-b", "fork", "-e", "json", p.pid)
        if r.returncode != 0:
            fails.append(r.stderr.decode())
        os.kill(p.pid, signal.SIGRTMIN + 1)
        sent += 1
        pong = forktest.ask(p, "ping %d" % i)
        if pong != "pong %d" % i:
            fails.append("ping %d answered %r" % (i, pong))
    eq(fails, [], "%s in main: %d fork captures succeed, every line "
       "answered in order" % (role, ROUNDS))
    eq(forktest.settled(p.pid), [], "%s in main: target untraced, running, "
       "no clone or zombie" % role)
    eq(len(vmstest.tids(p.pid)), ntids, "%s in main: all %d threads there"
       % (role, ntids))
    # A queued signal is handled when the computing thread next runs:
    # ask until it has been, or give up after a while.
    deadline = time.time() + 10
    st = forktest.status(p)
    while st.get("sigs") != str(sent) and time.time() < deadline:
        time.sleep(0.01)
        st = forktest.status(p)
    ok(st.get("eintr") == "0" and st.get("short") == "0",
       "%s in main: the sleeping thread never saw EINTR nor a short sleep"
       % role, st)
    ok(int(st.get("sleeps", 0)) > 0 and int(st.get("rounds", 0)) > 0,
       "%s in main: the sleeper and the computer kept running" % role, st)
    eq(st.get("bad"), "0", "%s in main: memory and computation intact"
       % role)
    eq(st.get("sigs"), str(sent), "%s in main: all %d queued signals "
       "handled" % (role, sent))
    vmstest.kill(p)
vmstest.done()
