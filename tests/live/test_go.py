#!/usr/bin/env python3
"""A Go program's heap arena (the "go" step, src/analyze/runtimes/step_go.c).

Builds tests/targets/goheap.go with Debian's golang-go into a temporary
directory (GOCACHE and GOPATH in it, GO111MODULE=off: no module, no
network), starts it and, with -F and with -b fork, checks `vmscope -e json`:
  - a managed heap of runtime "go" starting at 0xc000000000 (the runtime's
    first arena hint), its reservation a whole number of 64 MiB arenas,
    its regions typed managed_heap and covering it;
  - its committed bytes equal what the program's own runtime.MemStats
    says the runtime took for its heap (HeapSys, plus StackInuse: stack
    spans come from the heap's arenas too), printed by the program after
    its last allocation, asked for a second time (the runtime's thread for
    its first wait made by then: it allocates nothing while it waits), and
    equal the rw-p bytes the kernel's maps shows in that range;
  - saved with -w and loaded with -l (the go step runs again: the file
    keeps nothing of it), the same managed entries, region types and
    details as a live capture.
The program is killed by its pid. Skipped without go."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

SRC = os.path.join(T.ROOT, "tests", "targets", "goheap.go")
ARENA = 64 << 20
HINT = 0xc000000000


def kept_layout():
    """Whether the go on PATH is one whose layout vmscope keeps for
    programs without DWARF (goheap.c: go1.19)."""
    r = subprocess.run(["go", "env", "GOVERSION"], capture_output=True,
                       timeout=60)
    v = r.stdout.decode().strip()
    return v == "go1.19" or v.startswith("go1.19.")


def build(tmp, name="goheap", flags=()):
    env = dict(os.environ, GOCACHE=os.path.join(tmp, "cache"),
               GOPATH=os.path.join(tmp, "gopath"), GO111MODULE="off",
               GOFLAGS="", CGO_ENABLED="0")
    exe = os.path.join(tmp, name)
    r = subprocess.run(["go", "build", *flags, "-o", exe, SRC], env=env,
                       cwd=tmp, capture_output=True, timeout=300)
    T.ok(r.returncode == 0, "goheap.go builds %s" % " ".join(flags),
         r.stderr.decode(errors="replace"))
    return exe if r.returncode == 0 else None


def kernel_rw(pid, start, end):
    total = 0
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            a = line.split()
            s, e = (int(x, 16) for x in a[0].split("-"))
            if s >= start and e <= end and a[1].startswith("rw"):
                total += e - s
    return total


def go_entry(label, snap):
    go = [m for m in snap["managed"] if m["runtime"] == "go"
          and T.hexint(m["start"]) == HINT]
    T.ok(len(go) == 1, "%s: a managed heap of runtime go at %#x"
         % (label, HINT), snap["managed"])
    return go[0] if len(go) == 1 else None


def go_notes(snap):
    return [n["why"] for n in snap["capture"].get("missing") or []
            if n["step"] == "go"]


def check_used(label, snap, stats, figures="(DWARF)"):
    m = go_entry(label, snap)
    if not m:
        return
    T.eq(m["used"], stats["heap_alloc"],
         "%s: used is MemStats.HeapAlloc (%s)" % (label, m["figures"]))
    T.ok(figures in (m["figures"] or ""), "%s: figures say %s"
         % (label, figures), m["figures"])
    parts = {p["name"]: p for p in m["parts"]}
    T.ok("heap" in parts and parts["heap"]["capacity"] == stats["heap_inuse"]
         and parts["heap"]["used"] == stats["heap_alloc"],
         "%s: part heap: capacity HeapInuse %d, used HeapAlloc %d"
         % (label, stats["heap_inuse"], stats["heap_alloc"]), m["parts"])
    T.ok("stacks" in parts
         and parts["stacks"]["capacity"] == stats["stack_inuse"],
         "%s: part stacks: capacity StackInuse %d"
         % (label, stats["stack_inuse"]), m["parts"])
    T.eq(go_notes(snap), [], "%s: no go note (every span read and sane)"
         % label)
    T.eq([n for n in snap["capture"].get("missing") or []
          if n["step"] == "malloc"], [],
         "%s: no malloc note (no glibc in a Go program: nothing missing)"
         % label)


def check(label, pid, stats, extra):
    snap = T.vmscope_json(pid, *extra)
    check_used(label, snap, stats)
    go = [m for m in snap["managed"] if m["runtime"] == "go"
          and T.hexint(m["start"]) == HINT]
    if not T.ok(len(go) == 1, "%s: a managed heap of runtime go at %#x"
                % (label, HINT), snap["managed"]):
        return
    m = go[0]
    start, end = T.hexint(m["start"]), T.hexint(m["end"])
    T.ok(m["reserved"] == end - start and m["reserved"] % ARENA == 0,
         "%s: %d arena(s) of 64 MiB reserved" % (label, m["reserved"] // ARENA))
    inside = [r for r in snap["regions"]
              if T.hexint(r["start"]) >= start and T.hexint(r["end"]) <= end]
    covered = sum(T.hexint(r["end"]) - T.hexint(r["start"]) for r in inside)
    T.ok(inside and covered == end - start
         and all(r["type"] == "managed_heap" for r in inside),
         "%s: its %d regions are managed heap and cover it"
         % (label, len(inside)), [(r["start"], r["type"]) for r in inside])
    want = stats["heap_sys"] + stats["stack_inuse"]
    T.ok(m["committed"] == want,
         "%s: committed %d = MemStats HeapSys %d + StackInuse %d"
         % (label, m["committed"], stats["heap_sys"], stats["stack_inuse"]))
    T.eq(m["committed"], kernel_rw(pid, start, end),
         "%s: committed is the rw-p bytes the kernel maps there" % label)


def core(pid, stats, tmp):
    if not shutil.which("gcore"):
        T.skip("go core", "gcore is not installed (gdb)")
        return
    out = os.path.join(tmp, "core")
    r = subprocess.run(["gcore", "-o", out, str(pid)], capture_output=True,
                       timeout=300)
    path = "%s.%d" % (out, pid)
    if not T.ok(r.returncode == 0 and os.path.exists(path), "gcore writes "
                "a core of goheap", r.stderr.decode(errors="replace")[-800:]):
        return
    r = T.run_vmscope("-l", path, "-e", "json")
    os.unlink(path)
    if not T.ok(r.returncode == 0, "-l CORE loads", r.stderr.decode()):
        return
    snap = json.loads(r.stdout)
    check_used("core", snap, stats)
    stacks = [r for r in snap["regions"] if r.get("path") == "[stack]"]
    T.ok(len(stacks) == 1 and not HINT <= T.hexint(stacks[0]["start"])
         < HINT + (1 << 40), "core: [stack] is the initial stack, not in "
         "the arena", [s["start"] for s in stacks])


def settled_line(p):
    """The program's figures printed again, asked for by a line on its
    stdin: by then the thread the runtime may start for its first wait in
    read(2) (its m on the heap, its stacks in StackInuse) is made, and
    idle while it waits again (goheap.go)."""
    p.stdin.write(b"\n")
    p.stdin.flush()
    line = T._line_by(p, time.time() + 60)
    T.ok(line and line.startswith("ready "), "goheap %d: its figures "
         "printed again" % p.pid, line)
    return line or ""


def not_read(label, snap, why):
    m = go_entry(label, snap)
    notes = go_notes(snap)
    T.ok(m and m["used"] is None and not m["parts"]
         and any(why in n for n in notes),
         "%s: used null, a note says %r" % (label, why), notes)


def main():
    if not shutil.which("go"):
        T.skip("go", "go is not installed (golang-go)")
        T.done()
    tmp = tempfile.mkdtemp(prefix="vms-go-")
    try:
        exe = build(tmp)
        if not exe:
            T.done()
        p, _ = T.start([exe])
        try:
            f = T.ready_fields(settled_line(p))
            stats = {k: v for k, v in f.items() if isinstance(v, int)}
            T.ok(stats.get("heap_sys", 0) > 48 << 20,
                 "goheap %d: MemStats HeapSys %d" % (p.pid,
                                                     stats.get("heap_sys", 0)))
            check("-F", p.pid, stats, ["-F"])
            check("-b fork", p.pid, stats, ["-b", "fork"])
            # not kept in a snapshot file: the step runs again on load,
            # from the map and the images' ELF summaries the file keeps
            live, loaded = T.saved_and_loaded(p.pid, ["-F"], tmp)
            check_used("-w/-l", loaded, stats)
            T.kept_in_file(live, loaded, "go")
            core(p.pid, stats, tmp)
            not_read("-b pss", T.vmscope_json(p.pid, "-b", "pss"),
                     "not of one instant")
        finally:
            T.kill(p)
        exe = build(tmp, "goheap-stripped", ["-ldflags=-s -w"])
        if exe:
            p, _ = T.start([exe])
            try:
                f = T.ready_fields(settled_line(p))
                stats = {k: v for k, v in f.items() if isinstance(v, int)}
                for how, extra in (("stripped, -F", ["-F"]),
                                   ("stripped, -b fork", ["-b", "fork"])):
                    snap = T.vmscope_json(p.pid, *extra)
                    if kept_layout():
                        check_used(how, snap, stats, "layout, no DWARF")
                    else:  # a Go whose layout vmscope does not keep
                        not_read(how, snap, "layout is not known here")
            finally:
                T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
