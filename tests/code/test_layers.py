"""test_layers — the code's layering, read from the built objects' symbols
(one nm run over every object) and the sources' includes.

The engine's folders are layers, lowest first, in the order of the
Makefile's SRC_DIRS (base, elf, model, linux, capture/ptrace, capture/file,
capture, trace, analyze, analyze/heaps, analyze/runtimes, export, then src/
itself for the pipeline and the preview). The UI's folders are layers the same way, in the order
of the Makefile's UI_DIRS (ui/core, ui/panes, ui/screens, then ui/ itself
for the loop and the table of screens). The test fails when:
  - an engine object uses a symbol defined in a later folder, or an engine
    source includes a header of a later folder (a back edge);
  - the engine's objects (build/src/**/*.o) have a cycle;
  - a UI object uses a symbol defined in a later UI folder, or a UI source
    includes a header of a later UI folder (headers by their path under
    ui/: "core/draw.h"; ui.h is ui/'s own);
  - the UI's objects (build/ui/**/*.o) have a cycle;
  - a UI object uses a symbol of the freezer, the parsers (smaps, procfs),
    the memory reader, the smaps reader thread, or any sampler, fork or
    inject file: the UI reaches the engine through its pipeline only;
  - a file under src/ includes curses (the engine never draws);
  - an engine or UI object uses a symbol of the command line (cli/), which
    sits on top of both.
The rules are tested on a made-up graph first, so the test itself can fail.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

# Engine objects the UI may not use directly.
FORBIDDEN = re.compile(r"^(freeze|smaps|procfs|memread|readahead|sampler_\w+|"
                       r"fork_\w+|inject_\w+)$")


def all_symbols(objs):
    """{object: (defined, undefined)} global symbol names, from one nm run
    (nm -A prefixes each line with its object's path)."""
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True,
                         text=True, check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        path, _, rest = line.partition(": ")
        if path not in syms:
            path, _, rest = line.partition(":")
        parts = rest.split()
        if path not in syms:
            continue
        if len(parts) == 2 and parts[0] == "U":
            syms[path][1].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVWGSC":
            syms[path][0].add(parts[2])
    return syms


_SYMS = {}


def graph(objs):
    """{name: set(names it uses)} over the objects given."""
    syms = {os.path.basename(o)[:-2]: _SYMS[o] for o in objs}
    owner = {}
    for name, (defined, _) in syms.items():
        for s in defined:
            owner[s] = name
    return {name: {owner[s] for s in und if s in owner and owner[s] != name}
            for name, (_, und) in syms.items()}, owner


def cycles(g):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def layers(makefile, var="SRC_DIRS"):
    """A part's folders, lowest first: the Makefile's SRC_DIRS (the
    engine) or UI_DIRS (the UI)."""
    text = open(makefile).read().replace("\\\n", " ")
    m = re.search(r"^%s\s*:=(.*)$" % var, text, re.M)
    return m.group(1).split() if m else []


def include_edges(root, folders, base):
    """(folder_a, file_a, folder_b, header_b) of every quoted include in
    the sources of folders (each alone, not its subfolders), the header's
    folder read as a path under base ("src", "ui"); an include that is no
    file there (an engine header in the UI) is left out."""
    out = []
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(root, folder, "*.[ch]"))):
            with open(path, errors="replace") as f:
                text = f.read()
            for m in re.finditer(r'^#\s*include\s*"([^"]+)"', text, re.M):
                if not os.path.exists(os.path.join(root, base, m.group(1))):
                    continue
                fb = os.path.dirname(os.path.join(base, m.group(1)))
                out.append((folder, os.path.basename(path), fb,
                            os.path.basename(m.group(1))))
    return out


def back_edges(order, edges):
    """The (a, b) of edges whose b's folder comes after a's in order.
    edges: (folder_a, name_a, folder_b, name_b)."""
    rank = {d: i for i, d in enumerate(order)}
    return sorted({"%s/%s -> %s/%s" % (fa, a, fb, b)
                   for fa, a, fb, b in edges
                   if fa in rank and fb in rank and rank[fb] > rank[fa]})


def uses(obj_name, objs_used, g_all):
    return sorted(u for u in g_all.get(obj_name, ()) if u in objs_used)


def main():
    # The rules on made-up graphs: a cycle is found, a chain is not.
    T.eq(cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}),
         [["a", "b", "c"]], "self-check: a three-file cycle is found")
    T.eq(cycles({"a": {"b"}, "b": {"c"}, "c": set()}), [],
         "self-check: a one-way chain has no cycle")
    T.ok(FORBIDDEN.match("sampler_pss") and FORBIDDEN.match("freeze")
         and not FORBIDDEN.match("pipeline"),
         "self-check: the forbidden set names the samplers, not the pipeline")

    T.eq(back_edges(["src/base", "src/model"],
                    [("src/base", "x", "src/model", "y"),
                     ("src/model", "y", "src/base", "x")]),
         ["src/base/x -> src/model/y"],
         "self-check: a lower folder using a higher one is a back edge")

    build = T.BUILD
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))

    def objects(folder):
        """The objects of the sources under folder, its subfolders
        included (not stale ones). eBPF programs (*.bpf.c) are built for
        the kernel and embedded as skeletons, never linked: left out."""
        return sorted(os.path.join(build, os.path.relpath(c, root)[:-2]
                                   + ".o")
                      for c in glob.glob(os.path.join(root, folder, "**",
                                                      "*.c"), recursive=True)
                      if not c.endswith(".bpf.c"))

    engine, ui = objects("src"), objects("ui")
    missing = [o for o in engine + ui if not os.path.exists(o)]
    if not engine or not ui or missing:
        T.ok(False, "the objects are built", missing)
        return T.done()

    _SYMS.update(all_symbols(engine + ui + objects("cli")))
    order = layers(os.path.join(root, "Makefile"))
    T.ok(len(order) >= 8 and order[0] == "src/base",
         "the Makefile lists the engine's layers (%d)" % len(order), order)
    folder_of = {os.path.basename(o)[:-2]:
                 os.path.dirname(os.path.relpath(o, build)) for o in engine}
    listed = sorted(set(folder_of.values()) - set(order))
    T.eq(listed, [], "every engine folder is a layer in SRC_DIRS")

    # Back edges by symbol: an object using one of a later folder.
    g_engine, _ = graph(engine)
    edges = [(folder_of[a], a, folder_of[b], b)
             for a, bs in g_engine.items() for b in bs]
    T.eq(back_edges(order, edges), [],
         "no engine object uses a symbol of a later folder (%d objects, "
         "%d folders)" % (len(engine), len(order)))
    # ... and by include: a header of a later folder.
    inc_edges = []
    for path in glob.glob(os.path.join(root, "src", "**", "*.[ch]"),
                          recursive=True):
        fa = os.path.dirname(os.path.relpath(path, root))
        with open(path, errors="replace") as f:
            for m in re.finditer(r'^#\s*include\s*"([^"]+)"', f.read(),
                                 re.M):
                fb = os.path.dirname(os.path.join("src", m.group(1)))
                inc_edges.append((fa, os.path.basename(path), fb,
                                  os.path.basename(m.group(1))))
    T.eq(back_edges(order, inc_edges), [],
         "no engine source includes a header of a later folder")


    found = cycles(g_engine)
    T.eq(found, [], "no cycle among the engine's %d objects" % len(engine))

    # The UI's folders, the same way: by symbol and by include.
    ui_order = layers(os.path.join(root, "Makefile"), "UI_DIRS")
    T.ok(len(ui_order) >= 3 and ui_order[-1] == "ui",
         "the Makefile lists the UI's layers (%d)" % len(ui_order), ui_order)
    ui_folder = {os.path.basename(o)[:-2]:
                 os.path.dirname(os.path.relpath(o, build)) for o in ui}
    T.eq(sorted(set(ui_folder.values()) - set(ui_order)), [],
         "every UI folder is a layer in UI_DIRS")
    g_ui, _ = graph(ui)
    edges = [(ui_folder[a], a, ui_folder[b], b)
             for a, bs in g_ui.items() for b in bs]
    T.eq(back_edges(ui_order, edges), [],
         "no UI object uses a symbol of a later UI folder (%d objects, "
         "%d folders)" % (len(ui), len(ui_order)))
    T.eq(back_edges(ui_order, include_edges(root, ui_order, "ui")), [],
         "no UI source includes a header of a later UI folder")
    found = cycles(g_ui)
    T.eq(found, [], "no cycle among the UI's %d objects" % len(ui))

    # The UI over the engine: which engine objects each UI object uses.
    g_all, _ = graph(engine + ui)
    engine_names = {os.path.basename(o)[:-2] for o in engine}
    bad = {}
    for o in ui:
        name = os.path.basename(o)[:-2]
        used = [u for u in uses(name, engine_names, g_all)
                if FORBIDDEN.match(u)]
        if used:
            bad[name] = used
    T.eq(bad, {}, "the UI uses no freezer, parser, memory reader, sampler, "
         "fork or inject object (only the pipeline and the model)")

    # The engine never draws.
    drawing = []
    for path in glob.glob(os.path.join(root, "src", "**", "*.[ch]"),
                          recursive=True):
        with open(path, errors="replace") as f:
            if re.search(r'#\s*include\s*[<"](n?curses|ncursesw/)', f.read()):
                drawing.append(os.path.basename(path))
    T.eq(drawing, [], "no engine file includes curses")

    # The command line sits on top: nothing below it uses it.
    cli = objects("cli")
    g_top, _ = graph(engine + ui + cli)
    cli_names = {os.path.basename(o)[:-2] for o in cli}
    below = {os.path.basename(o)[:-2]: uses(os.path.basename(o)[:-2],
                                            cli_names, g_top)
             for o in engine + ui}
    T.ok(cli and not any(below.values()),
         "no engine or UI object uses the command line's (%d objects)"
         % len(cli), {k: v for k, v in below.items() if v})
    return T.done()


if __name__ == "__main__":
    main()
