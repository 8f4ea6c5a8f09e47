#!/usr/bin/env python3
"""test_format — the C code is formatted with the tree's .clang-format
(issue 7: `make format` writes it; this says when something was not).

Every .c and .h file under src/, ui/, cli/, link/ and trace/ is run through
`clang-format --dry-run --Werror`, in one run; the files it would change
are listed.
The check is Debian 12's clang-format (14), which scripts/deps.sh
installs; another major version may lay out a few constructs otherwise,
and then the test says which version it ran and skips.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

WANT_MAJOR = 14


def main():
    try:
        v = subprocess.run(["clang-format", "--version"],
                           capture_output=True, text=True).stdout
    except OSError:
        T.skip("the code is formatted", "clang-format is not installed")
        return T.done()
    m = re.search(r"version (\d+)\.", v)
    if not m or int(m.group(1)) != WANT_MAJOR:
        T.skip("the code is formatted", "clang-format %s, not %d: its "
               "layout may differ" % (m.group(1) if m else "?", WANT_MAJOR))
        return T.done()
    files = sorted(f for d in ("src", "ui", "cli", "link", "trace")
                   for f in glob.glob(os.path.join(T.ROOT, d, "**", "*.[ch]"),
                                      recursive=True))
    r = subprocess.run(["clang-format", "--dry-run", "--Werror"] + files,
                       capture_output=True, text=True, cwd=T.ROOT)
    # Each place it would change: "FILE:LINE:COL: error: code should be
    # clang-formatted".
    bad = sorted({os.path.relpath(m.group(1), T.ROOT) for m in
                  re.finditer(r"^(.+?):\d+:\d+: error:", r.stderr, re.M)})
    if r.returncode != 0 and not bad:
        bad = ["clang-format failed: " + r.stderr.strip()[:200]]
    T.ok(files, "there are C files to check (%d)" % len(files))
    T.eq(bad, [], "every file is as clang-format lays it out (make format)")
    return T.done()


if __name__ == "__main__":
    main()
