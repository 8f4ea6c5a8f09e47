#!/usr/bin/env python3
"""The tracer's own stack walk (trace/unwind.c) gives libunwind's stacks.

  - In one process (tests/targets/unwind_compare.c, built without frame
    pointers; the seed printed, VMSCOPE_SEED taken): both walks at the
    same calls, through qsort's, tsearch's and bsearch's callbacks inside
    libc, recursion past the 64 frames kept, a frame kept by rbp, zlib's
    allocator callback from libz loaded with dlopen and unloaded after
    each use, a stack realigned (its CFA by expression) and a signal
    handler, in three
    threads (the main one, one on glibc's stack, one on a stack of the
    program's own: each stack's bounds as the tracer learns them, at the
    library's start and at a thread's), the cached rules dropped between
    rounds: every walk the own
    walk makes equals libunwind's, and it makes every one of the paths it
    must (the realigned frame and the signal frame it leaves to
    libunwind).
  - Through the library (vmscope --trace): the same programs traced with
    the own walk and with VMSCOPE_TRACE_UNWIND=libunwind (the old path)
    give the same call sites, frame by frame (module and offset), with the
    same counts: libc's own callers (tsearch, strdup), threads, a signal
    handler, fork and exec (traced_calls libc and mix), and MemoryTestApp
    (C++, without frame pointers).
  - The comparison itself traced (its program loads and unloads libz all
    along: the library's dlclose forwards, the walk's rules go with each
    unload): it runs to its end with no mismatch, and the blocks zlib
    allocates are named through libz to deflateInit2_.
The own walk is x86-64's: elsewhere only the second part runs (both ways
are then libunwind's).
"""
import json
import os
import platform
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)


def in_process():
    seed = T.seed()
    r = subprocess.run([T.target("unwind_compare"), "60"],
                       capture_output=True, timeout=600,
                       env=dict(os.environ, VMSCOPE_SEED=str(seed)))
    out = r.stdout.decode(errors="replace")
    T.ok(r.returncode == 0, "in one process: every own walk equals "
         "libunwind's, every path it must walk walked", out)
    words = out.split()
    if "walks" in words and "own" in words:
        walks = int(words[words.index("walks") + 1])
        own = int(words[words.index("own") + 1])
        T.ok(own > walks // 2, "the own walk took most walks (%d of %d)"
             % (own, walks), out)


def sites(cmd, env):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-o",
                            f.name, "--"] + cmd, capture_output=True,
                           timeout=300, env=env)
        if r.returncode != 0:
            return None, r.stderr.decode(errors="replace")
        d = json.load(open(f.name))
    out = []
    for s in d["trace"]["sites"]:
        frames = tuple((fr.get("module"), fr.get("function"),
                        fr.get("offset")) for fr in s["frames"])
        out.append((s["kind"], frames, s["outstanding"]["count"],
                    s["outstanding"]["bytes"], s["transient"]["count"],
                    s["transient"]["bytes"]))
    return sorted(out, key=repr), None


def through_library():
    for name, cmd in (("libc's callers", [T.target("traced_calls"), "libc"]),
                      ("threads, signal, fork, exec",
                       [T.target("traced_calls"), "mix"]),
                      ("MemoryTestApp", [T.target("memorytestapp")])):
        own, err = sites(cmd, ENV)
        if own is None:
            T.ok(False, "%s: traced with the own walk" % name, err)
            continue
        lib, err = sites(cmd, dict(ENV, VMSCOPE_TRACE_UNWIND="libunwind"))
        if lib is None:
            T.ok(False, "%s: traced with libunwind" % name, err)
            continue
        T.ok(own == lib and len(own) > 1,
             "%s: the same %d call sites, frame by frame, by both walks"
             % (name, len(own)),
             "\n".join(repr(x) for x in own if x not in lib)[:3000] +
             "\n-- libunwind's:\n" +
             "\n".join(repr(x) for x in lib if x not in own)[:3000])


def traced_comparison():
    """The comparison itself traced: the library's dlclose forwards (the
    program loads and unloads libz all along), its walk's rules go with
    each unload, and the stacks through libz are named by it."""
    seed = T.seed()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-o",
                            f.name, "--", T.target("unwind_compare"), "20"],
                           capture_output=True, timeout=600,
                           env=dict(ENV, VMSCOPE_SEED=str(seed)))
        out = r.stdout.decode(errors="replace")
        T.ok(r.returncode == 0 and " mismatches 0;" in out,
             "traced, the comparison runs to its end: exit 0, no mismatch",
             out + r.stderr.decode(errors="replace"))
        try:
            d = json.load(open(f.name))
        except ValueError:
            return
    # heap sites: the program's own unw_backtrace (the comparison) maps
    # its cache once a thread, an mmap site whose stack passes through
    # zlib's callback too
    z = [s for s in d["trace"]["sites"] if s["kind"] == "heap" and any(
        "libz.so" in (fr.get("module") or "") and
        fr.get("function") == "deflateInit2_" for fr in s["frames"])]
    T.ok(z and all(s["transient"]["count"] > 0 for s in z) and
         d["trace"]["dropped"] == 0,
         "the blocks zlib allocates, named through libz (loaded and "
         "unloaded each time) to deflateInit2_", z[:2])


def main():
    if platform.machine() == "x86_64":
        in_process()
        traced_comparison()
    else:  # trace/unwind.h: elsewhere the tracer walks with libunwind
        T.skip("in one process: the own walk against libunwind's",
               "the own walk is x86-64's")
    through_library()
    T.done()


if __name__ == "__main__":
    main()
