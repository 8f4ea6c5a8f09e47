#!/usr/bin/env python3
"""A traced program that writes into its own trace rings
(tests/targets/ring_tamper.c: a thread rewrites the operation and length
bytes of records the main thread wrote and vmscope has yet to read, and of
the record at the tail, which vmscope may be reading, while the main thread
mallocs and frees): vmscope must survive it (it copies a record's header
once, checked, and reads the rest by that header: a header the program
changed between the check and the read once made it copy up to 2 KiB into
an 8-word buffer), refuse and count what breaks the wire's rules
(bad_records in the JSON, the text report says so), and the program's
output and exit status are an untraced run's. TRACE_HOSTILE_ROUNDS runs
(default 3), each with a fresh program.

A program that loads a library, puts a FIFO at its path and then calls
it (the library's module record names the path): vmscope never opens the
FIFO for reading (it would wait there for a writer for ever); it ends,
the library's frames unnamed, the program's own named.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

ROUNDS = int(os.environ.get("TRACE_HOSTILE_ROUNDS", "3"))

LIB_C = r"""
#include <stdlib.h>
void *lib_alloc(void) { return malloc(77); }
"""
PROG_C = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((noinline)) static void *call_it(void *(*fn)(void))
{
	return fn();
}
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW), *(*fn)(void);

	if (!h || !(*(void **)&fn = dlsym(h, "lib_alloc")))
		return 2;
	if (unlink(argv[1]) != 0 || mkfifo(argv[1], 0600) != 0)
		return 3;
	printf("%s\n", call_it(fn) ? "allocated" : "failed");
	return 0;
}
"""


def fifo_module(tmp):
    """The library's path a FIFO by the time vmscope reads it."""
    cc = shutil.which("cc")
    if not cc:
        T.skip("a module path that is a FIFO", "no C compiler")
        return
    lib, prog = os.path.join(tmp, "fifo.so"), os.path.join(tmp, "fifoprog")
    open(lib + ".c", "w").write(LIB_C)
    open(prog + ".c", "w").write(PROG_C)
    for args in (["-shared", "-fPIC", "-o", lib, lib + ".c"],
                 ["-O1", "-o", prog, prog + ".c", "-ldl"]):
        subprocess.run([cc] + args, check=True)
    r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "--", prog, lib],
                       capture_output=True, text=True, timeout=120)
    T.ok(r.returncode == 0 and r.stdout.startswith("{"),
         "a module whose path became a FIFO: vmscope ends (it does not "
         "wait on the FIFO), exit 0", r.stderr[-1500:])
    if r.returncode != 0:
        return
    sites = [x for x in json.loads(r.stdout)["trace"]["sites"]
             if x["kind"] == "heap" and any(
                 f.get("function") == "call_it" for f in x["frames"])]
    T.ok(len(sites) == 1 and sites[0]["outstanding"]["count"] == 1,
         "its 77-byte block found, called from call_it, the library's "
         "frame unnamed", sites)


def main():
    prog = T.target("ring_tamper")
    plain = subprocess.run([prog], capture_output=True, text=True,
                           timeout=300)
    T.eq((plain.returncode, plain.stdout), (0, "done 250000\n"),
         "untraced: the program's own answer")
    for i in range(ROUNDS):
        with tempfile.NamedTemporaryFile(suffix=".json") as rep:
            r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-o",
                                rep.name, "--", prog], capture_output=True,
                               text=True, timeout=600)
            T.ok(r.returncode == 0, "round %d: vmscope survives a program "
                 "writing into its rings, exit 0 (%d)" % (i, r.returncode),
                 r.stderr[-2000:])
            T.eq(r.stdout, plain.stdout, "round %d: the program's output "
                 "is an untraced run's" % i)
            try:
                d = json.load(open(rep.name))
            except ValueError:
                T.ok(False, "round %d: a JSON report" % i)
                continue
        t = d["trace"]
        T.ok(t["bad_records"] > 0 and t["ended"] and
             d["process"].get("exit_status") == 0,
             "round %d: the records it broke refused and counted "
             "(bad_records %d), its end and exit status 0 seen" %
             (i, t["bad_records"]), {k: t.get(k) for k in
                                     ("events", "bad_records", "ended")})
    tmp = tempfile.mkdtemp(prefix="vmscope-hostile-")
    try:
        fifo_module(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r = subprocess.run([T.VMSCOPE, "--trace", "-s", "--", prog],
                       capture_output=True, text=True, timeout=600)
    T.ok(r.returncode == 0 and "records refused" in r.stdout,
         "the text report says records were refused", r.stdout[-1500:])
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
