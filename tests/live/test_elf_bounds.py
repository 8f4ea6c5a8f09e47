#!/usr/bin/env python3
"""Bounded work for hostile targets, through the command line
(tests/targets/elf_hostile.c; the caps themselves are asserted in
tests/unit/test_elfimage_bounds.c, test_images_step.c, test_procfile.c):

- the ELF bomb (1,000 mappings of two files with 65,000 allocated sections
  each): every mapping is an image; no region has more than 64 section
  children; all of them together stay within the snapshot's budget; the
  capture says what was left out;
- one page of an 8 GB sparse ELF file whose PT_NOTE spans it: an image,
  with the build id at the note's start; the capture says the notes were
  read only up to the cap;
- 2,000 arena-shaped regions of one arena: one heap of 1,000 segments, in
  address order.
Generated files live in a temporary directory, deleted at the end; each
target is killed by its pid.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as t  # noqa: E402

BOMB = 1000


def missing(snap, part):
    return [m for m in snap["capture"].get("missing", [])
            if m["step"] == "images" and part in m["why"]]


def check_bomb(tmp):
    p, _ = t.start([t.target("elf_hostile"), "bomb", tmp, str(BOMB)],
                   timeout=120)
    try:
        snap = t.vmscope_json(p.pid)
    finally:
        t.kill(p)
    regs = [r for r in snap["regions"]
            if r["path"] and "/bomb-" in r["path"]]
    t.eq(len(regs), BOMB, "bomb: %d mappings" % BOMB)
    t.ok(all(r["type"] == "image" for r in regs),
         "bomb: every mapping is an image")
    most = max((len(r["children"]) for r in regs), default=0)
    t.eq(most, 64, "bomb: at most 64 section children a region")
    total = sum(len(r["children"]) for r in snap["regions"]
                if r["type"] == "image")
    budget = 16384 + 8 * len(snap["regions"])
    t.ok(total <= budget, "bomb: %d section children in all, budget %d"
         % (total, budget))
    t.ok(missing(snap, "not all shown") and
         missing(snap, "more allocated sections than are kept"),
         "bomb: the capture says what was left out",
         snap["capture"].get("missing"))


def check_sparse(tmp):
    p, _ = t.start([t.target("elf_hostile"), "sparse", tmp])
    try:
        snap = t.vmscope_json(p.pid)
    finally:
        t.kill(p)
    regs = [r for r in snap["regions"]
            if r["path"] and r["path"].endswith("/sparse.so")]
    t.eq(len(regs), 1, "sparse: one page mapped")
    if regs:
        t.eq(regs[0]["type"], "image", "sparse: an image")
        t.eq(regs[0].get("build_id"),
             "1112131415161718191a1b1c1d1e1f2021222324",
             "sparse: the build id at the note's start")
    t.ok(missing(snap, "notes of 1 files read only up to"),
         "sparse: the capture says the notes were cut",
         snap["capture"].get("missing"))


def check_arenas():
    p, _ = t.start([t.target("elf_hostile"), "arenas", "2000"])
    try:
        snap = t.vmscope_json(p.pid)
    finally:
        t.kill(p)
    arenas = [h for h in snap["heaps"] if h["kind"] == "glibc-arena"]
    t.eq(len(arenas), 1, "arenas: one arena")
    if arenas:
        segs = [t.hexint(s["start"]) for s in arenas[0]["segments"]]
        t.eq(len(segs), 1000, "arenas: 1000 heaps, one segment each")
        t.ok(segs == sorted(segs), "arenas: segments in address order")


def main():
    tmp = tempfile.mkdtemp(prefix="vms-elf-bounds-")
    try:
        check_bomb(tmp)
        check_sparse(tmp)
        check_arenas()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()


if __name__ == "__main__":
    main()
