#!/usr/bin/env python3
"""test_all_elfcache — vmscope --all's cache of mapped files (elf/elfcache.h)
answers a mapping it saw in an earlier capture of the run without a stat,
and only a mapping of the very same file:

  - one path, two files (as root): a process in a mount namespace of its
    own maps a copy of libc (an ELF image) at a path where a bind mount
    puts it, and a second process maps a text file at the same path, on
    the same device (another inode); in `--all -e openmetrics` of both,
    in either order, each process's Image and Mapped File sizes are what
    a capture of it alone (-e json, no cache) says: one mapping is no
    image because the other one was (the cache's key is the mapping's
    device and inode with its path);
  - the stats it saves (as root, where a mapped file is stat'ed through
    /proc/PID/map_files): `--all` of three sleeps stats as many mapped
    files as `--all` of one (strace -f, newfstatat of map_files/), and
    more than none;
  - the opens it saves (as root): the cache holds each file it read open
    for the run's later look-ups (elfcache_fd), so `--all` of three
    sleeps opens as many mapped files through map_files as of one, and
    no more than a sleep maps files (each once: a process's steps ask a
    file four lists of names, and each ask opened it before);
  - with few descriptors (RLIMIT_NOFILE 24: a quarter held at most, 6,
    fewer than the files mapped), the same figures as with many.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

SAMPLE = re.compile(r'^(vmscope_size_bytes)\{pid="(\d+)",[^}]*'
                    r'type="([a-z_]+)"\} (\d+)$', re.M)
# maps the file named by argv[1] read-only, says so, waits for its stdin
MAPPER = ("import mmap, sys\n"
          "f = open(sys.argv[1], 'rb')\n"
          "m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n"
          "print('ready', flush=True)\n"
          "sys.stdin.read()\n")


def libc_path():
    with open("/proc/self/maps") as f:
        for ln in f:
            if "/libc.so" in ln or "/libc-" in ln:
                return ln.split()[-1]
    return None


def sizes_all(pids):
    out = subprocess.run([T.VMSCOPE, "--all", "-e", "openmetrics"] +
                         [str(p) for p in pids], capture_output=True,
                         text=True, timeout=300)
    got = {}
    for _, pid, typ, v in SAMPLE.findall(out.stdout):
        got[(int(pid), typ)] = int(v)
    return out.returncode, got


def sizes_alone(pid):
    snap = T.vmscope_json(pid)
    return {t["type"]: t["size"] for t in snap["types"]}


def same_path(tmp):
    what = "one path, two files"
    libc = libc_path()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        T.skip(what, "needs root and unshare (a mount namespace)")
        return
    if not libc:
        T.skip(what, "no libc in this process's maps")
        return
    view, other = os.path.join(tmp, "view"), os.path.join(tmp, "other")
    os.makedirs(view)
    os.makedirs(other)
    path = os.path.join(view, "lib.so")
    shutil.copy(libc, os.path.join(other, "lib.so"))
    size = os.path.getsize(os.path.join(other, "lib.so"))
    with open(path, "wb") as f:
        f.write(b"not an ELF file\n" * (size // 16 + 1))
    # the first process sees the copy of libc at the path (a bind mount
    # in a mount namespace of its own), the second the text file
    a, _ = T.start(["unshare", "-m", "--propagation", "private", "sh", "-c",
                    'mount --bind "$1" "$2" && exec "$3" -c "$4" "$5"',
                    "sh", other, view, sys.executable, MAPPER, path])
    b, _ = T.start([sys.executable, "-c", MAPPER, path])
    ids = {}
    for p in (a, b):
        for m in T.maps(p.pid):
            if m.get("path") == path:
                ids[p.pid] = (m.get("dev"), m.get("inode"))
    if a.pid not in ids:
        # in a chroot (make freshcheck) the kernel names the file the
        # namespace's bind mount shows from another root: no one path
        copy = os.stat(os.path.join(other, "lib.so")).st_ino
        shown = [m.get("path") for m in T.maps(a.pid)
                 if m.get("inode") == copy]
        T.skip(what, "the first process's copy of libc shows as %r, not "
               "%s (vmscope in a chroot?)" % (shown[:1], path))
        for p in (a, b):
            T.kill(p)
        return
    alone = {p.pid: sizes_alone(p.pid) for p in (a, b)}
    T.ok(len(ids) == 2 and ids[a.pid][0] == ids[b.pid][0] and
         ids[a.pid][1] != ids[b.pid][1] and
         alone[a.pid]["image"] > alone[b.pid]["image"] and
         alone[b.pid]["mapped_file"] > alone[a.pid]["mapped_file"],
         "%s: each maps %s, on one device, another inode; alone, the "
         "first as an image, the second as a mapped file" % (what, path),
         (ids, alone))
    for order in ((a, b), (b, a)):
        rc, got = sizes_all([p.pid for p in order])
        want = {(p.pid, t): alone[p.pid][t] for p in (a, b)
                for t in ("image", "mapped_file")}
        have = {k: got.get(k) for k in want}
        T.ok(rc == 0 and have == want,
             "%s, --all of pids %d then %d: each one's Image and Mapped "
             "File as a capture of it alone" % (what, order[0].pid,
                                                order[1].pid), (have, want))
    for p in (a, b):
        T.kill(p)


def map_files_calls(pids, tmp, calls="newfstatat,statx"):
    log = os.path.join(tmp, "strace.log")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=" + calls,
                    "-o", log, T.VMSCOPE, "--all", "-e", "openmetrics"] +
                   [str(p) for p in pids], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    with open(log) as f:
        return sum(1 for ln in f if "map_files/" in ln)


def map_files_stats(pids, tmp):
    return map_files_calls(pids, tmp)


def opens_saved(sleeps, tmp):
    what = "--all of three sleeps opens each mapped file once"
    files = {m["path"] for m in T.maps(sleeps[0].pid)
             if (m.get("path") or "").startswith("/")}
    one = map_files_calls([sleeps[0].pid], tmp, "openat")
    three = map_files_calls([p.pid for p in sleeps], tmp, "openat")
    T.ok(0 < one <= len(files) and three == one,
         "%s (%d and %d opens through map_files; %d files mapped)"
         % (what, one, three, len(files)))


def few_descriptors(sleeps):
    """The figures a run takes from the files it reads (each type's size,
    the heaps' and runtimes' figures: not PSS, USS and the shared working
    sets, which move with what else maps a page), with RLIMIT_NOFILE 24
    (at most 6 files held) and without."""
    what = "--all with RLIMIT_NOFILE 24: the figures of a run with many"
    files = {m["path"] for m in T.maps(sleeps[0].pid)
             if (m.get("path") or "").startswith("/")}
    if len(files) <= 6:
        T.skip(what, "the sleeps map %d files, not more than the 6 held "
               "then" % len(files))
        return
    pids = [str(p.pid) for p in sleeps]
    argv = [T.VMSCOPE, "--all", "-e", "openmetrics"] + pids
    few = subprocess.run(["prlimit", "--nofile=24:24"] + argv,
                         capture_output=True, text=True, timeout=300)
    many = subprocess.run(argv, capture_output=True, text=True, timeout=300)

    def figures(text):
        return sorted(ln for ln in text.splitlines()
                      if ln.startswith(("vmscope_size_bytes",
                                        "vmscope_heap_",
                                        "vmscope_managed_")))
    T.ok(few.returncode == 0 and many.returncode == 0 and
         figures(few.stdout) == figures(many.stdout) and
         'type="image"' in few.stdout,
         "%s (%d files mapped)" % (what, len(files)),
         (few.returncode, few.stderr[-300:]))


def stats_saved(tmp):
    what = "--all of three sleeps stats no more mapped files than of one"
    if os.geteuid() != 0:
        T.skip(what, "needs root (map_files)")
        return
    if not shutil.which("strace"):
        T.skip(what, "strace is not installed (scripts/deps.sh installs it)")
        return
    # in C.UTF-8 (Debian's libc-bin has it), a sleep maps the locale's
    # files too: more files than RLIMIT_NOFILE 24 lets vmscope hold
    env = dict(os.environ, LC_ALL="C.UTF-8")
    sleeps = [T.start_asleep(["sleep", "600"], env=env)[0]
              for _ in range(3)]
    one = map_files_stats([sleeps[0].pid], tmp)
    three = map_files_stats([p.pid for p in sleeps], tmp)
    T.ok(one > 0 and three == one,
         "%s (%d and %d map_files stats)" % (what, one, three))
    opens_saved(sleeps, tmp)
    few_descriptors(sleeps)
    for p in sleeps:
        T.kill(p)


def main():
    tmp = tempfile.mkdtemp(prefix="vmstest-elfcache-")
    try:
        same_path(tmp)
        stats_saved(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
