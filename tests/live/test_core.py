#!/usr/bin/env python3
"""ELF core dumps (-l CORE): a gcore of everykind loads with its live layout.

  - everykind (4 threads) is started, its /proc/PID/maps and task list read,
    and `gcore -o` writes its core while it sleeps (nothing changes in
    between: it is blocked); `-l CORE -e json`:
      * every region of the live maps is a region of the core, with the same
        start, end, file path and offset, and the same w and x bits; left
        out, and only these: [vvar] and [vvar_vclock] (the kernel's data
        pages: gdb cannot read them and writes no segment for them);
        [heap], [stack] and [vdso] carry their names (found from the core:
        AT_SYSINFO_EHDR, the main thread's stack pointer, the first
        anonymous rw region above the executable's image); other anonymous
        names ([anon:...]) are not in a core;
      * no region of the core is not in the live maps;
      * the executable, libc and ld.so regions are typed image, with a
        build id;
      * one thread per task, by tid, each stack pointer inside its stack;
      * Rss, Pss, Swap and the sharing figures are null (unknown), never 0,
        in every region and in the totals; -s prints "-" for them;
      * the core (some 600 MB: everykind touches a 64 MiB buffer and gdb
        writes its reservations out) is mapped, not read: `-l CORE -s`
        peaks under a quarter of its size;
  - a core whose executable was replaced on disk since (a copy of sleep,
    then of cat, at the same path): its regions are images marked
    image_unopened with the core's build id and no sections, and a note
    says the file on disk is not the one mapped;
  - bad input, each from a small core of `sleep` (copies, patched): cut
    short, its PT_NOTE removed, its e_machine another architecture's: exit
    4 with one line naming the file and what is wrong (both machines).
Skipped when gcore is not installed.
"""
import csv
import io
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LEFT_OUT = {"[vvar]", "[vvar_vclock]"}
NAMED = {"[heap]", "[stack]", "[vdso]"}


def load(path, *args):
    return T.run_vmscope("-l", path, *args)


def layout(snap, live, pid):
    core = {(T.hexint(r["start"]), T.hexint(r["end"])): r
            for r in snap["regions"]}
    missing, wrong = [], []
    for m in live:
        r = core.get((m["start"], m["end"]))
        if r is None:
            missing.append(m["path"] or hex(m["start"]))
            continue
        is_file = m["path"] and m["path"].startswith("/")
        if is_file or m["path"] in NAMED:
            if r["path"] != m["path"]:
                wrong.append(("path", m, r["path"]))
        if is_file and r["offset"] != m["offset"]:
            wrong.append(("offset", m, r["offset"]))
        for bit, i in (("w", 1), ("x", 2)):
            if (m["perms"][i] == bit) != (r["perms"][i] == bit):
                wrong.append(("perms", m, r["perms"]))
    T.ok(set(missing) <= LEFT_OUT,
         "every live region is in the core but [vvar] and [vvar_vclock] "
         "(%d live, %d in the core)" % (len(live), len(core)),
         [x for x in missing if x not in LEFT_OUT])
    T.eq(wrong, [], "regions keep path, offset and w/x bits")
    livekeys = {(m["start"], m["end"]) for m in live}
    T.eq(sorted(hex(a) for a, b in core if (a, b) not in livekeys), [],
         "no region of the core is not a live one")


def images(snap, exe):
    def which(p):
        if p == exe:
            return "exe"
        if p.endswith("/libc.so.6"):
            return "libc"
        if "/ld-linux" in p:
            return "ld.so"
        return None
    bad, seen = [], set()
    for r in snap["regions"]:
        w = which(r["path"] or "")
        if w:
            seen.add(w)
            if r["type"] != "image" or not r.get("build_id"):
                bad.append((r["path"], r["start"], r["type"]))
    T.eq(seen, {"exe", "libc", "ld.so"},
         "the executable, libc and ld.so are mapped")
    T.eq(bad, [], "their regions are typed image, with a build id")


def threads(snap, tids):
    got = sorted(t["tid"] for t in snap["threads"])
    T.eq(got, sorted(tids), "one thread per task (%d), by tid" % len(tids))
    outside = [t["tid"] for t in snap["threads"]
               if not (T.hexint(t["stack_start"]) <= T.hexint(t["sp"])
                       < T.hexint(t["stack_end"]))]
    T.eq(outside, [], "each thread's stack pointer lies in its stack")


def unknowns(snap, summary):
    keys = ("rss", "pss", "swap", "private_clean", "private_dirty",
            "shared_clean", "shared_dirty", "swap_pss", "private_ws")
    zero = [(r["start"], k) for r in snap["regions"] for k in keys
            if r[k] is not None]
    T.eq(zero, [], "every region's Rss, Pss, Swap and sharing are null")
    tot = snap["totals"]
    T.ok(all(tot[k] is None for k in ("ws", "pss", "swap", "private_ws",
                                      "shared_ws", "uss", "page_table")),
         "the totals' ws, pss, swap, sharing and page table are null", tot)
    # Committed of anonymous memory not known to be charged (a core does
    # not say which is MAP_NORESERVE) is null; the brk heap's, the
    # initial stack's and the .bss tails' are known
    unknown = [r for r in snap["regions"] if r["committed"] is None]
    T.ok(all(not r["path"] and r["type"] != "image" for r in unknown),
         "committed is null only for anonymous memory ([heap], [stack] "
         "and .bss are known)", [(r["start"], r["path"], r["type"])
                                 for r in unknown if r["path"] or
                                 r["type"] == "image"])
    T.ok(tot["size"] > 0 and (tot["committed"] is None if unknown else
                              tot["committed"] > 0),
         "size is known, and committed where every region's is (%d "
         "regions' not)" % len(unknown), tot)
    row = [l for l in summary.splitlines() if l.startswith("Total  ")]
    T.ok(len(row) == 1 and
         row[0].split().count("-") == 8 + (1 if unknown else 0),
         "-s prints '-' for the 8 unknown columns of Total (and "
         "Committed where a region's is not known)", row)


def unknown_csv(text):
    """-e csv leaves the unknown cells empty, never 0: in every region row
    and in the total and page table rows; size and committed are there."""
    rows = list(csv.DictReader(io.StringIO(text)))
    keys = ("ws", "pss", "swap", "private_ws", "shareable_ws", "shared_ws",
            "locked_ws", "uss")
    regions = [r for r in rows if r["record"] == "region"]
    T.ok(regions, "-e csv has region rows", text[:300])
    filled = [(r["record"], r["type"], r["start"], k) for r in rows
              if r["record"] in ("region", "total")
              or r["type"] == "page_table" for k in keys if r[k] != ""]
    T.eq(filled[:5], [], "-e csv: the unknown cells are empty, never 0")
    T.ok(all(r["size"] != "" and (r["committed"] != "" or not r["path"])
             for r in regions),
         "-e csv: every region's size is there, and committed but for "
         "anonymous memory")


def replaced(tmp):
    exe = os.path.join(tmp, "mysleep")
    shutil.copy(shutil.which("sleep"), exe)
    p, _ = T.start_asleep([exe, "1000"])
    try:
        core = T.gcore(p.pid, tmp)
    finally:
        T.kill(p)
    os.unlink(exe)
    shutil.copy(shutil.which("cat"), exe)
    r = load(core, "-e", "json")
    T.ok(r.returncode == 0, "a core whose executable was replaced loads",
         r.stderr[-500:])
    snap = json.loads(r.stdout)
    regs = [x for x in snap["regions"] if x["path"] == exe]
    T.ok(regs and all(x["type"] == "image" and x["build_id"] and
                      "image_unopened" in x["state"] and not x["children"]
                      for x in regs),
         "its regions: images marked image_unopened, the core's build id, "
         "no sections", [(x["type"], x["state"]) for x in regs])
    T.ok(any(n["step"] == "images" and "is not the file the core mapped"
             in n["why"] for n in snap["capture"]["missing"]),
         "a note says the file on disk is not the one mapped",
         snap["capture"]["missing"])
    return core


def bad_input(tmp):
    p, line = T.start_asleep(["sleep", "1000"])
    try:
        core = T.gcore(p.pid, tmp)
    finally:
        T.kill(p)
    with open(core, "rb") as f:
        data = bytearray(f.read())
    r = load(core, "-e", "json")
    T.ok(r.returncode == 0, "the core of sleep loads", r.stderr[-500:])
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phnum = struct.unpack_from("<H", data, 56)[0]
    notes = bytearray(data)
    for i in range(phnum):
        if struct.unpack_from("<I", notes, phoff + 56 * i)[0] == 4:
            struct.pack_into("<I", notes, phoff + 56 * i, 0)
    other = bytearray(data)
    names = {62: "x86_64", 183: "aarch64"}
    other_m = 183 if machine == 62 else 62
    struct.pack_into("<H", other, 18, other_m)
    cases = [("cut", data[:len(data) // 2], "cut short"),
             ("nonotes", notes, "notes are missing"),
             ("otherarch", other, "another architecture (%s)"
              % names[other_m])]
    for name, body, want in cases:
        path = os.path.join(tmp, "bad-%s.core" % name)
        with open(path, "wb") as f:
            f.write(body)
        r = load(path, "-s")
        err = r.stderr.decode(errors="replace")
        T.ok(r.returncode == 4 and err.count("\n") == 1 and path in err and
             want in err, "%s: exit 4, one line naming the file: %s"
             % (name, want), "exit %d: %r" % (r.returncode, err))
        if name == "otherarch":
            T.ok(names[machine] in err, "it names this machine too", err)
    return core


def main():
    if not shutil.which("gcore"):
        T.skip("ELF core dumps", "gcore (gdb) is not installed")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vms-core-")
    try:
        exe = T.target("everykind")
        p, line = T.start([exe])
        pid = p.pid
        live = T.maps(pid)
        tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
        core = T.gcore(pid, tmp)
        T.eq(T.maps(pid), live, "the live layout did not change meanwhile")
        T.kill(p)
        r = load(core, "-e", "json")
        T.ok(r.returncode == 0, "-l CORE -e json exits 0",
             r.stderr.decode(errors="replace"))
        snap = json.loads(r.stdout)
        T.eq(snap["capture"]["backend"], "core", "the sampler is 'core'")
        T.eq(snap["process"]["pid"], pid, "the pid is the core's")
        layout(snap, live, pid)
        images(snap, exe)
        threads(snap, tids)
        s = load(core, "-s")
        unknowns(snap, s.stdout.decode(errors="replace"))
        unknown_csv(load(core, "-e", "csv").stdout.decode(errors="replace"))
        size_kb = os.path.getsize(core) // 1024
        peak = T.peak_rss_kb([T.VMSCOPE, "-l", core, "-s"])
        if peak is None:
            T.skip("the core is mapped, not read", "no /usr/bin/time")
        else:
            T.ok(peak < size_kb // 4, "-l CORE -s peaks at %d KiB, the "
                 "core is %d KiB: mapped, not read" % (peak, size_kb))
        os.unlink(core)
        os.unlink(replaced(tmp))
        bad_input(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    main()
