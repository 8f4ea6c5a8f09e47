#!/usr/bin/env python3
"""A readable text summary (a stopped everykind target).

  - -s writes sizes with units: every size cell is "N K" below 10000 K,
    else "N.N M|G|T|P|E" below 10000 of its unit; the Free row and the
    largest free block (over 100 T on x86-64) read in T, not as a
    twelve-digit K figure;
  - each Size, Committed and Largest cell and the largest free block is
    exactly the JSON export's byte figure written that way (K, M, G, T
    each 1024 of the one before, one decimal, truncated);
  - -s --bytes writes the same cells as exact bytes, equal to JSON's;
  - -e text: the region rows use units too, and --bytes makes them exact;
  - CSV and JSON are unchanged by --bytes (the same bytes with and
    without it); --bytes without -s or -e is a usage error;
  - --help documents --bytes.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LABELS = ["Image", "Mapped File", "Shareable", "Heap", "Managed Heap",
          "Stack", "Private Data", "Page Table", "Total", "Free"]
JSON = {"Image": "image", "Mapped File": "mapped_file",
        "Shareable": "shareable", "Heap": "heap",
        "Managed Heap": "managed_heap", "Stack": "stack",
        "Private Data": "private_data", "Page Table": "page_table",
        "Free": "free"}
CELL = re.compile(r"\d+ K|\d+\.\d [MGTPE]")


def units(b):
    """units.h's units_size_long, as vmscope.1 (COLUMNS) states it."""
    k = b >> 10
    if k < 10000:
        return "%d K" % k
    v, u = float(k), 0
    while True:
        v /= 1024
        u += 1
        if v < 10000 or u == 5:
            break
    return "%.1f %s" % (int(v * 10) / 10, "KMGTPE"[u])


def rows(out):
    """{label: [cells]} of the summary table (cells split on 2+ blanks is
    not safe: "12.3 M" has one; so cells are matched as units or
    numbers)."""
    res = {}
    for l in out.splitlines():
        for lab in LABELS:
            if l.startswith(lab + " ") and re.match(
                    r"^%s\s+\d" % re.escape(lab), l):
                res[lab] = re.findall(r"\d+(?:\.\d)? [KMGTPE]|\d+",
                                      l[len(lab):])
    return res


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-sum-")
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "ek.dat")])
    try:
        T.sigstop(p.pid)
        s = T.run_vmscope("-s", p.pid).stdout.decode()
        sb = T.run_vmscope("-s", "--bytes", p.pid).stdout.decode()
        j = T.vmscope_json(p.pid)
        jb = T.vmscope_json(p.pid, "--bytes")
        text = T.run_vmscope("-e", "text", p.pid).stdout.decode()
        textb = T.run_vmscope("-e", "text", "--bytes", p.pid).stdout.decode()
        csv1 = T.run_vmscope("-e", "csv", p.pid).stdout
        csv2 = T.run_vmscope("-e", "csv", "--bytes", p.pid).stdout
        T.sigcont(p.pid)

        r = rows(s)
        T.eq(sorted(r), sorted(LABELS), "-s: every row")
        sizes = [c for lab in r for c in r[lab] if not c.isdigit()]
        T.ok(sizes and all(CELL.fullmatch(c) for c in sizes),
             "-s: every size cell has a unit (K, or M/G/T with a decimal)",
             [c for c in sizes if not CELL.fullmatch(c)])
        T.ok(re.search(r"^Free\s+\d+\.\d T", s, re.M) and
             re.search(r"^Largest free block: \d+\.\d T$", s, re.M),
             "-s: Free and the largest free block read in T",
             [l for l in s.splitlines() if "ree" in l])
        T.ok(not re.search(r"\d{6,} K", s), "-s: no six-digit K figure")

        ty = {t["type"]: t for t in j["types"]}
        want, got = {}, {}
        for lab in LABELS[:-2]:
            t = ty[JSON[lab]]
            want[lab] = [units(t["size"]), units(t["committed"]),
                         units(t["largest"])]
            got[lab] = [r[lab][0], r[lab][1], r[lab][-1]]
        want["Free"] = [units(ty["free"]["size"]),
                        units(ty["free"]["largest"])]
        got["Free"] = [r["Free"][0], r["Free"][-1]]
        T.eq(got, want, "-s: Size, Committed and Largest are the JSON "
             "bytes in units")
        T.ok("Largest free block: %s" % units(j["totals"]["largest_free"])
             in s, "-s: the largest free block is JSON's, in units")
        T.ok("--bytes" in s, "-s says how to get exact bytes")

        rb = rows(sb)
        want = {lab: [str(ty[JSON[lab]]["size"]),
                      str(ty[JSON[lab]]["committed"])]
                for lab in LABELS[:-2]}
        T.eq({lab: rb[lab][:2] for lab in want}, want,
             "-s --bytes: Size and Committed are JSON's exact bytes")
        T.ok("Largest free block: %d\n" % j["totals"]["largest_free"] in sb,
             "-s --bytes: the largest free block in exact bytes")

        reg = [l for l in text.splitlines() if re.match(r"^[0-9a-f]{16}-", l)]
        regb = [l for l in textb.splitlines()
                if re.match(r"^[0-9a-f]{16}-", l)]
        T.ok(reg and all(re.search(r"\d+(\.\d)? [KMGTPE]", l) for l in reg),
             "-e text: region rows in units", reg[:3])
        T.ok(regb and not any(re.search(r"\d [KMGT]\b", l) for l in regb),
             "-e text --bytes: region rows in bytes", regb[:3])
        for what, out, rs in (("", text, reg), (" --bytes", textb, regb)):
            head = [l for l in out.splitlines() if l.startswith("Address")]
            # each figure heading's right edge (Size ... Swap), where the
            # figures under it end
            ends = [m.end() for m in re.finditer(
                r"(?<= )(Size|Committed|WS|Private WS|PSS|Swap)(?= )",
                head[0])] if head else []
            off = [l for l in rs if any(
                e > len(l) or l[e - 1] == " " or l[e] != " " for e in ends)]
            T.ok(len(ends) == 6 and not off, "-e text%s: every region "
                 "row's figures end under their headings" % what,
                 (head[:1], off[:3]))
        kids = [l for l in text.splitlines()
                if re.match(r"^  [0-9a-f]{16}-[0-9a-f]{16} ", l)]
        want_kids = [(c["name"], int(c["end"], 16) - int(c["start"], 16))
                     for r in j["regions"] for c in r["children"]]
        sizes = {m.end(1) for m in (re.match(
            r"^  \S+ +(\d+(?:\.\d)? [BKMGT])  ", l) for l in kids) if m}
        T.ok(kids and len(sizes) == 1,
             "-e text: every child row's size ends in one column, whatever "
             "its name's length", kids[:6])
        small = [(n, sz) for n, sz in want_kids if sz < 1024]
        T.ok(small and all(any(l.endswith("%d B  %s" % (sz, n))
                               for l in kids) for n, sz in small[:20]),
             "-e text: a child under 1 K is in bytes (as the viewer)",
             (small[:5], kids[:5]))
        def shape(x):  # what no other process can move
            return (sorted(x), sorted(x["totals"]),
                    [(r["start"], r["end"], r["size"], r["committed"])
                     for r in x["regions"]])
        T.eq(shape(jb), shape(j), "-e json: --bytes changes nothing")
        T.ok(csv1.split(b"\n")[0] == csv2.split(b"\n")[0] and
             len(csv1.split(b"\n")) == len(csv2.split(b"\n")),
             "-e csv: --bytes changes nothing")
        r = T.run_vmscope("--bytes", p.pid)
        T.ok(r.returncode == 1 and b"--bytes" in r.stderr,
             "--bytes without -s or -e: usage error", r.stderr)
        r = T.run_vmscope("--help")
        T.ok(b"--bytes" in r.stdout, "--help documents --bytes")
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
