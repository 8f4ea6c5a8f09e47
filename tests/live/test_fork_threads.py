"""-b fork on a multi-threaded target: one thread asleep in a system call,
one computing, one blocked in read(). Whichever the fork is injected into
(the main thread, each role in turn), all resume correctly: no EINTR
surfacing from the sleep, no short sleep, no lost signal, no lost input,
memory and registers intact, threads all there, no clone, no zombie."""
import os
import signal
import subprocess
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

# Two captures at once (fork and fork, fork and pss --freeze): each
# succeeds or is refused as "already traced"; nothing is left behind.
p, _ = vmstest.start([vmstest.target("fork_threads"), "sleep", "16"])
odd = []
for i in range(10):
    other = ["-b", "fork"] if i % 2 else ["-b", "pss", "-F"]
    a = subprocess.Popen([vmstest.VMSCOPE, "-b", "fork", "-e", "json",
                          str(p.pid)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    b = subprocess.Popen([vmstest.VMSCOPE] + other + ["-e", "json",
                                                      str(p.pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for v in (a, b):
        e = v.communicate()[1].decode()
        if v.returncode and "already traced" not in e:
            odd.append(e)
eq(odd, [], "concurrent captures succeed or are refused as already traced")
eq(forktest.reap_orphans({p.pid})[1], [], "concurrent captures: no keeper "
   "left")
eq(forktest.settled(p.pid), [], "concurrent captures: target untraced, "
   "running, no clone or zombie")
st = forktest.status(p)
ok(st.get("bad") == "0" and st.get("eintr") == "0" and st.get("short") == "0",
   "concurrent captures: the target's self-checks pass", st)
vmstest.kill(p)
vmstest.done()
