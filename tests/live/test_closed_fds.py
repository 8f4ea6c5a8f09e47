#!/usr/bin/env python3
"""vmscope started with standard input, output or error closed (`<&-`,
`>&-`, `2>&-`): a descriptor it opens never takes their numbers, so what
is written to a closed one goes nowhere.

  - `vmscope --trace -s -- CMD 2>&-`: CMD's standard output is vmscope's
    standard error (the report has standard output), and with it closed
    the first descriptor vmscope made, the trace's shared memory, had
    number 2: CMD's 200 lines of text were written into the trace, whose
    report then counted 10^18 calls not recorded and thousands of records
    refused. Now the report says every call was recorded, as with
    standard error open (2>/dev/null, the control);
  - `vmscope -s PID >&-` and `<&- >&- 2>&-`: still an error (exit 4),
    never a silent success: the number is held read-only, where a write
    fails as on a closed descriptor;
  - `vmscope -s -o FILE PID <&- >&- 2>&-`: the file is written whole
    (exit 0).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

CMD = ["/bin/sh", "-c", "i=0; while [ $i -lt 200 ]; do echo line-$i; "
       "i=$((i+1)); done"]


def closed(redirs, args, **kw):
    """vmscope args run by sh with redirs (`2>&-`, say); the run."""
    return subprocess.run(["sh", "-c", 'exec "$@" ' + redirs, "sh",
                           T.VMSCOPE] + [str(a) for a in args],
                          capture_output=True, timeout=120, **kw)


def main():
    for redirs in ("2>/dev/null", "2>&-"):
        r = closed(redirs, ["--trace", "-s", "--"] + CMD)
        out = r.stdout.decode(errors="replace")
        trace = [ln for ln in out.splitlines() if ln.startswith("Trace:")]
        T.ok(r.returncode == 0 and trace and
             "not recorded" not in trace[0] and "refused" not in trace[0],
             "--trace -s -- CMD %s: every call recorded, none refused"
             % redirs, "exit %d: %s" % (r.returncode, trace))
    s, _ = T.start_asleep(["sleep", "600"])
    for redirs in (">&-", "<&- >&- 2>&-"):
        r = closed(redirs, ["-s", s.pid])
        T.eq(r.returncode, 4, "-s PID %s: exit 4 (standard output closed)"
             % redirs)
    tmp = tempfile.mkdtemp(prefix="vmscope-fds-")
    try:
        path = os.path.join(tmp, "out.txt")
        r = closed("<&- >&- 2>&-", ["-s", "-o", path, s.pid])
        with open(path) as f:
            text = f.read()
        T.ok(r.returncode == 0 and text.startswith("Process:") and
             "Total" in text, "-s -o FILE with all three closed: the file "
             "has the summary, exit 0", "exit %d" % r.returncode)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.kill(s)
    T.done()


if __name__ == "__main__":
    main()
