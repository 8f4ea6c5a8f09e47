#!/usr/bin/env python3
"""The injection's choice of a thread with jemalloc or tcmalloc as the
program's allocator (src/capture/ptrace/inject_call.h: no thread inside
the allocator is borrowed, whichever allocator it is).

tests/targets/alloc_blocked.c, linked with libjemalloc, then with
libtcmalloc_minimal:
  - its only thread blocked in read() outside the allocator (between
    commands): attached, traced (leak_block's 10 blocks of 40 bytes and
    big_block's 4 of 8 MiB, exactly, from the injected library) and
    detached; the allocator's own maps for big_block's blocks (jemalloc's
    mmaps, tcmalloc's sbrk, inside malloc) are no site of the report (as
    root, the kernel's trace beside the library left them out: counted
    in allocator_maps);
  - launched (vmscope --trace -e json -- it): the same, big_block's blocks
    and no map of the allocator's for them (before, the library recorded
    the calls the allocator makes through its PLT inside malloc: jemalloc's
    54 MiB of mmaps, tcmalloc's 32 MiB of sbrk, beside the 32 MiB of
    blocks);
  - its only thread blocked in read() inside the allocator (jemalloc's
    extent hook of an arena of its own, which jemalloc calls holding that
    arena's lock of extent growth; tcmalloc's new hook, inside tc_malloc):
    the injection is refused, saying no thread waits outside the
    allocator (before, that thread was borrowed for dlopen and the
    library's first calls, whose mallocs are that allocator's); nothing
    is loaded into it, it is not traced, no thread of it stopped, and it
    answers as an untraced run.
Needs x86_64 (the injection's), cc and the libraries (scripts/deps.sh);
skipped otherwise.
"""
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import (functions, no_thread_stopped, poll,  # noqa: E402
                        untraced_now)

LIBS = {"jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
        "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"}


def cmd(p, line):
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def start(app, who):
    p, line = T.start([app])
    T.eq(line, "ready %s" % who, "%s: the target runs on %s" % (who, who))
    return p


def end(p):
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    return rc


def untraced(app, who):
    p = start(app, who)
    out = [cmd(p, "leak 10")]
    # "inside" is answered once its next line is read: two lines, one
    # answer
    p.stdin.write(b"inside\n")
    p.stdin.flush()
    out += [cmd(p, "there"), cmd(p, "leak 3")]
    return out, end(p)


def outside(app, who):
    """Blocked outside the allocator: attached and traced."""
    p = start(app, who)
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", str(p.pid)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    up = poll(lambda: "libvmstrace" in open("/proc/%d/maps" % p.pid).read()
              and untraced_now(p.pid) or v.poll() is not None)
    T.ok(up and v.poll() is None, "%s, blocked outside the allocator: "
         "the library injected" % who)
    ans = cmd(p, "leak 10") + cmd(p, "big 4")
    v.send_signal(signal.SIGINT)
    out, err = v.communicate(timeout=120)
    T.ok(v.returncode == 0 and ans.startswith("ok leak 10") and
         "ok big 4" in ans, "%s: traced and detached (exit 0)" % who, err)
    try:
        d = json.loads(out)
    except ValueError:
        T.ok(False, "%s: a JSON report" % who, out[:300])
        end(p)
        return
    sites = [s for s in d["trace"]["sites"]
             if s["kind"] == "heap" and "leak_block" in functions(s)]
    T.ok(d["attach"].get("injected") is True and len(sites) == 1 and
         (sites[0]["outstanding"]["count"],
          sites[0]["outstanding"]["bytes"]) == (10, 400),
         "%s: leak_block's 10 blocks of 40 bytes, exactly" % who,
         (d["attach"], [(functions(s)[:3], s["outstanding"])
                        for s in sites]))
    big(d["trace"], who + ", attached")
    if d["trace"]["kernel_maps"]:
        T.ok(d["trace"]["allocator_maps"] > 0, "%s: the kernel's trace "
             "left the allocator's own calls out (allocator_maps %d)" %
             (who, d["trace"]["allocator_maps"]))
    T.eq(end(p), 0, "%s: exits 0 after the detach" % who)


def big(tr, what):
    sites = [s for s in tr["sites"] if "big_block" in functions(s)]
    T.eq([(s["kind"], s["outstanding"]["count"], s["outstanding"]["bytes"])
          for s in sites], [("heap", 4, 4 * (8 << 20))],
         "%s: big_block's 4 blocks of 8 MiB, and no map of the allocator's "
         "own for them" % what)


def launched(app, who):
    r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "--", app],
                       input="leak 10\nbig 4\nend\n", capture_output=True,
                       text=True, timeout=300)
    T.ok(r.returncode == 0 and "ok big 4" in r.stderr, "%s, launched: "
         "traced, exit 0" % who, r.stderr[-300:])
    try:
        big(json.loads(r.stdout)["trace"], who + ", launched")
    except ValueError:
        T.ok(False, "%s, launched: a JSON report" % who, r.stdout[:300])


def inside(app, who, plain):
    """Blocked inside the allocator: refused, untouched."""
    p = start(app, who)
    out = [cmd(p, "leak 10")]
    p.stdin.write(b"inside\n")
    p.stdin.flush()
    T.ok(poll(lambda: T.proc_state(p.pid) == "S" and
              open("/proc/%d/syscall" % p.pid).read().split()[0] == "0"),
         "%s: its thread waits in read() inside the allocator" % who)
    r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "--duration=0.2",
                        str(p.pid)], capture_output=True, text=True,
                       timeout=300)
    why = r.stderr
    if r.returncode == 0:
        try:
            a = json.loads(r.stdout)["attach"]
            why = a.get("why", "") if a.get("injected") is False else ""
        except ValueError:
            why = ""
    T.ok("outside the allocator" in why, "%s, its only thread blocked "
         "inside the allocator: the injection refused, saying why" % who,
         (r.returncode, r.stdout[:300], r.stderr[-300:]))
    T.ok("libvmstrace" not in open("/proc/%d/maps" % p.pid).read() and
         untraced_now(p.pid) and no_thread_stopped(p.pid),
         "%s: nothing loaded into it, not traced, no thread stopped" % who)
    out += [cmd(p, "there"), cmd(p, "leak 3")]
    T.eq((out, end(p)), plain, "%s: its answers and exit status equal an "
         "untraced run's" % who)


def main():
    if platform.machine() != "x86_64":
        T.skip("allocators' locks", "the injection is x86_64's")
        return T.done()
    if not shutil.which("cc"):
        T.skip("allocators' locks", "no cc")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-alloc-")
    try:
        for who, lib in LIBS.items():
            if not os.path.exists(lib):
                T.skip(who, "%s not installed (scripts/deps.sh)" % lib)
                continue
            app = os.path.join(tmp, "alloc_blocked_" + who)
            b = subprocess.run(["cc", "-std=gnu11", "-O1", "-g", "-o", app,
                                os.path.join(T.ROOT, "tests", "targets",
                                             "alloc_blocked.c"), lib],
                               capture_output=True)
            if not T.ok(b.returncode == 0, "alloc_blocked links with %s" %
                        who, b.stderr):
                continue
            plain = untraced(app, who)
            launched(app, who)
            outside(app, who)
            inside(app, who, plain)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
