#!/usr/bin/env python3
"""Traced launches (vmscope --trace -e json -- CMD) of what the libraries
a program loads do, wherever and whenever they are loaded.

  - A library the loader found by a relative path (LD_LIBRARY_PATH=.,
    the program run from the library's directory): its frames are named
    (function, file and line: inner < lib_leak) and its module is the
    file's absolute path, as with an absolute LD_LIBRARY_PATH.
  - dlopen("./libplug.so") from a directory the program then leaves
    (chdir("/")) before it calls into it, and dlclose after: the frames
    named, the module the file really loaded (plug/libplug.so), not one
    under the directory the trace started in.
  - A library's constructor, which the loader runs before the tracer
    library's own (its allocations, C++'s static objects of a shared
    library), that sets an environment variable, registers a fork
    handler (both allocate holding a lock of libc's) and leaks 6666
    bytes: the leak recorded at its site (libctor_leak < ctor), nothing
    dropped; the program's output and exit status are its untraced run's,
    with --trace-children too (no wait on those locks).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)

LEAK_C = r"""
#include <stdlib.h>
__attribute__((noinline)) static void *inner(void) { return malloc(5555); }
void *lib_leak(void) { return inner(); }
"""

LINKED_C = r"""
void *lib_leak(void);
int main(void) { volatile void *p = lib_leak(); (void)p; return 0; }
"""

PLUG_C = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	void *h, *(*leak)(void);

	if (chdir("plug") != 0 || !(h = dlopen("./libplug.so", RTLD_NOW)))
		return 2;
	if (chdir("/") != 0)
		return 3;
	leak = (void *(*)(void))dlsym(h, "lib_leak");
	if (!leak || !leak())
		return 4;
	dlclose(h);
	puts("plugged");
	return 0;
}
"""

CTOR_C = r"""
#include <pthread.h>
#include <stdlib.h>
void *kept;
static void nothing(void) {}
__attribute__((noinline)) void *libctor_leak(void) { return malloc(6666); }
__attribute__((constructor)) static void ctor(void)
{
	setenv("LIBCTOR_WAS_HERE", "yes", 1);
	pthread_atfork(NULL, NULL, nothing);
	kept = libctor_leak();
}
int libctor_dummy(void) { return kept != 0; }
"""

CTOR_MAIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
int libctor_dummy(void);
int main(void)
{
	printf("ctor %d %s\n", libctor_dummy(), getenv("LIBCTOR_WAS_HERE"));
	return 7;
}
"""


def cc(tmp, name, code, args):
    """name built from code in tmp (its source: libx.so's libx.c)."""
    src = os.path.join(tmp, name[:-3] + ".c" if name.endswith(".so")
                       else name + ".c")
    open(src, "w").write(code)
    r = subprocess.run(["cc", "-O0", "-g", "-o", os.path.join(tmp, name),
                        src] + args, capture_output=True, cwd=tmp)
    return T.ok(r.returncode == 0, "built %s" % name, r.stderr)


def traced(cmd, cwd, env=ENV, extra=()):
    """The JSON report of cmd run from cwd, and the run."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-o",
                            f.name] + list(extra) + ["--"] + cmd,
                           capture_output=True, timeout=120, env=env,
                           cwd=cwd)
        try:
            return json.load(open(f.name)), r
        except ValueError:
            T.ok(False, "%s: a JSON report" % cmd[0], r.stderr)
            return None, r


def sites_of(d, fn):
    return [s for s in d["trace"]["sites"]
            if any(f["function"] == fn for f in s["frames"])]


def named_leak(d, what, module):
    """The 5555-byte leak's site, named through the library."""
    got = [s for s in sites_of(d, "inner") if s["outstanding"] ==
           {"count": 1, "bytes": 5555}] if d else []
    fr = got[0]["frames"] if len(got) == 1 else []
    T.ok(len(fr) >= 2 and
         [f["function"] for f in fr[:2]] == ["inner", "lib_leak"] and
         all(f["file"] and f["file"].endswith("libdl_leak.c") or
             f["file"] and f["file"].endswith("libplug.c") for f in fr[:2])
         and all(f["module"] == module for f in fr[:2]),
         "%s: the leak's frames named (inner < lib_leak, the source file, "
         "the module %s)" % (what, module),
         [s["frames"][:3] for s in d["trace"]["sites"]] if d else None)


def relative_path(tmp):
    if not (cc(tmp, "libdl_leak.so", LEAK_C, ["-shared", "-fPIC"]) and
            cc(tmp, "t_linked", LINKED_C, ["-L.", "-l:libdl_leak.so"])):
        return
    d, r = traced(["./t_linked"], tmp, dict(ENV, LD_LIBRARY_PATH="."))
    T.ok(r.returncode == 0, "LD_LIBRARY_PATH=.: exit 0", r.stderr)
    named_leak(d, "a library found through LD_LIBRARY_PATH=.",
               os.path.join(tmp, "libdl_leak.so"))


def dlopened_then_left(tmp):
    plug = os.path.join(tmp, "plug")
    os.mkdir(plug)
    if not (cc(plug, "libplug.so", LEAK_C, ["-shared", "-fPIC"]) and
            cc(tmp, "t_plug", PLUG_C, ["-ldl"])):
        return
    d, r = traced(["./t_plug"], tmp)
    T.ok(r.returncode == 0 and d and d["process"]["exit_status"] == 0,
         "dlopen(\"./libplug.so\"), chdir(\"/\"), the call, dlclose: "
         "the program ran to its end", (r.returncode, r.stderr))
    named_leak(d, "dlopen of a relative path, the directory left before "
               "the call", os.path.join(plug, "libplug.so"))


def constructor(tmp):
    if not (cc(tmp, "libctor.so", CTOR_C, ["-shared", "-fPIC",
                                            "-lpthread"]) and
            cc(tmp, "t_ctor", CTOR_MAIN_C,
               ["-L.", "-l:libctor.so", "-Wl,-rpath," + tmp])):
        return
    plain = subprocess.run(["./t_ctor"], capture_output=True, cwd=tmp,
                           timeout=60)
    for extra in ((), ("--trace-children",)):
        how = " ".join(extra) or "launched"
        d, r = traced(["./t_ctor"], tmp, ENV, extra)
        if not d:
            continue
        T.eq((r.stdout, d["process"]["exit_status"]),
             (plain.stdout, plain.returncode),
             "%s: a library constructor's setenv and pthread_atfork "
             "traced: the output and exit status are the untraced "
             "run's" % how)
        got = [s for s in sites_of(d, "libctor_leak")
               if s["kind"] == "heap"]
        T.ok(len(got) == 1 and got[0]["outstanding"] ==
             {"count": 1, "bytes": 6666} and
             [f["function"] for f in got[0]["frames"][:2]] ==
             ["libctor_leak", "ctor"],
             "%s: the library constructor's 6666 bytes recorded at "
             "libctor_leak < ctor" % how,
             [(s["outstanding"], [f["function"] for f in s["frames"][:3]])
              for s in d["trace"]["sites"]])
        T.eq(d["trace"]["dropped"], 0, "%s: nothing dropped" % how)


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-loaded-")
    try:
        relative_path(tmp)
        dlopened_then_left(tmp)
        constructor(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
