#!/usr/bin/env python3
"""A held server attached, traced, detached (issue 30's "Done when"):
redis-server (Debian's, its malloc libjemalloc's, called through GOT
entries of its own executable), started here on a unix socket in a
temporary directory (no port, no persistence).

  - Before the attach it is given 50 keys. Attached (vmscope --trace PID
    -e json), once its malloc GOT entry is redirected it is given N new
    keys (SET leak:NNNNN vNNNNN: a cache that only grows, the leak), a few
    GETs and a DBSIZE; then the trace ends (SIGINT to vmscope) and it is
    asked the same again, and more.
  - The report names the call path of the leak, setCommand > setGenericCommand
    > setKey > dbAdd > dictAddRaw, with exact counts from Redis 7's
    layouts: N dictEntry blocks outstanding (3 words each, 24 bytes, by
    dictAddRaw), N key copies (sdsdup in dbAdd: an sds of type 5, a 1-byte
    header, the 10 characters and a NUL: 12 bytes each) and N values kept
    (createEmbeddedStringObject from processMultibulkBuffer: a 16-byte
    robj, a 3-byte sds header, 6 characters and a NUL: 26 bytes each),
    none of them transient; the heap traced by the injected library, in
    exact mode, nothing dropped; nothing stopped it for a heap walk
    before the injection (walk_frozen_us 0: jemalloc's malloc is known
    from its files, and glibc's heap, not the program's, is not walked).
  - While traced it is also told to BGSAVE (a child forked to write the
    dump, as every redis does on its own): the child records nothing (its
    rings would be its parent's), so no site of the report is the
    child's (rdbSave, redisSetProcTitle, sendChildInfoGeneric: they showed
    in the parent's report before), and the save succeeds.
  - Its answers (every reply to every command) before, during and after
    the trace equal those of an untraced server given the same commands.
  - Every GOT entry of the malloc and mmap families of every module it
    maps (its executable, libjemalloc, libc, ...: the relocations in their
    ELF files, read from /proc/PID/mem) after the detach equals its value
    before the attach; after the detach it is not traced, no thread of it
    is stopped.
Skipped where redis-server is not installed (scripts/deps.sh installs
it); x86_64 only (the injection's).
"""
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import (all_got_values, functions, got_values,  # noqa: E402
                        modules, no_thread_stopped, poll, untraced_now)

N = 300
KEY, VALUE = "leak:%05d", "v%05d"
DICT_ENTRY = 24  # dictEntry: key, value, next
KEY_BYTES = 1 + 10 + 1  # sdshdr5, "leak:NNNNN", NUL
VALUE_BYTES = 16 + 3 + 6 + 1  # robj, sdshdr8, "vNNNNN", NUL

BEFORE = [["SET", "pre:%04d" % i, "p%d" % i] for i in range(50)] + \
    [["DBSIZE"]]
DURING = [["SET", KEY % i, VALUE % i] for i in range(N)] + \
    [["GET", KEY % 0], ["GET", KEY % (N - 1)], ["GET", "pre:0007"],
     ["GET", "nothing"], ["DBSIZE"]]
AFTER = [["GET", KEY % 7], ["DBSIZE"], ["SET", "after", "1"],
         ["GET", "after"], ["EXISTS", KEY % (N - 1), "nothing"]]


class Redis:
    """A RESP connection on a unix socket: commands sent in one write,
    their replies read back in order."""

    def __init__(self, path, timeout=30):
        deadline = time.time() + timeout
        while True:
            self.s = socket.socket(socket.AF_UNIX)
            try:
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.02)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            got = self.s.recv(1 << 16)
            if not got:
                raise RuntimeError("redis closed the connection")
            self.buf += got
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def reply(self):
        ln = self.line()
        if ln[:1] == b"$":
            n = int(ln[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 16)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        if ln[:1] == b"*":
            return [self.reply() for _ in range(int(ln[1:]))]
        return ln

    def run(self, cmds):
        self.s.sendall(b"".join(T.resp(*c) for c in cmds))
        return [self.reply() for _ in cmds]

    def close(self):
        self.s.close()


def server(tmp, name):
    sock = os.path.join(tmp, name + ".sock")
    p, _ = T.start([shutil.which("redis-server"), "--port", "0",
                    "--unixsocket", sock, "--save", "", "--appendonly",
                    "no", "--dir", tmp, "--dbfilename", name + ".rdb"],
                   ready=False,
                   stderr=subprocess.DEVNULL)
    return p, Redis(sock)


def bgsave(r):
    """BGSAVE, its reply, then (polled, not in the replies compared)
    until its child has ended: whether the save succeeded."""
    out = r.run([["BGSAVE"]])

    def info():
        return r.run([["INFO", "persistence"]])[0]
    poll(lambda: b"rdb_bgsave_in_progress:0" in info(), timeout=120)
    return out, b"rdb_last_bgsave_status:ok" in info()


# functions only a BGSAVE child runs
CHILD = ("rdbSave", "redisSetProcTitle", "sendChildInfoGeneric")


def untraced(tmp):
    p, r = server(tmp, "plain")
    out = r.run(BEFORE) + r.run(DURING) + bgsave(r)[0] + r.run(AFTER)
    r.close()
    T.kill(p)
    return out


def summed(sites, want):
    """The heap sites for which want(functions) holds: how many, and
    their outstanding and transient blocks summed."""
    n, got = 0, {"outstanding": [0, 0], "transient": [0, 0]}
    for s in sites:
        if s["kind"] == "heap" and want(functions(s)):
            n += 1
            for k in got:
                got[k][0] += s[k]["count"]
                got[k][1] += s[k]["bytes"]
    return n, {k: tuple(v) for k, v in got.items()}


def in_order(fns, path):
    """Whether path's functions come in fns in that order."""
    at = 0
    for f in fns:
        if at < len(path) and f == path[at]:
            at += 1
    return at == len(path)


def traced(tmp, plain):
    p, r = server(tmp, "traced")
    out = r.run(BEFORE)
    exe = os.path.realpath("/proc/%d/exe" % p.pid)
    mods = modules(p.pid)
    T.ok(any(n == "malloc" for _, n in mods.get(exe, [])),
         "redis-server's executable has a GOT entry for malloc",
         sorted(mods))
    before = all_got_values(p.pid, mods)
    mal = [k for k in mods[exe] if k[1] == "malloc"] if exe in mods else []
    was = got_values(p.pid, exe, mal)
    rep = os.path.join(tmp, "report.json")
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o", rep,
                          str(p.pid)], stderr=subprocess.PIPE)
    T.ok(poll(lambda: v.poll() is not None or
              got_values(p.pid, exe, mal) != was, timeout=120) and
         v.poll() is None,
         "vmscope attaches: redis's malloc GOT entry is redirected")
    out += r.run(DURING)
    saved, saved_ok = bgsave(r)
    out += saved
    T.ok(saved_ok, "BGSAVE while traced: its child saved the dump")
    v.send_signal(signal.SIGINT)
    err = v.communicate(timeout=120)[1]
    T.ok(v.returncode == 0, "vmscope detaches on SIGINT, exit 0", err)
    after = all_got_values(p.pid, mods)
    T.ok(after == before, "every GOT entry of the malloc and mmap families "
         "in its %d modules (%d entries) after the detach equals its value "
         "before the attach" % (len(mods), len(before)),
         {k: (before[k], after.get(k)) for k in before
          if after.get(k) != before[k]})
    T.ok(poll(lambda: untraced_now(p.pid)) and no_thread_stopped(p.pid),
         "after the detach: not traced, no thread stopped")
    out += r.run(AFTER)
    r.close()
    T.ok(p.poll() is None, "redis runs on")
    T.kill(p)
    T.eq(out, plain, "its %d replies before, during and after the trace "
         "equal an untraced server's" % len(plain))
    try:
        d = json.load(open(rep))
    except (OSError, ValueError):
        T.ok(False, "a JSON report", err)
        return
    a, tr = d.get("attach", {}), d["trace"]
    print("# attached: %s GOT entries, frozen %s us, held %s us (and %s "
          "us for the capture before); %d events"
          % (a.get("got_entries"), a.get("frozen_us"), a.get("held_us"),
             a.get("walk_frozen_us"), tr["events"]))
    T.ok(a.get("injected") is True and tr["heap_traced"] is True and
         tr["attached"] is True,
         "the heap was traced by the injected library", a)
    T.eq((tr["mode"], tr["dropped"], tr["before"]), ("exact", 0, None),
         "exact, nothing dropped; no \"before\" (its malloc is "
         "jemalloc's, which vmscope does not walk block by block)")
    T.eq(a.get("walk_frozen_us"), 0,
         "no capture stopped it for the walk before: its malloc is "
         "known to be jemalloc's from its files alone")
    sites = tr["sites"]
    T.eq([functions(x) for x in sites if set(functions(x)) & set(CHILD)],
         [], "no site of the BGSAVE child's (it records nothing: the "
         "rings are its parent's)")
    path = ["dictAddRaw", "dbAdd", "setKey", "setGenericCommand",
            "setCommand", "processCommand"]
    n, got = summed(sites, lambda f: f[1:2] == ["dictAddRaw"] and
                    in_order(f, path))
    T.eq(got, {"outstanding": (N, N * DICT_ENTRY), "transient": (0, 0)},
         "the leak's call path %s named: %d dictEntry blocks of %d bytes "
         "outstanding, none transient"
         % (" < ".join(path), N, DICT_ENTRY))
    n, got = summed(sites, lambda f: len(f) > 2 and
                    f[1] in ("_sdsnewlen", "sdsnewlen", "sdsdup") and
                    in_order(f, path[1:]))
    T.eq(got, {"outstanding": (N, N * KEY_BYTES), "transient": (0, 0)},
         "the key copies by dbAdd: %d of %d bytes outstanding"
         % (N, KEY_BYTES))
    n, got = summed(sites, lambda f: in_order(
        f, ["createEmbeddedStringObject", "processMultibulkBuffer"]))
    T.eq(got["outstanding"], (N, N * VALUE_BYTES),
         "the values kept: %d strings of %d bytes made by "
         "processMultibulkBuffer, outstanding" % (N, VALUE_BYTES))


def main():
    if platform.machine() != "x86_64":
        T.skip("a server attached", "x86_64 only")
        return T.done()
    if not shutil.which("redis-server"):
        T.skip("a server attached", "redis-server is not installed "
               "(scripts/deps.sh installs it)")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-attach-server-")
    try:
        plain = untraced(tmp)
        traced(tmp, plain)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
