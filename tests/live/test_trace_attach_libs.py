#!/usr/bin/env python3
"""The malloc family of a process already running (as
test_trace_attach_heap.py, with tests/targets/heap_attach.c), where
modules come and go and where it makes children:

  - A library the target loads (dlopen) while traced: the blocks its
    lib_leak mallocs are traced, exactly, by that function.
  - A library loaded, called and unloaded (dlclose) while traced, twice
    (the second load often at the first's address): the detach does not
    touch the unloaded module's GOT (which killed the target), the second
    load is traced as the first (its entries redirected afresh, not taken
    for the first's), the target answers as an untraced run, its own GOT
    entries are back as before, and the report has the 2 x 25 blocks
    lib_leak leaked, exactly, from main.
  - A thread that loads, calls and unloads a library again and again
    while vmscope attaches and detaches (3 rounds): every detach runs
    while modules come and go; the target lives on, answers as an
    untraced run, its GOT entries back as before each time.
  - A child forked while traced (fork(), and the raw fork system call,
    which runs no pthread_atfork handler) leaking 1,000 blocks each: the
    child records nothing (the rings are its parent's), its exit status
    is an untraced run's, and the report has exactly the parent's blocks
    (10 in leak_block from main, none from fork_child), every frame of
    that site named, nothing dropped, no free of an unknown block.
  - A program that uses libunwind itself, for the first time while
    traced, from a signal handler (a library loaded with dlopen that
    calls unw_backtrace there): libunwind's one-time set-up maps memory
    inside its pthread_once, the mmap comes to the tracer, whose own walk
    stops at the signal frame; the tracer must not take libunwind's walk
    then (it would wait on that same once for ever). The command is
    answered (within a bound), as an untraced run answers it, and the
    mmap is in the report, its stack through libunwind.
  - A child the target forks while attached, attached itself by a
    second vmscope during the first's trace (a postgres backend, while
    its postmaster is traced): the child's copy of the entries and of its
    parent's rings is taken over; the second report has exactly the
    child's blocks, the first exactly the parent's, none of the child's;
    every answer an untraced run's, the GOT entries of both back as before.
x86_64 only (the injection's); skipped elsewhere.
"""
import json
import os
import platform
import select
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import (attach_round, cmd, functions,  # noqa: E402
                        got_slots, got_values, leaked, poll, site,
                        trace_file_ids)

LIB_C = r"""
#include <stdlib.h>
#include <string.h>
unsigned long lib_leak(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n; i++) {
		char *p = malloc(24);
		if (!p)
			return 0;
		memset(p, 1, 24);
		s += (unsigned char)p[i % 24];
	}
	return s;
}
"""
# unw_backtrace, first called from a signal handler (inside_libunwind)
UNW_C = r"""
#include <libunwind.h>
#include <signal.h>
#include <string.h>
static volatile int frames;
static void on_usr2(int sig)
{
	void *ip[64];

	(void)sig;
	frames = unw_backtrace(ip, 64);
}
unsigned long lib_leak(unsigned long n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	return frames > 0 ? n : 0;
}
"""


def build_lib(tmp, name="leaklib", code=LIB_C, libs=()):
    src, so = (os.path.join(tmp, name + ".c"),
               os.path.join(tmp, name + ".so"))
    open(src, "w").write(code)
    r = subprocess.run(["cc", "-O1", "-g", "-shared", "-fPIC", "-o", so, src]
                       + list(libs), capture_output=True)
    return so if r.returncode == 0 else None


def answer_within(p, line, seconds):
    """p's answer to line, or None when none came within seconds."""
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    r, _, _ = select.select([p.stdout], [], [], seconds)
    return p.stdout.readline().decode() if r else None


def inside_libunwind(so):
    """The program's own first unw_backtrace, from a signal handler,
    while traced: answered, as untraced."""
    app = T.target("heap_attach")
    line = "lib 1 %s" % so
    p, _ = T.start([app])
    plain = cmd(p, line)
    T.kill(p)
    p, _ = T.start([app])
    files = trace_file_ids(p.pid)
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", str(p.pid)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        poll(lambda: trace_file_ids(p.pid) - files or v.poll() is not None)
        got = answer_within(p, line, 60)
        T.eq(got, plain, "a program's first unw_backtrace, from a signal "
             "handler, while traced: answered as untraced (the tracer "
             "does not wait on libunwind's set-up)")
        v.send_signal(signal.SIGINT)
        o, e = v.communicate(timeout=120)
    finally:
        T.kill(p)
        if v.poll() is None:
            v.kill()
            v.wait()
    try:
        d = json.loads(o)
    except ValueError:
        T.ok(False, "a JSON report", e)
        return
    mm = [x for x in d["trace"]["sites"] if x["kind"] == "mmap" and
          any("libunwind" in (f.get("module") or "") for f in x["frames"])]
    T.ok(mm and all("on_usr2" in functions(x) and
                    "lib_leak" not in functions(x) for x in mm),
         "libunwind's mmap is in the report, its stack through libunwind "
         "and the handler up to the signal frame, where the own walk "
         "stopped (libunwind's would go on to lib_leak)",
         [functions(x) for x in d["trace"]["sites"]][:8])


def later(so):
    """A library the target loads while traced (its dlopen's GOT entry
    redirected): its mallocs are traced too, by their own function."""
    app = T.target("heap_attach")
    line = "lib 25 %s" % so
    p, _ = T.start([app])
    plain = cmd(p, line)
    d, o, before, after, e = attach_round(p, app, [line])
    T.kill(p)
    sites = site(d["trace"]["sites"], "lib_leak") if d else []
    T.ok(len(sites) == 1 and sites[0]["outstanding"] ==
         {"count": 25, "bytes": 600} and "main" in functions(sites[0]),
         "a library loaded while traced: its 25 blocks leaked in lib_leak, "
         "exact, called from main", (sites, e))
    T.eq((o, after), ([plain], before), "its answer is an untraced "
         "one's; every GOT entry back as before")


def unloaded(so):
    """A library loaded, called and unloaded twice while traced."""
    app = T.target("heap_attach")
    cmds = ["libonce 25 %s" % so, "libonce 25 %s" % so, "leak 7"]
    p, _ = T.start([app])
    plain = [cmd(p, c) for c in cmds + ["leak 3"]]
    T.kill(p)
    p, _ = T.start([app])
    d, o, before, after, e = attach_round(p, app, cmds)
    alive = p.poll() is None
    if alive:
        o += [cmd(p, "leak 3")]
    T.kill(p)
    T.ok(alive and d is not None and b"not put back" not in e,
         "a library unloaded while traced: the detach leaves the target "
         "alive (it does not touch the unloaded module's GOT)",
         (p.returncode, e[-600:]))
    T.eq((o, after), (plain, before), "its answers are an untraced run's; "
         "every GOT entry of its own back as before")
    sites = site(d["trace"]["sites"], "lib_leak") if d else []
    T.ok(sum(x["outstanding"]["count"] for x in sites) == 50 and
         sum(x["outstanding"]["bytes"] for x in sites) == 1200 and
         all("main" in functions(x) and x["transient"]["count"] == 0
             for x in sites) and
         d["trace"]["dropped"] == 0,
         "loaded and unloaded twice: its 2 x 25 blocks leaked in lib_leak, "
         "exact, called from main (the second load traced as the first)",
         (sites, e[-600:]))


def unloading(so):
    """Attach and detach while a thread loads and unloads a library."""
    app = T.target("heap_attach")
    seq = ["bgdl 20 %s" % so, "bgstop"]
    p, _ = T.start([app])
    plain = [cmd(p, c) for c in seq * 4]
    T.kill(p)
    p, _ = T.start([app])
    # untraced first: its dlopen entry bound (lazily, at its first call)
    # before the entries are compared
    out, bad = [cmd(p, c) for c in seq], []
    for i in range(3):
        d, o, before, after, e = attach_round(p, app, seq[:1])
        alive = p.poll() is None
        out += o + ([cmd(p, seq[1])] if alive else [])
        if not alive or d is None or after != before:
            bad.append((i, p.returncode, after == before, e[-300:]))
            break
    T.kill(p)
    T.ok(not bad, "detached while a thread loads and unloads a library "
         "(3 rounds): the target alive, every GOT entry back as before",
         bad)
    T.eq(out, plain, "its answers are an untraced run's")


def forked_child():
    """A child forked while traced (glibc's fork, the raw system call):
    it records nothing; the parent's trace is exact."""
    app = T.target("heap_attach")
    cmds = ["fork 1000", "rawfork 1000", "leak 10"]
    p, _ = T.start([app])
    plain = [cmd(p, c) for c in cmds]
    T.kill(p)
    p, _ = T.start([app])
    d, o, before, after, e = attach_round(p, app, cmds)
    T.kill(p)
    T.eq((o, after), (plain, before), "forked while traced: the children's "
         "exit statuses and the answers are an untraced run's; every GOT "
         "entry back as before")
    if not d:
        T.ok(False, "a JSON report", e[-600:])
        return
    tr = d["trace"]
    leak = site(tr["sites"], "leak_block")
    heap = [x for x in tr["sites"] if x["kind"] == "heap"]
    T.ok(len(leak) == 1 and leak[0]["outstanding"] ==
         {"count": 10, "bytes": 400} and
         leak[0]["transient"]["count"] == 0 and
         "main" in functions(leak[0]) and
         "fork_child" not in functions(leak[0]) and
         all(functions(leak[0])[:functions(leak[0]).index("main") + 1]),
         "forked while traced: leak_block has the parent's 10 blocks from "
         "main, every frame named, none of the children's 2 x 1,000",
         [(functions(x), x["outstanding"]) for x in heap])
    T.ok(not any("fork_child" in functions(x) for x in tr["sites"]) and
         sum(x["outstanding"]["count"] + x["transient"]["count"]
             for x in heap) == 10 and
         (tr["dropped"], tr["unknown_frees"]) == (0, 0),
         "forked while traced: no site of the children's, no other heap "
         "block, nothing dropped, no free of an unknown block",
         [(x["kind"], functions(x), x["outstanding"]) for x in
          tr["sites"]])


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def child_attached():
    """A forked child of an attached process, attached while its parent
    is traced: taken over, each trace exactly its own process's."""
    app = T.target("heap_attach")
    seq = ["leak 5", "child 0", "leak 7", "end", "leak 3"]
    p, _ = T.start([app])
    plain = [cmd(p, c) for c in seq]
    T.kill(p)
    p, _ = T.start([app])
    slots = got_slots(app)
    out = [cmd(p, "leak 5")]
    before = got_values(p.pid, app, slots)
    files = trace_file_ids(p.pid)
    a = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", str(p.pid)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    b = None
    try:
        poll(lambda: trace_file_ids(p.pid) - files or a.poll() is not None)
        out.append(cmd(p, "child 0"))  # answered by the child
        poll(lambda: children(p.pid))
        kid = children(p.pid)[0]
        kfiles = trace_file_ids(kid)
        b = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", str(kid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        poll(lambda: trace_file_ids(kid) - kfiles or b.poll() is not None)
        out.append(cmd(p, "leak 7"))
        b.send_signal(signal.SIGINT)
        ob, eb = b.communicate(timeout=120)
        kid_after = got_values(kid, app, slots)
        out.append(cmd(p, "end"))  # the child ends, the parent answers
        out.append(cmd(p, "leak 3"))
        a.send_signal(signal.SIGINT)
        oa, ea = a.communicate(timeout=120)
        after = got_values(p.pid, app, slots)
    finally:
        T.kill(p)
        for v in (a, b):
            if v and v.poll() is None:
                v.kill()
                v.wait()
    T.eq((out, after, kid_after), (plain, before, before),
         "a child attached while its parent is traced: every answer an "
         "untraced run's; the GOT entries of both back as before")
    try:
        da, db = json.loads(oa), json.loads(ob)
    except ValueError:
        T.ok(False, "two JSON reports", (ea[-300:], eb[-300:]))
        return
    T.ok((leaked(db), leaked(da)) ==
         ((True, [(7, 280)]), (True, [(3, 120)])),
         "the child's trace (injected: its copy of the entries taken over) "
         "has exactly its 7 blocks; its parent's exactly its own 3",
         (leaked(db), leaked(da), eb[-300:], ea[-300:]))


def main():
    if platform.machine() != "x86_64":
        T.skip("the injected attach", "x86_64 only")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-attach-")
    try:
        so = build_lib(tmp)
        if so:
            later(so)
            unloaded(so)
            unloading(so)
        else:
            T.skip("a library loaded while traced", "no C compiler")
        so = build_lib(tmp, "unwlib", UNW_C, ["-lunwind"])
        if so:
            inside_libunwind(so)
        else:
            T.skip("a program using libunwind", "no libunwind-dev")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    forked_child()
    child_attached()
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
