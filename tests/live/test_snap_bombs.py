#!/usr/bin/env python3
"""A snapshot file's JSON part costs what its regions can need, whatever it
claims or pads (issue 27, item 4).

From snap_v1.vms (its smaps text as it is) the test makes files whose JSON
part is a bomb, zstd-compressed (each file some KB):
  - 128 MiB of `0,` under a key no vmscope knows;
  - a 256 MiB string under an unknown key, and a 1 MiB one under "process";
  - 2 million keys under an unknown key;
  - just under the free size (1 MiB of JSON): 500,000 values under
    "threads" (more values than its regions can need: refused) and the same
    under an unknown key (skipped without being built: the file loads, its
    summary the original's);
  - nesting 100,000 deep under an unknown key; a 100 KB string in "files";
  - 256 MiB of lines no region needs after the smaps text (refused as it
    comes), and that padding with 2 million values under "threads" (the
    padding buys the JSON part no room: its regions are counted).
Each is loaded with `vmscope -l FILE -s` under /usr/bin/time: its peak RSS
must stay within 64 MiB, and each bomb is refused (exit 4) with a message
saying why (the padded one loads, exit 0). Elapsed times are printed as
figures, not checked. The old loader took 2.7 GB for the first one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fixtures"))
import vmstest as T  # noqa: E402
import mksnap as M  # noqa: E402

V1 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                  "fixtures", "snap_v1.vms")
LIMIT_KB = 64 << 10
CHUNK = 1 << 20


def meta_of(secs):
    for name, codec, payload, size in secs:
        if name == "meta":
            return M.unzstd(payload) if codec == 1 else payload
    raise RuntimeError("no meta section")


def with_pieces(meta, key, pieces, tmp):
    """The file whose JSON part is meta's object with key: (the bytes of
    pieces, one after the other) added first, written and compressed
    through a file so a piece at a time is in memory."""
    text = os.path.join(tmp, "meta.json")
    size = 0
    with open(text, "wb") as f:
        head = b'{"%s":' % key.encode()
        f.write(head)
        size += len(head)
        for p in pieces:
            f.write(p)
            size += len(p)
        tail = b"," + meta.strip()[1:]
        f.write(tail)
        size += len(tail)
    z = subprocess.run(["zstd", "-q", "-c", "-1", text], check=True,
                       stdout=subprocess.PIPE).stdout
    os.unlink(text)
    return z, size


def zeros(n):
    """[0,0,...] of n values, in pieces."""
    yield b"["
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        yield b"0," * (k - 1 if done + k == n else k)
        done += k
    yield b"0]"


def long_string(n):
    yield b'"'
    left = n
    while left:
        k = min(CHUNK, left)
        yield b"a" * k
        left -= k
    yield b'"'


def many_keys(n):
    yield b"{"
    for start in range(0, n, 100000):
        yield b",".join(b'"k%d":0' % i for i in range(start,
                                                     min(n, start + 100000)))
        if start + 100000 < n:
            yield b","
    yield b"}"


def deep(n):
    yield b"[" * n
    yield b"]" * n


def padded_smaps(secs, n, tmp):
    """The smaps section with n bytes of lines no region needs after its
    text (`x`), compressed: (payload, size)."""
    for name, codec, payload, size in secs:
        if name == "smaps":
            text = M.unzstd(payload) if codec == 1 else payload
    path = os.path.join(tmp, "smaps.txt")
    with open(path, "wb") as f:
        f.write(text)
        for _ in range(n // CHUNK):
            f.write(b"x\n" * (CHUNK // 2))
    size = os.path.getsize(path)
    z = subprocess.run(["zstd", "-q", "-c", "-1", path], check=True,
                       stdout=subprocess.PIPE).stdout
    os.unlink(path)
    return z, size


def build_file(secs, zmeta, size, path, smaps=None):
    out = []
    for name, codec, payload, sz in secs:
        if name == "meta" and zmeta is not None:
            codec, payload, sz = 1, zmeta, size
        if name == "smaps" and smaps is not None:
            codec, (payload, sz) = 1, smaps
        out.append((name, codec, payload, sz))
    with open(path, "wb") as f:
        f.write(M.build(out))


def load(path):
    r = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M elapsed=%e",
                        T.VMSCOPE, "-l", path, "-s"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = r.stderr.decode(errors="replace")
    m = re.search(r"maxrss=(\d+) elapsed=([\d.]+)", err)
    rss = int(m.group(1)) if m else None
    secs = float(m.group(2)) if m else None
    msg = "\n".join(line for line in err.splitlines()
                    if not line.startswith("maxrss="))
    return r.returncode, rss, secs, msg, r.stdout


def main():
    if not os.path.exists("/usr/bin/time"):
        T.skip("snapshot file bombs", "/usr/bin/time is not installed")
        T.done()
    with open(V1, "rb") as f:
        secs = M.sections(f.read())
    meta = meta_of(secs)
    orig = json.loads(meta)
    want = subprocess.run([T.VMSCOPE, "-l", V1, "-s"],
                          stdout=subprocess.PIPE).stdout
    bombs = [
        ("128 MiB of `0,` under an unknown key", "padding",
         lambda: zeros(64 << 20), "more than the regions"),
        ("a 256 MiB string under an unknown key", "padding",
         lambda: long_string(256 << 20), "more than the regions"),
        ("2 million keys under an unknown key", "padding",
         lambda: many_keys(2000000), "more than the regions"),
        ("500,000 values under \"threads\" (under 1 MiB)", "threads",
         lambda: zeros(500000), "values, more than the regions"),
        ("500,000 values under an unknown key (under 1 MiB)", "padding",
         lambda: zeros(500000), None),
        ("nesting 100,000 deep under an unknown key", "padding",
         lambda: deep(100000), "nested deeper than"),
        ("a 100 KB string in \"files\"", "files",
         lambda: [json.dumps([{"path": "a" * 100000}]).encode()],
         "a string of 100000 bytes"),
        ("256 MiB of lines no region needs in the smaps text", None,
         None, "padded, refused"),
        ("the same padding and 2 million values under \"threads\"",
         "threads", lambda: zeros(2000000), "more than the regions"),
    ]
    with tempfile.TemporaryDirectory(prefix="vmscope-bombs-") as tmp:
        path = os.path.join(tmp, "bomb.vms")
        padded = None
        for what, key, pieces, refused in bombs:
            zmeta = size = smaps = None
            if key is None or "the same padding" in what:
                padded = padded or padded_smaps(secs, 256 << 20, tmp)
                smaps = padded
            if key:
                m = dict(orig)
                m.pop(key, None)
                zmeta, size = with_pieces(json.dumps(m).encode(), key,
                                          pieces(), tmp)
            build_file(secs, zmeta, size, path, smaps)
            rc, rss, secs_taken, msg, out = load(path)
            print("# %s: file %d bytes, JSON part %s bytes: exit %d, peak "
                  "RSS %s KiB, %s s" % (what, os.path.getsize(path), size,
                                        rc, rss, secs_taken))
            T.ok(rss is not None and rss <= LIMIT_KB,
                 "%s: peak RSS within 64 MiB" % what, "%s KiB" % rss)
            if refused:
                T.ok(rc == 4 and refused in msg,
                     "%s: refused (exit 4) saying why" % what,
                     "exit %d: %s" % (rc, msg[-500:]))
            else:
                T.ok(rc == 0 and out == want, "%s: skipped unbuilt, the "
                     "file loads as the original" % what,
                     "exit %d: %s" % (rc, msg[-500:]))
        legit_many(tmp)
    T.done()


def legit_many(tmp):
    """A real file past the bounds' free part: 30,000 regions (format 2,
    more than the 4,096 whose headers are counted before the reservation)
    loads, its regions all there."""
    p, line = T.start([T.target("manyregions"), "30000"])
    path = os.path.join(tmp, "many.vms")
    r = T.run_vmscope("-w", path, p.pid)
    T.eq(r.returncode, 0, "30,000 regions: saved")
    r = T.run_vmscope("-l", path, "-e", "json")
    T.kill(p)
    n = len(json.loads(r.stdout)["regions"]) if r.returncode == 0 else 0
    T.ok(r.returncode == 0 and n >= 30000, "30,000 regions: the file "
         "loads with every region (%d)" % n, r.stderr.decode()[-300:])


if __name__ == "__main__":
    main()
