#!/usr/bin/env python3
"""test_static_link — the libraries the Makefile is asked to link from
their static archives (STATIC_PKGS, STATIC_UI: written into BUILD/static
at the link) are not in the binary's DT_NEEDED: a missing archive makes
the Makefile link them shared, silently (in a fresh Debian root without
libbz2-dev, which libdw's static link needs, vmscope mapped nine
libraries, and each start copied them all: src/linux/selfcopy.h). A
build asked for none (STATIC_PKGS= STATIC_UI=, as the Debian package
asks for the second) has nothing to check there. The check runs first on
made-up answers, so the test itself can fail.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

# pkg-config name -> the sonames its static link replaces
SONAMES = {"jansson": ["libjansson.so"], "libzstd": ["libzstd.so"],
           "libdw": ["libdw.so", "libelf.so", "libbz2.so", "liblzma.so"],
           "libbpf": ["libbpf.so"], "ncursesw": ["libncursesw.so",
                                                 "libtinfo.so"]}


def asked(text):
    """The packages a BUILD/static text asks to link static."""
    out = []
    for ln in text.splitlines():
        k, _, v = ln.partition("=")
        if k in ("STATIC_PKGS", "STATIC_UI"):
            out += v.split()
    return out


def shared_anyway(pkgs, needed):
    """The sonames of pkgs the binary still needs."""
    return sorted(n for p in pkgs for so in SONAMES.get(p, [])
                  for n in needed if n.startswith(so))


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, timeout=60).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def main():
    T.eq(shared_anyway(asked("STATIC_PKGS=jansson libdw\nSTATIC_UI=\n"),
                       ["libjansson.so.4", "libc.so.6", "libbz2.so.1.0"]),
         ["libbz2.so.1.0", "libjansson.so.4"],
         "made up: libjansson and libdw's libbz2 found shared")
    T.eq(shared_anyway(asked("STATIC_PKGS=\nSTATIC_UI=\n"),
                       ["libjansson.so.4", "libc.so.6"]), [],
         "made up: nothing asked static, nothing to find")
    path = os.path.join(T.BUILD, "static")
    if not os.path.exists(path):
        T.skip("the binary's static links", "%s is not there (a build "
               "before the Makefile wrote it)" % path)
        return T.done()
    with open(path) as f:
        pkgs = asked(f.read())
    need = needed(T.VMSCOPE)
    T.ok("libc.so.6" in need, "readelf -d reads the binary's needs", need)
    T.eq(shared_anyway(pkgs, need), [],
         "what %s asks static (%s) is not linked shared: each archive is "
         "there (scripts/deps.sh installs them)"
         % (os.path.relpath(path, T.ROOT), " ".join(pkgs) or "nothing"))
    return T.done()


if __name__ == "__main__":
    main()
