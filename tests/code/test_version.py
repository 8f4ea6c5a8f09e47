#!/usr/bin/env python3
"""test_version — the version is written in one place, the file VERSION,
and everything that shows one shows it (issue 32 item 3):

  - VERSION holds one version, MAJOR.MINOR.PATCH;
  - `vmscope --version` prints it (the Makefile passes it as
    VMSCOPE_VERSION; no source holds a version of its own);
  - CHANGELOG.md has an entry per release, `## X.Y.Z`, newest first, and
    its newest is VERSION's;
  - the Debian package's version is it (`make deb` writes it into the
    staged debian/changelog), where a package was made since.
The checks run first on made-up changelogs, so the test itself can fail.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

ROOT = T.ROOT
VER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def releases(text):
    """The versions of a changelog's release entries, in order."""
    return [m.group(1) for m in
            re.finditer(r"^## (\S+)\s*$", text, re.M)]


def changelog_problems(text, version):
    rel = releases(text)
    bad = []
    if not rel:
        return ["no release entry"]
    if rel[0] != version:
        bad.append("newest entry %s, VERSION %s" % (rel[0], version))
    for r in rel:
        if not VER.match(r):
            bad.append("entry %r is not a version" % r)
    keys = [tuple(map(int, VER.match(r).groups())) for r in rel
            if VER.match(r)]
    if keys != sorted(keys, reverse=True) or len(set(keys)) != len(keys):
        bad.append("entries not newest first, once each: %s" % rel)
    return bad


def main():
    # the check itself, on made-up changelogs
    T.ok(changelog_problems("## 1.2.0\n\n## 1.1.0\n", "1.2.0") == [],
         "self-check: a good changelog passes")
    T.ok(changelog_problems("## Unreleased\n\n## 1.1.0\n", "1.2.0"),
         "self-check: an entry that is no version fails")
    T.ok(changelog_problems("## 1.1.0\n\n## 1.2.0\n", "1.2.0"),
         "self-check: entries out of order fail")
    T.ok(changelog_problems("## 1.1.0\n", "1.2.0"),
         "self-check: VERSION without an entry fails")

    version = open(os.path.join(ROOT, "VERSION")).read()
    T.ok(version.endswith("\n") and VER.match(version.strip()),
         "VERSION holds one version, MAJOR.MINOR.PATCH", repr(version))
    version = version.strip()

    r = subprocess.run([T.VMSCOPE, "--version"], capture_output=True,
                       text=True, timeout=60)
    T.eq(r.stdout, "vmscope %s\n" % version, "vmscope --version is VERSION's")

    own = []
    for d in ("cli", "ui", "src"):
        for top, _, names in os.walk(os.path.join(ROOT, d)):
            for n in names:
                if not n.endswith((".c", ".h")):
                    continue
                text = open(os.path.join(top, n), errors="replace").read()
                if re.search(r'VMSCOPE_VERSION\s+"\d', text):
                    own.append(os.path.join(top, n))
    T.ok(not own, "no source defines a version number of its own (a fallback without one, as the fuzzers build, is fine)", own)

    th = [l for l in open(os.path.join(ROOT, "vmscope.1"))
          if l.startswith(".TH")]
    T.ok(th and not re.search(r"\d+\.\d+\.\d+", th[0]),
         "the man page's .TH names no version of its own", th)
    text = open(os.path.join(ROOT, "CHANGELOG.md")).read()
    bad = changelog_problems(text, version)
    T.ok(not bad, "CHANGELOG.md: an entry per release, newest VERSION's", bad)

    debs = glob.glob(os.path.join(ROOT, "build", "deb", "vmscope_*.deb"))
    vfile = os.path.join(ROOT, "VERSION")
    debs = [d for d in debs if os.path.getmtime(d) >= os.path.getmtime(vfile)]
    if debs and shutil.which("dpkg-deb"):
        r = subprocess.run(["dpkg-deb", "-f", debs[0], "Version"],
                           capture_output=True, text=True, timeout=60)
        T.eq(r.stdout.strip(), version,
             "the package's version (make deb's) is VERSION's")
    else:
        T.skip("the package's version is VERSION's",
               "no package made since VERSION changed (make deb)")
    T.done()


if __name__ == "__main__":
    main()
