#!/usr/bin/env python3
"""What a core does not say, and its process's name (issue 28 item 5).

tests/targets/core_facts.c retitles itself as redis does (its title, over
16 bytes with spaces, written over its command line: comm stays
"core_facts"), maps 64 MiB MAP_NORESERVE and writes 1 MiB of it, and
mallocs 4 MiB in the brk heap. Its live figures are read first (gcore reads
every page of the target, which makes the whole MAP_NORESERVE mapping
resident), then `gcore` writes its core and `-l CORE` loads it:
  - the name is the live one (/proc/PID/comm, "core_facts"), not gdb's
    pr_fname (the first 16 bytes of the title); the command line is the
    title;
  - the MAP_NORESERVE region: live, Committed is its Rss (1 MiB, not its
    64 MiB: VmFlags nr, no ac); in the core its committed is null in JSON
    ('-' in -e text's region row), never its size; its type row
    (private_data) and the total have committed null, '-' in -s;
  - the brk heap, the initial stack and the executable's .bss are known to
    be charged (brk, the stack and the loader's mappings always are): their
    committed is their size, as live; the Heap and Stack rows' committed
    equal the live ones.
A title with a '/' and a ':' (TITLE2, as redis's with --unixsocket and
postgres's "postgres: checkpointer"): gdb's pr_fname is then the title's
tail after its last '/' ("r.sock"); the core's name is still comm, from
AT_EXECFN's string (coredump_name.c). The same of redis-server started
with --unixsocket DIR/x/r.sock (skipped where redis is not installed):
its core is named "redis-server", as live.
Skipped when gcore is not installed.
"""
import json
import os
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

TITLE = "core_facts *:6379 and a title longer than sixteen bytes"
TITLE2 = "core_facts: checkpointer unixsocket:/tmp/x/r.sock"


def region_at(snap, start):
    rs = [r for r in snap["regions"] if T.hexint(r["start"]) == start]
    return rs[0] if rs else None


def by_path(snap, path):
    rs = [r for r in snap["regions"] if r["path"] == path]
    return rs[0] if rs else None


def types(snap):
    return {t["type"]: t for t in snap["types"]}


def named(pid, tmp, what):
    """The live name (comm, and vmscope's), the core's, and gdb's
    pr_fname as the core holds it (its NT_PRPSINFO), for pid."""
    comm = open("/proc/%d/comm" % pid).read().rstrip("\n")
    live = T.vmscope_json(pid, "-F")
    core = T.gcore(pid, tmp)
    snap = json.loads(T.run_vmscope("-l", core, "-e", "json").stdout)
    os.unlink(core)
    T.eq(live["process"]["name"], comm, "%s: live, the name is comm" % what)
    T.eq(snap["process"]["name"], comm, "%s: the core's name is the live "
         "one (comm), not gdb's pr_fname (the title's tail)" % what)
    return snap


def retitled():
    """A title with a ':' and a '/': gdb's pr_fname is what follows the
    last '/'."""
    p, _ = T.start([T.target("core_facts"), TITLE2, "x" * len(TITLE2)])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            snap = named(p.pid, tmp, "core_facts retitled with '/' and ':'")
    finally:
        T.kill(p)
    T.eq(snap["process"]["cmdline"], TITLE2,
         "retitled with '/' and ':': the core's command line is the title")


def redis():
    server = shutil.which("redis-server")
    if not server:
        T.skip("the name of a redis core", "redis-server is not installed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "x"))
        sock = os.path.join(tmp, "x", "r.sock")
        p, _ = T.start([server, "--port", "0", "--unixsocket", sock,
                        "--save", "", "--appendonly", "no", "--dir", tmp],
                       ready=False, stderr=open(os.devnull, "w"))
        try:
            # ready: it answers PING (its event loop runs: it retitled
            # itself before; a connect alone succeeds once it listens,
            # which is before the retitle)
            deadline = time.time() + 60
            while True:
                c = socket.socket(socket.AF_UNIX)
                try:
                    c.settimeout(max(1.0, deadline - time.time()))
                    c.connect(sock)
                    c.sendall(b"PING\r\n")
                    if c.recv(64).startswith(b"+PONG"):
                        break
                except OSError:
                    if time.time() > deadline or p.poll() is not None:
                        raise
                    time.sleep(0.05)  # polling its socket, bounded
                finally:
                    c.close()
            cmdline = open("/proc/%d/cmdline" % p.pid).read()
            print("# redis title: %r" % cmdline)
            snap = named(p.pid, tmp, "redis-server --unixsocket %s" % sock)
            T.eq(snap["process"]["cmdline"],
                 cmdline.replace("\0", " ").rstrip(" "),
                 "redis: the core's command line is its title")
        finally:
            T.kill(p)


def main():
    if not shutil.which("gcore"):
        T.skip("cores of core_facts", "gcore is not installed")
        T.done()
        return
    retitled()
    redis()
    # room for the title: argv's strings, one after the other
    p, line = T.start([T.target("core_facts"), TITLE, "x" * len(TITLE)])
    try:
        w = line.split()
        lo = int(w[1], 16)
        comm = open("/proc/%d/comm" % p.pid).read().strip()
        live = T.vmscope_json(p.pid, "-F")
        with tempfile.TemporaryDirectory() as tmp:
            core = T.gcore(p.pid, tmp)
            r = T.run_vmscope("-l", core, "-e", "json")
            snap = json.loads(r.stdout)
            text = T.run_vmscope("-l", core, "-e", "text").stdout.decode()
            summ = T.run_vmscope("-l", core, "-s").stdout.decode()
    finally:
        T.kill(p)

    T.eq(snap["process"]["name"], comm,
         "the core's process name is the live one (comm), not gdb's "
         "pr_fname cut at 16 bytes")
    T.eq(live["process"]["name"], comm, "live, the name is comm")
    T.eq(snap["process"]["cmdline"], TITLE,
         "the core's command line is the title")

    lr, cr = region_at(live, lo), region_at(snap, lo)
    T.ok(lr and "nr" in lr["vmflags"] and "ac" not in lr["vmflags"] and
         lr["committed"] == lr["rss"] + lr["swap"] and
         lr["committed"] < lr["size"],
         "live: the MAP_NORESERVE region's committed is its Rss + Swap "
         "(%s of %s)" % (lr and lr["committed"], lr and lr["size"]), lr)
    T.ok(cr is not None and cr["committed"] is None,
         "core: the MAP_NORESERVE region's committed is null, not its size",
         cr and cr["committed"])
    row = [x for x in text.splitlines() if x.startswith("%016x-" % lo)]
    # address, "Private Data", its size "64.0 M", then Committed
    T.ok(row and row[0].split()[3:6] == ["64.0", "M", "-"],
         "core: -e text's row for it says '-' for Committed", row)
    ct = types(snap)
    T.ok(ct["private_data"]["committed"] is None and
         snap["totals"]["committed"] is None,
         "core: Private Data's and the total's committed are null",
         (ct["private_data"], snap["totals"]))
    srow = [x.split() for x in summ.splitlines()
            if x.startswith("Private Data ") or
            (x.startswith("Total ") and x.split()[1][0].isdigit())]
    # "Private Data 64.0 M -", "Total 70.3 M -"
    T.ok(len(srow) == 2 and srow[0][4] == "-" and srow[1][3] == "-",
         "core: -s says '-' for Private Data's and the total's Committed",
         srow)

    for what in ("[heap]", "[stack]"):
        lh, ch = by_path(live, what), by_path(snap, what)
        T.ok(ch is not None and lh is not None and
             ch["committed"] == ch["size"] and
             lh["committed"] == lh["size"] and
             ch["start"] == lh["start"] and ch["end"] == lh["end"],
             "core: %s's committed is its size, as live (charged: "
             "always)" % what, (lh and lh["committed"], ch))
    lt = types(live)
    T.eq((ct["heap"]["committed"], ct["stack"]["committed"]),
         (lt["heap"]["committed"], lt["stack"]["committed"]),
         "core: the Heap and Stack rows' committed are the live ones")
    bss = [r for r in snap["regions"] if r["type"] == "image" and
           not r["path"] and "w" in r["perms"]]
    T.ok(bss and all(r["committed"] == r["size"] for r in bss) and
         ct["image"]["committed"] is not None,
         "core: the images' .bss tails are charged (the loader maps them "
         "so): committed their size, the Image row's known",
         [(r["start"], r["committed"]) for r in bss])
    T.done()


main()
