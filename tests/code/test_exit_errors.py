#!/usr/bin/env python3
"""test_exit_errors — every error of the engine that says a process (or a
thread) "exited during" a capture is set with ESRCH, so that
vms_error_gone() (src/base/error.h) knows it from a failure: --all counts
such a process reason="exited", never "capture_failed"
(tests/live/test_all_openmetrics.py kills processes while --all runs).

Each vms_error_set(...) call of src/ is read whole (to its closing
parenthesis, strings joined); one whose message says "exited during"
must pass ESRCH as its errno. The check runs first on made-up calls, so
the test itself can fail.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

CALL = re.compile(r"\bvms_error_set\s*\(")


def calls(text):
    """The argument text of each vms_error_set call, comments dropped."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = []
    for m in CALL.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end():i - 1])
    return out


def wrong(text):
    """The calls that say "exited during" without ESRCH as their errno."""
    bad = []
    for args in calls(text):
        joined = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', args))
        if "exited during" not in joined:
            continue
        parts = [p.strip() for p in args.split(",")]
        if len(parts) < 3 or parts[2] != "ESRCH":
            bad.append(" ".join(args.split())[:160])
    return bad


def main():
    good = 'vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,\n "process %d exited "\n "during capture", (int)pid);'
    bad = 'vms_error_set(err, VMS_ERR_CAPTURE, e, "process %d exited during"\n " capture (%s)", f(x), y);'
    other = 'vms_error_set(err, VMS_ERR_FILE, EIO, "cannot read %s", p);'
    T.ok(wrong(good) == [] and len(wrong(bad)) == 1 and
         wrong(other) == [] and len(calls(good + bad + other)) == 3,
         "made up: an exit with ESRCH passes, one with another errno is "
         "found, another message is not looked at")

    found, bad = 0, []
    for path in sorted(glob.glob(os.path.join(T.ROOT, "src", "**", "*.c"),
                                 recursive=True)):
        text = open(path, encoding="utf-8").read()
        found += sum("exited during" in "".join(
            re.findall(r'"((?:[^"\\]|\\.)*)"', a)) for a in calls(text))
        bad += ["%s: %s" % (os.path.relpath(path, T.ROOT), b)
                for b in wrong(text)]
    T.ok(found >= 5 and not bad,
         "src/: every \"exited during\" error set with ESRCH (%d found)"
         % found, "\n".join(bad))
    T.done()


if __name__ == "__main__":
    main()
