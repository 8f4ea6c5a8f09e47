"""mapnames.py - a target for the viewer's tests of names (tests/tui/
test_locale_names.py, test_find_utf8.py): maps a 4 KiB file of each name
it is given, in hex (any bytes: invalid UTF-8, control characters), in
DIR, prints "ready" and waits for its standard input to end. Arguments
after "--" are not names: words for its command line alone.

Usage: mapnames.py DIR HEXNAME... [-- WORD...]"""
import mmap
import os
import sys

args = sys.argv[2:]
names = args[:args.index("--")] if "--" in args else args
keep = []
for n in names:
    p = os.path.join(os.fsencode(sys.argv[1]), bytes.fromhex(n))
    with open(p, "wb") as f:
        f.write(b"x" * 4096)
    fd = os.open(p, os.O_RDONLY)
    keep.append(mmap.mmap(fd, 4096, prot=mmap.PROT_READ))
    os.close(fd)
print("ready", flush=True)
sys.stdin.read()
