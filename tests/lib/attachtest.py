"""attachtest — what the live tests of `vmscope --trace PID` share, on top
of vmstest: the GOT entries of the malloc and mmap families as the
target's ELF files declare them and as its memory holds them, the
target's state after a detach, and the report's sites.
"""
import json
import os
import signal
import subprocess
import time

import vmstest

# the functions trace/attach.c redirects (trace/vmstrace.c: vt_fns, and
# dlopen, for the modules loaded later)
FAMILY = ("malloc", "free", "calloc", "realloc", "reallocarray",
          "posix_memalign", "aligned_alloc", "memalign", "valloc",
          "pvalloc", "mmap", "mmap64", "munmap", "mremap", "mprotect",
          "dlopen")


def got_slots(path):
    """(offset, name) of every JUMP_SLOT and GLOB_DAT relocation of the
    family in the file at path."""
    r = subprocess.run(["readelf", "-rW", path], capture_output=True,
                       text=True)
    out = []
    for ln in r.stdout.splitlines():
        w = ln.split()
        if len(w) >= 5 and ("JUMP_SLO" in w[2] or "GLOB_DAT" in w[2]):
            name = w[4].split("@")[0]
            if name in FAMILY:
                out.append((int(w[0], 16), name))
    return out


def base_of(pid, path):
    """Where the file at path is mapped from offset 0 in pid."""
    real = os.path.realpath(path)
    for ln in open("/proc/%d/maps" % pid):
        w = ln.split()
        if len(w) >= 6 and w[5] == real and int(w[2], 16) == 0:
            return int(w[0].split("-")[0], 16)
    return None


def got_values(pid, path, slots):
    """{(offset, name): the 8 bytes at that GOT entry in pid's memory}."""
    base = base_of(pid, path)
    with open("/proc/%d/mem" % pid, "rb") as m:
        vals = {}
        for off, name in slots:
            m.seek(base + off)
            vals[(off, name)] = int.from_bytes(m.read(8), "little")
        return vals


def modules(pid):
    """The ELF files pid maps (its executable and libraries), by path,
    those with GOT entries of the family: {path: slots}."""
    seen = {}
    for ln in open("/proc/%d/maps" % pid):
        w = ln.split()
        if len(w) < 6 or not w[5].startswith("/") or int(w[2], 16) != 0:
            continue
        if w[5] not in seen and os.path.isfile(w[5]):
            seen[w[5]] = got_slots(w[5])
    return {p: s for p, s in seen.items() if s}


def all_got_values(pid, mods):
    """{(path, offset, name): value} of every module of mods (modules())."""
    out = {}
    for path, slots in mods.items():
        for (off, name), v in got_values(pid, path, slots).items():
            out[(path, off, name)] = v
    return out


def poll(cond, timeout=30):
    """Polls cond until true, for at most timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def trace_files(pid):
    """How many of vmscope's shared files the target maps (one, however
    often it was attached: each attach's takes the place of the last's;
    one more for each vmscope that died attached)."""
    return sum("vmscope-trace" in ln for ln in open("/proc/%d/maps" % pid))


def trace_file_ids(pid):
    """The inodes of vmscope's shared files the target maps: an attach has
    mapped its own once one is there that was not before (the count stays
    the same: it takes the last one's place)."""
    return {ln.split()[4] for ln in open("/proc/%d/maps" % pid)
            if "vmscope-trace" in ln}


def trace_rss_kb(pid):
    """Rss of the target's mappings of vmscope's shared files (kB)."""
    cur, kb = False, 0
    for ln in open("/proc/%d/smaps" % pid):
        if not ln[0].isupper() or ln.startswith("VmFlags"):
            cur = "vmscope-trace" in ln and not ln.startswith("VmFlags")
        elif cur and ln.startswith("Rss:"):
            kb += int(ln.split()[1])
    return kb


def untraced_now(pid):
    return vmstest.tracer_pid(pid) == 0


def no_thread_stopped(pid):
    return all(vmstest.proc_state(pid, t) not in "tT"
               for t in vmstest.tids(pid))


def functions(site):
    return [f["function"] or "" for f in site["frames"]]


def site(sites, fn):
    """The heap sites whose innermost frame is fn."""
    return [s for s in sites if s["kind"] == "heap" and s["frames"] and
            functions(s)[0] == fn]

# tests/targets/heap_attach.c's commands in a trace, and after it
WORK = ["leak 300", "thread 40", "churn 200", "free 20"]
AFTER = ["leak 7", "churn 3", "free 2"]


def cmd(p, line):
    """Sends a command line to the target, returns its answer line."""
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def attach_round(p, app, cmds, sig=signal.SIGINT):
    """Attaches to p, runs cmds, ends the trace by sig (SIGINT: Ctrl-C):
    (the JSON report or None, the answers, the GOT entries before and
    after, vmscope's stderr)."""
    slots = got_slots(app)
    before = got_values(p.pid, app, slots)
    files = trace_file_ids(p.pid)
    v = subprocess.Popen([vmstest.VMSCOPE, "--trace", "-e", "json", str(p.pid)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the library has mapped this vmscope's file: the injection runs in
    # the target's only thread, whose commands wait for it to end
    poll(lambda: trace_file_ids(p.pid) - files or v.poll() is not None)
    out = [cmd(p, c) for c in cmds]
    v.send_signal(sig)
    o, e = v.communicate(timeout=120)
    try:
        d = json.loads(o)
    except ValueError:
        d = None
    try:
        after = got_values(p.pid, app, slots)
    except OSError:  # it died
        after = None
    return d, out, before, after, e


def leaked(d):
    if not d:
        return None
    return (d["attach"].get("injected"),
            sorted((s["outstanding"]["count"], s["outstanding"]["bytes"])
                   for s in site(d["trace"]["sites"], "leak_block")))


def untraced():
    """heap_attach's answers to "leak 50", WORK and AFTER, and its exit
    status, run untraced: what a traced run must equal."""
    p, _ = vmstest.start([vmstest.target("heap_attach")])
    out = [cmd(p, c) for c in ["leak 50"] + WORK + AFTER]
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    vmstest.kill(p)
    return out, rc
