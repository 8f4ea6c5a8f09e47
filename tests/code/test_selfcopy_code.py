#!/usr/bin/env python3
"""test_selfcopy_code — the loop that copies vmscope's libraries in place
(copy_all, src/linux/selfcopy.c) runs while a library's code is not
executable, so it may call nothing and jump nowhere outside itself: in the
built binary (VMSCOPE; the sanitizer pass gives its own build), every call
and jump of copy_all's code lands inside copy_all, none goes through a
register or memory (a PLT, a GOT), and it makes its system calls itself.
The check runs first on made-up code, so the test itself can fail.
Skipped where objdump is missing or the binary is not x86-64."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def leaves(lines):
    """(the function's instructions, those that call or jump out of it):
    lines of `objdump -d --no-show-raw-insn --disassemble=FN`."""
    insns = [m.groups() for m in map(INSN.match, lines) if m]
    if not insns:
        return [], []
    lo = int(insns[0][0], 16)
    # the function ends where the next symbol begins; objdump stops there
    hi = int(insns[-1][0], 16) + 16
    out = []
    for addr, op, args in insns:
        if not (op.startswith("call") or op.startswith("j")):
            continue
        m = re.match(r"([0-9a-f]+)\b", args)
        if not m or "*" in args or not lo <= int(m.group(1), 16) < hi:
            out.append("%s: %s %s" % (addr, op, args))
    return insns, out


def main():
    objdump = shutil.which("objdump")
    if not objdump:
        T.skip("copy_all's code", "objdump is not installed")
        return T.done()
    with open(T.VMSCOPE, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF" or head[18] != 62:  # EM_X86_64
        T.skip("copy_all's code", "not an x86-64 binary")
        return T.done()
    made_up = ["  1000:\tmov    %rdi,%rax", "  1003:\tsyscall",
               "  1005:\tjmp    1000 <copy_all>",
               "  1007:\tcall   4020 <memcpy@plt>",
               "  100c:\tjmp    *0x2f(%rip)", "  1012:\tret"]
    T.eq(leaves(made_up)[1], ["1007: call 4020 <memcpy@plt>",
                              "100c: jmp *0x2f(%rip)"],
         "made-up code: a call to the PLT and an indirect jump are found, "
         "a jump back into the function is not")
    r = subprocess.run([objdump, "-d", "--no-show-raw-insn",
                        "--disassemble=copy_all", T.VMSCOPE],
                       capture_output=True, text=True, timeout=120)
    insns, out = leaves(r.stdout.splitlines())
    if not T.ok(insns, "copy_all is in %s (%d instructions)" %
                (os.path.basename(T.VMSCOPE), len(insns)), r.stderr[-300:]):
        return T.done()
    T.eq(out, [], "copy_all calls nothing and jumps nowhere outside itself")
    T.ok(sum(op == "syscall" for _, op, _ in insns) >= 2,
         "copy_all makes its system calls itself (syscall instructions)")
    return T.done()


if __name__ == "__main__":
    main()
