#!/usr/bin/env python3
# run alone: sets the machine's transparent_hugepage/use_zero_page
"""A page vmscope takes for a mapping of the zero page is one.

memread finds the zero page's frames by reading memory of its own it never
wrote, and leaves a target's mapping of them out of a part's Rss (smaps
has none). Where the kernel maps no huge zero page for such a read
(/sys/kernel/mm/transparent_hugepage/use_zero_page 0) the read allocates
a real huge page, freed at once: its frames, taken for the huge zero
page, were soon another allocation's, and its pages counted absent (a
redis block's Rss short of the target's pagemap). build/tests/test_memread
writes a huge page after its reader is opened (the frames found then) and
checks each of its pages present; here it runs with use_zero_page 0 and
1, set as root and always put back. Skipped without root or without
transparent huge pages."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

THP = "/sys/kernel/mm/transparent_hugepage/"


def read(name):
    with open(THP + name) as f:
        return f.read().strip()


def write(name, value):
    with open(THP + name, "w") as f:
        f.write(value)


def main():
    what = "memread_pages with use_zero_page 0"
    if os.geteuid() != 0:
        T.skip(what, "needs root to set use_zero_page")
        return
    try:
        was, enabled = read("use_zero_page"), read("enabled")
    except OSError as e:
        T.skip(what, "no transparent huge pages here (%s)" % e)
        return
    if "[never]" in enabled:
        T.skip(what, "transparent huge pages are off here (%s)" % enabled)
        return
    unit = os.path.join(T.BUILD, "tests", "test_memread")
    try:
        for value in ("0", "1"):
            write("use_zero_page", value)
            r = subprocess.run([unit], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=120)
            lines = r.stdout.splitlines()
            huge = [ln for ln in lines if "written after the reader" in ln]
            T.ok(r.returncode == 0 and len(huge) == 1 and
                 huge[0].startswith("ok"),
                 "use_zero_page %s: test_memread passes, a huge page "
                 "written after its reader was opened present whole"
                 % value, r.stdout)
    finally:
        write("use_zero_page", was)
    T.eq(read("use_zero_page"), was, "use_zero_page put back (%s)" % was)


main()
T.done()
