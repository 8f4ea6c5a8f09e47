#!/usr/bin/env python3
"""Every call the tracer interposes, traced at launch (vmscope --trace -e
json|-s -- CMD), exact by function (tests/targets/trace_family.c,
tests/targets/trace_jemalloc.c).

  - The malloc family: calloc, realloc (grow, shrink, realloc(NULL, n)),
    reallocarray (new and grow), posix_memalign, aligned_alloc, memalign,
    valloc, pvalloc, each from its own function, N calls of one size, some
    freed: each function's site has exactly the outstanding and transient
    counts and bytes the program printed (N, SIZE, FREED per function); the
    blocks realloc and reallocarray took over (base_alloc under each
    caller) and realloc(p, 0)'s are transient, to the byte; realloc(p, 0)
    makes no site. Nothing dropped, no unknown free.
  - file:line: each of those sites' innermost frame names trace_family.c
    and the line of the call (the line after its "MARK:name" comment in
    the source; the target is built -O1 -g).
  - The mmap family through the library's interposers: whole maps kept; a
    map unmapped in part (its tail), whose rest mremap grows in place (the
    program checks the address stayed); a hole unmapped in a map kept (its
    bytes transient, the map still one outstanding); a map whose first page
    mremap moves (the program checks it moved) and whose rest is unmapped;
    sbrk(+16 pages) then sbrk(-16 pages) 3 times; sbrk(+2 pages) kept:
    exact counts and bytes by function and kind (mmap, brk).
  - errno: the program sets errno before each of malloc, free, calloc,
    realloc, posix_memalign, mmap, munmap (all succeed) and a failing
    malloc and mmap, in the main thread and in a new thread, and prints
    errno after each: the traced lines (exact, and sampled:
    --trace-sample=64) equal the untraced ones (and free leaves errno as
    it was in both, as glibc 2.33+ does).
  - jemalloc kept: trace_jemalloc linked with libjemalloc prints the growth
    of jemalloc's own mallctl("stats.allocated") across its allocations:
    the same traced as untraced, > 0 and at least the 600,000 bytes kept
    (the plain build, glibc's malloc, says it has no jemalloc); its site
    exact.
  - Drops: 300 threads each malloc 4321 bytes once, all alive at once, more
    threads than the tracer's rings (TW_SLOTS, 256): the report's dropped
    is the blocks not recorded (300 less those the site counts, > 0),
    dropped_bytes 4321 each, every one counted in dropped_threads; the text
    report says why (too many threads allocating at once, 256) and what
    drops do to the figures; the program's output and exit status are the
    untraced run's.
  - A stalled reader: vmscope stopped (SIGSTOP; SIGCONT in a finally)
    while the program makes 200,000 malloc/free pairs: its ring fills, the
    library goes pass-through after TW_WAIT_NS without vmscope's heartbeat,
    and the allocations recorded plus those counted dropped are the
    200,000, 100 bytes each, and the sbrk(+16 pages) it then makes one
    more (its sbrk(-16 pages), which frees, not counted); the program's
    output and exit status are unchanged.
Each traced program's output and exit status equal its untraced run's.
"""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
PG = os.sysconf("SC_PAGESIZE")
SRC = os.path.join(T.ROOT, "tests", "targets", "trace_family.c")
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
ZERO = {"count": 0, "bytes": 0}


def cb(count, size):
    return {"count": count, "bytes": count * size}


def plain(cmd):
    return subprocess.run(cmd, capture_output=True, timeout=120, env=ENV)


def traced(cmd, args=("-e", "json")):
    """(the JSON report or None, the text of -s, the run)"""
    with tempfile.NamedTemporaryFile(suffix=".out") as f:
        r = subprocess.run([T.VMSCOPE, "--trace"] + list(args) +
                           ["-o", f.name, "--"] + cmd,
                           capture_output=True, timeout=120, env=ENV)
        T.ok(r.returncode == 0, "trace of %s: exit 0" % " ".join(cmd[-2:]),
             r.stderr.decode(errors="replace"))
        text = open(f.name).read()
    if args[0] != "-e":
        return None, text, r
    try:
        return json.loads(text), text, r
    except ValueError:
        T.ok(False, "a JSON report of %s" % cmd, text[:300])
        return None, text, r


def same_as_untraced(cmd, r, exit_status, what):
    u = plain(cmd)
    T.eq((r.stdout, exit_status), (u.stdout, u.returncode),
         "%s: the traced program's output and exit status are the "
         "untraced one's" % what)
    return u.stdout.decode(errors="replace")


def own(sites, kind, fn, caller=None):
    """The sites of kind whose innermost frame is fn (and the next,
    caller)."""
    return [s for s in sites if s["kind"] == kind and s["frames"] and
            s["frames"][0]["function"] == fn and
            (caller is None or (len(s["frames"]) > 1 and
                                s["frames"][1]["function"] == caller))]


def figures(sites):
    if len(sites) != 1:
        return ("%d sites" % len(sites),)
    s = sites[0]
    return (s["outstanding"], s["transient"])


def marks():
    """{function: the source line of its allocating call}"""
    got = {}
    for i, ln in enumerate(open(SRC).read().splitlines(), 1):
        m = re.search(r"/\* MARK:(\w+) \*/", ln)
        if m:
            got[m.group(1)] = i + 1
    return got


def malloc_family():
    cmd = [T.target("trace_family"), "malloc"]
    d, _, r = traced(cmd)
    if not d:
        return
    tr = d["trace"]
    out = same_as_untraced(cmd, r, d["process"]["exit_status"],
                           "malloc family")
    T.eq((tr["mode"], tr["dropped"], tr["unknown_frees"], tr["ended"]),
         ("exact", 0, 0, True), "malloc family: exact, nothing dropped, "
         "no unknown free, the program's end")
    sites = tr["sites"]
    calls = {}
    for ln in out.splitlines():
        f = ln.split()
        if len(f) == 4 and f[1].isdigit():
            calls[f[0]] = tuple(int(x) for x in f[1:])
    T.ok(len(calls) == 11, "the program printed its 11 functions' calls",
         out)
    for fn, (n, size, freed) in sorted(calls.items()):
        T.eq(figures(own(sites, "heap", fn)),
             (cb(n - freed, size), cb(freed, size)),
             "%s: %d outstanding and %d transient blocks of %d bytes, "
             "exactly" % (fn, n - freed, freed, size))
    # realloc and reallocarray free what base_alloc made (its size by
    # construction: trace_family.c), realloc(p, 0) too
    taken = {"realloc_grow": 64, "realloc_shrink": 1000,
             "reallocarray_grow": 50}
    for caller, size in sorted(taken.items()):
        n = calls.get(caller, (0,))[0]
        T.eq(figures(own(sites, "heap", "base_alloc", caller)),
             (ZERO, cb(n, size)), "base_alloc under %s: its %d blocks of "
             "%d bytes transient (taken over by the call)" %
             (caller, n, size))
    T.eq(figures(own(sites, "heap", "base_alloc", "realloc_zero")),
         (ZERO, cb(3, 77)), "realloc(p, 0): the 3 blocks of 77 bytes "
         "freed (transient)")
    T.ok("realloc0 -> (nil)" in out and
         not own(sites, "heap", "realloc_zero"),
         "realloc(p, 0) returned NULL and makes no site of its own", out)
    # file:line of the call in each
    want = marks()
    got = {}
    for fn in want:
        for s in own(sites, "heap", fn):
            f = s["frames"][0]
            got[fn] = (os.path.basename(f["file"] or ""), f["line"])
    T.eq(got, {fn: ("trace_family.c", line) for fn, line in want.items()},
         "file:line: each site's innermost frame is the source line of "
         "its call (%d functions)" % len(want))


def mmap_family():
    cmd = [T.target("trace_family"), "mmap"]
    d, _, r = traced(cmd)
    if not d:
        return
    tr = d["trace"]
    out = same_as_untraced(cmd, r, d["process"]["exit_status"],
                           "mmap family")
    T.ok("inplace=1 moved=1 brk_back=1 " in out, "the program saw its "
         "mremap grow in place, its other mremap move, its break come "
         "back", out)
    T.eq((tr["dropped"], tr["unknown_frees"]), (0, 0),
         "mmap family: nothing dropped, no unknown free")
    sites = tr["sites"]
    want = [
        ("mmap", "map_whole", cb(3, 4 * PG), ZERO,
         "3 maps of 4 pages kept"),
        ("mmap", "map_reserve", ZERO, cb(1, 8 * PG),
         "8 pages: the tail unmapped, the rest moved on by mremap: "
         "transient"),
        ("mmap", "grow_inplace", cb(1, 4 * PG), ZERO,
         "mremap grown in place to 4 pages, kept"),
        ("mmap", "map_partial", cb(1, 7 * PG), {"count": 0,
                                               "bytes": 3 * PG},
         "10 pages with a hole of 3 unmapped: 1 map of 7 pages "
         "outstanding, the hole's bytes transient"),
        ("mmap", "map_for_move", ZERO, cb(1, 3 * PG),
         "3 pages: the first moved by mremap, the rest unmapped: "
         "transient"),
        ("mmap", "remap_move", cb(1, 4 * PG), ZERO,
         "mremap moved to 4 pages, kept"),
        ("brk", "sbrk_grow", ZERO, cb(3, 16 * PG),
         "sbrk(+16 pages) 3 times, each given back by sbrk(-16 pages)"),
        ("brk", "brk_keep", cb(1, 2 * PG), ZERO, "sbrk(+2 pages) kept"),
    ]
    for kind, fn, outstanding, transient, what in want:
        T.eq(figures(own(sites, kind, fn)), (outstanding, transient),
             "%s %s: %s" % (kind, fn, what))
    T.eq([s for s in sites if s["frames"] and s["frames"][0]["function"] in
          ("sbrk_shrink", "unmap_tail", "unmap_middle", "free_rest")], [],
         "the calls that give memory back make no site")


def errno_calls():
    cmd = [T.target("trace_family"), "errno"]
    u = plain(cmd)
    for args, how in ((("-s",), "exact"),
                      (("--trace-sample=64", "-s"), "sampled")):
        _, _, r = traced(cmd, args)
        got = r.stdout.decode(errors="replace")
        T.eq(got, u.stdout.decode(errors="replace"),
             "errno after each call: traced (%s) as untraced (main thread "
             "and a new thread's first calls)" % how)
    for ln in got.splitlines():
        e = ln.split()[1:]
        T.ok(len(e) == 11 and (e[1], e[4], e[6]) == ("1001", "1004", "1006")
             and e[9] == "12" and e[10] == "9",
             "%s: free keeps errno; a failing malloc sets ENOMEM, a failing "
             "mmap EBADF" % ln.split(":")[0], ln)


def jemalloc():
    what = "jemalloc kept"
    if not os.path.exists(JEMALLOC) or not shutil.which("cc"):
        T.skip(what, "libjemalloc2 or cc not installed (scripts/deps.sh)")
        return
    base = plain([T.target("trace_jemalloc")]).stdout.decode()
    T.eq(base, "allocator: not jemalloc\n", "trace_jemalloc, plain build: "
         "glibc's malloc, no jemalloc (the check can tell)")
    tmp = tempfile.mkdtemp(prefix="vmscope-trace-je-")
    try:
        app = os.path.join(tmp, "trace_jemalloc")
        b = subprocess.run(["cc", "-std=gnu11", "-O1", "-g", "-o", app,
                            os.path.join(T.ROOT, "tests", "targets",
                                         "trace_jemalloc.c"), JEMALLOC],
                           capture_output=True)
        if not T.ok(b.returncode == 0, "trace_jemalloc links with "
                    "libjemalloc", b.stderr):
            return
        d, _, r = traced([app])
        if not d:
            return
        out = same_as_untraced([app], r, d["process"]["exit_status"], what)
        m = re.match(r"jemalloc allocated\+=(\d+) usable=(\d+)$",
                     out.strip())
        T.ok(m and int(m.group(1)) >= 600000 and
             int(m.group(1)) == int(m.group(2)),
             "traced: jemalloc's stats.allocated grew by the 6 blocks "
             "kept (>= 600,000 bytes, their usable sizes): jemalloc "
             "served them", out)
        T.eq(figures(own(d["trace"]["sites"], "heap", "je_blocks")),
             (cb(6, 100000), cb(4, 100000)),
             "jemalloc: je_blocks' 6 outstanding and 4 transient blocks")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def drops():
    cmd = [T.target("trace_family"), "drops"]
    d, _, r = traced(cmd)
    if not d:
        return
    tr = d["trace"]
    same_as_untraced(cmd, r, d["process"]["exit_status"], "drops")
    mine = own(tr["sites"], "heap", "thread_block")
    recorded = sum(s["outstanding"]["count"] for s in mine)
    T.ok(0 < tr["dropped"] and recorded <= 256 and
         tr["dropped"] == 300 - recorded and
         tr["dropped_bytes"] == tr["dropped"] * 4321 and
         all(s["transient"] == ZERO and
             s["outstanding"]["bytes"] == s["outstanding"]["count"] * 4321
             for s in mine),
         "300 threads, 256 rings: the blocks not recorded are the report's "
         "dropped, 4321 bytes each; the others outstanding",
         (recorded, tr["dropped"], tr["dropped_bytes"]))
    _, text, r2 = traced(cmd, ("-s",))
    T.eq(tr.get("dropped_threads"), tr["dropped"], "300 threads: every call "
         "dropped counted as a thread's that had no ring")
    T.ok(re.search(r"\d+ not recorded \(\d+ bytes; \d+ of them by threads "
                   r"past the 256 that held a ring at once: too many "
                   r"threads allocating at once\): a block whose "
                   r"allocation was not recorded is missing from the "
                   r"figures, one whose free was not is counted alive",
                   text),
         "the text report says why calls were dropped (too many threads "
         "allocating at once, the limit) and what the drops do to the "
         "figures", text[:600])
    T.eq(r2.stdout.decode(), "drops: threads=300 blocks=300\n",
         "drops: every thread's block made (the program's own count)")


def line_within(f, timeout):
    """The next line of the pipe f, or b"" after timeout seconds."""
    deadline = time.time() + timeout
    buf = b""
    while not buf.endswith(b"\n") and time.time() < deadline:
        r, _, _ = select.select([f], [], [], max(deadline - time.time(),
                                                 0))
        if not r:
            break
        c = os.read(f.fileno(), 1)
        if not c:
            break
        buf += c
    return buf


def stalled():
    """vmscope stopped (SIGSTOP) while the program fills its ring: after
    TW_WAIT_NS (2 s) without vmscope's heartbeat the library goes
    pass-through; every allocation it did not record is counted dropped,
    so recorded + dropped is the program's 200,000."""
    cmd = [T.target("trace_family"), "stall"]
    u = subprocess.run(cmd, input=b"go\n", capture_output=True, timeout=120)
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        v, ready = T.start([T.VMSCOPE, "--trace", "-e", "json", "-o",
                            f.name, "--"] + cmd, env=ENV,
                           stderr=subprocess.PIPE)
        out = (ready + "\n").encode()  # start() took the line, stripped
        try:
            os.kill(v.pid, signal.SIGSTOP)
            deadline = time.time() + 60
            while T.proc_state(v.pid) != "T" and time.time() < deadline:
                time.sleep(0.01)
            T.ok(T.proc_state(v.pid) == "T", "vmscope stopped")
            v.stdin.write(b"go\n")
            v.stdin.flush()
            # the program ends its loop only once the library has given
            # up waiting for vmscope (2 s without its heartbeat)
            done = line_within(v.stdout, 120)
        finally:
            os.kill(v.pid, signal.SIGCONT)
        rest, err = v.communicate(timeout=120)
        T.eq((out + done + rest, v.returncode),
             (u.stdout, u.returncode), "vmscope stopped a while: the "
             "program's output and vmscope's exit status (the program's "
             "0) are the untraced run's")
        try:
            d = json.load(open(f.name))
        except ValueError:
            T.ok(False, "stalled: a JSON report", err)
            return
    tr = d["trace"]
    mine = own(tr["sites"], "heap", "stall_loop")
    recorded = sum(s["outstanding"]["count"] + s["transient"]["count"]
                   for s in mine)
    # and stall_brk's growth of the break (16 pages) dropped too; its
    # shrink, as a free, not counted
    T.ok(0 < recorded < 200000 and
         tr["dropped"] == 200000 - recorded + 1 and
         tr["dropped_bytes"] == 100 * (200000 - recorded) + 16 * PG and
         "brk_back=1" in u.stdout.decode(),
         "vmscope stopped: the allocations recorded and those dropped "
         "(100 bytes each) make the program's 200,000; its sbrk(+16 pages) "
         "dropped too, its sbrk(-16 pages) not counted",
         (recorded, tr["dropped"], tr["dropped_bytes"]))


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    malloc_family()
    mmap_family()
    errno_calls()
    jemalloc()
    drops()
    stalled()
    T.done()


if __name__ == "__main__":
    main()
