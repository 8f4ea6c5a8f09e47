#!/usr/bin/env python3
"""Inside the heaps (issue 11, item 4), at 80x24 with NO_COLOR and at
200x60 with -t light, on the heap_arenas target (four threads, five glibc
arenas) captured with -b fork: H opens the heaps screen; b turns to exact
bytes. The heap row is the target's own mallinfo2() (arena, uordblks,
fordblks); each arena row is the target's own malloc_info() of that arena
(system bytes; free = its fastbins and its other free bytes; in use the
rest; free chunks = fastbin and other counts). malloc_info() adds each
binned chunk's size with its flag bits (glibc's chunksize_nomask): a free
chunk's are PREV_INUSE alone (its neighbour below is in use, or the two
would be one), so one byte a binned chunk is taken off again here. Right opens an arena into its
segments: the main arena's one starts where the kernel's [heap] starts.
The detail shows the strip and the histogram, whose counts add up to the
free chunks outside top. From the viewer, H on [heap] opens on the main
arena; Enter on a segment goes back to the viewer on it. A capture without
memory of one instant (-b pss) says the heaps were not walked, and why. A
long walk shows its progress, and Esc cancels it.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

NUM = r"(\d+|-)"


status = D.status


def malloc_info(path):
    """Per arena, from malloc_info()'s XML: (main, system, in_use, free,
    free_chunks), flag bits taken off the binned sizes."""
    with open(path) as f:
        xml = f.read()
    out = []
    for nr, body in re.findall(r'<heap nr="(\d+)">(.*?)</heap>', xml, re.S):
        fast = re.search(r'<total type="fast" count="(\d+)" size="(\d+)"',
                         body)
        rest = re.search(r'<total type="rest" count="(\d+)" size="(\d+)"',
                         body)
        system = int(re.search(r'<system type="current" size="(\d+)"',
                               body).group(1))
        main = nr == "0"
        binned = int(rest.group(1)) - 1  # top is counted without its bits
        free = int(fast.group(2)) + int(rest.group(2)) - binned
        out.append((main, system, system - free, free,
                    int(fast.group(1)) + int(rest.group(1))))
    return out


def rows(scr):
    """The tree's rows with figures: [(name, [numbers...])]."""
    out = []
    for l in scr.splitlines():
        m = re.match(r"^(\s*[+\-] .*?)\s+%s\s+%s\s+%s\s+%s(?:\s+%s)?\s*$"
                     % (NUM, NUM, NUM, NUM, NUM), l)
        if m:
            out.append((m.group(1).strip(),
                        [None if g in (None, "-") else int(g)
                         for g in m.groups()[1:]]))
    return out


def detail_num(scr, label):
    m = re.search(r"\b%s (\d+)\b" % re.escape(label), scr)
    return int(m.group(1)) if m else None


def heap_start(pid):
    with open("/proc/%d/maps" % pid) as f:
        for l in f:
            if l.rstrip().endswith("[heap]"):
                return int(l.split("-")[0], 16)
    return None


def one_size(p, want, info, w, h, env, args, what):
    tm = D.Tmux([T.VMSCOPE, "-b", "fork"] + args + [str(p.pid)], width=w,
                height=h, env=env, colours=256, term="tmux-256color")
    tm.wait_for("fork, frozen", timeout=120)
    tm.keys("H")
    tm.wait_for("glibc malloc")
    scr = tm.expect("%s: b shows exact bytes" % what, "(bytes)", "b")
    rs = rows(scr)
    top = [r for r in rs if "glibc malloc" in r[0]]
    T.ok(len(top) == 1 and top[0][1][:3] ==
         [want["arena"], want["uordblks"], want["fordblks"]],
         "%s: the heap row is the target's mallinfo2 (system %d, in use "
         "%d, free %d)" % (what, want["arena"], want["uordblks"],
                           want["fordblks"]), scr)
    arenas = [r for r in rs if "arena 0x" in r[0]]
    got = sorted((r[0].lstrip("+- ").startswith("main"), r[1][0], r[1][1],
                  r[1][2]) for r in arenas)
    T.eq(got, sorted(a[:4] for a in info),
         "%s: each arena's system, in use and free are its own "
         "malloc_info's" % what)
    T.ok(all(r[1][3] is not None and 0 <= r[1][3] <= r[1][2]
             for r in arenas),
         "%s: each arena's free bytes still resident within its free"
         % what, arenas)
    # each arena's detail: free chunks as malloc_info counts them
    chunks = []
    for i in range(len(arenas)):
        scr = tm.keys("Down").wait_for(lambda s: "Free chunks" in s)
        sysb = detail_num(scr, "System")
        chunks.append((sysb, detail_num(scr, "Free chunks")))
    T.eq(sorted(chunks), sorted((a[1], a[4]) for a in info),
         "%s: each arena's detail counts its free chunks as malloc_info "
         "does" % what)
    if h >= 60:
        hist = [int(m) for m in re.findall(
            r"^\s+\d+ [BKMGT]-\s*\d* ?[BKMGT]?\s+(\d+)\s+\d+ [BKMGT]",
            scr, re.M)]
        bounds = re.findall(r"^\s+(\d+ [BKMGT])-(\d+ [BKMGT])\s+\d+",
                            scr, re.M)
        T.ok(bounds and all(lo != hi for lo, hi in bounds),
             "%s: each histogram row's two sizes differ (1 K-2 K, not "
             "1 K-1 K)" % what, bounds)
        fc = detail_num(scr, "Free chunks")
        T.ok("Strip" in scr and hist and sum(hist) == fc - 1,
             "%s: the strip, and a histogram whose counts add up to the "
             "free chunks outside top (%s of %s)" % (what, sum(hist), fc),
             scr)
    # the main arena opens into its segment: [heap]
    tm.keys("Home", "Down")
    scr = tm.wait_for(lambda s: "main arena" in s.split("\n")[-2] or
                      "(glibc-main)" in s)
    scr = tm.expect("%s: Right opens the main arena into its segment"
                    % what, lambda s: re.search(r"^\s+0x[0-9a-f]+-0x", s,
                                                re.M), "Right")
    seg = re.search(r"^\s+0x([0-9a-f]+)-0x([0-9a-f]+)", scr, re.M)
    T.eq(seg and int(seg.group(1), 16), heap_start(p.pid),
         "%s: its segment starts where the kernel's [heap] does" % what)
    tm.keys("Down", "Enter")
    at = "%016x" % int(seg.group(1), 16) if seg else "?"
    row = re.compile(r"^. %s +Heap .*main arena" % at, re.M)
    scr = tm.wait_for(lambda s: "Total" in s and row.search(s))
    T.ok("Total" in scr and row.search(scr),
         "%s: Enter on the segment shows it in the viewer" % what, scr)
    # H from the viewer on [heap]: the main arena's detail
    tm.keys("H")
    scr = tm.wait_for("(glibc-main)")
    T.ok("(glibc-main)" in scr and re.search(r"^\s+0x[0-9a-f]+-0x", scr,
                                             re.M),
         "%s: H on [heap] opens on the main arena" % what, scr)
    tm.keys("Escape")
    tm.wait_for(lambda s: "(glibc-main)" not in s)
    tm.kill()


def not_walked(p, w, h, env, args, what):
    tm = D.Tmux([T.VMSCOPE, "-b", "pss"] + args + [str(p.pid)], width=w,
                height=h, env=env, colours=256, term="tmux-256color")
    tm.wait_for(D.captured, timeout=120)
    tm.keys("H")
    scr = tm.wait_for("not walked")
    T.ok("heaps: not walked" in scr and "not done" in scr and
         "one instant" in scr,
         "%s: without memory of one instant, the heaps are not walked "
         "and the note says why" % what, scr)
    said = ("The heaps were not walked: no consistent memory of one "
            "instant, or no glibc found (the notes above say which). -b "
            "fork or -b pss -F walks them.")
    T.ok(said in " ".join(scr.split()),
         "%s: what to do is said whole (wrapped, not cut)" % what, scr)
    tm.kill()


def cancel(w, h, env, what):
    """A long walk (512 MiB of small chunks) shows how far it is, and Esc
    cancels it: the layout stays, the target runs on, untraced."""
    p, _ = T.start([T.target("heap_arenas"), "big", "0", "512"],
                   timeout=300)
    tm = D.Tmux([T.VMSCOPE, "-b", "fork", str(p.pid)], width=w, height=h,
                env=env, colours=256, term="tmux-256color")
    walking = re.compile(r"walking glibc heaps \d[\d.]* [KMG]")
    scr = tm.wait_for(lambda s: walking.search(s) or "fork, frozen" in s,
                      timeout=120)
    if "fork, frozen" in scr:
        T.skip("%s: Esc cancels a long walk" % what,
               "the walk ended before its progress was seen")
    else:
        T.ok(True, "%s: a long walk shows how far it is" % what)
        tm.keys("Escape")
        scr = tm.wait_for("cancelled", timeout=60)
        T.ok("cancelled: the counters of the regions read so far" in scr,
             "%s: Esc cancels it; the layout stays" % what, scr)
    tm.kill()
    st = T.proc_state(p.pid)
    T.ok(st not in "tT" and T.tracer_pid(p.pid) == 0,
         "%s: the target runs on, untraced" % what, st)
    T.kill(p)


def main():
    D.require_tmux("heaps in tmux")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "info.xml")
        env = dict(os.environ, HEAP_ARENAS_INFO=path)
        p, line = T.start([T.target("heap_arenas"), "normal", "4"], env=env)
        want = T.ready_fields(line)
        info = malloc_info(path)
        T.ok(len(info) == 5 and
             sum(a[1] for a in info) == want["arena"] and
             sum(a[3] for a in info) == want["fordblks"],
             "the target's malloc_info adds up to its mallinfo2", info)
        one_size(p, want, info, 80, 24, {"NO_COLOR": "1"}, [],
                 "80x24 NO_COLOR")
        one_size(p, want, info, 200, 60, {}, ["-t", "light"],
                 "200x60 -t light")
        not_walked(p, 80, 24, {"NO_COLOR": "1"}, [], "80x24 pss")
        T.kill(p)
    cancel(80, 24, {"NO_COLOR": "1"}, "80x24 NO_COLOR")
    T.done()


main()
