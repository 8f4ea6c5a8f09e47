#!/usr/bin/env python3
"""--watch SECONDS --count N: N snapshots of a live target, one a tick.
With -w DIR each is saved into DIR under a name that sorts by time: N
files, each loadable with -l (its pid, its regions = the target's maps at
the end, which the idle target keeps), their capture times (JSON's
monotonic_ns) increasing in the order of their names; with -s each summary is printed; -o is written
whole each tick. Bad uses: --count without --watch, -w a file that is not
a directory, --watch with -l.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

N = 4


def main():
    p, _ = T.start([T.target("grower")])
    with tempfile.TemporaryDirectory(prefix="vms-watch-") as tmp:
        d = os.path.join(tmp, "snaps")
        os.mkdir(d)
        r = T.run_vmscope("--watch", "0.2", "--count", N, "-w", d, p.pid)
        T.ok(r.returncode == 0, "--watch 0.2 --count %d -w DIR exits 0" % N,
             r.stderr)
        names = sorted(os.listdir(d))
        T.eq(len(names), N, "%d files in DIR" % N)
        nmaps = len(T.maps(p.pid))
        times, good = [], True
        for n in names:
            r = T.run_vmscope("-l", os.path.join(d, n), "-e", "json")
            if r.returncode != 0:
                good = False
                T.ok(False, "%s loads with -l" % n, r.stderr)
                continue
            j = json.loads(r.stdout)
            good &= j["process"]["pid"] == p.pid and \
                len(j["regions"]) == nmaps
            times.append(j["capture"]["monotonic_ns"])
        T.ok(good, "each loads with -l: pid %d, its %d regions"
             % (p.pid, nmaps), names)
        T.ok(len(times) == N and all(a < b for a, b in zip(times, times[1:])),
             "the capture times increase in the order of the names", times)

        r = T.run_vmscope("--watch", "0.1", "--count", 3, "-s", p.pid)
        out = r.stdout.decode(errors="replace")
        T.ok(r.returncode == 0 and out.count("Process:") == 3,
             "--watch -s prints one summary a tick (3)", out[-400:])
        om = os.path.join(tmp, "x.prom")
        r = T.run_vmscope("--watch", "0.1", "--count", 2, "-e",
                          "openmetrics", "-o", om, p.pid)
        with open(om) as f:
            text = f.read()
        T.ok(r.returncode == 0 and text.count("# EOF") == 1,
             "-o is replaced whole each tick (one # EOF)", text[-200:])

        T.eq(T.run_vmscope("--count", 2, "-s", p.pid).returncode, 1,
             "--count without --watch: usage error")
        f = os.path.join(tmp, "file")
        open(f, "w").close()
        r = T.run_vmscope("--watch", "0.1", "--count", 1, "-w", f, p.pid)
        T.ok(r.returncode == 4 and b"not one" in r.stderr,
             "-w FILE with --watch: exit 4, not a directory", r.stderr)
        r = T.run_vmscope("--watch", "1", "-l", os.path.join(d, names[0]))
        T.eq(r.returncode, 1, "--watch with -l: usage error")
    T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
