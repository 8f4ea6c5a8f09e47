#!/usr/bin/env python3
"""A mapped file whose name holds a newline, as the file system has it.

/proc/PID/maps and smaps write a newline in a name as the four bytes
\\012 (the kernel's seq_file_path escape, its only one); vmscope reads
them back, so that a region's path is the file's name, the one
/proc/PID/map_files/START-END links to and a core dump's NT_FILE note
holds:

  - -e json: the path is the file's name byte for byte (a newline in it,
    escaped by JSON as \\n), for a file mapped and for one removed after
    (" (deleted)" after it, the region still counted deleted: its Size
    under the kernel's own account of that range);
  - -e text and -e csv: the newline shown escaped (\\n), never a line
    broken in two;
  - a snapshot file (-w, then -l) and a core dump of the process (gcore)
    give the same path as the live capture;
  - a core's list of files (NT_FILE) is read as its writer wrote it:
    tests/fixtures/sleep_small.core with a name made "/usr/b\\012leep"
    reads as "/usr/b<newline>leep" as gdb wrote it (its page size 1: gdb
    copies the names from maps), and as "/usr/b\\012leep", backslash and
    all, with the kernel's page size (4096: the kernel writes the names as
    they are).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

TARGET = r"""
import mmap, os, sys
maps = []
for name in sys.argv[1:]:
    f = open(name, "rb")
    maps.append(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ))
    f.close()
os.unlink(sys.argv[-1])
print("ready", flush=True)
sys.stdin.read()
"""


def nt_file_copies(tmp):
    """sleep_small.core twice, its first NT_FILE name's "in/s" made the
    four bytes \\012, the note's page size 1 (gdb's) and 4096 (the
    kernel's): {page size: path}."""
    data = bytearray(open(os.path.join(T.ROOT, "tests", "fixtures",
                                       "sleep_small.core"), "rb").read())
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, _, off, _, _, size = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        end = off + size
        while ptype == 4 and off < end:
            namesz, descsz, typ = struct.unpack_from("<III", data, off)
            desc = off + 12 + ((namesz + 3) & ~3)
            if typ == 0x46494C45:  # NT_FILE
                count = struct.unpack_from("<Q", data, desc)[0]
                names = desc + 16 + count * 24
                at = data.index(b"/usr/bin/sleep", names)
                data[at:at + 14] = b"/usr/b\\012leep"
                out = {}
                for psize in (1, 4096):
                    struct.pack_into("<Q", data, desc + 8, psize)
                    out[psize] = os.path.join(tmp, "c%d.core" % psize)
                    with open(out[psize], "wb") as f:
                        f.write(data)
                return out
            off = desc + ((descsz + 3) & ~3)
    return {}


def nt_file_names(tmp):
    cores = nt_file_copies(tmp)
    T.ok(len(cores) == 2, "sleep_small.core's NT_FILE note found")
    want = {1: "/usr/b\nleep", 4096: "/usr/b\\012leep"}
    for psize, core in sorted(cores.items()):
        r = T.run_vmscope("-l", core, "-e", "json")
        snap = json.loads(r.stdout) if r.returncode == 0 else {
            "regions": []}
        paths = {g.get("path") for g in snap["regions"]}
        T.ok(want[psize] in paths,
             "a core's NT_FILE with page size %d (%s): the name read as "
             "%r" % (psize, "gdb's" if psize == 1 else "the kernel's",
                     want[psize]),
             sorted(p for p in paths if p and p.startswith("/usr/b")))


def regions_named(snap, names):
    return {r["path"]: r for r in snap["regions"]
            if r.get("path") and any(r["path"].startswith(n) for n in names)}


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-nl-")
    kept = os.path.join(tmp, "da\nta")
    gone = os.path.join(tmp, "gone\nfile")
    for n in (kept, gone):
        with open(n, "wb") as f:
            f.write(b"x" * 8192)
    p, _ = T.start([sys.executable, "-c", TARGET, kept, gone])
    try:
        links = {}
        for e in os.listdir("/proc/%d/map_files" % p.pid):
            try:
                links[e] = os.readlink("/proc/%d/map_files/%s" % (p.pid, e))
            except OSError:
                pass
        want = {kept, gone + " (deleted)"}
        T.ok(want <= set(links.values()),
             "map_files links to the names with their newlines",
             sorted(v for v in links.values() if tmp in v))

        snap = T.vmscope_json(p.pid)
        got = regions_named(snap, [kept, gone])
        T.eq(set(got), want,
             "-e json: each path the file's name, its newline as it is")
        g = got.get(gone + " (deleted)", {})
        T.ok(g.get("type") == "mapped_file" and g.get("size") == 8192,
             "the removed one: a mapped file of 8 KiB", g)

        r = T.run_vmscope("-e", "text", p.pid)
        out = r.stdout.decode("utf-8", "replace")
        lines = [ln for ln in out.split("\n")
                 if tmp in ln and not ln.startswith("Command:")]
        T.ok(r.returncode == 0 and len(lines) == 2 and
             all(("da\\nta" in ln or "gone\\nfile (deleted)" in ln) and
                 ln.lstrip().startswith("0000") for ln in lines),
             "-e text: a row a region, the newline shown as \\n", lines)
        r = T.run_vmscope("-e", "csv", p.pid)
        out = r.stdout.decode("utf-8", "replace")
        rows = [ln for ln in out.split("\n") if tmp in ln]
        T.ok(r.returncode == 0 and len(rows) == 2 and
             all(ln.startswith("region,") for ln in rows),
             "-e csv: a row a region, none broken by the newline", rows)

        path = os.path.join(tmp, "s.vms")
        r = T.run_vmscope("-w", path, p.pid)
        T.ok(r.returncode == 0, "-w", r.stderr)
        r = T.run_vmscope("-l", path, "-e", "json")
        loaded = json.loads(r.stdout) if r.returncode == 0 else {}
        T.eq(set(regions_named(loaded, [kept, gone])), want,
             "-l of the saved snapshot: the same paths")

        if shutil.which("gcore"):
            core = T.gcore(p.pid, tmp)
            r = T.run_vmscope("-l", core, "-e", "json")
            cs = json.loads(r.stdout) if r.returncode == 0 else {}
            T.eq(set(regions_named(cs, [kept, gone])), want,
                 "a core dump of it (NT_FILE's names): the same paths")
        else:
            T.skip("a core dump's paths", "no gcore (gdb) here")
        nt_file_names(tmp)
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
