#!/usr/bin/env python3
"""test_snapkeys — every top-level key of a snapshot file's JSON part that
vmscope writes or reads is one the loader keeps (issue 27, item 4).

The loader skips the members of the JSON part's top-level object whose key
is not in SF_JSON_TOP_KEYS (snapfile_int.h) without building them, so a key
added to the writer (`put(m, "KEY", ...)` in snapfile_write.c) or read at
the top (`json_object_get(m, "KEY")` in snapfile_read.c,
`json_object_get(meta, "KEY")` in snapfile_source.c) and not to that list
would be dropped on load. This lists each such key missing from it.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

FILE = os.path.join(T.ROOT, "src", "capture", "file")


def read(name):
    with open(os.path.join(FILE, name)) as f:
        return f.read()


def main():
    m = re.search(r"#define SF_JSON_TOP_KEYS((?:[^\n]*\\\n)*[^\n]*)",
                  read("snapfile_int.h"))
    T.ok(m is not None, "snapfile_int.h defines SF_JSON_TOP_KEYS")
    if not m:
        return T.done()
    known = set(re.findall(r'"([a-z_]+)"', m.group(1)))
    used = set(re.findall(r'\bput\(m, "([a-z_]+)"', read("snapfile_write.c")))
    T.ok(len(used) >= 10, "the writer's top-level keys are found (%d)" %
         len(used))
    used |= set(re.findall(r'json_object_get\(m, "([a-z_]+)"',
                           read("snapfile_read.c")))
    used |= set(re.findall(r'json_object_get\(meta, "([a-z_]+)"',
                           read("snapfile_source.c")))
    missing = sorted(used - known)
    T.ok(not missing, "every top-level key written or read is in "
         "SF_JSON_TOP_KEYS", "missing: %s" % ", ".join(missing))
    T.done()


if __name__ == "__main__":
    main()
