"""An independent reading of HotSpot's hsperfdata file (the tests' truth
beside vmscope's src/analyze/runtimes/hsperf.c): parse(bytes) -> {name: value},
longs as int, byte vectors as str (up to their first NUL). Format:
openjdk src/hotspot/share/runtime/perfMemory.hpp (version 2.0)."""
import struct


def parse(buf):
    if buf[0:4] != b"\xca\xfe\xc0\xc0":
        raise ValueError("no CAFEC0C0 magic")
    bo = "<" if buf[4] == 1 else ">"
    used, _overflow, _mod, eoff, nent = struct.unpack(bo + "iiqii", buf[8:32])
    out, off = {}, eoff
    for _ in range(nent):
        elen, noff, vlen, dtype, _fl, _un, _va, doff = struct.unpack(
            bo + "iiibbbbi", buf[off:off + 20])
        end = buf.index(b"\0", off + noff)
        name = buf[off + noff:end].decode()
        if vlen == 0 and dtype == ord("J"):
            out[name] = struct.unpack(bo + "q", buf[off + doff:off + doff + 8])[0]
        elif dtype == ord("B"):
            out[name] = buf[off + doff:off + doff + vlen].split(b"\0")[0] \
                .decode("utf-8", "replace")
        off += elen
    return out


def read(path):
    with open(path, "rb") as f:
        return parse(f.read())


def figures(d):
    """The figures vmscope reports, by the names vmscope gives them:
    {"gen.G.name", "gen.G.capacity", "gen.G.max", "gen.G.space.K.name",
    ".capacity", ".used", ".max", "metaspace.*", "class space.*",
    "policy"}."""
    out = {}
    for k, v in d.items():
        p = k.split(".")
        if k.startswith("sun.gc.generation.") and len(p) >= 5:
            g = "gen.%s" % p[3]
            if p[4] == "space" and len(p) == 7:
                f = {"name": "name", "capacity": "capacity", "used": "used",
                     "maxCapacity": "max"}.get(p[6])
                if f:
                    out["%s.space.%s.%s" % (g, p[5], f)] = v
            elif len(p) == 5:
                f = {"name": "name", "capacity": "capacity",
                     "maxCapacity": "max"}.get(p[4])
                if f:
                    out["%s.%s" % (g, f)] = v
        for pre, grp in (("sun.gc.metaspace.", "metaspace"),
                         ("sun.gc.compressedclassspace.", "class space")):
            if k.startswith(pre):
                f = {"capacity": "capacity", "used": "used",
                     "maxCapacity": "max"}.get(k[len(pre):])
                if f:
                    out["%s.%s" % (grp, f)] = v
    if "sun.gc.policy.name" in d:
        out["policy"] = d["sun.gc.policy.name"]
    return out
