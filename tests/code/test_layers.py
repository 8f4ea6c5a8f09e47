"""test_layers — the code's layering, read from the built objects' symbols.

Each object file is a node; A -> B when A uses a symbol B defines (nm). The
test fails when:
  - the engine's objects (build/src/**/*.o) have a cycle;
  - the UI's objects (build/ui/*.o) have a cycle;
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


def symbols(obj):
    """(defined, undefined) global symbol names of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVWGSC":
            defined.add(parts[2])
    return defined, undefined


def graph(objs):
    """{name: set(names it uses)} over the objects given."""
    syms = {os.path.basename(o)[:-2]: symbols(o) for o in objs}
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

    build = T.BUILD
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))

    def objects(folder):
        """The objects of the sources under folder, its subfolders
        included (not stale ones)."""
        return sorted(os.path.join(build, os.path.relpath(c, root)[:-2]
                                   + ".o")
                      for c in glob.glob(os.path.join(root, folder, "**",
                                                      "*.c"), recursive=True))

    engine, ui = objects("src"), objects("ui")
    missing = [o for o in engine + ui if not os.path.exists(o)]
    if not engine or not ui or missing:
        T.ok(False, "the objects are built", missing)
        return T.done()

    g_engine, _ = graph(engine)
    found = cycles(g_engine)
    T.eq(found, [], "no cycle among the engine's %d objects" % len(engine))

    g_ui, _ = graph(ui)
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
