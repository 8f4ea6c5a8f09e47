#!/usr/bin/env python3
"""test_selfcopy_pages — vmscope holds no page of the libraries it maps
(src/linux/selfcopy.h), by the kernel's own account of vmscope: its
/proc/PID/smaps read while vmscope, its capture of a target done, is
blocked writing the export into a one-page pipe. Every range of a file
vmscope maps (but its own executable, and the loader's PROT_NONE gaps)
holds no page of its file: Rss all Anonymous, and Anonymous and Swap its
full Size (a copy of every page).

  - as built, with MADV_POPULATE_WRITE;
  - as on a kernel before 5.14, which answers that advice EINVAL
    (tests/targets/nosys madvise_populate_write): each page written
    instead, to the same result;
  - the control, VMSCOPE_SHARED_LIBS=1: some range holds pages of its file
    (Rss above Anonymous), so the check can fail;
  - under MDWE (nosys mdwe: code may not become executable again once
    made writable, as systemd's MemoryDenyWriteExecute= sets): vmscope
    runs (exit 0), copies what is not code, and its observer note says
    which ranges it could not copy;
  - with the copy of one range failing (strace injects ENOMEM into the
    first madvise): exit 0, the note says 1 range was not copied.
Each run's export says nothing of sharing a file with the target (the
observer note) but in the control and the last two; every run leaves each
library's protections as the control has them (bytes per file and
permissions: a range made writable and left so would show)."""
import fcntl
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

WRITE_NR = {"x86_64": "1", "aarch64": "64"}.get(platform.machine(), "1")


def observed(argv, env):
    """(export, vmscope's file ranges while it wrote it) or (None, why)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env)
    T._procs.append(p)
    try:
        fcntl.fcntl(p.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031),
                    4096)
    except OSError:
        pass
    seen, who = None, None
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        # vmscope may run as a child of the command (strace -f)
        for pid in [p.pid] + T.children(p.pid):
            try:
                with open("/proc/%d/syscall" % pid) as f:
                    nr = f.read().split()[0]
                with open("/proc/%d/stat" % pid) as f:
                    st = f.read()
                exe = os.readlink("/proc/%d/exe" % pid)
            except (OSError, IndexError):
                continue
            # blocked in write(2), and vmscope's own image
            if nr == WRITE_NR and st[st.rindex(")") + 2] == "S" and \
                    os.path.exists(exe) and os.path.samefile(exe, T.VMSCOPE):
                who = pid
                break
        if who:
            seen = [r for r in T.smaps_file_ranges(who)
                    if os.path.exists(r[2])
                    if not os.path.samefile(r[2], T.VMSCOPE)]
            break
        time.sleep(0.002)
    out, err = p.communicate(timeout=120)
    if p.returncode != 0 or seen is None:
        return None, "exit %d, seen %r: %s" % (p.returncode, seen is not None,
                                                err.decode()[-400:])
    return json.loads(out), seen


def observer(snap):
    return [m["why"] for m in snap["capture"].get("missing") or []
            if m["step"] == "observer"]


def shape(libs):
    """{(file name, perms): bytes}: the protections, whatever the merges."""
    out = {}
    for r in libs:
        k = (os.path.basename(r[2]), r[1])
        out[k] = out.get(k, 0) + r[3].get("Size", 0)
    return out


def first_populate(pid, env):
    """Which of a run's madvise calls is its first MADV_POPULATE_WRITE of
    a range of libc (1 for the first call; a sanitizer's runtime makes
    some before), by strace; None if none. Of libc, a file the target
    maps too, so that the range left is one the observer notes: a build
    that links other libraries shared copies theirs first (the loader's
    order is the same every run, the addresses not)."""
    r = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/stderr", "-e",
                        "trace=madvise,openat,mmap,close", T.VMSCOPE, "-e",
                        "json", str(pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=300, env=dict(os.environ, **env))
    libc_fd, libc, n = None, [], 0
    for ln in r.stderr.splitlines():
        m = re.search(r'openat\(.*"[^"]*/libc\.so[^"]*".*\) = (\d+)$', ln)
        if m:
            libc_fd = m.group(1)
            continue
        m = re.search(r"mmap\([^,]+, (\d+), [^,]+, [^,]+, (-?\d+), "
                      r"[^)]+\) = (0x[0-9a-f]+)$", ln)
        if m and m.group(2) == libc_fd:
            libc.append((int(m.group(3), 16), int(m.group(1))))
            continue
        m = re.search(r"close\((\d+)\)", ln)
        if m and m.group(1) == libc_fd:
            libc_fd = None
            continue
        m = re.search(r"madvise\((0x[0-9a-f]+), \d+, (\w+)\)", ln)
        if not m:
            continue
        n += 1
        at = int(m.group(1), 16)
        if m.group(2) == "MADV_POPULATE_WRITE" and \
                any(lo <= at < lo + size for lo, size in libc):
            return n
    return None


def main():
    t, _ = T.start([T.target("everykind")])
    nosys = T.target("nosys")
    quiet = dict(ASAN_OPTIONS=":".join(filter(None, (
        os.environ.get("ASAN_OPTIONS"), "detect_leaks=0"))))
    runs = [("control (VMSCOPE_SHARED_LIBS=1)", [],
             {"VMSCOPE_SHARED_LIBS": "1"}, "none"),
            ("as built", [], {}, "all"),
            ("without MADV_POPULATE_WRITE",
             [nosys, "madvise_populate_write"], {}, "all"),
            ("under MDWE", [nosys, "mdwe"], {}, "data")]
    mdwe = subprocess.run([nosys, "mdwe", "true"], capture_output=True,
                          text=True, timeout=60)
    if mdwe.returncode != 0:
        T.skip("under MDWE", "this kernel has no PR_SET_MDWE (Linux 6.3): "
               + mdwe.stderr.strip())
        runs = [r for r in runs if r[0] != "under MDWE"]
    first = first_populate(t.pid, quiet) if shutil.which("strace") else None
    if first:
        runs.append(("one copy failing (strace)",
                     ["strace", "-f", "-qq", "-o", os.devnull, "-e",
                      "inject=madvise:error=ENOMEM:when=%d" % first], quiet,
                     "one"))
    else:
        T.skip("one copy failing", "strace is not installed, or vmscope "
               "made no MADV_POPULATE_WRITE call under it")
    control = None
    try:
        for name, pre, env, copied in runs:
            snap, seen = observed(pre + [T.VMSCOPE, "-e", "json",
                                         str(t.pid)],
                                  dict(os.environ, **env))
            if snap is None:
                T.ok(False, "%s: vmscope captured the target" % name, seen)
                continue
            libs = [r for r in seen if r[1] != "---p"]
            T.ok(any("libc.so" in r[2] for r in libs),
                 "%s: vmscope maps libc (%d file ranges)" % (name, len(libs)),
                 [r[0] for r in seen])
            held = [(r[0], r[3].get("Size"), r[3].get("Rss"),
                     r[3].get("Anonymous"), r[3].get("Swap")) for r in libs
                    if r[3].get("Rss") != r[3].get("Anonymous") or
                    r[3].get("Anonymous", 0) + r[3].get("Swap", 0) !=
                    r[3].get("Size")]
            said = observer(snap)
            if copied == "none":
                control = shape(libs)
                T.ok(any(h[2] and h[2] > (h[3] or 0) for h in held),
                     "%s: some library range holds pages of its file (Rss "
                     "above Anonymous): the check can fail" % name, held)
                T.ok(said, "%s: the observer note says vmscope shares files "
                     "with the target" % name)
                continue
            if control is not None:
                T.eq(shape(libs), control, "%s: each library's protections "
                     "are the control's (bytes per file and permissions)"
                     % name)
            if copied == "all":
                T.ok(not held,
                     "%s: every library range is all Anonymous, to its full "
                     "size (no page of a file)" % name, held)
                T.ok(not said, "%s: no observer note" % name, said)
                continue
            code = [h for h in held if " r-xp " in h[0]]
            if copied == "data":
                T.ok(code and len(code) == len(held),
                     "%s: the ranges not copied are code alone (%d)"
                     % (name, len(code)), held)
                T.ok(said and "cannot copy %d of" % len(code) in said[0] and
                     "executable again" in said[0],
                     "%s: the note says %d ranges of code were not copied, "
                     "and why" % (name, len(code)), said)
            else:
                T.ok(len(held) == 1, "%s: one range not copied" % name,
                     held)
                T.ok(said and "cannot copy 1 of" in said[0] and
                     "Cannot allocate memory" in said[0],
                     "%s: the note says 1 range was not copied, and why"
                     % name, said)
    finally:
        T.kill(t)
    return T.done()


if __name__ == "__main__":
    main()
