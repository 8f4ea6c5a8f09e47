"""tmuxdrive — drives vmscope in a tmux server of its own, as tmux's own
regress/ does: new-session -d, send-keys, capture-pane.

Every server gets its own socket (-L vmstest-<pid>-<n>) and is killed at exit
(normal, failure or exception), with the processes in its panes. Waiting is
by polling the screen for what a test expects, never by timing: wait_for()
returns as soon as the text is there and only gives up after a generous
deadline.
"""
import atexit
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
import vmstest as T  # noqa: E402

_servers = []
_seq = [0]


def have_tmux():
    try:
        subprocess.run(["tmux", "-V"], capture_output=True, check=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def run_in_tmp(what, run):
    """A test's main: skips without tmux; else run(tmp) in a temporary
    directory removed after, then the closing line."""
    import shutil
    import tempfile
    require_tmux(what)
    tmp = tempfile.mkdtemp(prefix="vmstui-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


def require_tmux(what):
    """Without tmux the whole test is one skip line."""
    if not have_tmux():
        T.skip(what, "tmux is not installed")
        T.done()


class Tmux:
    def __init__(self, argv, width=120, height=40, env=None, shell_tail=None,
                 term=None, colours=None):
        """Starts argv in a detached session. shell_tail: a shell snippet
        run after argv exits (its exit status is in $rc), e.g. to print
        the terminal state; the pane then stays open."""
        _seq[0] += 1
        self.sock = "vmstest-%d-%d" % (os.getpid(), _seq[0])
        cmd = " ".join(shlex.quote(a) for a in argv)
        env = dict(env or {})
        # The viewer reads its settings (the columns) from
        # $XDG_CONFIG_HOME/vmscope/config: a test not about them gets an
        # empty directory, never the machine's own settings.
        env.setdefault("XDG_CONFIG_HOME", _empty_config())
        if term:
            env["TERM"] = term
        envs = " ".join("%s=%s" % (k, shlex.quote(v))
                        for k, v in env.items())
        if envs:
            cmd = "env %s %s" % (envs, cmd)
        tail = shell_tail or ":"
        script = "%s; rc=$?; %s; sleep 600" % (cmd, tail)
        base = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        if colours == 256:
            base.append("-2")
        self.base = base
        args = base + ["new-session", "-d", "-x", str(width), "-y",
                       str(height)]
        _servers.append(self)
        self._run(*(args + ["sh", "-c", script]))
        self._run("set-option", "-g", "status", "off")
        # tmux leaves its socket file behind: removed in kill()
        self.socket_path = self._run("display-message", "-p",
                                     "#{socket_path}").strip()

    def _run(self, *args, check=True):
        cmd = list(args)
        if cmd[0] != "tmux":
            cmd = self.base + cmd
        return subprocess.run(cmd, capture_output=True, check=check,
                              timeout=30).stdout.decode(errors="replace")

    def keys(self, *keys):
        for k in keys:
            self._run("send-keys", k)
        return self

    def keys_each(self, keys, done, timeout=300):
        """Each key sent once the one before is on screen, as a person
        types them: done() counts the keys shown so far (a VMSCOPE_TIMING
        file's key lines, say), and each key must add one. Keys sent at
        once queue, and curses leaves out the drawing of a frame a key
        waits behind: each key's time would be another's (the benches'
        first of 16 `s` sent at once measured 41.7-70.9 ms of CPU, sent
        one at a time 27.3-39.6). False if the count was not reached by
        timeout."""
        n0 = done()
        deadline = time.time() + timeout
        for j, k in enumerate(keys):
            self._run("send-keys", k)
            while done() < n0 + j + 1:
                if time.time() > deadline:
                    return False
                time.sleep(0.01)
        return True

    def _bytes(self, data):
        """data (bytes) written into the pane byte for byte (send-keys
        -H): tmux's own parser takes a ';' that ends an argument for its
        command separator, so `send-keys -l` dropped it (a click on row
        26 or column 26, whose X10 byte is ';', was lost)."""
        self._run("send-keys", "-H", *["%02x" % b for b in data])

    def text(self, s):
        self._bytes(s.encode("utf-8"))
        return self

    def click(self, x, y, button=0, together=False):
        """A mouse press and release at column x, row y (0-based), as an
        xterm sends it (X10 encoding, which ncurses reads for kmous=\\E[M):
        written into the pane like typed keys, each in a write of its own,
        or with together both in one (the viewer reads them at once, as
        when it is slow to read)."""
        # X10: each coordinate one byte (latin-1: 223 columns at most)
        press = "\033[M%c%c%c" % (32 + button, 33 + x, 33 + y)
        release = "\033[M%c%c%c" % (35, 33 + x, 33 + y)
        if button >= 64:  # the wheel has no release
            self._bytes(press.encode("latin-1"))
        elif together:
            self._bytes((press + release).encode("latin-1"))
        else:
            self._bytes(press.encode("latin-1"))
            self._bytes(release.encode("latin-1"))
        return self

    def screen(self, escapes=False):
        args = ["capture-pane", "-p"]
        if escapes:
            args.append("-e")
        return self._run(*args)

    def wait_for(self, pred, timeout=20, escapes=False):
        """Polls until pred(screen) (or the string pred is on screen) on
        a screen that stands still: the same on two captures in a row, so
        that what the test reads next is not a redraw half done (tmux
        shows what the viewer wrote so far); a screen that keeps changing
        is taken at its fifth capture in a row that satisfies pred.
        Returns the screen (the last one on timeout)."""
        if isinstance(pred, str):
            s = pred
            pred = lambda scr: s in scr  # noqa: E731
        deadline = time.time() + timeout
        scr, prev, held = "", None, 0
        while time.time() < deadline:
            scr = self.screen(escapes)
            if pred(scr):
                if scr == prev or held >= 4:
                    return scr
                prev, held = scr, held + 1
                time.sleep(0.01)
                continue
            prev, held = None, 0
            time.sleep(0.05)
        # a wait that ends by its bound costs the whole bound: say where
        # (a test that passes so is slow, and its wait asks the wrong thing)
        caller = sys._getframe(1)
        while caller.f_back and caller.f_code.co_filename == __file__:
            caller = caller.f_back
        last = scr.rstrip().splitlines()[-1:] or [""]
        print("# wait_for: %d s in vain at %s:%d (the last line: %r)" % (
            timeout, os.path.basename(caller.f_code.co_filename),
            caller.f_lineno, last[0][:100]))
        return scr

    def expect(self, what, pred, *keys):
        """Sends keys, waits for pred (a string or a function of the
        screen) and reports it as one TAP line. Returns the screen."""
        self.keys(*keys)
        scr = self.wait_for(pred)
        T.ok(pred in scr if isinstance(pred, str) else bool(pred(scr)),
             what, scr)
        return scr

    def resize(self, w, h):
        self._run("resize-window", "-x", str(w), "-y", str(h))

    def shell_pid(self):
        return int(self._run("display-message", "-p",
                             "#{pane_pid}").strip())

    def child_pid(self):
        """The pid of the command the pane's shell runs (vmscope)."""
        sh = self.shell_pid()
        try:
            with open("/proc/%d/task/%d/children" % (sh, sh)) as f:
                kids = f.read().split()
        except OSError:
            return None
        return int(kids[0]) if kids else None

    def launched_pid(self, timeout=20):
        """The command vmscope launched (-- CMD): its first child, polled
        for up to timeout s; None if none came."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = self.child_pid()
            kids = T.children(v) if v else []
            if kids:
                return kids[0]
            time.sleep(0.01)  # a poll, bounded
        return None

    def kill(self):
        """Kills the pane's processes by pid, then the server."""
        if self not in _servers:
            return
        _servers.remove(self)
        try:
            sh = self.shell_pid()
            with open("/proc/%d/task/%d/children" % (sh, sh)) as f:
                pids = [int(p) for p in f.read().split()] + [sh]
        except (OSError, ValueError, subprocess.SubprocessError):
            pids = []
        for p in pids:
            try:
                os.kill(p, 9)
            except OSError:
                pass
        self._run("kill-server", check=False)
        if self.socket_path.endswith("/" + self.sock):
            try:
                os.unlink(self.socket_path)
            except OSError:
                pass


_config_dir = []


def _empty_config():
    if not _config_dir:
        import tempfile
        _config_dir.append(tempfile.mkdtemp(prefix="vmstest-xdg-"))
    return _config_dir[0]


def _cleanup():
    for s in list(_servers):
        s.kill()
    if _config_dir:
        import shutil
        shutil.rmtree(_config_dir[0], ignore_errors=True)


atexit.register(_cleanup)


def status(scr):
    """The screen's last line (the status line)."""
    lines = scr.splitlines()
    return lines[-1] if lines else ""


def ready(scr):
    """The viewer on a live process with its capture done: the capture
    line's "pss, not frozen", and the status line's count of rows (N/M)."""
    return "pss, not frozen" in scr and re.search(r"\d+/\d+\s*$",
                                                    status(scr))


def captured(scr):
    """The viewer on a live process with its capture's own snapshot on
    screen, whatever its sampler: the summary's Total, and the capture
    line no longer the layout from maps that shows until it is done
    ("maps, not frozen", after "Sampler" or, on the short header, alone:
    a key typed before the capture ends is held until it does, and a
    slow capture outlasts a wait for one key). Not for -b maps."""
    return "Total" in scr and not re.search(r"\bmaps, not frozen", scr)


FIND_LABELS = {"image": "Image", "mapped_file": "Mapped File",
               "shareable": "Shareable", "heap": "Heap",
               "managed_heap": "Managed Heap", "stack": "Stack",
               "private_data": "Private Data"}


def find_count(snap, needle):
    """How many nodes of the region list a find of needle matches, from a
    JSON export: each region whose path, detail, type label or address
    ("%016x") holds it, and each child whose name does (case ignored)."""
    n, nl = 0, needle.lower()
    for r in snap["regions"]:
        hay = [r.get("path") or "", r.get("detail") or "",
               FIND_LABELS[r["type"]], "%016x" % int(r["start"], 16)]
        n += any(nl in h.lower() for h in hay)
        n += sum(nl in c["name"].lower() for c in r.get("children", []))
    return n


def idled(path, timeout=60):
    """Whether the viewer logged a run of its idle work (VMSCOPE_TIMING
    "idle" in the file at path), polled for: what is kept small (the
    sort's keys, find's classes) is made there, so a key after it reads
    that, not the regions' records."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(path) as f:
                if any(ln.startswith("idle ") for ln in f):
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    return False


def bottom(scr, n=4):
    """The last n lines joined by single spaces, each stripped: a message
    or prompt wrapped over the lines above the status line, read whole
    (and whatever those lines hold)."""
    lines = scr.splitlines()
    return " ".join(ln.strip() for ln in lines[-n:])


def sort_to(tm, name):
    """Presses s in the viewer's details until the status line says the
    sort is by name; the screen then."""
    for _ in range(20):
        scr = tm.screen()
        if re.search(r"sort %s [v^]" % re.escape(name), status(scr)):
            return scr
        tm.keys("s")
        tm.wait_for(lambda s, b=status(scr): status(s) != b, timeout=10)
    return tm.screen()


def row_at(scr, addr):
    """The viewer's details row whose address is addr, or None."""
    key = "%016x " % addr
    for ln in scr.splitlines():
        if ln[2:2 + len(key)] == key:
            return ln
    return None


def delta_text(d):
    """The viewer's text of a change of d bytes: "+8192 K", "-12.0 M"."""
    return ("+" if d > 0 else "-") + size_text(abs(d))


def summary_row(scr, label):
    """The summary's row of label (the filter's > or a blank first)."""
    for ln in scr.splitlines():
        if ln[1:1 + len(label)] == label and not ln.startswith("  "):
            return ln
    return None


def maps_size(pid, addr):
    """The size of pid's mapping that starts at addr (/proc/PID/maps), or
    None."""
    for m in T.maps(pid):
        if m["start"] == addr:
            return m["end"] - m["start"]
    return None


def smaps_rss(pid, addr):
    """The kernel's Rss of pid's region at addr (smaps), in bytes."""
    with open("/proc/%d/smaps" % pid) as f:
        at = False
        for ln in f:
            if re.match(r"[0-9a-f]+-", ln):
                at = int(ln.split("-")[0], 16) == addr
            elif at and ln.startswith("Rss:"):
                return int(ln.split()[1]) * 1024
    return None


def row_of(scr, needle):
    for line in scr.splitlines():
        if needle in line:
            return line
    return None


def size_text(n):
    """The viewer's size text for n bytes (ui/draw.c fmt_size): bytes
    under 1 K ("864 B"), 0 as "0 K", K below 10000 K, then M, G, T ...
    with one decimal below 100, truncated."""
    if 0 < n < 1024:
        return "%d B" % n
    k = n >> 10
    if k < 10000:
        return "%d K" % k
    v, u = float(k), 0
    while True:
        v /= 1024
        u += 1
        if v < 10000 or u >= 5:
            break
    unit = "KMGTPE"[u]
    if v < 100:
        return "%.1f %s" % (int(v * 10) / 10.0, unit)
    return "%d %s" % (int(v), unit)
