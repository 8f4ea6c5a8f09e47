"""A prefork server's view: memory shared copy-on-write with a child.

A python3 parent fills 64 MiB, then forks a child that keeps it. In the
parent, those pages are resident and mapped by two processes: they are
Shared WS, so they are shareable, not private. For every type and the total:
Shared WS never exceeds Shareable WS, and Private WS of anonymous regions is
their Private_Clean + Private_Dirty (what this process alone maps).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as t  # noqa: E402

PARENT = r"""
import os, sys, time
buf = bytearray(64 << 20)
for i in range(0, len(buf), 4096):
    buf[i] = 1
pid = os.fork()
if pid == 0:
    time.sleep(600)
    os._exit(0)
print("ready child=%d" % pid, flush=True)
time.sleep(600)
"""


def main():
    p, line = t.start([sys.executable, "-c", PARENT])
    child = int(line.split("child=")[1])
    try:
        t.sigstop(p.pid)
        snap = t.vmscope_json(p.pid, "-F")
        tot = snap["totals"]
        t.ok(tot["shared_ws"] >= 60 << 20,
             "the 64 MiB shared with the child is Shared WS (%d K)"
             % (tot["shared_ws"] >> 10))
        bad = [x["type"] for x in snap["types"] + [dict(tot, type="total")]
               if x["shared_ws"] > x["shareable_ws"]]
        t.eq(bad, [], "Shared WS never exceeds Shareable WS")
        anon = [r for r in snap["regions"] if r["inode"] == 0
                and r["perms"][3] == "p"
                and r["path"] not in ("[vdso]", "[vvar]", "[vvar_vclock]",
                                      "[vsyscall]")]
        t.eq([r["start"] for r in anon
              if r["private_ws"] != r["private_clean"] + r["private_dirty"]],
             [], "Private WS of anonymous regions is Private_Clean + "
             "Private_Dirty")
    finally:
        try:
            os.kill(child, 9)
        except ProcessLookupError:
            pass
        t.cleanup()
    return t.done()


main()
