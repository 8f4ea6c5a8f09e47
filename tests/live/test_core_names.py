#!/usr/bin/env python3
"""The names and types a core implies: its brk heap where the program
mapped its own executable again, x86-64's vsyscall page, and the heaps of
glibc's thread arenas.

A core dump has no [heap] name: the reader names the first writable
anonymous region past the executable's image. tests/targets/remap_exe
maps its executable a second time, shared, far above its image (with a
writable anonymous region right above that copy). The image ends where
its ELF headers say, not at the last mapping of its file, so in its core
(gcore):
  - the region holding a block malloc gave (the brk heap) is named
    [heap] and typed Heap, as in the live capture, at the same range;
  - the region above the copy is not named [heap] (it was, and the brk
    heap was left unnamed, typed Private Data).
The target is killed by its pid."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def arenas(tmp):
    p, _ = T.start([T.target("heap_arenas"), "normal", "2"])
    try:
        live = T.vmscope_json(p.pid)
        want = [(g["start"], g["end"], g["type"], g.get("detail"))
                for g in live["regions"] if g["type"] == "heap" and
                (g.get("detail") or "").startswith("arena ")]
        core = T.gcore(p.pid, tmp)
        r = T.run_vmscope("-l", core, "-e", "json", timeout=300)
        cs = json.loads(r.stdout) if r.returncode == 0 else {"regions": []}
        got = {g["start"]: (g["start"], g["end"], g["type"], g.get("detail"))
               for g in cs["regions"]}
        T.ok(len(want) >= 4 and all(got.get(w[0]) == w for w in want),
             "the core: the thread arenas' %d regions typed Heap and "
             "described as live" % len(want),
             [(w, got.get(w[0])) for w in want if got.get(w[0]) != w])
    finally:
        T.kill(p)


def main():
    if not shutil.which("gcore"):
        T.skip("a core's brk heap", "no gcore (gdb) here")
        T.done()
        return
    tmp = tempfile.mkdtemp(prefix="vmscope-corenames-")
    p, line = T.start([T.target("remap_exe")])
    try:
        f = T.ready_fields(line)
        heap, remap = f["heap"], f["remap"]
        live = T.vmscope_json(p.pid)
        core = T.gcore(p.pid, tmp)
        r = T.run_vmscope("-l", core, "-e", "json", timeout=300)
        T.eq(r.returncode, 0, "-l CORE -e json")
        cs = json.loads(r.stdout) if r.returncode == 0 else {"regions": []}

        def at(snap, addr):
            g = T.region_of(snap, addr)
            return g and (g["start"], g["end"], g["type"], g.get("path"))

        want = at(live, heap)
        T.ok(want and want[2:] == ("heap", "[heap]"),
             "live: the malloc'd block in [heap]", want)
        T.eq(at(cs, heap), want,
             "the core: the brk heap named [heap], typed Heap, its range "
             "the live one's")
        above = at(cs, remap + 4096)
        T.ok(above and above[3] != "[heap]" and
             [g.get("path") for g in cs["regions"]].count("[heap]") == 1,
             "the core: the region above the executable's second mapping "
             "is no [heap]; one [heap] in all", above)
        vs = [g for g in live["regions"] if g.get("path") == "[vsyscall]"]
        if vs:
            want = at(live, int(vs[0]["start"], 16))
            T.eq(at(cs, int(vs[0]["start"], 16)), want,
                 "the core: the vsyscall page named and typed as live")
        else:
            T.skip("the core's [vsyscall]", "no vsyscall page here")
        arenas(tmp)
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
