#!/usr/bin/env python3
"""-d CORE PID of an idle process: no change where only the core lacks.

core_diff (tests/targets/core_diff.c) maps a file shared and read-only,
reserves 1 MiB PROT_NONE and has touched its [vdso]; gcore writes its core
while it sleeps. A core holds neither the r bit (gcore marks PROT_NONE
r--) nor whether a file mapping is shared, writes no [vvar] or
[vvar_vclock], and does not know the [vdso]'s Rss (its Committed). So
`-d CORE PID` and `-d PID CORE` in JSON, CSV and -s list no region
change (the old diff listed six: the shared file and the reservation
changed, [vvar] and [vvar_vclock] added, [vdso] grown, [vsyscall]
changed), and neither does the core against itself. Skipped when gcore
is not installed.
"""
import csv
import io
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def run(*args):
    r = T.run_vmscope(*args)
    T.ok(r.returncode == 0, "vmscope %s exits 0" % " ".join(
        str(a) for a in args), r.stderr.decode(errors="replace")[-500:])
    return r.stdout.decode(errors="replace")


def main():
    if not shutil.which("gcore"):
        T.skip("a core against its live process", "gcore is not installed")
        T.done()
    with tempfile.TemporaryDirectory(prefix="vms-corediff-") as tmp:
        shared = os.path.join(tmp, "shared.bin")
        with open(shared, "wb") as f:
            f.write(b"x" * 8192)
        p, _ = T.start([T.target("core_diff"), shared])
        try:
            core = T.gcore(p.pid, tmp)
            for a, b, what in ((core, p.pid, "-d CORE PID"),
                               (p.pid, core, "-d PID CORE"),
                               (core, core, "-d CORE CORE")):
                d = json.loads(run("-F", "-d", a, b, "-e", "json"))
                T.ok(d["changes"]["regions"] == [] and
                     not any(d["counts"].values()),
                     "%s -e json: no region change" % what,
                     [(c["change"], c["start"], c["path"])
                      for c in d["changes"]["regions"]])
                rows = list(csv.DictReader(io.StringIO(
                    run("-F", "-d", a, b, "-e", "csv"))))
                T.eq([r["path"] for r in rows if r["record"] == "region"], [],
                     "%s -e csv: no region row" % what)
                out = run("-F", "-d", a, b, "-s")
                T.ok("No region changed." in out, "%s -s: no region changed"
                     % what, out[-600:])
        finally:
            T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
