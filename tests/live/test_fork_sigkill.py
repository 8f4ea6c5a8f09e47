"""vmscope -b fork killed with SIGKILL at random points of a capture, many
times over, with the injected thread asleep in clock_nanosleep and then
blocked in read(): the target is never left stopped or traced, its memory is
unchanged (it checks its own), all its threads are there, no clone and no
zombie is left, and no keeper outlives its work."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

# A third as many trials on the sanitizer build's pass (each takes four times
# as long there): the timing of the kills is the plain pass's to cover,
# the sanitizers watch the same paths.
KILLS = int(os.environ.get("FORK_KILLS",
                           "20" if vmstest.sanitizer_build() else "60"))
forktest.become_subreaper()
rng = vmstest.rng()

def run(role):
    p, _ = vmstest.start([vmstest.target("fork_threads"), role, "64"])
    ntids = len(vmstest.tids(p.pid))

    # How long a whole capture takes here, to spread the kills over it.
    durs = []
    for _ in range(3):
        t0 = time.time()
        r = vmstest.run_vmscope("-b", "fork", "-e", "json", p.pid)
        durs.append(time.time() - t0)
        ok(r.returncode == 0, "%s in main: an uninterrupted capture "
           "succeeds" % role, r.stderr.decode())
    dur = sorted(durs)[1]

    wrongs = []
    pongs_lost = 0
    orphaned = 0
    for i in range(KILLS):
        v = subprocess.Popen([vmstest.VMSCOPE, "-b", "fork", "-e", "json",
                              str(p.pid)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, dur * 1.1))
        v.send_signal(signal.SIGKILL)
        v.wait()
        n, stuck = forktest.reap_orphans({p.pid})
        orphaned += n
        if stuck:
            wrongs.append("kill %d: keeper(s) %r did not finish" % (i, stuck))
        w = forktest.settled(p.pid)
        if w:
            wrongs.append("kill %d: %s" % (i, "; ".join(w)))
            break
        if forktest.ask(p, "ping %d" % i) != "pong %d" % i:
            pongs_lost += 1

    eq(wrongs, [], "%s in main: %d SIGKILLs of vmscope at random points "
       "(over %.0f ms): target untraced, running, no clone, no zombie, no "
       "keeper left" % (role, KILLS, dur * 1000))
    print("# %d of %d kills came while a keeper was at work"
          % (orphaned, KILLS))
    eq(pongs_lost, 0, "%s in main: the target answered every line after "
       "every kill" % role)
    eq(len(vmstest.tids(p.pid)), ntids, "%s in main: all %d threads are "
       "there" % (role, ntids))
    st = forktest.status(p)
    eq(st.get("bad"), "0", "%s in main: the target's memory and computation "
       "are unchanged (it checks its own)" % role)
    ok(st.get("eintr") == "0" and st.get("short") == "0",
       "%s in main: its sleeping thread never saw EINTR nor a short sleep"
       % role, st)
    vmstest.kill(p)


for role in ("sleep", "read"):
    run(role)
vmstest.done()
