#!/usr/bin/env python3
# run alone: runs two fuzzers at once, one per CPU
"""A bounded fuzz run finds no crash: builds the libFuzzer harnesses
(tests/fuzz/, `make` targets build-fuzz/fuzz_*) and runs each for a few
seconds (SECONDS below: fuzz_smaps that long on the smaps and maps
fixtures; the others half of it, at least 3: fuzz_elf on two small ELF
files (an executable, a shared object with a GNU hash table), fuzz_text on tests/fixtures/text/, fuzz_heap damaging the recorded
glibc heap image (seeds tests/fixtures/fuzz-heap/), fuzz_snapfile on the snapshot files, fuzz_core on the
small ELF core, fuzz_hsperf on the recorded hsperfdata files; fuzz_rtheap,
fuzz_scan, fuzz_pmscan on the maps fixtures, and fuzz_alloc damaging
built tcmalloc and mimalloc heaps, a quarter of it, at least 3), two at a time where there are two cores. Each must exit 0. The
harnesses carry their own ASan+UBSan, so the run is made once, on the
normal build's pass of make check, and skipped on the sanitizer build's.

Skipped when clang cannot build a libFuzzer program. New inputs go to a
temporary corpus; the fixtures are only read. FUZZ_SMOKE_SECONDS overrides
the 6 seconds (make check's time: a smoke run); `make fuzz` runs each harness for a minute."""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

SECONDS = int(os.environ.get("FUZZ_SMOKE_SECONDS", "6"))


def have_libfuzzer(tmp):
    if not shutil.which("clang"):
        return False
    src = os.path.join(tmp, "probe.c")
    with open(src, "w") as f:
        f.write("#include <stddef.h>\n#include <stdint.h>\n"
                "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
                "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)\n"
                "{ (void)d; (void)n; return 0; }\n")
    r = subprocess.run(["clang", "-fsanitize=fuzzer", "-o",
                        os.path.join(tmp, "probe"), src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return r.returncode == 0


JOBS = []
SEED = None


def fuzz_seed():
    """libFuzzer's -seed for every harness: VMSCOPE_SEED or one printed
    (a run bounded by time is replayed as far as timing allows)."""
    global SEED
    if SEED is None:
        SEED = T.seed()
    return SEED


def run_fuzzer(name, seconds, corpus, seeds, tmp, extra=()):
    """Queued; run_all() runs the queue, two at a time on two cores (each
    harness is one process on one core: the run takes half as long), and
    reports in the order queued."""
    exe = os.path.join(T.ROOT, "build-fuzz", name)
    argv = [exe, "-max_total_time=%d" % seconds, "-rss_limit_mb=2048",
            "-timeout=20", "-print_final_stats=1", "-seed=%d" % fuzz_seed(),
            "-artifact_prefix=%s/" % tmp] + list(extra) + [corpus] + seeds
    JOBS.append((name, seconds, argv))


def one(job):
    name, seconds, argv = job
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=seconds + 120)
    print("# %s took %.1f s" % (name, time.monotonic() - t0), flush=True)
    return r.returncode, r.stdout.decode("utf-8", "replace")


def run_all():
    workers = max(min(os.cpu_count() or 1, 2), 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        results = list(ex.map(one, JOBS))
    for (name, seconds, _), (rc, out) in zip(JOBS, results):
        m = re.search(r"stat::number_of_executed_units:\s*(\d+)", out)
        runs = int(m.group(1)) if m else 0
        T.ok(rc == 0 and runs > 0,
             "%s: %ds, %d inputs, exit status %d" % (name, seconds, runs,
                                                      rc),
             "\n".join(out.splitlines()[-40:]))


def main():
    tmp = tempfile.mkdtemp(prefix="vms-fuzz-")
    try:
        if not have_libfuzzer(tmp):
            T.skip("bounded fuzz run", "clang with libFuzzer not available")
            T.done()
        if os.path.basename(T.VMSCOPE).endswith("-san"):
            # the harnesses carry their own ASan+UBSan: the run on the
            # normal build's pass is the same run
            T.skip("bounded fuzz run", "run once, in the normal build's "
                   "pass (the harnesses have their own sanitizers)")
            T.done()
        r = subprocess.run(["make", "-C", T.ROOT,
                            "-j%d" % max(os.cpu_count() or 1, 1),
                            "build-fuzz/fuzz_smaps",
                            "build-fuzz/fuzz_elf", "build-fuzz/fuzz_text",
                            "build-fuzz/fuzz_heap", "build-fuzz/fuzz_snapfile",
                            "build-fuzz/fuzz_core", "build-fuzz/fuzz_hsperf",
                            "build-fuzz/fuzz_rtheap", "build-fuzz/fuzz_scan",
                            "build-fuzz/fuzz_pmscan", "build-fuzz/fuzz_alloc",
                            "build-fuzz/seed.elf", "build-fuzz/seed.so"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if not T.ok(r.returncode == 0, "fuzz harnesses build",
                    r.stdout.decode("utf-8", "replace")[-3000:]):
            T.done()
        fixtures = os.path.join(T.ROOT, "tests", "fixtures")
        seeds = sorted(glob.glob(os.path.join(fixtures, "*.smaps")) +
                       glob.glob(os.path.join(fixtures, "*.maps")))
        T.ok(len(seeds) >= 20, "%d fixtures as seeds" % len(seeds))
        seed_dir = os.path.join(tmp, "seeds")
        os.mkdir(seed_dir)
        for s in seeds:
            shutil.copy(s, seed_dir)
        corpus = os.path.join(tmp, "corpus")
        os.mkdir(corpus)
        run_fuzzer("fuzz_smaps", SECONDS, corpus, [seed_dir], tmp)
        # (libFuzzer runs file arguments once instead of fuzzing: seeds
        # go in directories.)
        corpus = os.path.join(tmp, "corpus-elf")
        seed_dir = os.path.join(tmp, "seeds-elf")
        os.mkdir(corpus)
        os.mkdir(seed_dir)
        shutil.copy(os.path.join(T.ROOT, "build-fuzz", "seed.elf"), seed_dir)
        shutil.copy(os.path.join(T.ROOT, "build-fuzz", "seed.so"), seed_dir)
        run_fuzzer("fuzz_elf", max(SECONDS // 2, 3), corpus, [seed_dir], tmp,
                   ["-max_len=65536"])
        # The small text parsers: status, syscall, maps, theme files.
        corpus = os.path.join(tmp, "corpus-text")
        os.mkdir(corpus)
        run_fuzzer("fuzz_text", max(SECONDS // 2, 3), corpus,
                   [os.path.join(fixtures, "text")], tmp, ["-max_len=8192"])
        corpus = os.path.join(tmp, "corpus-heap")
        os.mkdir(corpus)
        # seeds: the main arena marked not contiguous, walked whole and
        # for the lists alone (tests/fixtures/fuzz-heap/)
        run_fuzzer("fuzz_heap", max(SECONDS // 2, 3), corpus,
                   [os.path.join(fixtures, "fuzz-heap")], tmp,
                   ["-max_len=4096"])
        for name, kind, ext in (("fuzz_snapfile", "snap", "vms"),
                                ("fuzz_core", "core", "core"),
                                ("fuzz_hsperf", "hsperf", "hsperf")):
            corpus = os.path.join(tmp, "corpus-" + kind)
            seed_dir = os.path.join(tmp, "seeds-" + kind)
            os.mkdir(corpus)
            os.mkdir(seed_dir)
            for s in glob.glob(os.path.join(fixtures, "*." + ext)):
                shutil.copy(s, seed_dir)
            run_fuzzer(name, max(SECONDS // 2, 3), corpus, [seed_dir], tmp,
                       ["-max_len=65536"])
        corpus = os.path.join(tmp, "corpus-rtheap")
        os.mkdir(corpus)
        run_fuzzer("fuzz_rtheap", max(SECONDS // 4, 3), corpus, [], tmp,
                   ["-max_len=4096"])
        corpus = os.path.join(tmp, "corpus-scan")
        os.mkdir(corpus)
        run_fuzzer("fuzz_scan", max(SECONDS // 4, 3), corpus, [], tmp,
                   ["-max_len=65536"])
        corpus = os.path.join(tmp, "corpus-pmscan")
        seed_dir = os.path.join(tmp, "seeds-pmscan")
        os.mkdir(corpus)
        os.mkdir(seed_dir)
        for s in glob.glob(os.path.join(fixtures, "*.maps")):
            shutil.copy(s, seed_dir)
        run_fuzzer("fuzz_pmscan", max(SECONDS // 4, 3), corpus, [seed_dir],
                   tmp, ["-max_len=65536"])
        corpus = os.path.join(tmp, "corpus-alloc")
        os.mkdir(corpus)
        run_fuzzer("fuzz_alloc", max(SECONDS // 4, 3), corpus, [], tmp,
                   ["-max_len=4096", "-len_control=0"])
        run_all()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
