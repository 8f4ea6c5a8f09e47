#!/usr/bin/env python3
"""Empty Working Set (issue 31 item 7), at 80x24 and 200x60, on the
pageout target: 32 MiB of private anonymous memory written (it can go
only to swap) and 32 MiB of a file mapped privately and read (clean: the
kernel can drop it, swap or not).

E asks first, naming the process (its pid and name); any key but y
cancels and nothing changes (the regions' Rss, /proc/PID/smaps, as
before). y: the kernel pages out (process_madvise, MADV_PAGEOUT); the
target's Rss (smaps_rollup) is lower after than before, its file region's
Rss too (and its anonymous region's, where the machine has swap), and the
status line says by how much, with the Rss before and after, each the
kernel's figure as the viewer writes a size; a new snapshot is on screen
(the Mapped File row's Working Set is the file region's Rss after).
Between the two sizes the target touches its pages again.

More ranges than one call takes (a file mapping split into 2,048
regions, every other one writable): the writable ones of every call are
paged out.

Refused with the reason, nothing asked: on a saved snapshot (-l FILE);
without permission: vmscope as nobody over nobody's target (ptrace
access, no CAP_SYS_NICE) is told EPERM, and the status line says so; and
on a kernel without process_madvise (Linux 5.10) or pidfd_open (5.3):
vmscope run under a seccomp filter that answers the call ENOSYS, as such
a kernel does (tests/targets/nosys.c), says which and since when.
Skips where the kernel lacks process_madvise or vmscope may not use it
(the status line's refusal says which).
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

MIB = 32


def status(scr):
    """The status line, and the lines above it a message longer than the
    screen wraps over (up to four)."""
    lines = scr.splitlines()
    return " ".join(l.strip() for l in lines[-4:]) if lines else ""


ready = D.ready


def region_rss(pid, start):
    """The Rss of the region starting at start (/proc/PID/smaps), bytes."""
    at = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-[0-9a-f]+ ", line)
            if m:
                at = int(m.group(1), 16) == start
            elif at and line.startswith("Rss:"):
                return int(line.split()[1]) * 1024
    return None


def have_swap():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("SwapTotal:"):
                return int(line.split()[1]) > 0
    return False


def touch_again(p):
    p.stdin.write(b"\n")
    p.stdin.flush()
    import time
    line = T._line_by(p, time.time() + 120)
    T.ok(line and line.startswith("touched"),
         "the target touched its pages again", line)


def one(p, f, w, h):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    tm.wait_for(ready, timeout=120)
    file0 = region_rss(p.pid, f["file"])
    anon0 = region_rss(p.pid, f["anon"])

    scr = tm.expect("%s: E asks first" % what,
                    lambda s: "Empty Working Set of pid" in status(s), "E")
    m = re.search(r"Empty Working Set of pid (\d+) \((\w+)\)", status(scr))
    T.ok(m and int(m.group(1)) == p.pid and m.group(2) == "pageout",
         "%s: the question names the process: pid %d (pageout)"
         % (what, p.pid), status(scr))
    q = ("Empty Working Set of pid %d (pageout)? y pages out its private "
         "memory, any other key cancels" % p.pid)
    T.ok(q in status(scr),
         "%s: the question whole (wrapped at a narrow width): %s"
         % (what, q), status(scr))
    scr = tm.expect("%s: n cancels" % what,
                    lambda s: "cancelled" in status(s), "n")
    T.ok(region_rss(p.pid, f["file"]) == file0 and
         region_rss(p.pid, f["anon"]) == anon0,
         "%s: after n nothing is paged out (the file region's Rss %d, "
         "the anonymous one's %d, as before)" % (what, file0, anon0))

    before = T.rollup(p.pid)["Rss"]
    tm.keys("E")
    tm.wait_for(lambda s: "Empty Working Set of pid" in status(s))
    tm.keys("y")
    scr = tm.wait_for(lambda s: "Empty Working Set:" in status(s) or
                      "refused" in status(s), timeout=120)
    st = status(scr)
    if "refused" in st and ("process_madvise" in st or "permitted" in st):
        T.skip("%s: Empty Working Set" % what, st.strip())
        tm.kill()
        return False
    after = T.rollup(p.pid)["Rss"]
    T.ok(after < before,
         "%s: the target's Rss is lower (smaps_rollup: %d -> %d)"
         % (what, before, after), st)
    file1 = region_rss(p.pid, f["file"])
    T.ok(file1 < file0,
         "%s: its file region's clean pages went (Rss %d -> %d)"
         % (what, file0, file1))
    if have_swap():
        anon1 = region_rss(p.pid, f["anon"])
        T.ok(anon1 < anon0,
             "%s: with swap, its anonymous pages went too (Rss %d -> %d)"
             % (what, anon0, anon1))
    m = re.search(r"Empty Working Set: Rss (.+?) less \((.+?) -> (.+?)\)",
                  st)
    want = (D.size_text(before - after), D.size_text(before),
            D.size_text(after))
    T.ok(m and m.groups() == want,
         "%s: the status line says by how much: %s less (%s -> %s)"
         % ((what,) + want), st)
    # the new snapshot is on screen: the Mapped File row (the file
    # region alone) has its WS after
    row = D.row_of(scr, " Mapped File ")
    figs = re.findall(r"\d+(?:\.\d)? [BKMGTPE]\b", row or "")
    T.ok(len(figs) >= 4 and figs[3] == D.size_text(file1),
         "%s: the new snapshot on screen: the Mapped File row's WS is the "
         "file region's Rss after (%s)" % (what, D.size_text(file1)), row)
    tm.kill()
    return True


def saved(p, tmp):
    path = os.path.join(tmp, "ews.vms")
    r = T.run_vmscope("-w", path, "-s", str(p.pid))
    T.ok(r.returncode == 0, "a snapshot saved with -w", r.stderr)
    file0 = region_rss(p.pid, p.f["file"])
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=80, height=24)
    tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)),
                timeout=120)
    scr = tm.expect("-l: E is refused with the reason",
                    lambda s: "refused" in status(s), "E")
    T.ok("saved snapshot" in status(scr) and
         "Empty Working Set of pid" not in status(scr),
         "-l: the reason: a saved snapshot, no process behind it; no "
         "question asked", status(scr))
    T.ok(region_rss(p.pid, p.f["file"]) == file0,
         "-l: nothing paged out (the file region's Rss as before)")
    tm.kill()


def file_regions(pid, lo, hi):
    """[(start, perms, rss)] of the regions in [lo, hi) (smaps)."""
    out, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-[0-9a-f]+ (\S+) ", line)
            if m:
                a = int(m.group(1), 16)
                cur = [a, m.group(2), None] if lo <= a < hi else None
                if cur:
                    out.append(cur)
            elif cur and line.startswith("Rss:"):
                cur[2] = int(line.split()[1]) * 1024
    return out


def batched(tmp):
    """More ranges than one call takes (the file mapping split into its
    pages, every other one writable: 1,024 of them, 512 a call): each
    call's ranges are paged out."""
    d = os.path.join(tmp, "split")
    os.mkdir(d)
    p, line = T.start([T.target("pageout"), d, "8", "split"])
    f = T.ready_fields(line)
    before = file_regions(p.pid, f["file"], f["file"] + f["size"])
    rw = [r for r in before if r[1].startswith("rw")]
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=120, height=40)
    tm.wait_for(ready, timeout=120)
    tm.keys("E")
    tm.wait_for(lambda s: "Empty Working Set of pid" in status(s))
    tm.keys("y")
    scr = tm.wait_for(lambda s: "Empty Working Set:" in status(s) or
                      "refused" in status(s), timeout=120)
    after = {r[0]: r for r in file_regions(p.pid, f["file"],
                                           f["file"] + f["size"])}
    out = [after.get(r[0], [0, "", None])[2] == 0 for r in rw]
    slices = [any(out[k:k + 512]) for k in range(0, len(out), 512)]
    T.ok(len(rw) > 512 and all(slices),
         "%d writable file regions (%d calls' worth): each call's were "
         "paged out (%d of them)" % (len(rw), len(slices), sum(out)),
         status(scr))
    # (the read-only ones are not asked, but their pages may share a
    # page-cache folio with a writable one's, which the kernel reclaims
    # whole: no claim on them)
    tm.kill()
    T.kill(p)


def unprivileged(tmp):
    """As nobody, over nobody's process: ptrace access, no CAP_SYS_NICE:
    process_madvise answers EPERM, and the status line says why."""
    import shutil
    setpriv = shutil.which("setpriv")
    if not setpriv:
        T.skip("EPERM: refused without CAP_SYS_NICE", "no setpriv")
        return
    d = os.path.join(tmp, "nobody")
    os.mkdir(d)
    os.chmod(d, 0o777)
    os.chmod(tmp, 0o755)
    drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    p, line = T.start(drop + [T.target("pageout"), d, "4"])
    f = T.ready_fields(line)
    file0 = region_rss(p.pid, f["file"])
    tm = D.Tmux(drop + [T.VMSCOPE, str(p.pid)], width=80, height=24,
                env={"XDG_CONFIG_HOME": d})
    tm.wait_for(ready, timeout=120)
    tm.keys("E")
    tm.wait_for(lambda s: "Empty Working Set of pid" in status(s))
    scr = tm.expect("EPERM: y is refused",
                    lambda s: "refused" in status(s), "y")
    T.ok("not permitted" in status(scr) and "CAP_SYS_NICE" in status(scr),
         "EPERM: the reason: not permitted, CAP_SYS_NICE", status(scr))
    T.ok(region_rss(p.pid, f["file"]) == file0,
         "EPERM: nothing paged out (the file region's Rss as before)")
    tm.kill()
    T.kill(p)


def kernel_lacks(p, call, w, h):
    """On a kernel without the call Empty Working Set needs (seccomp
    answers it ENOSYS, as such a kernel does: tests/targets/nosys.c): y
    is refused with the reason, the kernel version that has it, and
    nothing is paged out."""
    what = "%dx%d, no %s" % (w, h, call)
    since = {"process_madvise": "Linux 5.10", "pidfd_open": "Linux 5.3"}
    file0 = region_rss(p.pid, p.f["file"])
    tm = D.Tmux([T.target("nosys"), call, T.VMSCOPE, str(p.pid)],
                width=w, height=h)
    tm.wait_for(ready, timeout=120)
    tm.keys("E")
    tm.wait_for(lambda s: "Empty Working Set of pid" in status(s))
    scr = tm.expect("%s: y is refused" % what,
                    lambda s: "refused" in status(s), "y")
    want = "this kernel has no %s (%s): nothing paged out" % (call,
                                                             since[call])
    T.ok(want in status(scr), "%s: the reason, whole: %s" % (what, want),
         status(scr))
    T.ok(region_rss(p.pid, p.f["file"]) == file0,
         "%s: nothing paged out (the file region's Rss as before)" % what)
    tm.kill()


def run(tmp):
    p, line = T.start([T.target("pageout"), tmp, str(MIB)])
    p.f = T.ready_fields(line)
    if one(p, p.f, 80, 24):
        touch_again(p)
        one(p, p.f, 200, 60)
    touch_again(p)
    saved(p, tmp)
    kernel_lacks(p, "process_madvise", 80, 24)
    kernel_lacks(p, "pidfd_open", 200, 60)
    T.kill(p)
    batched(tmp)
    unprivileged(tmp)


def main():
    D.run_in_tmp("Empty Working Set in tmux", run)


main()
