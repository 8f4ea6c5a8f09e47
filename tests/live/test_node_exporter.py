#!/usr/bin/env python3
"""test_node_exporter — the recipe runs (issue 32 item 2): the command of
dist/vmscope-textfile.service, as systemd would run it (its Environment=
defaults, ${VAR} substituted, the textfile directory pointed at a
temporary one), writes a file node_exporter's textfile collector takes:

  - prometheus-node-exporter (Debian's) started with only the textfile
    collector on that directory, on a free loopback port;
  - /metrics scraped with curl: vmscope's families are there, a target
    this test started among the processes with its working set, and the
    collector read the file without an error (node_textfile_scrape_error
    0, and its mtime metric names vmscope.prom);
  - vmscope's part of the scrape valid by `promtool check metrics`;
  - run again with the file in place: replaced whole (never appended to),
    the collector still reads it.
Skipped with the reason when prometheus-node-exporter or curl is missing.
"""
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

UNIT = os.path.join(T.ROOT, "dist", "vmscope-textfile.service.in")


def service_command(textdir):
    """ExecStart of the unit as systemd runs it: Environment= first, the
    textfile directory ours, ${VAR} replaced, the binary the one tested."""
    env, cmd = {}, None
    for line in open(UNIT):
        line = line.strip()
        if line.startswith("Environment="):
            k, v = line[len("Environment="):].split("=", 1)
            env[k] = v
        elif line.startswith("ExecStart="):
            cmd = line[len("ExecStart="):]
    env["VMSCOPE_TEXTFILE_DIR"] = textdir
    cmd = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], cmd)
    argv = shlex.split(cmd)
    T.eq(argv[0], "@BINDIR@/vmscope", "the unit runs the installed vmscope")
    return [T.VMSCOPE] + argv[1:]


def seconds(v):
    """A systemd time span of s, min or a bare number (seconds)."""
    m = re.fullmatch(r"(\d+)\s*(s|sec|min|m)?", v.strip())
    return int(m.group(1)) * (60 if m.group(2) in ("min", "m") else 1) \
        if m else None


def bounded_run():
    """The service's run ends before the timer's next one: a run the
    timer started blocks the next while it is active, so one that hangs
    must time out within the period."""
    unit = dict(ln.strip().split("=", 1) for ln in open(UNIT)
                if re.match(r"^(TimeoutStartSec|Type)=", ln))
    timer = dict(ln.strip().split("=", 1) for ln in open(
        os.path.join(T.ROOT, "dist", "vmscope-textfile.timer"))
        if ln.startswith("OnUnitActiveSec="))
    t, period = seconds(unit.get("TimeoutStartSec", "")), \
        seconds(timer.get("OnUnitActiveSec", ""))
    T.ok(unit.get("Type") == "oneshot" and t and period and t < period,
         "the oneshot run times out (%ss) within the timer's period (%ss)"
         % (t, period))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scrape(url, deadline):
    """/metrics once node_exporter answers (bounded), or None."""
    while time.time() < deadline:
        r = subprocess.run(["curl", "-sf", "--max-time", "5", url],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout:
            return r.stdout
        time.sleep(0.1)  # polling a server's start, bounded by deadline
    return None


def vmscope_part(text):
    return "\n".join(l for l in text.split("\n")
                     if re.match(r"(# (HELP|TYPE) )?vmscope_", l)) + "\n"


def main():
    bounded_run()
    exporter = shutil.which("prometheus-node-exporter") or \
        shutil.which("node_exporter")
    if not exporter or not shutil.which("curl"):
        T.skip("node_exporter scrapes vmscope's textfile",
               "prometheus-node-exporter or curl not installed "
               "(scripts/deps.sh)")
        T.done()
    target, _ = T.start([T.target("everykind")])
    textdir = tempfile.mkdtemp(prefix="vmscope-textfile-")
    try:
        argv = service_command(textdir)
        r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        path = os.path.join(textdir, "vmscope.prom")
        T.ok(r.returncode == 0 and os.path.exists(path),
             "the service's command writes vmscope.prom", r.stderr)
        port = free_port()
        T.start([exporter, "--collector.disable-defaults",
                 "--collector.textfile",
                 "--collector.textfile.directory=" + textdir,
                 "--web.listen-address=127.0.0.1:%d" % port],
                ready=False, stderr=subprocess.DEVNULL)
        url = "http://127.0.0.1:%d/metrics" % port
        text = scrape(url, time.time() + 60)
        if not T.ok(text is not None, "node_exporter answers on /metrics"):
            T.done()
        T.ok(re.search(r"^node_textfile_scrape_error 0$", text, re.M),
             "the textfile collector read it without an error",
             "\n".join(l for l in text.split("\n") if "textfile" in l))
        T.ok('file="%s"' % path in text or 'file="vmscope.prom"' in text,
             "node_textfile_mtime_seconds names vmscope.prom")
        mine = [l for l in text.split("\n")
                if l.startswith("vmscope_ws_bytes{") and
                'pid="%d"' % target.pid in l]
        T.ok(len(mine) >= 8, "the target's working set by type is scraped",
             mine)
        promtool = shutil.which("promtool")
        if promtool:
            c = subprocess.run([promtool, "check", "metrics"],
                               input=vmscope_part(text), capture_output=True,
                               text=True, timeout=120)
            T.ok(c.returncode == 0, "vmscope's part of the scrape: promtool "
                 "check metrics", c.stdout + c.stderr)
        else:
            T.skip("promtool check metrics", "promtool not installed")
        size1 = os.path.getsize(path)
        r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        size2 = os.path.getsize(path)
        T.ok(r.returncode == 0 and size2 < 2 * size1,
             "run again: the file replaced whole", (size1, size2))
        text = scrape(url, time.time() + 60) or ""
        T.ok(re.search(r"^node_textfile_scrape_error 0$", text, re.M) and
             'pid="%d"' % target.pid in text,
             "scraped again after the rewrite")
    finally:
        shutil.rmtree(textdir, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
