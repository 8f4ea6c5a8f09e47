#!/usr/bin/env python3
"""test_selfcopy_pages — vmscope holds no page of the libraries it maps
(src/linux/selfcopy.h), by the kernel's own account of vmscope: its
/proc/PID/smaps read while vmscope, its capture of a target done, is
blocked writing the export into a one-page pipe. Every range of a file
vmscope maps (but its own executable, and the loader's PROT_NONE gaps)
is Anonymous to its full Size: a copy of every page, none of the file's.

  - as built, with MADV_POPULATE_WRITE;
  - as on a kernel before 5.14, which answers that advice EINVAL
    (tests/targets/nosys madvise_populate_write): each page written
    instead, to the same result;
  - the control, VMSCOPE_SHARED_LIBS=1: some range holds pages of its file
    (Rss above Anonymous), so the check can fail.
Each run's export says nothing of sharing a file with the target (the
observer note) but in the control."""
import fcntl
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402


def smaps_ranges(pid):
    """[(first line of the record, {field: kB})] of the file ranges."""
    out, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$",
                         line)
            if m:
                cur = None
                if m.group(4) != "0" and m.group(5).startswith("/"):
                    cur = (line.strip(), m.group(3), m.group(5), {})
                    out.append(cur)
                continue
            m = re.match(r"^(\w+):\s+(\d+) kB", line)
            if m and cur:
                cur[3][m.group(1)] = int(m.group(2))
    return out


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
    seen = None
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        try:
            with open("/proc/%d/syscall" % p.pid) as f:
                nr = f.read().split()[0]
            with open("/proc/%d/stat" % p.pid) as f:
                st = f.read()
            exe = os.readlink("/proc/%d/exe" % p.pid)
        except (OSError, IndexError):
            break
        # blocked in write(2), and vmscope's own image (not nosys's)
        if nr == "1" and st[st.rindex(")") + 2] == "S" and \
                os.path.samefile(exe, T.VMSCOPE):
            seen = [r for r in smaps_ranges(p.pid)
                    if not os.path.samefile(r[2], T.VMSCOPE)
                    if os.path.exists(r[2])]
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


def main():
    t, _ = T.start([T.target("everykind")])
    nosys = T.target("nosys")
    runs = [("as built", [], {}, True),
            ("without MADV_POPULATE_WRITE",
             [nosys, "madvise_populate_write"], {}, True),
            ("control (VMSCOPE_SHARED_LIBS=1)", [],
             {"VMSCOPE_SHARED_LIBS": "1"}, False)]
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
                     r[3].get("Anonymous")) for r in libs
                    if r[3].get("Anonymous") != r[3].get("Size")]
            if copied:
                T.ok(not held,
                     "%s: every library range is Anonymous to its full size "
                     "(no page of a file)" % name, held)
                T.ok(not observer(snap), "%s: no observer note" % name,
                     observer(snap))
            else:
                T.ok(any(h[2] and h[2] > (h[3] or 0) for h in held),
                     "%s: some library range holds pages of its file (Rss "
                     "above Anonymous): the check can fail" % name, held)
                T.ok(observer(snap), "%s: the observer note says vmscope "
                     "shares files with the target" % name)
    finally:
        T.kill(t)
    return T.done()


if __name__ == "__main__":
    main()
