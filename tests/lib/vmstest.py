"""vmstest — what the live tests share: TAP output, target processes that are
always cleaned up by pid, and the kernel's own figures to compare against.

Every process a test starts goes through start(); at exit (normal, failure
or exception) each is continued and killed by its pid and reaped, so no test
leaves a process stopped, traced or behind.
"""
import atexit
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VMSCOPE = os.environ.get("VMSCOPE", os.path.join(ROOT, "vmscope"))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
TARGETS = os.path.join(BUILD, "targets")

_failed = 0
_count = 0
_procs = []


def ok(cond, what, detail=None):
    """One TAP line. Returns cond so callers can chain."""
    global _failed, _count
    _count += 1
    if cond:
        print("ok - %s" % what)
    else:
        _failed += 1
        print("not ok - %s" % what)
        if detail is not None:
            for line in str(detail).splitlines()[:40]:
                print("#   %s" % line)
    sys.stdout.flush()
    return cond


def skip(what, why):
    global _count
    _count += 1
    print("ok - %s # SKIP %s" % (what, why))
    sys.stdout.flush()


def eq(a, b, what):
    return ok(a == b, what, "got %r, want %r" % (a, b))


def done():
    cleanup()
    sys.exit(1 if _failed else 0)


def seed(default=None):
    """The seed of a randomised test: VMSCOPE_SEED from the environment,
    else default, else one from the clock. Printed as a TAP comment
    ("# seed N") so that a failing run can be replayed with
    VMSCOPE_SEED=N."""
    env = os.environ.get("VMSCOPE_SEED", "").strip()
    if env:
        n = int(env, 0)
    elif default is not None:
        n = default
    else:
        n = time.time_ns() % 1000000007
    print("# seed %d (VMSCOPE_SEED=%d replays it)" % (n, n))
    sys.stdout.flush()
    return n


def rng(default=None):
    """A random.Random for a randomised test, seeded by seed(default)."""
    import random
    return random.Random(seed(default))


# ---- processes ----

def target(name):
    return os.path.join(TARGETS, name)


def start(argv, ready=True, timeout=300, **kw):
    """Starts a process; with ready=True waits for it to print a line
    starting with 'ready' on stdout and returns (proc, that line). The
    wait is bounded (timeout: generous, a loaded machine's start is slow)
    so that a target that never says ready fails the test, not hangs it."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                         stderr=kw.pop("stderr", None), **kw)
    _procs.append(p)
    line = ""
    if ready:
        deadline = time.time() + timeout
        while True:
            line = _line_by(p, deadline)
            if line is None:
                raise RuntimeError("%s not ready in %ss" % (argv[0], timeout))
            if not line:
                raise RuntimeError("%s exited before it was ready" % argv[0])
            if line.startswith("ready"):
                break
    return p, line.strip()


def _line_by(p, deadline):
    """The next line of p's stdout ("" at its end), or None if none came
    by deadline: read a byte at a time from the descriptor, so that nothing
    past the line is taken from what p.stdout reads later."""
    import select
    fd, buf = p.stdout.fileno(), bytearray()
    while True:
        left = deadline - time.time()
        if left <= 0:
            return None
        if not select.select([fd], [], [], left)[0]:
            continue
        c = os.read(fd, 1)
        buf += c
        if not c or c == b"\n":
            return buf.decode(errors="replace")


def start_asleep(argv, timeout=300, **kw):
    """Starts a program that prints nothing (sleep 600, say) and polls
    until it is asleep (state S: the loader is done and it blocks in a
    system call), for at most timeout; returns (proc, "")."""
    p, _ = start(argv, ready=False, **kw)
    deadline = time.time() + timeout
    while proc_state(p.pid) != "S" and time.time() < deadline:
        time.sleep(0.005)
    if proc_state(p.pid) != "S":
        raise RuntimeError("%s not asleep in %ss" % (argv[0], timeout))
    return p, ""


def foreign_ns_path():
    """How the kernel names, to this process, a file a process in another
    mount namespace (unshare -m, a copy of this one) runs: None when by
    the path this process sees (a machine's /), else that name (in a
    chroot the kernel names it from the namespace's own root, the chroot's
    directory and all, which neither this process nor vmscope can open)."""
    exe = os.path.realpath(shutil.which("sleep") or "/bin/sleep")
    p, _ = start(["unshare", "-m", "--propagation", "private", exe, "60"],
                 ready=False)
    seen = ""
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                seen = os.readlink("/proc/%d/exe" % p.pid)
            except OSError:
                break
            if os.path.basename(seen) == os.path.basename(exe):
                break
            time.sleep(0.005)
    finally:
        kill(p)
    return None if seen == exe else seen


def kill(p):
    """Continues, kills and reaps one process by its pid."""
    if p.poll() is None:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(p.pid, sig)
            except ProcessLookupError:
                pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    # what SIGKILL leaves behind: everykind's default data file (the next
    # everykind removes it: the last one's stayed after make check), a
    # JVM's perf data file (hsperfdata_USER/PID) and the socket its
    # attach listener made for jcmd (/tmp/.java_pidPID: 16 a run of
    # make check were left)
    if p.poll() is not None:
        for f in ["/tmp/everykind-%d.dat" % p.pid,
                  "/tmp/.java_pid%d" % p.pid] + \
                glob.glob("/tmp/hsperfdata_*/%d" % p.pid):
            try:
                os.unlink(f)
            except OSError:
                pass
    if p in _procs:
        _procs.remove(p)


def cleanup():
    for p in list(_procs):
        kill(p)


atexit.register(cleanup)


def proc_state(pid, tid=None):
    path = "/proc/%d/task/%d/stat" % (pid, tid) if tid else "/proc/%d/stat" % pid
    with open(path) as f:
        s = f.read()
    return s[s.rindex(")") + 2]


def wait_gone(pid, timeout=10):
    """Polls until pid has exited (gone, or a zombie its reaper has not
    reaped yet); False if it still runs after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if proc_state(pid) in "ZX":
                return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.01)
    return False


def differences(a, b, at="trace"):
    """Every path where a and b differ (field by field)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s.%s: only in %s" % (at, k, "live" if k in a
                                                  else "file"))
            else:
                out += differences(a[k], b[k], "%s.%s" % (at, k))
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return ["%s: %d against %d entries" % (at, len(a), len(b))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, "%s[%d]" % (at, i))
        return out
    return [] if a == b and type(a) is type(b) else \
        ["%s: %r against %r" % (at, a, b)]


def split_ties(snap, got):
    """Whether a capture's Σ Private and Σ Shared (got) tie to the
    smaps_rollup it read (snap's capture.kernel_rollup): equal, or, where
    another process mapped or unmapped a shared page between the two reads
    (tests run two at a time, and anything else may run), moved between
    the two by no more than is shared, with the sum kept, as the capture's
    own rollup_check says ("agrees in Rss and Swap; the sharing moved").
    (bool, what to print)."""
    kr = snap["capture"]["kernel_rollup"]
    kp = kr["private_clean"] + kr["private_dirty"]
    ks = kr["shared_clean"] + kr["shared_dirty"]
    if (got["Private"], got["Shared"]) == (kp, ks):
        return True, None
    check = snap["capture"].get("rollup_check") or ""
    moved = got["Private"] + got["Shared"] == kp + ks and \
        abs(got["Private"] - kp) <= max(ks, got["Shared"]) and \
        check.startswith("agrees") and "sharing moved" in check
    return moved, "got (%d, %d), the rollup (%d, %d): %s" % (
        got["Private"], got["Shared"], kp, ks, check)


def children(pid):
    """The children of pid's main thread (a process it started), [] when
    it is gone."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def uptime():
    """Seconds since boot, as the kernel log's stamps count them."""
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def kernel_says(pid, since=0.0):
    """The kernel log's lines about process pid ("prog[PID]: segfault
    at ..."), stamped since `since` (uptime() when it started: a pid is
    used again), for a failure's detail; what stands in for them if the
    log cannot be read."""
    try:
        r = subprocess.run(["dmesg"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "kernel log unread: %s" % e
    if r.returncode != 0:
        return "kernel log unread: %s" % r.stderr.decode(errors="replace")
    tag = "[%d]:" % pid

    def stamp(line):
        try:
            return float(line[1:line.index("]")])
        except ValueError:
            return since
    lines = [l for l in r.stdout.decode(errors="replace").splitlines()
             if tag in l and stamp(l) >= since]
    return "; ".join(lines[-3:]) or "no kernel log line about it"


def kill_gone(pid, timeout=10):
    """SIGKILL to pid (if any, and if still there), then wait_gone."""
    if not pid:
        return True
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    return wait_gone(pid, timeout)


def run_launcher(argv, out, env=None, each=None, timeout=120):
    """Runs argv (vmscope launching a command: --trace -- CMD), its
    output and errors to the file object out, until it exits (at most
    timeout s, then killed); each(kid), if given, is called at every poll
    while it runs, with the command it launched (its first child, None
    until seen). The command, which may run on after vmscope, is killed
    by its pid whatever happens. Returns vmscope's exit status."""
    p = subprocess.Popen(argv, stdout=out, stderr=out, env=env)
    kid = None
    deadline = time.time() + timeout
    try:
        while p.poll() is None and time.time() < deadline:
            kids = children(p.pid)
            kid = kids[0] if kids else kid
            if each:
                each(kid)
            time.sleep(0.005 if kid is None else 0.02)  # a poll, bounded
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_gone(kid)
    return p.returncode


def tids(pid):
    return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))


def sigstop(pid, timeout=10):
    """Stops pid with SIGSTOP and waits until every thread is stopped."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if all(proc_state(pid, t) in "tT" for t in tids(pid)):
            return
        time.sleep(0.01)
    raise RuntimeError("process %d did not stop" % pid)


def sigcont(pid):
    os.kill(pid, signal.SIGCONT)


def tracer_pid(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    return 0


# ---- vmscope ----

def run_vmscope(*args, timeout=120, **kw):
    return subprocess.run([VMSCOPE] + [str(a) for a in args],
                          capture_output=True, timeout=timeout, **kw)


def vmscope_json(pid, *extra):
    r = run_vmscope("-e", "json", *extra, pid)
    if r.returncode != 0:
        raise RuntimeError("vmscope failed (%d): %s" % (r.returncode,
                                                      r.stderr.decode()))
    return json.loads(r.stdout)


# ---- the kernel's own figures ----

def rollup(pid):
    """smaps_rollup, in bytes."""
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            m = re.match(r"^(\w+):\s+(\d+) kB", line)
            if m:
                out[m.group(1)] = int(m.group(2)) * 1024
    return out


def maps(pid):
    """/proc/PID/maps as a list of dicts, in the order of the file."""
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            line = line.rstrip("\n")
            parts = line.split(None, 5)
            start, end = (int(x, 16) for x in parts[0].split("-"))
            out.append({"start": start, "end": end, "perms": parts[1],
                        "offset": int(parts[2], 16), "dev": parts[3],
                        "inode": int(parts[4]),
                        "path": parts[5] if len(parts) > 5 else None})
    return out


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def hexint(s):
    return int(s, 16)


KPF_ZERO_PAGE = 24  # linux/kernel-page-flags.h


def pagemap_bytes(pid, start, end):
    """Bytes of [start, end) present in RAM (pagemap bit 63), in swap (bit
    62), and present and mapped by the target alone (bit 56), from pid's
    pagemap, read by the test itself: the kernel's own figures for a
    typed part's Rss, Swap and private bytes. A mapping of the zero page
    (a page only read: present in pagemap, but in no Rss, smaps' or
    vmscope's) is left out where the kernel says which it is
    (/proc/kpageflags' KPF_ZERO_PAGE of its frame: root); seen on a
    kernel 6.18 machine, a page of a jemalloc or a CPython part."""
    pg = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(start // pg * 8)
        data = f.read((end - start + pg - 1) // pg * 8)
    ents = [int.from_bytes(data[i:i + 8], "little")
            for i in range(0, len(data), 8)]
    try:
        kf = open("/proc/kpageflags", "rb")
    except OSError:
        kf = None

    def zero(e):
        pfn = e & ((1 << 55) - 1)
        if not kf or not pfn:
            return False
        kf.seek(pfn * 8)
        return int.from_bytes(kf.read(8), "little") >> KPF_ZERO_PAGE & 1

    present = [e for e in ents if e >> 63 & 1 and not zero(e)]
    if kf:
        kf.close()
    return (pg * len(present),
            pg * sum(1 for e in ents if e >> 62 & 1),
            pg * sum(1 for e in present if e >> 56 & 1))


def present_bytes(pid, start, end):
    """Bytes of [start, end) present in RAM, as pagemap_bytes counts
    them."""
    return pagemap_bytes(pid, start, end)[0]


def split_parts(snap, name, pid, how, prefix=False, kind="heap"):
    """The typed parts named name (or, with prefix, whose name starts with
    it: a heap's pieces inside regions the kernel merged with other
    memory) and the regions typed whole with that detail: checks that
    each part is of type kind (Heap), its Rss the pages of its range
    present in pid's pagemap (pid allocates nothing after its ready line:
    its pages stay as captured), that a region's parts hold no more than
    it, and that the Heap row counts the heap regions and the heap parts
    of the others (kind's row its). Returns (bytes in whole regions, bytes
    in parts, number of parts)."""
    def named(n):
        return n is not None and (n.startswith(name) if prefix
                                  else n == name)

    def inside(r):
        at = hexint(r["start"])
        for c in r["children"]:
            if hexint(c["start"]) < at or hexint(c["end"]) > hexint(r["end"]):
                return False
            at = hexint(c["end"])
        return True
    whole = sum(r["size"] for r in snap["regions"]
                if r["type"] == kind and named(r.get("detail")))
    parts = [(r, c) for r in snap["regions"] for c in r["children"]
             if named(c.get("name")) and "type" in c]
    ok(all(c["type"] == kind for _, c in parts),
       "%s: the %d parts %s are %s" % (how, len(parts), name, kind))
    got = [(c["start"], c["rss"], present_bytes(pid, hexint(c["start"]),
                                                hexint(c["end"])))
           for _, c in parts]
    ok(all(g[1] == g[2] for g in got), "%s: each part's Rss is its range's "
       "pages present in the target's pagemap" % how, got)
    split = {r["start"]: r for r, _ in parts}.values()
    bad = [r["start"] for r in split if not inside(r)]
    ok(not bad, "%s: each part lies inside its region, in address order, "
       "apart" % how, bad)
    bad = [r["start"] for r in split
           if any(sum(c[k] for c in r["children"]) > r[k]
                  for k in ("size", "committed", "rss", "private_dirty",
                            "pss", "swap"))]
    ok(not bad, "%s: a region's parts hold no more than it" % how, bad)
    types = {t["type"]: t for t in snap["types"]}
    eq(types[kind]["size"],
       sum(r["size"] for r in snap["regions"] if r["type"] == kind) +
       sum(c["size"] for r in snap["regions"] if r["type"] != kind
           for c in r["children"] if c.get("type") == kind),
       "%s: the %s row is its regions and the parts of others of its type"
       % (how, kind))
    return whole, sum(c["size"] for _, c in parts), len(parts)


def region_of(snap, addr):
    for r in snap["regions"]:
        if hexint(r["start"]) <= addr < hexint(r["end"]):
            return r
    return None


# ---- added for the engine's live tests (test_rollup, test_classify, ...) ----

def ready_fields(line):
    """'ready a=0x10 b=7 c=x' -> {'a': 16, 'b': 7, 'c': 'x'} (hex and
    decimal values become ints)."""
    out = {}
    for w in line.split()[1:]:
        if "=" not in w:
            continue
        k, v = w.split("=", 1)
        try:
            out[k] = int(v, 0)
        except ValueError:
            out[k] = v
    return out


def user_range():
    """The user address range vmscope counts free space in:
    [vm.mmap_min_addr, TASK_SIZE)."""
    with open("/proc/sys/vm/mmap_min_addr") as f:
        lo = int(f.read())
    lo = max(lo, os.sysconf("SC_PAGE_SIZE"))
    import platform
    hi = {"x86_64": 0x7ffffffff000, "aarch64": 1 << 48}.get(
        platform.machine(), 1 << 47)
    return lo, hi


def largest_gap(regions, lo=None, hi=None):
    """The largest gap between consecutive regions (dicts with start/end as
    ints) inside the user address range."""
    if lo is None:
        lo, hi = user_range()
    best, prev = 0, lo
    for r in sorted(regions, key=lambda r: r["start"]):
        if r["start"] >= hi:
            continue
        best = max(best, r["start"] - prev)
        prev = max(prev, r["end"])
    return max(best, hi - prev)


def smaps_file_ranges(pid):
    """[(first line of the record, perms, path, {field: kB})] of each
    mapping of a file (inode not 0, an absolute path) in pid's smaps."""
    out, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ (\d+)\s*(.*)$",
                         line)
            if m:
                cur = None
                if m.group(2) != "0" and m.group(3).startswith("/"):
                    cur = (line.strip(), m.group(1), m.group(3), {})
                    out.append(cur)
                continue
            m = re.match(r"^(\w+):\s+(\d+) kB", line)
            if m and cur:
                cur[3][m.group(1)] = int(m.group(2))
    return out


def kernel_view(pid):
    """Everything the kernel says that an export must tie to, read in one
    go: rollup, maps, VmPTE and the thread ids."""
    return {"rollup": rollup(pid), "maps": maps(pid),
            "vmpte": status_kb(pid, "VmPTE"), "tids": tids(pid)}


def stable_kernel_view(pid, action, tries=3):
    """Runs action() between two kernel_view()s of a stopped process and
    retries while they differ (khugepaged, compaction... can change a
    stopped process). Returns (result of action, view, stable?)."""
    for _ in range(tries):
        before = kernel_view(pid)
        res = action()
        after = kernel_view(pid)
        if before == after:
            return res, after, True
    return res, after, False


def wait_running(pid, timeout=10):
    """After SIGCONT: waits until no thread is in a stop state."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if all(proc_state(pid, t) not in "tT" for t in tids(pid)):
                return True
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    return False


def vmscope_json_observed(pid, *extra, view=None, timeout=120):
    """Runs `vmscope -e json [extra] pid` and calls view() while vmscope,
    its capture done, is blocked writing the export into a one-page pipe.
    The Private/Shared split and Pss of a library page depend on how many
    processes map it at that instant. vmscope holds private copies of its
    libraries' pages (src/linux/selfcopy.h), so it no longer counts; reading the
    figures mid-run still guards against anything else that starts or
    stops mapping them between a read before and one after. Returns
    (export, what view() returned, or None if vmscope finished first)."""
    import fcntl
    view = view or (lambda: kernel_view(pid))
    p = subprocess.Popen([VMSCOPE, "-e", "json"] + [str(a) for a in extra] +
                         [str(pid)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        fcntl.fcntl(p.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031),
                    4096)
    except OSError:
        pass
    seen = None
    deadline = time.time() + timeout
    while time.time() < deadline and p.poll() is None:
        try:
            with open("/proc/%d/syscall" % p.pid) as f:
                nr = f.read().split()[0]
            with open("/proc/%d/stat" % p.pid) as f:
                st = f.read()
            state = st[st.rindex(")") + 2]
        except (OSError, IndexError):
            break
        if nr == "1" and state == "S":  # blocked in write(2)
            seen = view()
            break
        time.sleep(0.002)
    out, err = p.communicate(timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("vmscope failed (%d): %s" % (p.returncode,
                                                      err.decode()))
    return json.loads(out), seen


def sanitizer_build(path=None):
    """Whether VMSCOPE (or path) was built with AddressSanitizer (make
    SAN=1): valgrind cannot run it, and LeakSanitizer needs /proc."""
    try:
        with open(path or VMSCOPE, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def peak_rss_kb(argv):
    """A command's own peak RSS in KiB, through /usr/bin/time (a child of
    this big Python would inherit its high-water mark across exec), or None
    without /usr/bin/time."""
    if not os.path.exists("/usr/bin/time"):
        return None
    with open(os.devnull, "wb") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M"] + argv,
                           stdout=out, stderr=subprocess.PIPE)
    for line in reversed(r.stderr.decode().splitlines()):
        if line.startswith("maxrss="):
            return int(line[7:])
    return None


def resp(*args):
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def kept_part(s):
    """What the runtime steps make of a snapshot: the managed entries, the
    allocator, each region's type and detail, each type's size and block
    count (the counters, which the kernel gives again on load, apart)."""
    return (s["managed"], s.get("allocator"),
            [(r["start"], r["type"], r["detail"]) for r in s["regions"]],
            [(t["type"], t["size"], t["blocks"]) for t in s["types"]])


def saved_and_loaded(pid, args, tmp):
    """The snapshot saved with -w and loaded with -l, beside a live capture
    with the same args: (live, loaded). The live one is taken before and
    after the save until both agree (at most 3 tries), so that what the
    file kept is compared with the process as it was when saved, not with
    the file loaded again (which -w -e json prints)."""
    path = os.path.join(tmp, "snap.vms")
    for _ in range(3):
        before = vmscope_json(pid, *args)
        r = run_vmscope("-w", path, *args, pid)
        if r.returncode != 0:
            raise RuntimeError("vmscope -w failed: %s" % r.stderr.decode())
        after = vmscope_json(pid, *args)
        if kept_part(before) == kept_part(after):
            break
    r = run_vmscope("-l", path, "-e", "json")
    if r.returncode != 0:
        raise RuntimeError("vmscope -l failed: %s" % r.stderr.decode())
    return after, json.loads(r.stdout)


def kept_in_file(live, loaded, what):
    """What the memory steps found comes back from the file as it was."""
    a, b = kept_part(live), kept_part(loaded)
    ok(a == b and bool(a[0] or a[1]), "%s: a saved snapshot loads with the "
       "same managed entries (%d), allocator, region types and details as "
       "a live capture" % (what, len(a[0])),
       "live %r\nloaded %r" % ([x for x in a if x not in b],
                                [x for x in b if x not in a]))


def gcore(pid, tmp):
    """A core dump of running process pid by gdb's gcore, in directory
    tmp: its path (RuntimeError with gcore's words when it fails)."""
    out = os.path.join(tmp, "core")
    r = subprocess.run(["gcore", "-o", out, str(pid)], capture_output=True,
                       timeout=300)
    path = "%s.%d" % (out, pid)
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError("gcore failed: %s" % r.stderr.decode()[-2000:])
    return path


# A sample of an OpenMetrics exposition with labels: name{labels} value.
OM_SAMPLE = re.compile(r'^([a-z_]+)\{([^}]*)\} (\S+)$')


def om_samples(text):
    """[(name, {label: value}, value)] of an exposition's samples with
    labels (a label's value as written: its escapes kept)."""
    out = []
    for line in text.split("\n"):
        m = OM_SAMPLE.match(line)
        if m:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"',
                                     m.group(2)))
            out.append((m.group(1), labels, float(m.group(3))))
    return out
