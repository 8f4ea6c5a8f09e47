#!/usr/bin/env python3
"""jemalloc (step "allocator") on Redis against Redis's own figures.

Starts its own redis-server (Debian's links libjemalloc; a unix socket in a
temporary directory, no port, no persistence), loads some 40 MB of values
over a raw RESP connection and reads INFO memory. vmscope must report the
allocator as jemalloc, provided by the image that defines malloc, and type
as heap at least 90% of allocator_allocated (and of used_memory's dataset):
Heap is no longer 0 K. Captured frozen (-F) and through the fork clone.
jemalloc's own figures, read without symbols from its statistics record:
allocated, active and resident equal INFO memory's allocator_allocated,
allocator_active and allocator_resident (taken before and after the
capture, equal), metadata (base and internal), mapped and retained are
there, and the jemalloc heap's in use and free are stats.allocated and
stats.active less that.
Also the ordinary case: a glibc process has no "allocator" at all.
Skipped where redis-server is not installed (scripts/deps.sh installs
it)."""
import os
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


KEYS = 100000
VALUE = b"v" * 400


def connect(path, timeout=20):
    deadline = time.time() + timeout
    while True:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def load(s):
    batch = 10000
    for b in range(0, KEYS, batch):
        s.sendall(b"".join(T.resp("SET", "key:%d" % i, VALUE)
                           for i in range(b, b + batch)))
        got = b""
        while got.count(b"+OK\r\n") < batch:
            got += s.recv(1 << 20)


def info_memory(s):
    s.sendall(T.resp("INFO", "memory"))
    data = s.recv(1 << 16)
    size = int(data[1:data.index(b"\r\n")])
    body = data[data.index(b"\r\n") + 2:]
    while len(body) < size:
        body += s.recv(1 << 16)
    out = {}
    for line in body.decode().splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k] = v
    return out


def check(pid, info, args):
    how = " ".join(args)
    snap = T.vmscope_json(pid, *args)
    a = snap["allocator"]
    T.ok(a and a["name"] == "jemalloc" and a["provides_malloc"] and
         "jemalloc" in (a["image"] or ""),
         "%s: the allocator is jemalloc, from the image that defines "
         "malloc" % how, a)
    heap = [t for t in snap["types"] if t["type"] == "heap"][0]
    want = int(info["allocator_allocated"])
    T.ok(heap["committed"] >= 0.9 * want and heap["ws"] >= 0.9 * want,
         "%s: Heap committed %d and WS %d >= 90%% of allocator_allocated "
         "%d" % (how, heap["committed"], heap["ws"], want))
    T.ok(heap["committed"] >= 0.9 * int(info["used_memory_dataset"]),
         "%s: Heap holds Redis's dataset (%s bytes)" %
         (how, info["used_memory_dataset"]))
    je = [h for h in snap["heaps"] if h["kind"] == "jemalloc"]
    T.ok(len(je) == 1 and a["heap"] == sum(
        int(g["end"], 16) - int(g["start"], 16) for g in je[0]["segments"])
        and a["metadata"] > 0,
        "%s: one jemalloc heap, its segments the regions typed for it, "
        "its metadata found" % how, je)
    T.ok(je and je[0]["in_use"] == a["allocated"] and
         je[0]["free"] == a["active"] - a["allocated"] and
         a["allocated"] >= 0.9 * want,
         "%s: its heap's in use is jemalloc's stats.allocated (%s), free "
         "stats.active less that" % (how, a["allocated"]), je)


META = "jemalloc metadata (base block)"


def pagemap(pid, start, end):
    """Bytes of [start, end) present in RAM, from the target's own
    pagemap (bit 63), read by the test."""
    pg = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(start // pg * 8)
        data = f.read((end - start + pg - 1) // pg * 8)
    return pg * sum(1 for i in range(0, len(data), 8)
                    if int.from_bytes(data[i:i + 8], "little") >> 63)


def metadata(pid, args):
    """A base block is metadata only: where the kernel merged it with the
    extents around it, the region is split into typed parts, each block a
    part (heap) named as metadata, measured from the page tables, the rest
    the extents. The bytes called metadata are then within jemalloc's own
    stats.mapped less stats.active (the extents' active pages are not
    metadata); before, a region of extents merged with a block was called
    metadata whole."""
    how = " ".join(args)
    snap = T.vmscope_json(pid, *args)
    a = snap["allocator"]
    regions = [r for r in snap["regions"] if r["detail"] == META]
    parts = [(r, c) for r in snap["regions"] for c in r["children"]
             if c.get("type") and c["name"] == META]
    called = sum(r["size"] for r in regions) + sum(c["size"]
                                                   for _, c in parts)
    print("# %s: %d regions and %d parts called metadata, %d bytes; "
          "stats.metadata %s, mapped %s, active %s"
          % (how, len(regions), len(parts), called, a["metadata"],
             a["mapped"], a["active"]))
    T.ok(called and a["mapped"] is not None and
         called <= a["mapped"] - a["active"],
         "%s: the bytes called metadata (%d) are within jemalloc's mapped "
         "less active (%s)" % (how, called,
                               a["mapped"] - a["active"]
                               if a["mapped"] is not None else None))
    T.ok(all(c["type"] == "heap" and r["type"] == "heap" and
             r["detail"] == "jemalloc extents" for r, c in parts),
         "%s: a split region is heap, its extents, its blocks heap parts"
         % how)
    if "-F" in args:
        bad = [(c["start"], c["rss"]) for _, c in parts
               if c["rss"] != pagemap(pid, int(c["start"], 16),
                                      int(c["end"], 16))]
        T.ok(not bad, "%s: each block's Rss is its range's pages in the "
             "target's pagemap" % how, bad)


ALLOC = ("allocated", "active", "resident")


def own_figures(s, pid, args, tries=20):
    """vmscope's jemalloc figures against Redis's allocator_allocated,
    allocator_active and allocator_resident (its cron's mallctl stats.*
    after an "epoch" refresh, every 100 ms): INFO memory before and after
    the capture; when both say the same, so must vmscope. Redis, idle,
    settles at once; a bounded number of tries."""
    how = " ".join(args)
    for _ in range(tries):
        before = info_memory(s)
        a = T.vmscope_json(pid, *args)["allocator"]
        after = info_memory(s)
        want = {k: int(before["allocator_" + k]) for k in ALLOC}
        if want != {k: int(after["allocator_" + k]) for k in ALLOC}:
            continue
        T.eq({k: a[k] for k in ALLOC}, want,
             "%s: jemalloc's allocated, active and resident are Redis's "
             "allocator_allocated, allocator_active and allocator_resident"
             % how)
        T.ok(a["metadata"] > 0 and a["mapped"] >= a["resident"] and
             a["retained"] is not None,
             "%s: its metadata (%s), mapped (%s) and retained (%s) read"
             % (how, a["metadata"], a["mapped"], a["retained"]), a)
        return
    T.ok(False, "%s: Redis's INFO memory settled between two reads" % how)


def main():
    server = shutil.which("redis-server")
    if not server:
        T.skip("jemalloc heap of redis", "redis-server is not installed")
        return T.done()
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "redis.sock")
        p, _ = T.start([server, "--port", "0", "--unixsocket", sock,
                        "--save", "", "--appendonly", "no", "--dir", tmp],
                       ready=False, stderr=open(os.devnull, "w"))
        s = connect(sock)
        load(s)
        info = info_memory(s)
        print("# redis %s: used_memory %s allocator_allocated %s" %
              (info.get("mem_allocator"), info.get("used_memory"),
               info.get("allocator_allocated")))
        check(p.pid, info, ["-F"])
        check(p.pid, info, ["-b", "fork"])
        metadata(p.pid, ["-F"])
        metadata(p.pid, ["-b", "fork"])
        own_figures(s, p.pid, ["-F"])
        own_figures(s, p.pid, ["-b", "fork"])
        live, loaded = T.saved_and_loaded(p.pid, ["-F"], tmp)
        T.kept_in_file(live, loaded, "redis")

        def typed(snap):
            return [(r["start"], c["start"], c["end"], c["type"], c["name"])
                    for r in snap["regions"] for c in r["children"]
                    if "type" in c]
        T.ok(typed(live) and typed(loaded) == typed(live),
             "redis: a saved snapshot loads with the live capture's typed "
             "parts", (typed(live), typed(loaded)))
        T.eq(T.proc_state(p.pid) in "SR", True, "redis is left running")
        s.close()
        T.kill(p)
    snap = T.vmscope_json(os.getpid())
    T.eq(snap["allocator"], None, "a process with glibc's malloc only has "
         "no allocator entry")
    T.done()


main()
