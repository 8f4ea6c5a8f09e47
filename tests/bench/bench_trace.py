#!/usr/bin/env python3
"""What allocation tracing costs a program, beside heaptrack in the same run.

tests/targets/allocloop.c runs PAIRS (default 5,000,000; BENCH_PAIRS)
malloc/free pairs and times its own loop. Interleaved, RUNS (default 5)
rounds of:
  allocloop                                  untraced
  vmscope --trace -s -o FILE -- allocloop    exact: every call, its stack
                                             through .eh_frame (the
                                             tracer's own walk)
  the same, VMSCOPE_TRACE_UNWIND=libunwind   exact, every stack by
                                             libunwind's unw_backtrace
  vmscope --trace --trace-sample=4096 ...    sampled: a block under 64 KiB
                                             one every 4096 bytes on average
                                             (heapprofd's default; the aim:
                                             at most 2x the untraced run)
  LD_PRELOAD=forwarder allocloop             the floor of any tracer in
                                             the process: a preloaded
                                             malloc/free/calloc/realloc that
                                             only call glibc's (__libc_*),
                                             built here with cc
  heaptrack -o FILE allocloop                (where installed)
It prints each loop's median ns a pair, what tracing adds to a pair, and
the ratio of vmscope's addition to heaptrack's (the aim, issue "Who
allocated it": at most a third), with the wall time of each whole run and
the size of what each wrote (vmscope: its -s report; heaptrack: its file).
Then vmscope's own memory and what each keeps per million events: the
peak resident size (VmHWM) of vmscope and of heaptrack's interpreter
(heaptrack_interpret), polled every 10 ms over the exact runs; the size
of the trace sections of a snapshot file saved with its trace (one more
exact run, untimed: vmscope --trace -w FILE -s -- allocloop; "trace" and
"tracelive", found by the file's own layout, src/capture/file/snapfile.h)
and of the
whole file, beside heaptrack's file for the same loop (the issue's "the
trace section costs less than heaptrack's file for the same run").

Then a real program: redis-server (where installed) under redis-benchmark
(REDIS_REQUESTS, default 200,000 a test, pipelined 16 deep: SET, GET,
LPUSH, LPOP), untraced, traced by vmscope (exact), attached to by vmscope
once it runs (vmscope --trace PID: how long the attach and the detach
stopped it, how long the heap walk before the injection stopped it and
took vmscope, beside the fork sampler's freeze of the same server), and
under heaptrack,
REDIS_RUNS (default 3) interleaved rounds: the requests per second each
kept, as a fraction of the untraced run's, median over the tests.
With BENCH_TRACE_SAMPLED=1, only the rounds of the sampled aim: the
loop untraced, sampled at 4096 and under the forwarder (no exact trace,
no heaptrack, no -w file, no redis).
Never fails on a figure: only on an error.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

PAIRS = int(os.environ.get("BENCH_PAIRS", "5000000"))
RUNS = int(os.environ.get("RUNS", "5"))
REDIS_REQUESTS = int(os.environ.get("REDIS_REQUESTS", "200000"))
REDIS_RUNS = int(os.environ.get("REDIS_RUNS", "3"))
SAMPLED_ONLY = os.environ.get("BENCH_TRACE_SAMPLED") == "1"
HWM = {}  # process name -> the largest VmHWM seen (kB), over all runs


def descendants(pid):
    """pid and every process under it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def poll_hwm(pid):
    """Notes the peak resident size of vmscope and heaptrack_interpret."""
    for p in descendants(pid):
        try:
            with open("/proc/%d/status" % p) as f:
                st = f.read()
        except OSError:
            continue
        name = re.search(r"^Name:\s*(\S+)", st, re.M)
        hwm = re.search(r"^VmHWM:\s*(\d+)", st, re.M)
        if not name or not hwm:
            continue
        # comm is cut at 15 characters: heaptrack_inter(pret)
        k = "heaptrack_interpret" if name.group(1).startswith(
            "heaptrack_int") else name.group(1)
        if k in ("vmscope", "heaptrack_interpret"):
            HWM[k] = max(HWM.get(k, 0), int(hwm.group(1)))


def once(argv, env=None):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    chunks = []
    import threading
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    reader.start()
    while p.poll() is None:
        poll_hwm(p.pid)
        time.sleep(0.01)
    reader.join()
    wall = time.perf_counter() - t0
    r = subprocess.CompletedProcess(argv, p.returncode, b"".join(chunks), b"")
    out = r.stdout.decode(errors="replace") + r.stderr.decode(
        errors="replace")
    m = re.search(r"loop ([0-9.]+) ns/pair", out)
    if r.returncode != 0 or not m:
        raise RuntimeError("%s failed (%d): %s" % (argv[0], r.returncode,
                                                   out[-400:]))
    c = re.search(r"cpu ([0-9.]+) ns/pair", out)
    LAST_CPU[0] = float(c.group(1)) if c else None
    return float(m.group(1)), wall


LAST_CPU = [None]  # the last loop's own CPU time a pair (allocloop's)


def trace_section(path):
    """(the stored bytes of the snapshot file's trace sections with their
    headers: "trace", the report, and "tracelive", the allocations alive
    and the log the viewer lists, or None where it has no "trace"; the
    file's size). The layout: src/capture/file/snapfile.h (a 17-byte
    magic, u32 version, u32 flags, then sections of a 32-byte header:
    name[12], u32 codec, u64 stored, u64 size, and `stored` bytes)."""
    data = open(path, "rb").read()
    if not data.startswith(b"vmscope snapshot\n"):
        raise RuntimeError("%s: not a snapshot file" % path)
    at, found, live = 17 + 8, None, 0
    while at + 32 <= len(data):
        name = data[at:at + 12].rstrip(b"\0")
        stored = int.from_bytes(data[at + 16:at + 24], "little")
        if name == b"trace":
            found = 32 + stored
        if name == b"tracelive":
            live = 32 + stored
        if name == b"end":
            break
        at += 32 + stored
    return (found + live if found is not None else None), len(data)


FORWARDER_C = r"""
#include <stddef.h>
void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *malloc(size_t n) { return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
"""


def forwarder(tmp):
    """The floor's library (cc -O2), or None without a compiler."""
    src, so = os.path.join(tmp, "fwd.c"), os.path.join(tmp, "libfwd.so")
    with open(src, "w") as f:
        f.write(FORWARDER_C)
    r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so, src],
                       capture_output=True)
    return so if r.returncode == 0 else None


def main():
    app = T.target("allocloop")
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    env = dict(os.environ, VMSCOPE_TRACELIB=lib)
    tmp = tempfile.mkdtemp(prefix="vmscope-bench-trace-")
    report = os.path.join(tmp, "report.txt")
    cmds = {"untraced": ([app, str(PAIRS)], None),
            "vmscope --trace": ([T.VMSCOPE, "--trace", "-s", "-o", report,
                                 "--", app, str(PAIRS)], env),
            "sampled 4096": ([T.VMSCOPE, "--trace", "--trace-sample=4096",
                              "-s", "-o", report, "--", app, str(PAIRS)],
                             env)}
    # the same exact trace with libunwind's walk for every stack (the
    # tracer's path before its own walk): before and after in one round
    cmds["exact, libunwind"] = (cmds["vmscope --trace"][0],
                                dict(env, VMSCOPE_TRACE_UNWIND="libunwind"))
    if SAMPLED_ONLY:
        for k in ("vmscope --trace", "exact, libunwind"):
            del cmds[k]
    fwd = forwarder(tmp)
    if fwd:
        cmds["forwarder"] = ([app, str(PAIRS)],
                             dict(os.environ, LD_PRELOAD=fwd))
    ht = shutil.which("heaptrack") if not SAMPLED_ONLY else None
    if ht:
        cmds["heaptrack"] = ([ht, "-o", os.path.join(tmp, "ht"), app,
                              str(PAIRS)], None)
    res = {k: [] for k in cmds}
    cpu_runs = {}
    try:
        for _ in range(RUNS):
            for k, (argv, e) in cmds.items():
                res[k].append(once(argv, e))
                cpu_runs.setdefault(k, []).append(LAST_CPU[0])
        print("%d malloc/free pairs, %d interleaved runs (median, min-max)"
              % (PAIRS, RUNS))
        base = statistics.median(ns for ns, _ in res["untraced"])
        for k, v in res.items():
            ns = [x for x, _ in v]
            walls = [w for _, w in v]
            print("  %-16s loop %7.1f ns/pair (%.1f-%.1f), adds %7.1f; "
                  "whole run %.2f s" % (k, statistics.median(ns), min(ns),
                                        max(ns), statistics.median(ns) -
                                        base, statistics.median(walls)))
        # The same rounds by the program's own CPU time (its process's,
        # not vmscope's or heaptrack_interpret's): what each tracer costs
        # the program, whatever else shares the cores.
        cpu = {}
        for k in cmds:
            v = [x for x in cpu_runs.get(k, []) if x is not None]
            if v:
                cpu[k] = statistics.median(v)
        if "untraced" in cpu:
            print("  by the loop's own CPU time (median ns/pair): " +
                  ", ".join("%s %.1f" % (k, v) for k, v in cpu.items()))
            cb = cpu["untraced"]
            if "heaptrack" in cpu and "vmscope --trace" in cpu:
                print("  cpu: vmscope adds %.2fx what heaptrack adds; with "
                      "libunwind's walk %.2fx; sampled %.2fx the untraced"
                      % ((cpu["vmscope --trace"] - cb) /
                         max(cpu["heaptrack"] - cb, 1e-9),
                         (cpu.get("exact, libunwind", cb) - cb) /
                         max(cpu["heaptrack"] - cb, 1e-9),
                         cpu.get("sampled 4096", cb) / max(cb, 1e-9)))
        if "untraced" in cpu and "sampled 4096" in cpu:
            print("  cpu: sampled %.2fx the untraced loop (aim: at most "
                  "2)%s" % (cpu["sampled 4096"] / max(cpu["untraced"], 1e-9),
                            "; the forwarder %.2fx" % (
                                cpu["forwarder"] / max(cpu["untraced"],
                                                       1e-9))
                            if "forwarder" in cpu else ""))
        sm = statistics.median(x for x, _ in res["sampled 4096"])
        print("  sampled: %.2fx the untraced loop (aim: at most 2)"
              % (sm / base))
        if fwd:
            fw = statistics.median(x for x, _ in res["forwarder"])
            print("  floor: a preload that only forwards %.2fx; sampling "
                  "adds %.1f ns a pair over it" % (fw / base, sm - fw))
        if SAMPLED_ONLY:
            return 0
        if ht:
            vm = statistics.median(x for x, _ in res["vmscope --trace"])
            hp = statistics.median(x for x, _ in res["heaptrack"])
            print("  vmscope adds %.2fx what heaptrack adds (aim: at most "
                  "0.33)" % ((vm - base) / max(hp - base, 1e-9)))
            lu = statistics.median(x for x, _ in res["exact, libunwind"])
            print("  with libunwind's walk for every stack: %.2fx"
                  % ((lu - base) / max(hp - base, 1e-9)))
            files = [f for f in os.listdir(tmp) if f.startswith("ht")]
            size = sum(os.path.getsize(os.path.join(tmp, f))
                       for f in files)
            print("  written: vmscope's -s report %d bytes; heaptrack's "
                  "file %d bytes" % (os.path.getsize(report), size))
            ev = 2.0 * PAIRS / 1e6  # malloc and free: two calls a pair
            print("  own memory (peak resident): vmscope %.1f MiB, %.2f MiB "
                  "a million events; heaptrack_interpret %.1f MiB, %.2f MiB "
                  "a million events" % (
                      HWM.get("vmscope", 0) / 1024.0,
                      HWM.get("vmscope", 0) / 1024.0 / ev,
                      HWM.get("heaptrack_interpret", 0) / 1024.0,
                      HWM.get("heaptrack_interpret", 0) / 1024.0 / ev))
            print("  written a million events: vmscope's -s report %.0f "
                  "bytes, heaptrack's file %.0f bytes" % (
                      os.path.getsize(report) / ev, size / ev))
        else:
            print("  heaptrack: not installed (scripts/deps.sh installs "
                  "it)")
        # the trace kept with its snapshot (-w), one exact run more
        snap = os.path.join(tmp, "trace.vms")
        once([T.VMSCOPE, "--trace", "-w", snap, "-s", "-o", report, "--",
              app, str(PAIRS)], env)
        sec, whole = trace_section(snap)
        ev = 2.0 * PAIRS / 1e6
        if sec is None:
            raise RuntimeError("%s: no trace section" % snap)
        print("  kept a million events: the -w file's trace sections %.0f "
              "bytes (%d for %.1f million events; the whole file %d)%s"
              % (sec / ev, sec, ev, whole,
                 "; heaptrack's file %.0f bytes" % (size / ev) if ht
                 else ""))
        redis(env, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def attach_to(pid, env, out):
    """vmscope --trace PID -e json -o out, started and attached (its
    shared file mapped in pid), or an error."""
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o", out,
                          str(pid)], env=env, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and v.poll() is None:
        with open("/proc/%d/maps" % pid) as f:
            if "vmscope-trace" in f.read():
                return v
        time.sleep(0.01)
    # not injected (it traces the maps from the kernel then): the why
    ATTACHED.setdefault("why", []).append(detach(v, out).get("why"))
    return None


def detach(v, out):
    """Ends the attached trace (SIGINT): its report's attach object."""
    import json
    import signal
    v.send_signal(signal.SIGINT)
    err = v.communicate(timeout=300)[1]
    if v.returncode != 0:
        raise RuntimeError("vmscope --trace PID: %s" % err[-300:])
    with open(out) as f:
        return json.load(f)["attach"]


ATTACHED = {}  # the attach objects of the attached rounds


def redis_round(prefix, env, attach=None):
    """redis-server under prefix, benchmarked: requests/s by test. With
    attach (a report path), vmscope attaches to the running server before
    the benchmark and detaches after it."""
    port = free_port()
    cli = ["redis-cli", "-p", str(port)]
    server = prefix + ["redis-server", "--port", str(port), "--bind",
                       "127.0.0.1", "--save", "", "--appendonly", "no"]
    p = subprocess.Popen(server, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            r = subprocess.run(cli + ["ping"], capture_output=True)
            if b"PONG" in r.stdout:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not answer: %r" % server)
        v = attach_to(p.pid, env, attach) if attach else None
        if attach:
            # the fork sampler's freeze of the same server, for scale
            import json
            c = subprocess.run([T.VMSCOPE, "-b", "fork", "-e", "json",
                                str(p.pid)], capture_output=True)
            ATTACHED.setdefault("fork_frozen_us", []).append(
                json.loads(c.stdout)["capture"]["frozen_us"]
                if c.returncode == 0 else None)
        r = subprocess.run(["redis-benchmark", "-p", str(port), "-q",
                            "-n", str(REDIS_REQUESTS), "-P", "16", "-r",
                            "100000", "-t", "set,get,lpush,lpop", "--csv"],
                           capture_output=True, timeout=600)
        rps = {}
        for line in r.stdout.decode(errors="replace").splitlines():
            f = [x.strip('"') for x in line.split(",")]
            if len(f) >= 2 and f[0] in ("SET", "GET", "LPUSH", "LPOP"):
                rps[f[0]] = float(f[1])
        if len(rps) != 4:
            raise RuntimeError("redis-benchmark said: %r" % r.stdout[-300:])
        if v:
            a = detach(v, attach)
            for k in ("frozen_us", "held_us", "detach_frozen_us",
                      "detach_held_us", "walk_frozen_us", "walk_us"):
                ATTACHED.setdefault(k, []).append(a.get(k))
        subprocess.run(cli + ["shutdown", "nosave"], capture_output=True)
        p.wait(timeout=120)
        return rps
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def redis(env, tmp):
    if not shutil.which("redis-server") or \
            not shutil.which("redis-benchmark"):
        print("  redis: not installed (scripts/deps.sh installs it)")
        return
    kinds = {"untraced": ([], None),
             "vmscope --trace": ([T.VMSCOPE, "--trace", "-s", "-o",
                                  os.path.join(tmp, "redis-report"), "--"],
                                 env)}
    kinds["attached"] = ([], env)
    ht = shutil.which("heaptrack")
    if ht:
        kinds["heaptrack"] = ([ht, "-o", os.path.join(tmp, "redis-ht")],
                              None)
    res = {k: [] for k in kinds}
    if REDIS_RUNS < 1:
        print("  redis: REDIS_RUNS=%d, no rounds" % REDIS_RUNS)
        return
    for _ in range(REDIS_RUNS):
        for k, (prefix, e) in kinds.items():
            res[k].append(redis_round(
                prefix, e, os.path.join(tmp, "attached.json")
                if k == "attached" else None))
    print("redis-server under redis-benchmark, %d requests a test, %d "
          "interleaved rounds (median requests/s, and the fraction of the "
          "untraced kept)" % (REDIS_REQUESTS, REDIS_RUNS))
    base = {t: statistics.median(r[t] for r in res["untraced"])
            for t in res["untraced"][0]}
    for k, runs in res.items():
        med = {t: statistics.median(r[t] for r in runs) for t in base}
        kept = statistics.median(med[t] / base[t] for t in base)
        print("  %-16s %s; kept %.2f" % (k, "  ".join(
            "%s %.0f" % (t, med[t]) for t in sorted(med)), kept))

    def us(k):
        v = [x for x in ATTACHED.get(k, []) if x is not None]
        return "%.0f us" % statistics.median(v) if v else "-"
    if ATTACHED.get("why"):
        print("  attached: not injected in %d of %d rounds: %s"
              % (len(ATTACHED["why"]), REDIS_RUNS, ATTACHED["why"][0]))
    print("  attached (vmscope --trace PID, the tracer injected): stopped "
          "%s at the attach (the borrowed thread %s), %s at the detach "
          "(%s), %s for the heap walk before (which took vmscope %s); the "
          "fork sampler froze the same server %s (median)"
          % (us("frozen_us"), us("held_us"), us("detach_frozen_us"),
             us("detach_held_us"), us("walk_frozen_us"), us("walk_us"),
             us("fork_frozen_us")))


if __name__ == "__main__":
    sys.exit(main())
