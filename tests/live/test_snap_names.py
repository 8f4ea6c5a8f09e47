#!/usr/bin/env python3
"""What -l and -d read is neither destroyed nor read without bound.

  - -o naming the file this run reads (-l FILE, a file side of -d A B;
    by its name, through a symbolic link or another hard link) is a usage
    error (exit 1, the message naming it) and the file keeps its inode and
    bytes: the export's rename would replace the snapshot, as -w and -o
    naming one file would (vmscope(1)); -o naming another file, and a
    -d side that is a PID whose digits name a file, still write;
  - -l of what is no snapshot and no core (/dev/zero, /dev/urandom, an
    ELF executable, 64 MiB of zeros in a file) is refused (exit 4, one
    line naming it) from its first bytes: it is not read on (the old
    loader read up to 1 GiB of it first: 1 GiB of memory, seconds); a
    sparse 4 GiB file that starts as a snapshot is refused by its size,
    unread. Each run's peak RSS (wait4) stays under 64 MiB;
  - -w naming the standard output that -s or -e print to (-w -,
    -w /dev/stdout with the output redirected to a file) is a usage error
    (exit 1): the snapshot's rename replaced the shell's file under its
    descriptor, and the printout went to the old one, unlinked, lost;
    with -o FILE for the printout, -w /dev/stdout writes the snapshot
    there, and it loads.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

FIX = os.path.join(T.ROOT, "tests", "fixtures")
LIMIT_KB = 64 << 10


def ident(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return st.st_ino, f.read()


def refused_use(what, path, *args):
    before = ident(path)
    r = T.run_vmscope(*args)
    err = r.stderr.decode(errors="replace")
    T.ok(r.returncode == 1 and "which this run reads" in err and
         ident(path) == before,
         "%s: usage error, the file untouched" % what,
         "exit %d: %s" % (r.returncode, err))


def outputs(tmp):
    a = os.path.join(tmp, "a.vms")
    b = os.path.join(tmp, "b.vms")
    shutil.copy(os.path.join(FIX, "snap_v1.vms"), a)
    shutil.copy(os.path.join(FIX, "snap_v1.vms"), b)
    link = os.path.join(tmp, "link.vms")
    os.symlink("a.vms", link)
    hard = os.path.join(tmp, "hard.vms")
    os.link(b, hard)
    refused_use("-l FILE -e json -o FILE", a, "-l", a, "-e", "json", "-o", a)
    refused_use("-l FILE -s -o LINK (a symbolic link to it)", a, "-l", a,
                "-s", "-o", link)
    refused_use("-l LINK -s -o FILE", a, "-l", link, "-s", "-o", a)
    refused_use("-d A B -s -o B", b, "-d", a, b, "-s", "-o", b)
    refused_use("-d A B -e csv -o A (another hard link)", b, "-d", b, a,
                "-e", "csv", "-o", hard)
    out = os.path.join(tmp, "out.json")
    r = T.run_vmscope("-l", a, "-e", "json", "-o", out)
    T.ok(r.returncode == 0 and os.path.getsize(out) > 1000,
         "-l FILE -o another file writes it", r.stderr)
    # a side of only digits is a PID, not the file of that name
    p, _ = T.start([T.target("grower")])
    named = os.path.join(tmp, str(p.pid))
    with open(named, "w") as f:
        f.write("old\n")
    r = subprocess.run([T.VMSCOPE, "-d", a, str(p.pid), "-s", "-o",
                        str(p.pid)], cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    with open(named) as f:
        text = f.read()
    T.ok(r.returncode == 0 and text.startswith("A: "),
         "-d FILE PID -o PID: the PID is no file read, the file of its "
         "digits is written", (r.returncode, r.stderr, text[:80]))
    T.kill(p)


def load_measured(path):
    """(exit status, stderr, peak RSS in KiB, seconds) of -l path -s."""
    t = time.time()
    p = subprocess.Popen([T.VMSCOPE, "-l", path, "-s"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, ru.ru_maxrss, time.time() - t


def not_read_on(tmp):
    zeros = os.path.join(tmp, "zeros.vms")
    with open(zeros, "wb") as f:
        f.truncate(64 << 20)
    big = os.path.join(tmp, "big.vms")
    shutil.copy(os.path.join(FIX, "snap_v1.vms"), big)
    with open(big, "r+b") as f:
        f.truncate(4 << 30)
    cases = [("/dev/zero", "not a vmscope snapshot"),
             ("/dev/urandom", "not a vmscope snapshot"),
             (T.target("grower"), "not a vmscope snapshot"),
             (zeros, "not a vmscope snapshot"),
             (big, "larger than 1024 MiB")]
    for path, want in cases:
        rc, err, rss, secs = load_measured(path)
        lines = err.splitlines()
        print("# -l %s: exit %d, peak RSS %d KiB, %.2f s" % (path, rc, rss,
                                                            secs))
        T.ok(rc == 4 and len(lines) == 1 and path in lines[0] and
             want in lines[0],
             "-l %s: exit 4, one line naming it: %s" % (path, want),
             "exit %d: %r" % (rc, err))
        T.ok(rss < LIMIT_KB, "-l %s: peak RSS under 64 MiB (not read on)"
             % path, "%d KiB" % rss)


def onto_stdout(tmp):
    p, _ = T.start([T.target("everykind")])
    try:
        out = os.path.join(tmp, "printed")
        for w in ("-", "/dev/stdout"):
            with open(out, "wb") as f:
                r = subprocess.run([T.VMSCOPE, "-w", w, "-s", str(p.pid)],
                                   stdout=f, stderr=subprocess.PIPE,
                                   timeout=120)
            T.ok(r.returncode == 1 and b"standard output" in r.stderr and
                 os.path.getsize(out) == 0,
                 "-w %s -s > FILE: refused (exit 1), nothing written" % w,
                 (r.returncode, r.stderr[-300:]))
        snap, summ = os.path.join(tmp, "so.vms"), os.path.join(tmp, "so.txt")
        with open(snap, "wb") as f:
            r = subprocess.run([T.VMSCOPE, "-w", "/dev/stdout", "-s", "-o",
                                summ, str(p.pid)], stdout=f,
                               stderr=subprocess.PIPE, timeout=120)
        r2 = T.run_vmscope("-l", snap, "-s")
        T.ok(r.returncode == 0 and r2.returncode == 0 and
             open(summ).read().startswith("Process:") and
             r2.stdout.decode().startswith("Process:"),
             "-w /dev/stdout -s -o FILE: the snapshot on standard output "
             "(it loads), the summary in FILE",
             (r.returncode, r.stderr[-300:], r2.stderr[-300:]))
    finally:
        T.kill(p)


def main():
    with tempfile.TemporaryDirectory(prefix="vms-snapnames-") as tmp:
        outputs(tmp)
        not_read_on(tmp)
        onto_stdout(tmp)
    T.done()


if __name__ == "__main__":
    main()
