"""-e openmetrics: every per-type figure of the JSON export as a gauge, in
text a strict reading of the OpenMetrics format accepts (metadata before
samples, a unit suffix per UNIT, escaped label values, "# EOF" last), with
the largest free block and the capture's duration; a command name with a
quote, a backslash and an escape sequence reaches the file as visible text,
never as a control byte."""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(r'^(%s)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|'
                    r'\\[\\"n])*",?)*)\} (\S+)$' % NAME)
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n"
                  else m.group(1), v)


def parse(text):
    """{family: {"type", "unit", "help", "samples": [(labels, value)]}},
    or raises ValueError naming the first line that breaks the format."""
    fams, order, current = {}, [], None
    lines = text.split("\n")
    if lines[-1] != "":
        raise ValueError("no newline at the end")
    lines = lines[:-1]
    if not lines or lines[-1] != "# EOF":
        raise ValueError("the last line is not # EOF")
    for n, line in enumerate(lines[:-1], 1):
        m = re.match(r"^# (TYPE|UNIT|HELP) (%s) (.*)$" % NAME, line)
        if m:
            kind, fam, rest = m.groups()
            if kind == "TYPE":
                if fam in fams:
                    raise ValueError("line %d: family %s twice" % (n, fam))
                fams[fam] = {"type": rest, "unit": None, "help": None,
                             "samples": []}
                order.append(fam)
                current = fam
            elif fam != current or fams[fam]["samples"]:
                raise ValueError("line %d: %s after samples or out of its "
                                 "family" % (n, kind))
            elif kind == "UNIT":
                if not fam.endswith("_" + rest):
                    raise ValueError("line %d: %s lacks suffix _%s"
                                     % (n, fam, rest))
                fams[fam]["unit"] = rest
            else:
                fams[fam]["help"] = rest
            continue
        m = SAMPLE.match(line)
        if not m or m.group(1) != current:
            raise ValueError("line %d is not a sample of %s: %r"
                             % (n, current, line))
        labels = {k: unescape(v) for k, v in LABEL.findall(m.group(2))}
        float(m.group(3))
        fams[current]["samples"].append((labels, m.group(3)))
    return fams


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-om-")
    # A command name that is hostile to a text format: comm is the first
    # 15 bytes of the executable's name.
    hostile = 'e"k\x1b]0;x\\q'
    exe = os.path.join(tmp, hostile)
    shutil.copy(T.target("everykind"), exe)
    p, _ = T.start([exe])
    T.sigstop(p.pid)
    try:
        r = T.run_vmscope("-e", "openmetrics", p.pid)
        T.eq(r.returncode, 0, "-e openmetrics runs")
        raw = r.stdout
        T.ok(not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", raw),
             "no control byte in the file but newlines")
        try:
            fams = parse(raw.decode("utf-8"))
            T.ok(True, "the text is well-formed OpenMetrics (%d families)"
                 % len(fams))
        except ValueError as e:
            T.ok(False, "the text is well-formed OpenMetrics", str(e))
            return
        # The figures of one snapshot in both formats: saved once, loaded
        # twice (two captures differ wherever another process started or
        # ended between them: Pss of libc).
        saved = os.path.join(tmp, "snap.vms")
        r = T.run_vmscope("-w", saved, p.pid)
        T.eq(r.returncode, 0, "the snapshot is saved")
        r = T.run_vmscope("-l", saved, "-e", "openmetrics")
        fams = parse(r.stdout.decode("utf-8"))
        r = T.run_vmscope("-l", saved, "-e", "json")
        snap = json.loads(r.stdout)
        bad = []
        for t in snap["types"]:
            for key, value in t.items():
                if key == "type":
                    continue
                fam = fams.get("vmscope_%s_bytes" % key) or \
                    fams.get("vmscope_%s" % key)
                got = [v for lab, v in (fam or {"samples": []})["samples"]
                       if lab.get("type") == t["type"]]
                if got != [str(value)]:
                    bad.append((t["type"], key, value, got))
        T.eq(bad, [], "every per-type figure of the JSON is a gauge with "
             "the same value (one saved snapshot, both formats)")
        T.ok(all(f["type"] == "gauge" and f["help"] for f in fams.values()),
             "every family is a gauge with a HELP line")
        T.eq([s[1] for s in fams["vmscope_largest_free_bytes"]["samples"]],
             [str(snap["totals"]["largest_free"])],
             "the largest free block")
        live = parse(raw.decode("utf-8"))
        dur = live.get("vmscope_capture_duration_seconds", {"samples": []})
        T.ok(len(dur["samples"]) == 1 and float(dur["samples"][0][1]) > 0,
             "the capture's duration", dur)
        labels = live["vmscope_size_bytes"]["samples"][0][0]
        name = snap["process"]["name"]
        shown = "".join("\\\\" if ch == "\\" else
                        "\\x%02x" % ord(ch) if ord(ch) < 0x20 or ch == "\x7f"
                        else ch for ch in name)
        T.ok('"' in name and "\\" in name, "the name kept its quote and "
             "backslash (%r)" % name)
        T.eq((labels["pid"], labels["comm"]), (str(p.pid), shown),
             "pid and comm labels: the command name as the summary shows "
             "it, quote and backslash escaped")
    finally:
        T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
