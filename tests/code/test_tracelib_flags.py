#!/usr/bin/env python3
"""test_tracelib_flags — the tracer library (libvmstrace.so) is built with
the CFLAGS the build is given, as the binary is: the Debian package's
build (debian/rules: dh exports dpkg-buildflags' CFLAGS, CPPFLAGS and
LDFLAGS, hardening=+all) gives both the stack protector and the build
path mapped out of the debug information (-ffile-prefix-map: the dbgsym
package the same wherever it is built). The library was built with -O2
-g and CPPFLAGS only: no stack protector, the build directory in its
DWARF.

The library is built into a temporary build directory (B=) with those
flags, from the Makefile's own rule, then read: it calls
__stack_chk_fail, and no compilation unit of its DWARF names the tree's
directory. A CFLAGS with a sanitizer gives the library none (it is
preloaded into programs built without).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

ROOT = T.ROOT


def debian_flags():
    """dpkg-buildflags' answer for hardening=+all, as debian/rules asks;
    the same flags by hand where dpkg-dev is not installed."""
    env = dict(os.environ, DEB_BUILD_MAINT_OPTIONS="hardening=+all")
    out = {}
    for v in ("CFLAGS", "CPPFLAGS", "LDFLAGS"):
        r = subprocess.run(["dpkg-buildflags", "--get", v], cwd=ROOT,
                           env=env, capture_output=True, text=True) \
            if shutil.which("dpkg-buildflags") else None
        out[v] = r.stdout.strip() if r and r.returncode == 0 else None
    if out["CFLAGS"] is None:
        out = {"CFLAGS": "-g -O2 -ffile-prefix-map=%s=. "
                         "-fstack-protector-strong" % ROOT,
               "CPPFLAGS": "-D_FORTIFY_SOURCE=2",
               "LDFLAGS": "-Wl,-z,relro -Wl,-z,now"}
    return out


def build(b, flags):
    env = dict(os.environ, **flags)
    return subprocess.run(["make", "-s", "--no-print-directory", "B=" + b,
                           b + "/libvmstrace.so"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


def comp_dirs(lib):
    r = subprocess.run(["readelf", "--debug-dump=info", lib],
                       capture_output=True, text=True, timeout=120)
    # "DW_AT_comp_dir : (indirect line string, offset: 0xf): DIR"
    return sorted({ln.rsplit("): ", 1)[-1].strip()
                   for ln in r.stdout.splitlines() if "DW_AT_comp_dir" in ln})


def undefined(lib):
    r = subprocess.run(["nm", "-D", "--undefined-only", lib],
                       capture_output=True, text=True, timeout=60)
    return r.stdout


def main():
    flags = debian_flags()
    if "-fstack-protector" not in flags["CFLAGS"] or \
            "-ffile-prefix-map" not in flags["CFLAGS"]:
        T.skip("the tracer library built with Debian's CFLAGS",
               "dpkg-buildflags gives neither the stack protector nor a "
               "prefix map here: %s" % flags["CFLAGS"])
        T.done()
    b = tempfile.mkdtemp(prefix="vmscope-tracelib-")
    try:
        r = build(b, flags)
        lib = os.path.join(b, "libvmstrace.so")
        if not T.ok(r.returncode == 0 and os.path.exists(lib),
                    "make B=tmp tmp/libvmstrace.so with Debian's flags",
                    r.stdout + r.stderr):
            T.done()
        T.ok("__stack_chk_fail" in undefined(lib),
             "its functions are built with the stack protector "
             "(CFLAGS' -fstack-protector-strong)",
             "no __stack_chk_fail among the symbols it needs")
        dirs = comp_dirs(lib)
        T.ok(dirs and not any(ROOT in d for d in dirs),
             "its debug information names no build directory (CFLAGS' "
             "-ffile-prefix-map)", dirs)

        os.unlink(lib)
        san = dict(flags, CFLAGS=flags["CFLAGS"] + " -fsanitize=address")
        r = build(b, san)
        needed = subprocess.run(["readelf", "-d", lib], capture_output=True,
                                text=True).stdout if os.path.exists(lib) \
            else ""
        T.ok(r.returncode == 0 and "NEEDED" in needed and
             "libasan" not in needed,
             "CFLAGS with -fsanitize=address: the library is built "
             "without it", r.stderr[-2000:] + needed)
    finally:
        shutil.rmtree(b, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
