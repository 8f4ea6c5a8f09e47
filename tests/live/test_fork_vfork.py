"""A target with a thread in uninterruptible sleep (a vfork parent for good:
hostile_target "vfork") cannot be stopped: both samplers that stop it
refuse after their wait, and each message says what is true of the
sampler in use: -b fork says to use -b pss (never --freeze, which is
pss's), -b pss -F says to leave out --freeze; plain pss captures it. The
target is left running, untraced, with only its own child, and answers."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()
p, _ = vmstest.start([vmstest.target("hostile_target"), "vfork"])
deadline = time.time() + 20
while time.time() < deadline and not any(
        vmstest.proc_state(p.pid, t) == "D" for t in vmstest.tids(p.pid)):
    time.sleep(0.005)
ok(any(vmstest.proc_state(p.pid, t) == "D" for t in vmstest.tids(p.pid)),
   "a thread of the target is in uninterruptible sleep (vfork parent)")
kids = sorted(forktest.children(p.pid))

for args, want, never in ((("-b", "fork"), "use -b pss", "--freeze"),
                          (("-b", "pss", "-F"), "without --freeze",
                           "-b pss")):
    name = " ".join(args)
    r = vmstest.run_vmscope(*args, "-s", p.pid, timeout=60)
    err = r.stderr.decode()
    eq(r.returncode, 3, "%s: refused (exit 3)" % name)
    ok("uninterruptible sleep" in err and want in err and never not in err,
       "%s: the message says why and says %r, not %r" % (name, want, never),
       err)
    eq(r.stdout, b"", "%s: nothing printed as if captured" % name)
    ok(vmstest.tracer_pid(p.pid) == 0 and
       all(vmstest.proc_state(p.pid, t) in "SRD"
           for t in vmstest.tids(p.pid)) and
       sorted(forktest.children(p.pid)) == kids,
       "%s: the target is left running, untraced, with only its own "
       "child" % name)

r = vmstest.run_vmscope("-s", p.pid, timeout=60)
eq(r.returncode, 0, "plain pss captures it (it stops nothing)")
ok("status" in forktest.ask(p, "status"), "the target still answers")
vmstest.kill(p)
vmstest.done()
