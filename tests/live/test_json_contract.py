#!/usr/bin/env python3
"""The JSON export keeps DESIGN.md's contract (version 1), key by key:
every key the contract names is there, at its place, whatever the
snapshot's origin: a live capture with each sampler (pss, -F, fork), a
snapshot saved with -w and loaded with -l, and the diff of two (`-d A B
-e json`). Keys json.md adds for every region (`state`, a list;
`build_id`, null where there is none) are there on every region, and the
top-level `notes` say the same as `capture.missing` (DESIGN.md's name
and json.md's, one list). The contract is written out below from
DESIGN.md, so that a key renamed or dropped fails here; fields are only
ever added. The figures themselves are the other live tests' (test_rollup
and the rest tie them to the kernel's)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

# DESIGN.md, "JSON export": {key: sub-contract}; a list holds the contract
# of each element; None: a value of any kind.
FIGS = ["size", "committed", "private", "ws", "private_ws", "shareable_ws",
        "shared_ws", "locked_ws", "pss"]
CONTRACT = {
    "format": None, "version": None,
    "process": {"pid": None, "name": None, "cmdline": None, "exe": None},
    "capture": {"backend": None, "frozen_us": None, "taken_at": None,
                "kernel": None, "page_size": None, "monotonic_ns": None},
    "totals": {k: None for k in FIGS + ["uss", "swap", "page_table",
                                        "largest_free"]},
    "types": [{k: None for k in ["type"] + FIGS + ["swap", "blocks",
                                                   "largest"]}],
    "regions": [dict({k: None for k in [
        "start", "end", "perms", "offset", "dev", "inode", "path", "type",
        "detail", "size", "committed", "private", "rss", "pss",
        "private_clean", "private_dirty", "shared_clean", "shared_dirty",
        "swap", "swap_pss", "locked", "anon_huge", "vmflags",
        # json.md's, on every region
        "state", "build_id"]},
        children=[{"name": None, "start": None, "end": None,
                   "size": None}])],
    "threads": [{k: None for k in ["tid", "name", "sp", "stack_start",
                                   "stack_end"]}],
    "heaps": [{"kind": None, "id": None,
               "segments": [{"start": None, "end": None}],
               "in_use": None, "free": None, "free_resident": None,
               "chunks": None, "free_chunks": None, "top": None,
               "mmapped": None}],
    "malloc": None,
    "allocator": None,
    "managed": [{"runtime": None, "start": None, "end": None,
                 "reserved": None, "committed": None, "used": None,
                 "figures": None, "detail": None,
                 "parts": [{"name": None, "capacity": None, "used": None,
                            "max": None, "in_heap": None}]}],
    "notes": [{"step": None, "text": None}],
}
SIDE = {k: CONTRACT[k] for k in ("process", "capture", "totals", "types")}
DIFF_COLS = {k: None for k in FIGS + ["swap", "blocks"]}
DIFF = {
    "format": None, "version": None, "a": SIDE, "b": SIDE,
    "changes": {
        "types": [{"type": None, "a": DIFF_COLS, "b": DIFF_COLS}],
        "regions": [{"change": None, "start": None, "end": None,
                     "type": None, "path": None, "a": None, "b": None}]}}


def lacks(doc, contract, at="$"):
    """Where doc lacks a key of contract: a list of paths."""
    out = []
    if contract is None:
        return out
    if isinstance(contract, list):
        if not isinstance(doc, list):
            return ["%s: not a list (%s)" % (at, type(doc).__name__)]
        for i, el in enumerate(doc):
            out += lacks(el, contract[0], "%s[%d]" % (at, i))
        return out
    if not isinstance(doc, dict):
        return ["%s: not an object (%s)" % (at, type(doc).__name__)]
    for k, sub in contract.items():
        if k not in doc:
            out.append("%s.%s" % (at, k))
        elif doc[k] is not None:
            out += lacks(doc[k], sub, "%s.%s" % (at, k))
    return out


def check(doc, contract, what):
    missing = lacks(doc, contract)
    T.eq(missing[:10], [], "%s: every key of DESIGN.md's contract" % what)


def check_snapshot(doc, what):
    T.eq(doc.get("format"), "vmscope", "%s: format" % what)
    check(doc, CONTRACT, what)
    T.ok(all(isinstance(r.get("state"), list) for r in doc["regions"]),
         "%s: every region's state is a list" % what,
         [r.get("state") for r in doc["regions"]][:5])
    # (an image's bss and the vdso have none it reads)
    imgs = [r for r in doc["regions"] if r["type"] == "image" and
            (r["path"] or "").startswith("/")]
    T.ok(imgs and all(isinstance(r["build_id"], str) for r in imgs),
         "%s: an image file's region has its build id" % what,
         [(r["path"], r["build_id"]) for r in imgs][:5])
    T.ok(all(r["build_id"] is None for r in doc["regions"]
             if r["type"] in ("stack", "heap", "free")),
         "%s: a stack's or heap's build_id is null" % what)
    T.eq([(n["step"], n["text"]) for n in doc["notes"]],
         [(n["step"], n["why"]) for n in doc["capture"]["missing"]],
         "%s: notes are capture.missing's" % what)


def main():
    p, line = T.start([T.target("everykind")])
    try:
        live = {}
        for what, extra in (("pss", ()), ("pss -F", ("-F",)),
                            ("fork", ("-b", "fork"))):
            live[what] = T.vmscope_json(p.pid, *extra)
            check_snapshot(live[what], what)
        # a sampler that cannot do a step says so in both lists: the
        # malloc walk of a running target is not of one instant
        T.ok(any(n["step"] == "malloc" for n in live["pss"]["notes"]),
             "pss of a running target: a note says why malloc is missing",
             live["pss"]["notes"])
        with tempfile.TemporaryDirectory() as tmp:
            snap = os.path.join(tmp, "a.vms")
            r = T.run_vmscope("-w", snap, "-s", str(p.pid))
            T.eq(r.returncode, 0, "-w: exit 0")
            r = T.run_vmscope("-l", snap, "-e", "json")
            T.eq(r.returncode, 0, "-l -e json: exit 0")
            check_snapshot(json.loads(r.stdout), "loaded")
            r = T.run_vmscope("-d", snap, str(p.pid), "-e", "json")
            T.eq(r.returncode, 0, "-d -e json: exit 0")
            d = json.loads(r.stdout)
            T.eq(d.get("format"), "vmscope-diff", "diff: format")
            check(d, DIFF, "diff")
    finally:
        T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
