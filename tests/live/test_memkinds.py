#!/usr/bin/env python3
# run alone: sets the machine's vm.nr_hugepages, shmem transparent huge pages and KSM for a while
"""Every kind of memory the kernel gives a process, typed as DESIGN.md says
and with every figure the kernel's, to the byte.

tests/targets/memkinds makes each kind in a region of its own (its header
lists them). The target stopped (SIGSTOP), `vmscope -e json` is run
plain and with -F, and each kind's region is compared with the same
region of /proc/PID/smaps, read before and after (retried while they
differ):
  - its type (and detail where it says what it is) is the one DESIGN.md
    implies: shared memory of any kind (SysV, POSIX, memfd, shared
    anonymous, hugetlb shared, memfd_secret, a kernel object's pages
    such as io_uring's rings or a perf ring buffer) is shareable; private
    anonymous memory of any kind (a private mapping of /dev/zero or of
    MAP_HUGETLB included: the kernel makes them anonymous) is
    private_data; a file on disk mapped is mapped_file;
  - the counters it exports (rss, pss, private_clean, private_dirty,
    shared_clean, shared_dirty, swap, swap_pss, locked, anon_huge) are
    smaps' own, and hugetlb is Private_Hugetlb + Shared_Hugetlb;
  - size, committed, private and private_ws follow from smaps by
    DESIGN.md's table, computed here on their own: committed is Size for
    file and shared mappings and for private anonymous memory charged to
    the commit limit (ac) or reserved from the hugetlb pool (ht without
    nr), else what is there (Rss + Swap, and a hugetlb region's pages);
    private is committed for private anonymous memory, Private_Dirty for
    a private file mapping, 0 for shared; private_ws is Private_Clean +
    Private_Dirty for private anonymous memory, Private_Dirty for a private
    file mapping, 0 for shared;
  - hugetlb pages, which the kernel counts in no Rss, are said: a note
    names their bytes, Σ hugetlb is smaps_rollup's Private_Hugetlb +
    Shared_Hugetlb and /proc/PID/status HugetlbPages;
  - memfd_secret memory is marked unreadable.
The kinds that need the machine set up are made with what they need and
everything put back as it was, on failure too (as root; else skipped):
hugetlb pages (vm.nr_hugepages raised by what the target needs, a
hugetlbfs mounted in the test's directory), shmem with transparent huge
pages (shmem_enabled set to advise), KSM (ksmd run until the target's
pages merge) and swap (the machine's if it has some; a swap file of the
test's own only with VMSCOPE_TEST_SWAPFILE=1: swap is the machine's, and
other tests running beside this one would see it).
"""
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

# vmscope's counters and their smaps keys
COUNTERS = [("rss", "Rss"), ("pss", "Pss"),
            ("private_clean", "Private_Clean"),
            ("private_dirty", "Private_Dirty"),
            ("shared_clean", "Shared_Clean"),
            ("shared_dirty", "Shared_Dirty"), ("swap", "Swap"),
            ("swap_pss", "SwapPss"), ("locked", "Locked"),
            ("anon_huge", "AnonHugePages")]

# kind -> the type DESIGN.md implies, and the detail it must have (a
# prefix; None: any)
KINDS = {
    "sysv": ("shareable", "/SYSV"), "sysv_rmid": ("shareable", "/SYSV"),
    "posix": ("shareable", "/dev/shm/memkinds-"),
    "memfd": ("shareable", "/memfd:memfd"),
    "memfd_sealed": ("shareable", "/memfd:memfd_sealed"),
    "shanon": ("shareable", "/dev/zero"),
    "zero_shared": ("shareable", "/dev/zero"),
    "zero_priv": ("private_data", None),
    "mlock": ("private_data", None), "maplocked": ("private_data", None),
    "onfault": ("private_data", None),
    "cow": ("mapped_file", None), "trunc": ("mapped_file", None),
    "deleted": ("mapped_file", None),
    "noreserve": ("private_data", None), "protnone": ("private_data", None),
    "guard": ("private_data", None), "growsdown": ("private_data", None),
    "mremap_grow": ("private_data", None),
    "mremap_move": ("private_data", None),
    "lazyfree": ("private_data", None), "dontneed": ("private_data", None),
    "uffd": ("private_data", None),
    "secret": ("shareable", "/secretmem"),
    "pkey": ("private_data", None),
    "io_uring": ("shareable", "anon_inode:[io_uring]"),
    "io_uring_2": ("shareable", "anon_inode:[io_uring]"),
    "perf": ("shareable", "anon_inode:[perf_event]"),
    "thp_anon": ("private_data", None),
    "htlb_priv": ("private_data", None),
    "htlb_noreserve": ("private_data", None),
    "htlb_forked": ("shareable", "/anon_hugepage"),
    "htlb_shared": ("shareable", "/anon_hugepage"),
    "htlb_file": ("shareable", None), "htlb_shm": ("shareable", "/SYSV"),
    "htlb_memfd": ("shareable", "/memfd:htlb_memfd"),
    "thp_shmem": ("shareable", "/memfd:thp_shmem"),
    "ksm": ("private_data", None), "ksm_2": ("private_data", None),
    "swap": ("private_data", None), "swap_2": ("shareable", "/dev/zero"),
}
PLAIN = ["sysv", "sysv_rmid", "posix", "memfd", "memfd_sealed", "shanon",
         "zero_shared", "zero_priv", "mlock", "maplocked", "onfault", "cow",
         "trunc", "deleted", "noreserve", "protnone", "guard", "growsdown",
         "mremap_grow", "mremap_move", "lazyfree", "dontneed", "uffd",
         "secret", "pkey", "io_uring", "perf", "thp_anon"]
HUGETLB = ["htlb_priv", "htlb_noreserve", "htlb_shared", "htlb_forked",
           "htlb_file", "htlb_shm", "htlb_memfd"]
# huge pages the hugetlb kinds take: six regions reserve two each, the
# MAP_NORESERVE one takes the one it writes
HUGETLB_PAGES = 13


def smaps(pid):
    """pid's smaps: [{start, end, perms, path, inode, keys...}] (sizes in
    bytes, VmFlags a set)."""
    out, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*"
                         r"(.*)$", line)
            if m:
                cur = {"start": int(m.group(1), 16),
                       "end": int(m.group(2), 16), "perms": m.group(3),
                       "inode": int(m.group(4)), "path": m.group(5) or None}
                out.append(cur)
                continue
            m = re.match(r"^(\w+):\s+(\d+) kB", line)
            if m:
                cur[m.group(1)] = int(m.group(2)) * 1024
            elif line.startswith("VmFlags:"):
                cur["VmFlags"] = set(line.split()[1:])
    return out


def anonymous(k):
    """Private anonymous memory as the kernel makes it: no file, or a
    private mapping of /dev/zero or of MAP_HUGETLB (a file in name only)."""
    path = k["path"] or ""
    return "s" not in k["perms"] and (
        k["inode"] == 0 or path == "/dev/zero" or
        path.startswith("/anon_hugepage"))


def design(k):
    """size, committed, private, private_ws of smaps record k by
    DESIGN.md's table."""
    size = k["end"] - k["start"]
    flags = k.get("VmFlags", set())
    shared = "s" in k["perms"]
    hugetlb = k.get("Private_Hugetlb", 0) + k.get("Shared_Hugetlb", 0)
    there = k.get("Rss", 0) + k.get("Swap", 0) + hugetlb
    if anonymous(k):
        whole = "ac" in flags or ("ht" in flags and "nr" not in flags)
        committed = size if whole else there
        return (size, committed, committed,
                k.get("Private_Clean", 0) + k.get("Private_Dirty", 0))
    if shared:
        return size, size, 0, 0
    return size, size, k.get("Private_Dirty", 0), k.get("Private_Dirty", 0)


def stable_smaps(pid, action):
    """action() between two reads of smaps that agree (a stopped process
    still changes: khugepaged, ksmd). Returns (result, smaps) or
    (result, None)."""
    for _ in range(5):
        before = smaps(pid)
        res = action()
        after = smaps(pid)
        if before == after:
            return res, after
    return res, None


def check_kind(label, snap, km, kind, addr):
    want_type, want_detail = KINDS[kind.split("+")[0]]
    r = T.region_of(snap, addr)
    k = [x for x in km if x["start"] <= addr < x["end"]]
    if not T.ok(r is not None and k, "%s: %s (0x%x) is a region"
                % (label, kind, addr)):
        return
    k = k[0]
    T.ok(r["type"] == want_type and
         (want_detail is None or (r["detail"] or "").startswith(want_detail)),
         "%s: %s is %s%s" % (label, kind, want_type,
                             " (%s...)" % want_detail if want_detail else ""),
         "got %s, detail %r (%s %s)" % (r["type"], r["detail"], r["perms"],
                                         r["path"]))
    got = {c: r.get(c) for c, _ in COUNTERS + [("hugetlb", None)]}
    want = {c: k.get(key, 0) for c, key in COUNTERS}
    want["hugetlb"] = k.get("Private_Hugetlb", 0) + k.get("Shared_Hugetlb",
                                                          0)
    T.eq(got, want, "%s: %s: every counter is smaps' own" % (label, kind))
    T.eq((r["size"], r["committed"], r["private"], r["private_ws"]),
         design(k), "%s: %s: size, committed, private, private_ws by "
         "DESIGN.md's table" % (label, kind))


SEGMENTS = []


def run_group(name, kinds, tmp, extra_check=None, ready_wait=None):
    """Starts memkinds with kinds, and checks each it made, plain and
    frozen. Returns the kinds it skipped {kind: why}."""
    p, line = T.start([T.target("memkinds"), tmp] + kinds)
    f = T.ready_fields(line)
    # SysV segments outlive the target unless removed (IPC_RMID): the
    # ones it keeps are removed in main's end, whatever happens
    SEGMENTS.extend(v for k, v in f.items() if k.endswith("_id"))
    skipped = {k[:-5]: str(v) for k, v in f.items() if k.endswith("_skip")}
    if ready_wait:
        ready_wait(p.pid, f)
    T.sigstop(p.pid)
    for extra in ((), ("-F",)):
        label = "%s%s" % (name, " -F" if extra else "")
        snap, km = stable_smaps(p.pid, lambda: T.vmscope_json(p.pid, *extra))
        if km is None:
            T.skip("%s: every kind" % label, "the stopped target kept "
                   "changing while it was read")
            continue
        for kind in kinds:
            if kind in skipped:
                T.skip("%s: %s" % (label, kind), skipped[kind])
                continue
            for key in (kind, kind + "_2"):
                if key in f and key in KINDS:
                    check_kind(label, snap, km, key, f[key])
        # the whole process: its Rss, Swap and hugetlb pages add up to
        # smaps' (read around the capture) and vmscope's own check agrees
        T.eq(tuple(sum(r.get(c) or 0 for r in snap["regions"])
                   for c in ("rss", "swap", "hugetlb")),
             tuple(sum(k.get(key, 0) for k in km for key in keys)
                   for keys in (("Rss",), ("Swap",),
                                ("Private_Hugetlb", "Shared_Hugetlb"))),
             "%s: sum rss, swap, hugetlb over regions == smaps'" % label)
        T.ok(str(snap["capture"].get("rollup_check")).startswith("agrees"),
             "%s: vmscope's own check with smaps_rollup agrees" % label,
             snap["capture"].get("rollup_check"))
        if extra_check:
            extra_check(label, p.pid, snap, km, f)
    T.sigcont(p.pid)
    T.kill(p)
    return skipped


def check_mlockall(label, pid, snap, km, f):
    """mlockall: every region's Locked is smaps' (where no other process
    maps its pages: smaps' Locked is the Pss of the locked pages, which
    moves as other processes map or unmap a library's)."""
    by = {(x["start"], x["end"]): x for x in km}
    bad, n = [], 0
    for r in snap["regions"]:
        k = by.get((T.hexint(r["start"]), T.hexint(r["end"])), {})
        if k.get("Shared_Clean", 0) + k.get("Shared_Dirty", 0):
            continue
        n += 1
        if r["locked"] != k.get("Locked", 0):
            bad.append((r["start"], r["path"], r["locked"], k.get("Locked")))
    T.ok(n and not bad, "%s: mlockall: every region's locked is smaps' "
         "Locked (%d regions of pages it alone maps)" % (label, n), bad[:5])
    # rounded down to a K a region as Pss is; the rollup rounds once
    got, ro = snap["totals"]["locked_ws"], T.rollup(pid)["Locked"]
    T.ok(0 <= ro - got < 1024 * len(snap["regions"]),
         "%s: mlockall: totals.locked_ws is smaps_rollup's Locked within "
         "its rounding" % label, "sum %d, rollup %d" % (got, ro))


def check_hugetlb(label, pid, snap, km, f):
    ro = T.rollup(pid)
    total = sum(r.get("hugetlb") or 0 for r in snap["regions"])
    T.eq(total, ro.get("Private_Hugetlb", 0) + ro.get("Shared_Hugetlb", 0),
         "%s: sum hugetlb == smaps_rollup's Private_Hugetlb + "
         "Shared_Hugetlb" % label)
    T.eq(total, T.status_kb(pid, "HugetlbPages"),
         "%s: ... and status HugetlbPages" % label)
    kr = snap["capture"].get("kernel_rollup") or {}
    T.eq((kr.get("private_hugetlb"), kr.get("shared_hugetlb")),
         (ro.get("Private_Hugetlb", 0), ro.get("Shared_Hugetlb", 0)),
         "%s: capture.kernel_rollup has the rollup's two" % label)
    notes = [n["text"] for n in snap["notes"]]
    T.ok(any("hugetlb" in n and " %d bytes" % total in n for n in notes),
         "%s: a note says the %d bytes of hugetlb pages are in no Rss"
         % (label, total), notes)


def check_secret(label, pid, snap, km, f):
    if "secret" not in f:
        return
    r = T.region_of(snap, f["secret"])
    T.ok(r and "unreadable" in r["state"],
         "%s: memfd_secret's region is unreadable" % label,
         r and r["state"])


class Setting:
    """A sysfs or procfs value set for a while and put back exactly."""

    def __init__(self, path):
        self.path = path
        with open(path) as f:
            text = f.read().strip()
        m = re.search(r"\[(\S+)\]", text)  # "a [b] c": the one in force
        self.old = m.group(1) if m else text

    def set(self, value):
        with open(self.path, "w") as f:
            f.write(str(value))

    def now(self):
        with open(self.path) as f:
            text = f.read().strip()
        m = re.search(r"\[(\S+)\]", text)
        return m.group(1) if m else text

    def restore(self):
        """Puts the value back; says so only after, as what prints may
        fail (a closed output) and must not keep it from being put
        back."""
        try:
            self.set(self.old)
        finally:
            T.eq(self.now(), self.old, "%s put back (%s)" % (self.path,
                                                              self.old))


def hugetlb_group(tmp):
    path = "/proc/sys/vm/nr_hugepages"
    if os.geteuid() != 0 or not os.path.exists(path):
        T.skip("hugetlb kinds", "needs root and a kernel with hugetlb pages")
        return
    nr = Setting(path)
    mnt = os.path.join(tmp, "htlb")
    mounted = False
    try:
        free = int(re.search(r"HugePages_Free:\s+(\d+)",
                             open("/proc/meminfo").read()).group(1))
        want = int(nr.old) + max(0, HUGETLB_PAGES - free)
        nr.set(want)
        if int(nr.now()) < want:
            T.skip("hugetlb kinds", "the kernel could reserve only %s of "
                   "%d huge pages" % (nr.now(), want))
            return
        os.mkdir(mnt)
        mounted = subprocess.run(["mount", "-t", "hugetlbfs", "none", mnt],
                                 capture_output=True).returncode == 0
        run_group("hugetlb", HUGETLB, tmp, check_hugetlb)
    finally:
        # the target first (a failure may leave it running): its pages
        # hold the mount and the pool
        T.cleanup()
        try:
            if mounted:
                r = subprocess.run(["umount", mnt], capture_output=True)
                T.ok(r.returncode == 0, "hugetlb: the test's hugetlbfs "
                     "is unmounted", r.stderr)
        finally:
            nr.restore()


def thp_shmem_group(tmp):
    path = "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
    if os.geteuid() != 0 or not os.path.exists(path):
        T.skip("shmem with huge pages", "needs root and a kernel with "
               "transparent huge pages")
        return
    s = Setting(path)
    try:
        s.set("advise")
        run_group("thp_shmem", ["thp_shmem"], tmp)
    finally:
        T.cleanup()
        s.restore()


def ksm_group(tmp):
    base = "/sys/kernel/mm/ksm/"
    if os.geteuid() != 0 or not os.path.exists(base + "run"):
        T.skip("ksm", "needs root and a kernel with KSM")
        return
    run, sleep, scan = (Setting(base + k) for k in
                        ("run", "sleep_millisecs", "pages_to_scan"))
    merged = []

    def wait_merged(pid, f):
        # ksmd merges the two copies' 1,024 pages into one; it is the
        # only process to look at them (MADV_MERGEABLE), bounded in time
        sleep.set(10)
        scan.set(5000)
        run.set(1)
        deadline = time.time() + 120
        path = "/proc/%d/ksm_merging_pages" % pid
        while time.time() < deadline and os.path.exists(path):
            with open(path) as fh:
                if int(fh.read()) >= 1024:
                    merged.append(True)
                    break
            time.sleep(0.02)
        run.set(run.old)  # merged pages stay merged; the target holds still

    try:
        run_group("ksm", ["ksm"], tmp, ready_wait=wait_merged)
        T.ok(merged, "ksm: ksmd merged the target's pages")
    finally:
        T.cleanup()
        try:
            run.restore()
        finally:
            try:
                sleep.restore()
            finally:
                scan.restore()


def swap_group(tmp):
    def swap_total():
        return int(re.search(r"SwapTotal:\s+(\d+)",
                             open("/proc/meminfo").read()).group(1))
    own = None
    if swap_total() == 0:
        if os.environ.get("VMSCOPE_TEST_SWAPFILE") != "1" or \
                os.geteuid() != 0:
            T.skip("swap", "the machine has no swap (VMSCOPE_TEST_SWAPFILE=1 "
                   "makes a swap file for the test's duration, as root: "
                   "swap is the machine's, other tests beside it see it)")
            return
        own = os.path.join(tmp, "swapfile")
    try:
        if own:
            with open(own, "wb") as fh:
                fh.write(bytes(64 << 20))
            os.chmod(own, 0o600)
            if subprocess.run(["mkswap", own], capture_output=True
                              ).returncode != 0 or \
                    subprocess.run(["swapon", own], capture_output=True
                                   ).returncode != 0:
                T.skip("swap", "no swap file could be made here")
                own = None
                return
        run_group("swap", ["swap"], tmp)
    finally:
        T.cleanup()
        if own:
            subprocess.run(["swapoff", own])
            T.ok(own not in open("/proc/swaps").read(),
                 "swap: the test's swap file is off again")


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-memkinds-")
    os.chmod(tmp, 0o755)
    try:
        run_group("plain", PLAIN, tmp, check_secret)
        run_group("mlockall", ["mlockall", "mlock", "cow"], tmp,
                  check_mlockall)
        hugetlb_group(tmp)
        thp_shmem_group(tmp)
        ksm_group(tmp)
        swap_group(tmp)
    finally:
        T.cleanup()
        for shmid in SEGMENTS:  # gone already where removed at once
            subprocess.run(["ipcrm", "-m", str(shmid)], capture_output=True)
        for name in os.listdir("/dev/shm"):
            if re.match(r"memkinds-\d+$", name) and not os.path.exists(
                    "/proc/" + name[9:]):
                os.unlink(os.path.join("/dev/shm", name))
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
