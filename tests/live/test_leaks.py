#!/usr/bin/env python3
"""vmscope leaks nothing and makes no memory errors, under valgrind.

Runs `valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
--error-exitcode=99` on: -s, -e json, -e text, -e csv -o FILE, -F -e json,
--list, -n NAME, -- CMD, -w FILE -s (a snapshot file of format 1 and one
of format 2, loaded on two threads), -l FILE of each, -d FILE FILE, -l
CORE, and the error paths (no such process, a bad option, -o into a
missing directory, a corrupted file); and the format-2 load under
helgrind, which must find no data race between its two threads. Each
must exit with vmscope's own status (never 99) and valgrind must report
no definite or indirect leak and no error.
Still-reachable blocks (libproc2, libelf keep some) do not count.
Skipped when valgrind is not installed, and for the sanitizer build
(make check SAN=1), which LeakSanitizer checks instead.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

VALGRIND = ["valgrind", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect", "--error-exitcode=99",
            "--child-silent-after-fork=yes", "--track-fds=no", "-q"]


def grind(what, args, want_rc, tmp):
    log = os.path.join(tmp, "vg.log")
    r = subprocess.run(VALGRIND + ["--log-file=" + log, T.VMSCOPE] +
                       [str(a) for a in args], capture_output=True,
                       timeout=300)
    with open(log) as f:
        report = f.read()
    # Valgrind does not know pidfd_open (434) or pidfd_send_signal (424):
    # it answers ENOSYS, which vmscope handles (a kernel before 5.3), and
    # says so in five lines of its own; nothing else of it is excused.
    report = re.sub(r"(--\d+-- WARNING: unhandled \S+ syscall: 4[23]4\n"
                    r"(--\d+-- (?!WARNING).*\n)*)", "", report)
    errs = re.findall(r"ERROR SUMMARY: (\d+) errors", report)
    lost = re.findall(r"(definitely|indirectly) lost: ([\d,]+) bytes",
                      report)
    bad = r.returncode == 99 or (errs and int(errs[-1]) != 0) or any(
        n != "0" for _, n in lost) or bool(report.strip())
    T.ok(r.returncode == want_rc and not bad,
         "valgrind: %s: exit %d, no leak, no error" % (what, want_rc),
         "exit %d; stderr %s\n%s" % (r.returncode,
                                     r.stderr.decode(errors="replace")[-500:],
                                     report[-3000:]))


def race_free(what, args, tmp):
    """helgrind finds no data race and no lock misuse (a run on threads
    of its own: the two-part load of a format-2 file)."""
    log = os.path.join(tmp, "hg.log")
    r = subprocess.run(["valgrind", "--tool=helgrind", "--error-exitcode=99",
                        "--log-file=" + log, T.VMSCOPE] +
                       [str(a) for a in args], capture_output=True,
                       timeout=300)
    with open(log) as f:
        report = f.read()
    errs = re.findall(r"ERROR SUMMARY: (\d+) errors", report)
    T.ok(r.returncode == 0 and errs and errs[-1] == "0",
         "helgrind: %s: exit 0, no race" % what,
         "exit %d\n%s" % (r.returncode, report[-3000:]))


def main():
    if not shutil.which("valgrind"):
        T.skip("valgrind", "valgrind is not installed")
        T.done()
    if T.sanitizer_build():
        T.skip("valgrind", "a sanitizer build (LeakSanitizer checks it; "
               "valgrind cannot run it)")
        T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-leaks-")
    try:
        p, _ = T.start([T.target("everykind"), os.path.join(tmp, "ek.dat")])
        name = "vmslk%06d" % (os.getpid() % 1000000)
        exe = os.path.join(tmp, name)
        shutil.copy(T.target("manyregions"), exe)
        # 500 regions: over 256 KiB of smaps text, saved in format 2
        q, _ = T.start([exe, "500"])
        gone = subprocess.Popen(["true"])
        gone.wait()
        grind("-s PID", ["-s", p.pid], 0, tmp)
        grind("-e json PID", ["-e", "json", p.pid], 0, tmp)
        grind("-e text PID", ["-e", "text", p.pid], 0, tmp)
        grind("-e csv -o FILE PID", ["-e", "csv", "-o",
                                     os.path.join(tmp, "out.csv"), p.pid],
              0, tmp)
        grind("-F -e json PID", ["-F", "-e", "json", p.pid], 0, tmp)
        grind("--list", ["--list"], 0, tmp)
        grind("-n NAME -s", ["-n", name, "-s"], 0, tmp)
        grind("-s -- CMD", ["-s", "--delay=0.3", "--", exe, "10"], 0, tmp)
        f1 = os.path.join(tmp, "a.vms")
        f2 = os.path.join(tmp, "b.vms")
        fix = os.path.join(T.ROOT, "tests", "fixtures")
        grind("-w FILE -s PID (format 1)", ["-w", f1, "-s", p.pid], 0, tmp)
        grind("-w FILE -s PID (format 2)", ["-w", f2, "-s", q.pid], 0, tmp)
        with open(f2, "rb") as f:
            T.eq(f.read(21)[17:], b"\x02\0\0\0",
                 "the 500-region file is format 2")
        grind("-l FILE -e json (format 1)", ["-l", f1, "-e", "json"], 0,
              tmp)
        grind("-l FILE -e json (format 2)", ["-l", f2, "-e", "json"], 0,
              tmp)
        race_free("-l FILE -e json (format 2, two threads)",
                  ["-l", f2, "-e", "json"], tmp)
        grind("-d FILE FILE -s (format 1, format 2)",
              ["-d", f1, f2, "-s"], 0, tmp)
        grind("-l CORE -s", ["-l", os.path.join(fix, "sleep_small.core"),
                             "-s"], 0, tmp)
        grind("-l a corrupted format-2 file",
              ["-l", os.path.join(fix, "bad_snap_parts.vms"), "-s"], 4, tmp)
        grind("no such process", ["-s", gone.pid], 2, tmp)
        grind("no such name", ["-n", name + "x", "-s"], 2, tmp)
        grind("bad option", ["--bogus"], 1, tmp)
        grind("-o into a missing directory",
              ["-e", "json", "-o", os.path.join(tmp, "no", "x"), p.pid],
              4, tmp)
        T.eq((T.proc_state(p.pid) in "tT", T.tracer_pid(p.pid)), (False, 0),
             "the target runs on, untraced")
        T.kill(p)
        T.kill(q)
    finally:
        T.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
