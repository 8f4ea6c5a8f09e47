#!/usr/bin/env python3
"""The viewer's keys on a snapshot file of 1,000,000 regions, without
raising vm.max_map_count: bench_tui's keys that re-sort, measured the same
way, beside the same floor, on `vmscope -l FILE`.

A process may not have more regions than vm.max_map_count (65530 by
default), and raising it is a change to the whole machine. A snapshot
file keeps the kernel's smaps text (docs/snapshot-files.md), so one of
manyregions at the limit (BENCH_FILE_FROM regions, 64000) is taken with
`vmscope -s -w`, then its text is grown to BENCH_REGIONS (1,000,000): the
regions added below the first of its run, read-only and writable in
turn, each copied from one of that run's first four (every fourth page
resident, as manyregions makes them); the JSON part's region indexes
past them moved up, the two halves of the text counted again
(smaps_parts), each compressed with zstd(1). The viewer loads it as any
file (the steps run again over it).

Then, as bench_tui.py does (VMSCOPE_TIMING: the CPU time of each key,
from reading it to the screen written): Down and End, s (each sort in
turn, twice round), a, / (a text no row has) and Enter on a type in the
summary, each key's p50/p99 and its p99 as a ratio to the floor of a
sort measured in the same run (tests/targets/sortfloor.c, a bare radix
sort of as many (key, row) pairs; the aim on 1,000,000 regions: 1.5x),
and to the same sort after a pause as long as the keys before the
first s;
each `s` too; and the viewer's peak (VmHWM). There is no second
snapshot (a file is not refreshed): the changes' round is bench_tui's.
Never fails on a figure: only on an error.
"""
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tui", "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402
from bench_tui import sort_floor  # noqa: E402

REGIONS = int(os.environ.get("BENCH_REGIONS", "1000000"))
FROM = int(os.environ.get("BENCH_FILE_FROM", "64000"))
KEYS = int(os.environ.get("BENCH_KEYS", "40"))
AIM_FLOOR = 1.5
MAGIC = b"vmscope snapshot\n"
KEYCODE = {"Down": 258, "End": 360, "Enter": 13, "s": 115, "a": 97}


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))]


def stats(v):
    if not v:
        return "n/a"
    return "p50 %8.3f ms  p99 %8.3f ms  (n=%d)" % (statistics.median(v),
                                                   pct(v, 0.99), len(v))


def sections(path):
    """(version, flags, [(name, codec, size, data)]) of a snapshot file
    (src/capture/file/snapfile.h)."""
    with open(path, "rb") as f:
        b = f.read()
    if not b.startswith(MAGIC):
        raise RuntimeError("%s: not a snapshot file" % path)
    ver, flags = struct.unpack_from("<II", b, len(MAGIC))
    off, out = len(MAGIC) + 8, []
    while off < len(b):
        name = b[off:off + 12].rstrip(b"\0").decode()
        codec, stored, size = struct.unpack_from("<IQQ", b, off + 12)
        off += 32
        out.append((name, codec, size, b[off:off + stored]))
        off += stored
        if name == "end":
            break
    return ver, flags, out


def zstd(data, decompress, tmp):
    """zstd(1) over data, through files (a frame with its size)."""
    src = os.path.join(tmp, "z.in")
    dst = os.path.join(tmp, "z.out")
    with open(src, "wb") as f:
        f.write(data)
    subprocess.run(["zstd", "-q", "-f"] + (["-d"] if decompress else
                                          ["-3", "--check"]) +
                   [src, "-o", dst], check=True)
    with open(dst, "rb") as f:
        return f.read()


def grow(src, dst, regions, tmp):
    """src's smaps text grown to `regions` regions into dst; the count."""
    ver, flags, secs = sections(src)
    byname = {s[0]: s for s in secs}
    meta = json.loads(zstd(byname["meta"][3], True, tmp))
    text = zstd(byname["smaps"][3], True, tmp).decode()
    lines = text.split("\n")
    heads = [i for i, ln in enumerate(lines)
             if ln[:1] in "0123456789abcdef" and "-" in ln.split(" ")[0]
             and len(ln.split()) >= 5]
    ents = [lines[heads[k]:heads[k + 1] if k + 1 < len(heads) else None]
            for k in range(len(heads))]
    if not ents[-1][-1]:
        ents[-1] = ents[-1][:-1]  # the text's last newline
    # the run: the first anonymous writable page, then three more
    b = next(i for i, e in enumerate(ents)
             if e[0].split()[1] == "rw-p" and len(e[0].split()) == 5 and
             e[1].split()[1] == "4")
    add = max(0, regions - len(ents))
    start = int(ents[b][0].split("-")[0], 16)
    base = start - add * 4096
    new = []
    for j in range(add):
        # the page just below the run's first (writable) is read-only
        perm = "r--p" if (add - 1 - j) % 2 == 0 else "rw-p"
        like = [e for e in ents[b:b + 4] if e[0].split()[1] == perm]
        t = like[(j // 2) % len(like)]
        h = t[0].split()
        a = base + j * 4096
        new.append(["%x-%x %s %s %s %s" % (a, a + 4096, perm, h[2], h[3],
                                           h[4])] + t[1:])
    ents = ents[:b] + new + ents[b:]
    for f in meta.get("files", []):
        if f["region"] >= b:
            f["region"] += add
    for r in (meta.get("heaps") or {}).get("regions", []):
        if r["region"] >= b:
            r["region"] += add
    n = len(ents)
    half = n // 2
    meta["regions"] = n
    meta["smaps_parts"] = [half, n - half]
    p1 = "".join("\n".join(e) + "\n" for e in ents[:half]).encode()
    p2 = "".join("\n".join(e) + "\n" for e in ents[half:]).encode()
    mj = json.dumps(meta, separators=(",", ":")).encode()
    out = bytearray(MAGIC + struct.pack("<II", ver, flags))

    def sec(name, codec, data, size):
        out.extend(name.encode().ljust(12, b"\0") +
                   struct.pack("<IQQ", codec, len(data), size) + data)
    sec("meta", 1, zstd(mj, False, tmp), len(mj))
    sec("smaps", 1, zstd(p1, False, tmp) + zstd(p2, False, tmp),
        len(p1) + len(p2))
    for name, codec, size, data in secs:
        if name not in ("meta", "smaps"):
            sec(name, codec, data, size)
    with open(dst, "wb") as f:
        f.write(out)
    return n


def main():
    if not D.have_tmux():
        print("tmux is not installed: skipped")
        return 0
    tmp = tempfile.mkdtemp(prefix="vmsbench-")
    try:
        return run(tmp)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


def run(tmp):
    small = os.path.join(tmp, "from.vms")
    big = os.path.join(tmp, "big.vms")
    p, _ = T.start([T.target("manyregions"), str(FROM)], timeout=300)
    subprocess.run([T.VMSCOPE, "-s", "-w", small, str(p.pid)], check=True,
                   stdout=subprocess.DEVNULL)
    T.kill(p)
    n = grow(small, big, REGIONS, tmp)
    print("a snapshot file of manyregions (%d regions) grown to %d regions"
          % (FROM, n))
    tpath = os.path.join(tmp, "timing")
    open(tpath, "w").close()
    tm = D.Tmux([T.VMSCOPE, "-l", big], env={"VMSCOPE_TIMING": tpath},
                colours=256, term="tmux-256color", width=200, height=50)
    tm.wait_for(lambda scr: "Regions" in scr and "Private Data" in scr,
                timeout=900)
    vpid = tm.child_pid()

    def keyed():
        out = []
        with open(tpath) as f:
            for line in f:
                w = line.split()
                if w[0] in ("key", "redraw"):
                    out.append((int(w[1]), float(w[3]) / 1000))
        return out

    def batch(keys, timeout=600):
        """The keys' timing lines, each key typed once the one before is
        on screen (Tmux.keys_each)."""
        n0 = len(keyed())
        tm.keys_each(keys, lambda: len(keyed()), timeout)
        return keyed()[n0:]

    def only(ts, code):
        return [t[1] for t in ts if t[0] == code]

    per = {}
    tm.keys("Tab")  # the details
    time.sleep(0.5)
    t_round = time.time()
    per["Down"] = only(batch(["Down"] * KEYS), KEYCODE["Down"])
    per["End"] = only(batch(["End", "Home"] * (KEYS // 10)), KEYCODE["End"])
    # the keys before the first s leave the sort's memory alone this long
    gap = time.time() - t_round
    # each sort in turn (the sort menu's order: Address, each column
    # shown, Type), twice round
    per["s sort"] = only(batch(["s"] * 16), KEYCODE["s"])
    per["a toggle"] = only(batch(["a"] * 10), KEYCODE["a"])
    finds = []
    for i in range(6):
        finds += only(batch(["/"] + list("zq%d" % i) + ["Enter"]),
                      KEYCODE["Enter"])
    per["/ find"] = finds
    tm.keys("Tab")  # the summary
    time.sleep(0.3)
    per["Enter filter"] = only(batch(["Home", "Enter", "End", "Up",
                                      "Enter"] * 4), KEYCODE["Enter"])
    with open("/proc/%d/status" % vpid) as f:
        hwm = [int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:")][0]
    tm.kill()
    # the floor, then the same after a pause as long as the keys before
    # the first s ("idle MS keys MS sort MS")
    idle_ms = max(1, int(gap * 1000))
    fl = sort_floor(n, idle_ms)
    floor = fl["sort"]
    full = fl["keys"] + floor  # the floor's keys read, then sorted
    idle_sort = fl["idle_sort"]
    print("key latency on %d regions, CPU time (VMSCOPE_TIMING), each "
          "p99 against the floor of a sort (aim <= %.1fx), then against "
          "that floor's keys read from the records and sorted, and "
          "against the floor's sort after a pause of %d ms (as long as "
          "the keys before the first s):" % (n, AIM_FLOOR, idle_ms))
    for name, cs in per.items():
        print("  %-13s cpu %s   p99 / floor %.2fx, / keys and sort "
              "%.2fx, / a sort after the pause %.2fx" %
              (name, stats(cs), pct(cs, 0.99) / floor if cs else 0,
               pct(cs, 0.99) / full if cs else 0,
               pct(cs, 0.99) / idle_sort if cs and idle_sort > 0 else 0))
    print("  each s, in the sort menu's order from Address's next: " +
          ", ".join("%.1f" % c for c in per["s sort"]))
    print("  floor of a sort key: a bare radix sort of %d (key, row) pairs "
          "%s ms, once each key was read from a record of 176 bytes "
          "into them, which took %s ms (tests/targets/sortfloor.c; "
          "median of 5)" %
          (n, "%.1f" % fl["sort"], "%.1f" % fl["keys"]))
    print("  the same, each of 5 after a pause of %d ms: the sort %.1f ms, "
          "its keys read %.1f ms" % (idle_ms, fl["idle_sort"],
                                     fl["idle_keys"]))
    print("peak memory (VmHWM): %.1f MB, %.0f bytes/region" %
          (hwm / 1024, hwm * 1024 / n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
