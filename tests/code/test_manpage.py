#!/usr/bin/env python3
"""test_manpage — the man page (vmscope.1) cannot fall behind the program
(issue 26 item 5).

Checked, each against the man page's own sections (tags of .TP entries,
read from the roff source):
  - OPTIONS names every short and long option `vmscope --help` lists;
  - EXPORT FORMATS names every -e format --help offers, and those are the
    formats the exporter registry (src/export/*.c, .listed) offers;
  - KEYS names every key of every key table of the viewer (ui/**/*.c,
    `struct key_action NAME[]`: the tables the help screen is made from),
    each listed key name and each printable alias, in the subsection
    named for its screen (the file's name less "screen_");
  - EXIT STATUS names every status --help names;
  - ENVIRONMENT names every variable the program reads by a literal
    getenv("NAME") in src/, ui/ and cli/;
  - groff renders it without a warning (when groff is installed).
The checks run first on made-up pages and helps missing an option, a
format, a key, so the test itself can fail. One process (it runs
`vmscope --help` and groff once each).
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

MAN = os.path.join(T.ROOT, "vmscope.1")
# Read by the sanitizer runtime's set-up, not a user's setting.
ENV_NOT_USERS = {"ASAN_OPTIONS"}


# ---- the man page's roff ----

def roff_args(line):
    """The arguments of a macro line (.BR a "b c" d), roff's quoting."""
    return [m.group(1).replace('""', '"') if m.group(1) is not None
            else m.group(2)
            for m in re.finditer(r'"((?:[^"]|"")*)"|(\S+)', line)]


def roff_text(s):
    """Plain text of roff: escapes and font changes out."""
    s = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", s)
    s = s.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    s = s.replace("\\(em", "-").replace("\\ ", " ")
    return s


def tag_text(line):
    """A .TP tag line as it reads: macro arguments joined (.BR alternates
    fonts without spaces), or the line itself."""
    if line.startswith("."):
        parts = line.split(None, 1)
        line = "".join(roff_args(parts[1])) if len(parts) > 1 else ""
    return roff_text(line)


def sections(man):
    """{SECTION: {SUBSECTION or "": [tag, ...]}} from .SH, .SS and .TP."""
    out, sh, ss = {}, "", ""
    lines = man.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            sh = roff_text(" ".join(roff_args(line[3:]))).strip()
            ss = ""
            out.setdefault(sh, {}).setdefault(ss, [])
        elif line.startswith(".SS"):
            ss = roff_text(" ".join(roff_args(line[3:]))).strip()
            out.setdefault(sh, {}).setdefault(ss, [])
        elif line.startswith(".TP") and i + 1 < len(lines):
            out.setdefault(sh, {}).setdefault(ss, []).append(
                tag_text(lines[i + 1]))
    return out


def tags(secs, sh, ss=None):
    """The tags of a section (all its subsections), or of one subsection."""
    subs = secs.get(sh, {})
    if ss is not None:
        return subs.get(ss, [])
    return [t for v in subs.values() for t in v]


def option_words(text):
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", text))


def tokens(text):
    return set(t for t in re.split(r"[,\s]+", text) if t)


# ---- what the program says ----

def help_options(helptext):
    """Options in --help's option column (indented 2 to 6 spaces; the
    descriptions' continuation lines are indented further)."""
    opts = set()
    for line in helptext.splitlines():
        m = re.match(r"^ {2,6}(-\S.*?)(?: {2,}|$)", line)
        if m:
            opts |= option_words(m.group(1))
    return opts


def help_formats(helptext):
    m = re.search(r"--export=(\S+)", helptext)
    return set(m.group(1).split("|")) if m else set()


def help_statuses(helptext):
    m = re.search(r"Exit status:(.*?)(?:\n\n|\Z)", helptext, re.S)
    return set(re.findall(r"\b(\d+) ", m.group(1))) if m else set()


def registry_formats():
    """The -e names of the exporters the registry offers: each `struct
    vms_exporter NAME = { .name = "...", ... .listed = true }`."""
    names = set()
    for f in glob.glob(os.path.join(T.ROOT, "src", "**", "*.c"),
                       recursive=True):
        src = open(f, errors="replace").read()
        for body in re.findall(r"struct vms_exporter \w+ = \{(.*?)\};", src,
                               re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', body)
            if n and re.search(r"\.listed\s*=\s*true", body):
                names.add(n.group(1))
    return names


def parse_key_tables(src, names=None):
    """[[key token, ...]] of each `struct key_action NAME[]` in C source:
    each entry's listed name split into keys, and each alias that is a
    printable character ('='); each table's NAME appended to names."""
    out = []
    for table, body in re.findall(
            r"struct key_action (\w+)\[\]\s*=\s*\{(.*?)\n\};", src, re.S):
        keys = []
        for key, name in re.findall(
                r"\{\s*((?:'(?:[^'\\]|\\.)+'|[^,{}'])+?)\s*,\s*"
                r'(NULL|"(?:[^"\\]|\\.)*")', body):
            if name != "NULL":
                keys += name[1:-1].split()
            elif re.fullmatch(r"'[!-~]'", key) and key != "'\\'":
                keys.append(key[1])
        out.append(keys)
        if names is not None:
            names.append(table)
    return out


def key_tables():
    """[(file, screen, [key token, ...])] from every key table under ui/;
    the screen is the file's name less "screen_", or for a table named
    from_NAME (the keys typed on screen NAME that enter the file's
    screen: ui_priv.h's from_keys) NAME."""
    out = []
    for f in sorted(glob.glob(os.path.join(T.ROOT, "ui", "**", "*.c"),
                              recursive=True)):
        out += file_key_tables(os.path.relpath(f, T.ROOT),
                               open(f, errors="replace").read())
    return out


def file_key_tables(rel, src):
    """key_tables() of one file (rel: its path, src: its text)."""
    screen = re.sub(r"^screen_", "", os.path.basename(rel)[:-2])
    names, out = [], []
    tables = parse_key_tables(src, names)
    for keys, name in zip(tables, names):
        m = re.fullmatch(r"from_(\w+)", name)
        out.append((rel, m.group(1) if m else screen, keys))
    return out


def getenv_names():
    names = set()
    for d in ("src", "ui", "cli"):
        for f in glob.glob(os.path.join(T.ROOT, d, "**", "*.[ch]"),
                           recursive=True):
            names |= set(re.findall(r'getenv\("([A-Z_][A-Z0-9_]*)"\)',
                                    open(f, errors="replace").read()))
    return names - ENV_NOT_USERS


# ---- the checks: each returns what the page lacks ----

def missing_options(man, helptext):
    have = set()
    for t in tags(sections(man), "OPTIONS"):
        have |= option_words(t)
    return sorted(help_options(helptext) - have)


def missing_formats(man, formats):
    have = set()
    for t in tags(sections(man), "EXPORT FORMATS"):
        have |= tokens(t)
    return sorted(set(formats) - have)


def missing_keys(man, tables):
    """[(file, key)] not in the KEYS subsection whose title names the
    table's screen (any KEYS tag when no subsection names it)."""
    secs = sections(man)
    subs = secs.get("KEYS", {})
    every = set()
    for v in subs.values():
        for t in v:
            every |= tokens(t)
    out = []
    for f, screen, keys in tables:
        have = None
        for title, v in subs.items():
            if re.search(r"\b%s\b" % re.escape(screen), title, re.I):
                have = set()
                for t in v:
                    have |= tokens(t)
        for k in keys:
            if k not in (every if have is None else have):
                out.append((f, k))
    return out


def missing_words(man, section, words):
    have = set()
    for t in tags(sections(man), section):
        have |= tokens(t)
    return sorted(set(words) - have)


def drop_tag(man, pattern):
    """man without the .TP entries whose tag matches pattern."""
    out, lines, i = [], man.splitlines(), 0
    while i < len(lines):
        if (lines[i].startswith(".TP") and i + 1 < len(lines)
                and re.search(pattern, tag_text(lines[i + 1]))):
            i += 2
            while i < len(lines) and not lines[i].startswith("."):
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out) + "\n"


def self_check(man, helptext, tables):
    """The checks find what a made-up page or help leaves out."""
    T.eq(missing_options(drop_tag(man, r"--watch\b"), helptext),
         ["--watch"], "self-check: a page without --watch is caught")
    T.eq(missing_options(drop_tag(man, r"^-F, --freeze"), helptext),
         ["--freeze", "-F"], "self-check: a page without -F is caught")
    fake = helptext.replace("  -h, --help", "      --frobnicate   x\n"
                            "  -h, --help")
    T.eq(missing_options(man, fake), ["--frobnicate"],
         "self-check: an option the page lacks is caught")
    T.eq(missing_formats(drop_tag(man, r"^openmetrics$"), ["openmetrics"]),
         ["openmetrics"], "self-check: a page without a format is caught")
    T.eq(missing_keys(drop_tag(man, r"^F2, c$"),
                      [("ui/screen_viewer.c", "viewer", ["F2", "c"])]),
         [("ui/screen_viewer.c", "F2"), ("ui/screen_viewer.c", "c")],
         "self-check: a page without the viewer's F2 c is caught")
    T.eq(missing_keys(man, [("ui/screen_x.c", "map", ["Ctrl-Q"])]),
         [("ui/screen_x.c", "Ctrl-Q")],
         "self-check: a key the page lacks is caught")
    src = ('static const struct key_action t[] = {\n'
           '\t{ \'+\', "+ -", "zoom", f },\n\t{ \'=\', NULL, NULL, f },\n'
           '\t{ KEY_F(10), "q F10", "quit",\n\t  q },\n'
           '\t{ \',\', NULL, NULL, f },\n\t{ 0, NULL, NULL, NULL },\n};\n')
    T.eq(parse_key_tables(src), [["+", "-", "=", "q", "F10", ","]],
         "self-check: a key table's names and printable aliases are read")
    src = ('static const struct key_action x_keys[] = {\n'
           '\t{ 27, "Esc", "back", f },\n\t{ 0, NULL, NULL, NULL },\n};\n'
           'static const struct key_action from_viewer[] = {\n'
           '\t{ \'Z\', "Z", "the x screen", f },\n'
           '\t{ 0, NULL, NULL, NULL },\n};\n')
    T.eq(file_key_tables("ui/screens/screen_x.c", src),
         [("ui/screens/screen_x.c", "x", ["Esc"]),
          ("ui/screens/screen_x.c", "viewer", ["Z"])],
         "self-check: a from_viewer table's keys are the viewer's (a "
         "screen's from_keys), the file's other tables its screen's")
    T.ok(any(k for _f, _s, k in tables),
         "the viewer's key tables are found (%d, %d keys)" %
         (len(tables), sum(len(k) for _f, _s, k in tables)),
         "no `struct key_action NAME[]` under ui/")


def main():
    if not os.path.exists(T.VMSCOPE):
        T.skip("the man page against --help", "%s is not built" % T.VMSCOPE)
        return T.done()
    man = open(MAN, errors="replace").read()
    helptext = subprocess.run([T.VMSCOPE, "--help"], capture_output=True,
                              text=True, timeout=60).stdout
    tables = key_tables()

    T.ok(len(help_options(helptext)) > 10 and help_formats(helptext),
         "--help lists options and -e formats (%d, %s)" %
         (len(help_options(helptext)), sorted(help_formats(helptext))),
         helptext)
    self_check(man, helptext, tables)

    T.eq(missing_options(man, helptext), [],
         "OPTIONS names every option of --help")
    T.eq(missing_formats(man, help_formats(helptext)), [],
         "EXPORT FORMATS names every -e format of --help")
    reg = registry_formats()
    if reg:
        T.eq(sorted(reg), sorted(help_formats(helptext)),
             "--help offers the exporter registry's formats")
        T.eq(missing_formats(man, reg), [],
             "EXPORT FORMATS names every format of the registry")
    else:
        T.skip("the registry's formats", "no `struct vms_exporter NAME = "
               "{ .name, .listed }` found under src/ (reshaped?)")
    T.eq(missing_keys(man, tables), [],
         "KEYS names every key of the viewer's key tables, by screen")
    T.eq(missing_words(man, "EXIT STATUS", help_statuses(helptext)), [],
         "EXIT STATUS names every status --help names (%s)" %
         " ".join(sorted(help_statuses(helptext))))
    T.eq(missing_words(man, "ENVIRONMENT", getenv_names()), [],
         "ENVIRONMENT names every variable read by getenv")
    for sh in ("SYNOPSIS", "OPTIONS", "EXPORT FORMATS", "SCREENS", "KEYS",
               "COLUMNS", "SETTINGS FILE", "EXIT STATUS", "ENVIRONMENT",
               "FILES"):
        T.ok(sh in sections(man), "the man page has %s" % sh)

    try:
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN],
                           capture_output=True, text=True, timeout=60)
        T.eq(r.stderr.strip(), "", "groff renders it without a warning")
    except OSError:
        T.skip("groff renders it without a warning", "groff not installed")
    return T.done()


if __name__ == "__main__":
    main()
