"""Images whose file is gone: a shared library copied, loaded and deleted.

As root vmscope opens it through /proc/PID/map_files and shows its sections.
As an unprivileged user (same uid as the target, no CAP_SYS_ADMIN) map_files
is closed and the path is deleted: the image is confirmed from the ELF headers
the loader mapped (state image_unopened, no sections, build id still read),
never guessed from the name and never fatal.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as t  # noqa: E402

LIBM = None
for cand in ("/usr/lib/x86_64-linux-gnu/libm.so.6",
             "/usr/lib/aarch64-linux-gnu/libm.so.6", "/lib64/libm.so.6"):
    if os.path.exists(cand):
        LIBM = cand
        break


def build_id(path):
    """The GNU build id as readelf reports it (the file's own view)."""
    r = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", r.stdout)
    return m.group(1) if m else None


def deleted_regions(snap):
    return [r for r in snap["regions"]
            if r["path"] and r["path"].endswith(" (deleted)")
            and "vmscope-deleted-" in r["path"]]


def check(label, snap, want_sections, want_id):
    regs = deleted_regions(snap)
    if not t.ok(len(regs) >= 2, "%s: the deleted library's regions are there"
                % label, [r["path"] for r in snap["regions"]]):
        return
    t.ok(all(r["type"] == "image" for r in regs),
         "%s: every region of the deleted library is an image" % label,
         [(r["start"], r["type"], r["state"]) for r in regs])
    t.ok(all("deleted" in r["state"] for r in regs),
         "%s: marked deleted" % label)
    text = [r for r in regs if r["perms"].startswith("r-x")]
    names = [c["name"] for r in text for c in r["children"]]
    if want_sections:
        t.ok(".text" in names, "%s: .text is among the sections" % label,
             names)
        t.ok(all("image_unopened" not in r["state"] for r in regs),
             "%s: the file was opened" % label)
    else:
        t.ok(all("image_unopened" in r["state"] for r in regs),
             "%s: marked image_unopened" % label,
             [r["state"] for r in regs])
        t.eq(names, [], "%s: no sections without the file" % label)
    if want_id:
        t.eq(regs[0].get("build_id"), want_id,
             "%s: build id equals readelf's" % label)


def main():
    if not LIBM:
        t.skip("deleted image", "no libm.so.6 found")
        return t.done()
    want_id = build_id(LIBM)
    exe = t.target("deleted_image")

    p, _ = t.start([exe, LIBM])
    t.sigstop(p.pid)
    check("root", t.vmscope_json(p.pid), True, want_id)
    t.kill(p)

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        t.skip("unprivileged: image confirmed from memory",
               "needs root to switch to an unprivileged user")
        return t.done()
    # The target and vmscope both run as nobody: the binaries must be
    # reachable by that user.
    tmp = tempfile.mkdtemp(prefix="vmscope-img-")
    os.chmod(tmp, 0o755)
    exe2 = os.path.join(tmp, "deleted_image")
    vms2 = os.path.join(tmp, "vmscope")
    shutil.copy(exe, exe2)
    shutil.copy(t.VMSCOPE, vms2)
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    try:
        p, _ = t.start(drop + [exe2, LIBM], cwd=tmp)
        r = subprocess.run(drop + [vms2, "-e", "json", str(p.pid)],
                           capture_output=True, cwd=tmp, timeout=60)
        if t.eq(r.returncode, 0, "unprivileged: the capture succeeds"):
            import json
            check("unprivileged", json.loads(r.stdout), False, want_id)
        t.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return t.done()


main()
