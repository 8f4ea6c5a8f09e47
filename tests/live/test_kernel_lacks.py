#!/usr/bin/env python3
"""test_kernel_lacks — vmscope on a kernel without the newer system calls it
uses, as tests/targets/nosys makes one (a seccomp filter answers the call
ENOSYS, as a kernel that lacks it does; the filter is first shown to work:
a program under it gets ENOSYS from the call):

  - pidfd_open (Linux 5.3: the check that a pid still names the process
    captured), openat2 (5.6: a mapped file opened inside the target's
    root), process_vm_readv (3.2), memfd_create (3.17: the tracer's
    shared buffers) and execveat (3.19);
  - each taken away in turn, a CPython target that allocates nothing more
    is captured frozen (-F) and through the fork clone (-b fork): exit 0,
    the same regions (start, end, type, detail), the same size and
    committed bytes of each type, the same heaps (in use, free) and
    managed heaps as a capture with every call there;
  - none of them makes vmscope share a library with the target (its
    copies are made in place, src/linux/selfcopy.h): no observer note.
    Without MADV_POPULATE_WRITE: tests/live/test_selfcopy_pages.py.
"""
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

# each call's number, as nosys.c knows them
NR = {"x86_64": {"pidfd_open": 434, "openat2": 437, "process_vm_readv": 310,
                 "memfd_create": 319, "execveat": 322},
      "aarch64": {"pidfd_open": 434, "openat2": 437, "process_vm_readv": 270,
                  "memfd_create": 279, "execveat": 281}}
TARGET = ("import time\n"
          "x = [bytes(1000) for _ in range(10000)]\n"
          "print('ready', flush=True)\n"
          "time.sleep(3600)\n")
# calls a system call with no arguments that make sense: ENOSYS from the
# filter before the kernel looks at them (else EFAULT, EBADF, EINVAL...)
PROBE = ("import ctypes, sys\n"
         "libc = ctypes.CDLL(None, use_errno=True)\n"
         "r = libc.syscall(int(sys.argv[1]), -1, 0, 0, 0, 0, 0)\n"
         "print(r, ctypes.get_errno())\n")


def figures(snap):
    return {
        "regions": [(r["start"], r["end"], r["type"], r.get("detail"))
                    for r in snap["regions"]],
        "types": [(t["type"], t["size"], t["committed"])
                  for t in snap["types"]],
        "heaps": [(h.get("kind"), h.get("in_use"), h.get("free"))
                  for h in snap.get("heaps") or []],
        "managed": [(m["runtime"], m["start"], m["committed"], m["used"])
                    for m in snap.get("managed") or []],
    }


def observer(snap):
    return [m["why"] for m in snap["capture"].get("missing") or []
            if m["step"] == "observer"]


def main():
    nr = NR.get(platform.machine())
    nosys = T.target("nosys")
    if not nr:
        T.skip("a kernel without newer calls", "no call numbers for %s"
               % platform.machine())
        return T.done()
    p, _ = T.start([sys.executable, "-c", TARGET])
    for args in (["-F"], ["-b", "fork"]):
        how = " ".join(args)
        want = T.vmscope_json(p.pid, *args)
        T.ok(not observer(want) and figures(want)["managed"],
             "%s, every call there: no observer note (vmscope runs from "
             "its copies), CPython's arenas found" % how, observer(want))
        for call in ("pidfd_open", "openat2", "process_vm_readv",
                     "memfd_create", "execveat"):
            probe = subprocess.run([nosys, call, sys.executable, "-c", PROBE,
                                    str(nr[call])], capture_output=True,
                                   text=True, timeout=60)
            T.ok(probe.stdout.split() == ["-1", "38"],
                 "without %s: a program under the filter gets ENOSYS from "
                 "it" % call, probe.stdout + probe.stderr)
            r = subprocess.run([nosys, call, T.VMSCOPE, "-e", "json"] +
                               args + [str(p.pid)], capture_output=True,
                               text=True, timeout=300)
            got = json.loads(r.stdout) if r.returncode == 0 else None
            T.ok(got and figures(got) == figures(want),
                 "%s without %s: exit 0, the same regions, types, heaps and "
                 "managed heaps as with it" % (how, call),
                 r.stderr if not got else
                 [(k, figures(got)[k], figures(want)[k])
                  for k in figures(want) if figures(got)[k] !=
                  figures(want)[k]])
            if got:
                T.ok(not observer(got), "%s without %s: no observer note"
                     % (how, call), observer(got))
    T.kill(p)
    T.done()


main()
