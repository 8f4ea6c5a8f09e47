#!/usr/bin/env python3
"""What a core dump does not hold is unknown in every output, never 0.

DESIGN.md: "A figure vmscope cannot know is null, never 0, and a note says
why"; vmscope(1), COLUMNS: such a figure is shown as -. The core is
gcore's of core_facts (tests/targets/core_facts.c: 64 MiB MAP_NORESERVE,
1 MiB of it written, so Private Data's Committed is not known either),
which runs on meanwhile for the diffs against it. `-l CORE -e json` is
the reference (test_core.py checks its nulls against the live figures):
  - -e openmetrics: promtool accepts it; every per-type figure null in
    the JSON is no sample, every other one the JSON's value; a family
    whose figures are all null (ws, pss, swap ...) is left out, and so
    are the capture's duration and freeze (not known);
  - -e text: each region row prints '-' where the JSON has null
    (WS, Private WS, PSS, Swap; Committed of anonymous memory), the
    figure where it has one;
  - -d CORE PID (the live process) in JSON, CSV and -s: a figure one side
    does not know is null (empty, '-'), and so is its change: no growth
    from 0 is made up; a change known on both sides is B - A;
  - the JSON's capture: frozen_us, duration_us, monotonic_ns and kernel
    null (a core does not say them), and capture.missing has a note, the
    words of -s's "- : not known: ..." line, saying why the counters are
    null.
Skipped when gcore is not installed.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import vmstest as T  # noqa: E402
from test_openmetrics import parse  # noqa: E402

TITLE = "core_unknowns, a title past sixteen bytes"


def run(*args):
    r = T.run_vmscope(*args)
    T.ok(r.returncode == 0, "vmscope %s exits 0" % " ".join(
        str(a) for a in args[1:]), r.stderr.decode(errors="replace")[-500:])
    return r.stdout.decode(errors="replace")


def openmetrics(core, snap, tmp):
    text = run("-l", core, "-e", "openmetrics")
    path = os.path.join(tmp, "core.prom")
    with open(path, "w") as f:
        f.write(text)
    if shutil.which("promtool"):
        with open(path) as f:
            r = subprocess.run(["promtool", "check", "metrics"], stdin=f,
                               capture_output=True, timeout=60)
        T.ok(r.returncode == 0, "promtool check metrics accepts the core's "
             "exposition", (r.stdout + r.stderr).decode()[-800:])
    else:
        T.skip("promtool accepts the core's exposition", "no promtool")
    try:
        fams = parse(text)
    except ValueError as e:
        T.ok(False, "the core's exposition is well-formed", str(e))
        return
    samples, nulls, wrong = {}, [], []
    for fam, f in fams.items():
        for lab, v in f["samples"]:
            if "type" in lab:
                samples[(fam, lab["type"])] = v
    families = {}
    for t in snap["types"]:
        for key, value in t.items():
            if key == "type":
                continue
            fam = "vmscope_%s" % key if key == "blocks" else \
                "vmscope_%s_bytes" % key
            families.setdefault(fam, []).append(value)
            got = samples.get((fam, t["type"]))
            if value is None and got is not None:
                nulls.append((fam, t["type"], got))
            elif value is not None and got != str(value):
                wrong.append((fam, t["type"], value, got))
    T.eq(nulls, [], "openmetrics: a figure null in the JSON is no sample "
         "(never 0)")
    T.eq(wrong, [], "openmetrics: every figure the JSON knows is a sample "
         "of its value")
    allnull = sorted(f for f, v in families.items()
                     if all(x is None for x in v))
    T.ok("vmscope_ws_bytes" in allnull and "vmscope_pss_bytes" in allnull,
         "openmetrics: ws and pss are null for every type", allnull)
    T.eq(sorted(f for f in allnull if f in fams), [],
         "openmetrics: a family whose every figure is null is left out")
    T.ok("vmscope_committed_bytes" in fams and not any(
        lab.get("type") in ("private_data", "page_table")
        for lab, _ in fams["vmscope_committed_bytes"]["samples"]),
        "openmetrics: committed is there, without private_data's and "
        "page_table's (not known)", fams.get("vmscope_committed_bytes"))
    T.ok("vmscope_capture_duration_seconds" not in fams and
         "vmscope_frozen_seconds" not in fams and
         "vmscope_capture_timestamp_seconds" in fams,
         "openmetrics: the capture's duration and freeze (not known) are "
         "left out, its time is there", sorted(fams))


def text_rows(core, snap):
    """-e text's region rows: '-' exactly where the JSON has null."""
    text = run("-l", core, "-e", "text")
    lines = text.splitlines()
    head = [x for x in lines if x.startswith("Address ")]
    if not T.ok(len(head) == 1, "-e text has the regions' heading", head):
        return
    # the figures' cells: after "ADDR-ADDR " (34) and the type (13),
    # each ending under its heading's end, in the order of the heading
    names = ["Size", "Committed", "WS", "Private WS", "PSS", "Swap"]
    m = re.search(r"\s+".join("(%s)" % n for n in names) + r"\s+Prot",
                  head[0])
    if not T.ok(m, "-e text's figure columns: %s" % ", ".join(names),
                head[0]):
        return
    ends = [47] + [m.end(i + 1) for i in range(len(names))]
    cols = [(n, ends[i], ends[i + 1]) for i, n in enumerate(names)]
    keys = {"Size": "size", "Committed": "committed", "WS": "rss",
            "Private WS": "private_ws", "PSS": "pss", "Swap": "swap"}
    by = {T.hexint(r["start"]): r for r in snap["regions"]}
    rows = [x for x in lines if re.match(r"^[0-9a-f]{16}-[0-9a-f]{16} ", x)]
    bad, dashes = [], 0
    for row in rows:
        r = by.get(int(row[:16], 16))
        if r is None:
            bad.append(("no such region", row))
            continue
        for name, lo, hi in cols:
            cell = row[lo:hi].strip()
            known = r[keys[name]] is not None
            dashes += cell == "-"
            if known == (cell == "-") or (known and cell.startswith("0 ")
                                          and r[keys[name]] > 1023):
                bad.append((r["start"], name, cell, r[keys[name]]))
    T.eq(len(rows), len(snap["regions"]), "-e text: a row per region")
    T.eq(bad[:6], [], "-e text: each region's cell is '-' where the JSON "
         "has null, a figure where it has one (%d '-')" % dashes)
    T.ok(not any(re.search(r"\b0 K\b", row[cols[2][1]:cols[-1][2]])
                 for row in rows),
         "-e text: no region row prints 0 K for Rss, PSS or Swap")


def delta_ok(a, b, d, absent_a=False, absent_b=False):
    """Whether delta d of figures a, b (None: not known; absent: the side
    has no such region, 0) is what it must be."""
    if (a is None and not absent_a) or (b is None and not absent_b):
        return d is None
    return d == (b or 0) - (a or 0)


def diff_json(core, pid):
    d = json.loads(run("-d", core, pid, "-e", "json"))
    bad = []
    for t in d["changes"]["types"]:
        for k, dv in t["delta"].items():
            if not delta_ok(t["a"][k], t["b"][k], dv):
                bad.append((t["type"], k, t["a"][k], t["b"][k], dv))
    T.eq(bad, [], "-d CORE PID -e json: a type's delta is null where a "
         "side is, else B - A")
    pd = next(t for t in d["changes"]["types"]
              if t["type"] == "private_data")
    T.ok(pd["a"]["committed"] is None and pd["a"]["ws"] is None and
         pd["delta"]["committed"] is None and pd["delta"]["ws"] is None and
         pd["b"]["committed"] and pd["b"]["ws"],
         "-d CORE PID -e json: Private Data's committed and ws are null in "
         "A and in the delta, known in B (no growth from 0)", pd)
    T.eq([t["a"]["ws"] for t in d["changes"]["types"]
          if t["a"]["ws"] is not None], [],
         "-d CORE PID -e json: A's ws is null for every type (not 0)")
    bad = []
    for c in d["changes"]["regions"]:
        for k, dv in c["delta"].items():
            a = c["a"][k] if c["a"] else None
            b = c["b"][k] if c["b"] else None
            if not delta_ok(a, b, dv, c["a"] is None, c["b"] is None):
                bad.append((c["change"], c["start"], k, a, b, dv))
    T.eq(bad[:6], [], "-d CORE PID -e json: a region change's delta is "
         "null where a side it has is, else B - A (%d changes)"
         % len(d["changes"]["regions"]))
    return d


def diff_csv(core, pid, d):
    rows = list(csv.DictReader(io.StringIO(run("-d", core, pid, "-e",
                                               "csv"))))
    types = {t["type"]: t for t in d["changes"]["types"]}
    bad = []
    for r in rows:
        if r["record"] != "type":
            continue
        t = types[r["type"]]
        for k in t["delta"]:
            # A (the core) as the JSON's; B (live, read again) and the
            # change: empty where the JSON's are null, else a number
            want = ["" if t["a"][k] is None else str(t["a"][k])] + [
                "" if x is None else "n" for x in (t["b"][k],
                                                   t["delta"][k])]
            got = [r["a_" + k]] + [
                "" if x == "" else "n" if re.match(r"^-?\d+$", x) else x
                for x in (r["b_" + k], r["delta_" + k])]
            if got != want:
                bad.append((r["type"], k, got, want))
    T.ok(len([r for r in rows if r["record"] == "type"]) == len(types),
         "-d CORE PID -e csv: a row per type")
    T.eq(bad[:6], [], "-d CORE PID -e csv: each type's cells are empty "
         "where the JSON's are null (the change too), A's the JSON's")
    pd = next(r for r in rows if r["record"] == "type" and
              r["type"] == "private_data")
    T.ok(pd["a_committed"] == "" and pd["delta_committed"] == "" and
         pd["delta_ws"] == "",
         "-d CORE PID -e csv: Private Data's committed and ws change are "
         "empty, not B's figures", pd)


def diff_summary(core, pid):
    out = run("-d", core, pid, "-s")
    rows = {x[:14].strip(): x[14:].split() for x in out.splitlines()
            if x[:14].strip() in ("Private Data", "Total", "Heap")}
    # Committed A, B, change; Private A, B, change; Total WS A, B, change
    pd, tot = rows.get("Private Data"), rows.get("Total")
    T.ok(pd and pd[0] == "-" and pd[3] == "-" and pd[-3] == "-",
         "-d CORE PID -s: Private Data's committed and WS in A are '-'",
         pd)
    T.ok(pd and tot and "-" in (pd[3], pd[4]) and
         not any(x.startswith("+") for x in pd + tot),
         "-d CORE PID -s: no change from an unknown A is printed as "
         "growth (no '+' in Private Data's and Total's rows)", (pd, tot))


def capture(snap, core):
    c = snap["capture"]
    T.eq({k: c[k] for k in ("frozen_us", "duration_us", "monotonic_ns",
                            "kernel")},
         {"frozen_us": None, "duration_us": None, "monotonic_ns": None,
          "kernel": None},
         "the core's capture: frozen_us, duration_us, monotonic_ns and "
         "kernel are null (not said by a core), not 0 and '?'")
    summary = run("-l", core, "-s")
    line = [x for x in summary.splitlines() if x.startswith("- : not known")]
    notes = [n for n in c["missing"] if n.get("step") and n.get("why")]
    T.ok(len(line) == 1 and any(n["why"] in line[0] and "Rss" in n["why"]
                                for n in notes),
         "capture.missing says why the counters are null, in the words "
         "of -s's line", (c["missing"], line))
    T.ok("frozen 0 us" not in summary, "-s does not say 'frozen 0 us'",
         summary.splitlines()[:6])


def main():
    if not shutil.which("gcore"):
        T.skip("a core's unknowns in every output", "gcore is not "
               "installed")
        T.done()
        return
    p, _ = T.start([T.target("core_facts"), TITLE, "x" * len(TITLE)])
    tmp = tempfile.mkdtemp(prefix="vms-coreunk-")
    try:
        core = T.gcore(p.pid, tmp)
        snap = json.loads(run("-l", core, "-e", "json"))
        openmetrics(core, snap, tmp)
        text_rows(core, snap)
        capture(snap, core)
        d = diff_json(core, p.pid)
        diff_csv(core, p.pid, d)
        diff_summary(core, p.pid)
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
