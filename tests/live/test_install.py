#!/usr/bin/env python3
"""test_install — `make install` puts every file the package has where the
binary looks for it, honouring PREFIX and DESTDIR, and `make uninstall`
leaves nothing behind (issue 32 item 4).

  - `make install DESTDIR=tmp` (the default PREFIX, so nothing is rebuilt):
    the files under tmp are exactly `make install-list`'s, each a copy of
    the file in the tree it comes from, the binary executable;
  - the installed binary prints the version of the file VERSION, and, with
    the installed tree bind-mounted over PREFIX in a private mount
    namespace (root only), summarises a target (`-s`), traces a command
    with the installed tracer library (`--trace -s`) and finds an installed
    theme (the same run with no theme installed says "not found");
  - PREFIX=/usr: install-list names only /usr paths, and `make -n install`
    recompiles the sources that hold the paths with /usr's (the sources
    are compiled again when a path changes: $(B)/defines);
  - `make uninstall DESTDIR=tmp` leaves no file and none of vmscope's own
    directories.
It runs in make check's first pass only (CHECK_PASS=2, the sanitizer
pass, skips it: `make install` installs the build of the first pass,
whatever the pass).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

ROOT = T.ROOT
PREFIX = "/usr/local"


def make(*args):
    return subprocess.run(["make", "-s", "--no-print-directory"] + list(args),
                          cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def files_under(d):
    out = set()
    for top, dirs, names in os.walk(d):
        for n in names:
            out.add(os.path.relpath(os.path.join(top, n), d))
    return out


def source_of(path):
    """The file in the tree an installed path is a copy of (the service:
    made from its .in, its @BINDIR@ the installed binary's directory)."""
    base = os.path.basename(path)
    if base.endswith(".service"):
        return os.path.join(ROOT, "dist", base + ".in")
    if base.endswith(".timer"):
        return os.path.join(ROOT, "dist", base)
    if path.endswith("/bin/vmscope"):
        return os.path.join(ROOT, "vmscope")
    if base == "libvmstrace.so":
        return os.path.join(ROOT, "build", "libvmstrace.so")
    if path.endswith("/man1/vmscope.1"):
        return os.path.join(ROOT, "vmscope.1")
    if "/themes/" in path:
        return os.path.join(ROOT, "themes", base)
    return os.path.join(ROOT, base)


def in_namespace(dest, argv):
    """argv run with dest's PREFIX bind-mounted over PREFIX, in a private
    mount namespace (gone with the process)."""
    script = ('mount --make-rprivate / && mount --bind "$0" "$1" && '
              'shift 1 && exec "$@"')
    return subprocess.run(["unshare", "-m", "sh", "-c", script,
                           dest + PREFIX, PREFIX] + argv,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def main():
    if os.environ.get("CHECK_PASS") == "2":
        T.skip("make install", "it installs the first pass's build, "
               "tested there")
        return T.done()
    version = open(os.path.join(ROOT, "VERSION")).read().strip()
    r = make("install-list")
    listed = [l for l in r.stdout.split("\n") if l]
    T.ok(r.returncode == 0 and listed, "make install-list names the files",
         r.stderr)
    T.ok(all(p.startswith(PREFIX + "/") for p in listed),
         "every one under the default PREFIX %s" % PREFIX, listed)

    dest = tempfile.mkdtemp(prefix="vmscope-destdir-")
    try:
        r = make("install", "DESTDIR=" + dest)
        T.ok(r.returncode == 0, "make install DESTDIR=tmp",
             r.stdout + r.stderr)
        got = files_under(dest)
        want = {p.lstrip("/") for p in listed}
        T.eq(sorted(got), sorted(want),
             "the files installed are exactly install-list's")
        for p in ("bin/vmscope", "lib/vmscope/libvmstrace.so",
                  "share/man/man1/vmscope.1", "share/vmscope/themes/dark",
                  "lib/systemd/system/vmscope-textfile.service",
                  "lib/systemd/system/vmscope-textfile.timer"):
            T.ok(PREFIX.lstrip("/") + "/" + p in got,
                 "%s/%s installed" % (PREFIX, p))
        differ = []
        for p in sorted(got & want):
            with open(os.path.join(dest, p), "rb") as a, \
                    open(source_of("/" + p), "rb") as b:
                want_bytes = b.read()
                if p.endswith(".service"):
                    want_bytes = want_bytes.replace(
                        b"@BINDIR@", (PREFIX + "/bin").encode())
                if a.read() != want_bytes:
                    differ.append(p)
        T.ok(not differ, "each installed file is a copy of the tree's",
             differ)
        binary = os.path.join(dest, PREFIX.lstrip("/"), "bin", "vmscope")
        T.ok(os.access(binary, os.X_OK), "the installed binary is executable")
        r = subprocess.run([binary, "--version"], capture_output=True,
                           text=True, timeout=60)
        T.eq(r.stdout.strip(), "vmscope " + version,
             "the installed binary's --version is VERSION's")

        probe = in_namespace(dest, ["true"])
        if os.geteuid() != 0 or probe.returncode != 0:
            for what in ("-s", "--trace", "theme"):
                T.skip("installed binary in place (%s)" % what,
                       "no private mount namespace here: %s"
                       % (probe.stderr.strip() or "not root"))
        else:
            run_in_place(dest)
    finally:
        r = make("uninstall", "DESTDIR=" + dest)
        T.ok(r.returncode == 0, "make uninstall DESTDIR=tmp",
             r.stdout + r.stderr)
        left = files_under(dest)
        T.ok(not left, "uninstall leaves no file", sorted(left))
        own = [d for d in ("lib/vmscope", "share/vmscope",
                           "share/doc/vmscope")
               if os.path.exists(os.path.join(dest, PREFIX.lstrip("/"), d))]
        T.ok(not own, "uninstall leaves none of vmscope's directories", own)
        shutil.rmtree(dest, ignore_errors=True)

    # PREFIX=/usr, dry: nothing in the tree is rebuilt for it.
    r = make("install-list", "PREFIX=/usr")
    usr = [l for l in r.stdout.split("\n") if l]
    T.ok(usr and all(p.startswith("/usr/") and not p.startswith(PREFIX)
                     for p in usr),
         "PREFIX=/usr: install-list names /usr paths only", usr)
    T.eq(len(usr), len(listed), "PREFIX=/usr: as many files")
    r = make("-n", "install", "PREFIX=/usr", "DESTDIR=/nonexistent")
    lines = r.stdout.split("\n")
    T.ok(any("/nonexistent/usr/bin/vmscope" in l for l in lines),
         "PREFIX=/usr DESTDIR=d: the binary goes to d/usr/bin", r.stdout)
    T.ok(any("cli/main.c" in l and "/usr/lib/vmscope" in l
             and "/usr/local" not in l for l in lines),
         "PREFIX=/usr: the sources holding the paths are compiled again "
         "with /usr's", r.stdout[-3000:])
    T.ok(any("run_trace.c" in l and '"/usr/lib/vmscope"' in l
             for l in lines),
         "PREFIX=/usr: the tracer library is looked for in /usr/lib/vmscope",
         r.stdout[-3000:])
    T.done()


def run_in_place(dest):
    exe = PREFIX + "/bin/vmscope"
    p, _ = T.start([T.target("everykind")])
    r = in_namespace(dest, [exe, "-s", str(p.pid)])
    T.ok(r.returncode == 0 and "Total" in r.stdout,
         "installed in place: -s of a target", r.stdout + r.stderr)
    true = shutil.which("true")
    r = in_namespace(dest, ["env", "-u", "VMSCOPE_TRACELIB", exe, "--trace",
                            "-s", "--", true])
    T.ok(r.returncode == 0,
         "installed in place: --trace finds the installed tracer library",
         r.stdout + r.stderr)
    # The viewer loads its theme before it needs a terminal: with the
    # theme installed the run gets past it; in the DESTDIR, not in place,
    # the same run says the theme was not found where it looks.
    if os.path.exists(PREFIX + "/share/vmscope/themes/dark"):
        T.skip("installed in place: the theme is found under "
               "PREFIX/share/vmscope", "vmscope is installed in %s on this "
               "machine: a run not in place would find it too" % PREFIX)
        return
    r = in_namespace(dest, [exe, "-t", "dark", str(p.pid)])
    out = dest + PREFIX + "/bin/vmscope"
    r2 = subprocess.run([out, "-t", "dark", str(p.pid)], capture_output=True,
                        text=True, stdin=subprocess.DEVNULL, timeout=60)
    T.ok("not found" not in r.stderr and "not found" in r2.stderr
         and PREFIX + "/share/vmscope/themes" in r2.stderr,
         "installed in place: the theme is found under PREFIX/share/vmscope",
         "in place: %r; not in place: %r" % (r.stderr, r2.stderr))


if __name__ == "__main__":
    main()
