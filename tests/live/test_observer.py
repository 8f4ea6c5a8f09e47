"""Looking changes nothing: a SIGSTOPped target that has loaded vmscope's
own libraries and touched every page of them shows, through vmscope,
exactly the Private (USS) and PSS the kernel shows this test when vmscope
is not running, with every sampler. vmscope holds private copies of its
libraries' pages (src/linux/selfcopy.h); the control run with
VMSCOPE_SHARED_LIBS=1 shows the effect this guards against (the pages both
map read Shared) and the note that says so. A run that only prints saved
files makes no copies (strace counts its MADV_POPULATE_WRITE calls).

So that nothing else on the machine maps them, the libraries are fresh
copies in a directory of the test's: the dynamic loader and libc, through
which both the target and vmscope are run (LOADER --library-path DIR
PROGRAM), and vmscope's other libraries, which the target loads too. libc
is what every target shares with vmscope."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402


def vmscope_libs():
    """The libraries vmscope maps (ldd), the loader last, but the sanitizer
    runtimes: a plain program cannot load those."""
    out = subprocess.run(["ldd", T.VMSCOPE], capture_output=True, text=True,
                         check=True).stdout
    libs = re.findall(r"=> (/\S+)", out)
    loader = re.findall(r"^\s*(/\S*ld-linux\S*)", out, re.M)
    return [lib for lib in libs
            if not re.search(r"lib[atlu]san|ubsan", lib)] + loader[:1]


def unobserved(pid, tmp):
    """The kernel's figures over the regions of the copied libraries,
    read by this test alone: Private and Pss summed over smaps' records.
    (Over the whole process, libc's and ld.so's Pss change whenever any
    other process on the machine starts or ends.)"""
    out = {"private": 0, "pss": 0}
    ours = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$",
                         line)
            if m:
                ours = m.group(1).startswith(tmp + "/")
                continue
            m = re.match(r"^(Pss|Private_Clean|Private_Dirty):\s+(\d+) kB",
                         line)
            if m and ours:
                key = "pss" if m.group(1) == "Pss" else "private"
                out[key] += int(m.group(2)) * 1024
    return out


def seen(snap, tmp):
    regs = [r for r in snap["regions"]
            if (r["path"] or "").startswith(tmp + "/")]
    return {"private": sum(r["private_clean"] + r["private_dirty"]
                           for r in regs),
            "pss": sum(r["pss"] for r in regs)}


def observer_notes(snap):
    return [m["why"] for m in snap["capture"].get("missing", [])
            if m["step"] == "observer"]


def capture(pid, flags, env, tmp):
    """(vmscope's export, the unobserved figures), read before and after
    the capture and retried while they differ."""
    for _ in range(3):
        before = unobserved(pid, tmp)
        r = subprocess.run(RUN + [T.VMSCOPE, "-e", "json"] + flags +
                           [str(pid)], capture_output=True, timeout=120,
                           env=env)
        after = unobserved(pid, tmp)
        if r.returncode != 0:
            return None, before, r.stderr.decode()
        if before == after:
            break
    import json
    return json.loads(r.stdout), before, ""


def copies_made(args, tmp):
    """How many library ranges a vmscope run copied (strace -f): its madvise
    calls with MADV_POPULATE_WRITE on a range an mprotect just made
    writable (src/base/bigmem.c populates its own memory too, which is no
    copy), or None when it failed or strace is missing."""
    if not shutil.which("strace"):
        return None
    log = os.path.join(tmp, "strace.log")
    # (LeakSanitizer cannot stop the world of a process strace traces)
    r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=mprotect,madvise",
                        "-o", log, T.VMSCOPE] + [str(a) for a in args],
                       capture_output=True, timeout=120,
                       env=dict(os.environ, ASAN_OPTIONS=":".join(
                           filter(None, (os.environ.get("ASAN_OPTIONS"),
                                         "detect_leaks=0")))))
    if r.returncode != 0:
        return None
    writable, n = set(), 0
    with open(log) as f:
        for line in f:
            m = re.search(r"(mprotect|madvise)\((0x[0-9a-f]+), (\d+), (\w+)",
                          line)
            if not m:
                continue
            key = (m.group(2), m.group(3))
            if m.group(1) == "mprotect" and \
                    m.group(4) == "PROT_READ" and "PROT_WRITE" in line:
                writable.add(key)
            elif m.group(4) == "MADV_POPULATE_WRITE" and key in writable:
                n += 1
    return n


def only_files(pid, tmp):
    """A run that only prints saved files looks at no process: it makes no
    copies (they cost some 2 ms a start); a run that captures does."""
    path = os.path.join(tmp, "seen.vms")
    r = T.run_vmscope("-w", path, pid)
    if not T.ok(r.returncode == 0, "saved a snapshot file", r.stderr):
        return
    live = copies_made(["-s", pid], tmp)
    if live is None:
        T.skip("copies of a live run", "strace missing or the run failed")
        return
    T.ok(live > 0, "-s PID copies its libraries (%d ranges)" % live)
    for what, args, want in (
            ("-l FILE -s", ["-l", path, "-s"], False),
            ("-l FILE -e json", ["-l", path, "-e", "json"], False),
            ("-d FILE FILE -s", ["-d", path, path, "-s"], False),
            ("--version", ["--version"], False),
            ("-d FILE PID -s", ["-d", path, pid, "-s"], True),
            ("--list -l FILE -s", ["--list", "-l", path, "-s"], True),
            ("-s PID", ["-s", pid], True)):
        n = copies_made(args, tmp)
        T.ok(n is not None and (n > 0) == want,
             "%s: %s" % (what, "runs from copies of its libraries (%s)" % n
                         if want else "makes no copies of its libraries"),
             "ranges copied: %r" % n)


RUN = []  # the copied loader and its library path


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-observer-")
    libs = []
    for lib in vmscope_libs():
        libs.append(os.path.join(tmp, os.path.basename(lib)))
        shutil.copy(lib, libs[-1])
    loader = libs.pop()
    RUN[:] = [loader, "--library-path", tmp]
    T.ok(any(os.path.basename(lib).startswith("libc.so") for lib in libs),
         "vmscope maps libc; the loader and %d libraries copied: %s"
         % (len(libs), ", ".join(os.path.basename(lib) for lib in libs)))
    env = dict(os.environ)
    p, _ = T.start(RUN + [T.target("observer")] +
                   [lib for lib in libs
                    if not os.path.basename(lib).startswith("libc.so")],
                   env=env)
    T.sigstop(p.pid)
    try:
        for name, flags in (("pss", []), ("pss -F", ["-F"]),
                            ("fork", ["-b", "fork"])):
            snap, truth, err = capture(p.pid, flags, env, tmp)
            if snap is None:
                T.ok(False, "%s: vmscope captured the target" % name, err)
                continue
            got = seen(snap, tmp)
            T.eq(got["private"], truth["private"],
                 "%s: Private (USS) of the libraries == the kernel's, "
                 "unobserved (%d K)"
                 % (name, truth["private"] // 1024))
            T.eq(got["pss"], truth["pss"],
                 "%s: PSS of the libraries == the kernel's, unobserved "
                 "(%d K)"
                 % (name, truth["pss"] // 1024))
            T.eq(snap["totals"]["uss"],
                 sum(r["private_clean"] + r["private_dirty"]
                     for r in snap["regions"]),
                 "%s: the USS total is the regions' Private" % name)
            T.eq(observer_notes(snap), [],
                 "%s: no note that vmscope shares a file with it" % name)

        snap, truth, err = capture(p.pid, [],
                                   dict(env, VMSCOPE_SHARED_LIBS="1"), tmp)
        if snap is None:
            T.ok(False, "control: vmscope on shared libraries ran", err)
        else:
            got = seen(snap, tmp)
            T.ok(got["private"] < truth["private"],
                 "control: on the system's libraries the target's Private "
                 "reads low (%d K, unobserved %d K): the effect is real"
                 % (got["private"] // 1024, truth["private"] // 1024))
            notes = observer_notes(snap)
            T.ok(len(notes) == 1 and "VMSCOPE_SHARED_LIBS" in notes[0],
                 "control: a note says vmscope shares files with it, and "
                 "why", notes)
        only_files(p.pid, tmp)
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    main()
