# ruff: noqa: E501  (long report lines)
"""Cache-flush instructions at any byte offset (not only where the disassembler starts an
instruction) in the executable segments of every ELF file of the sandbox's view, the
interpreter included: `clflush`/`clflushopt` (0F AE /7, 66 0F AE /7) with a memory operand
on an argument register, followed within a few bytes by `ret` (C3). Such a run of bytes is
a function a game can call through ctypes. Run outside the sandbox, with the project's venv."""

import os
import re
import struct

from sims import runtime

# modrm with reg=7, mod 00 (no displacement) on rdi (7), rsi (6), rdx (2), rcx (1), rax (0)
PATTERN = re.compile(rb"(\x66)?\x0f\xae([\x38\x39\x3a\x3e\x3f])")


def exec_segments(data: bytes):
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, p_flags, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize
        )
        if p_type == 1 and p_flags & 1:
            yield p_offset, data[p_offset : p_offset + p_filesz]


files = []
for source, _ in runtime.held_python_copy().binds:
    if os.path.isdir(source):
        for root, _, names in os.walk(source):
            files += [os.path.join(root, n) for n in names]
    else:
        files.append(source)
found = []
seen = 0
for path in files:
    if os.path.islink(path) or not os.path.isfile(path):
        continue
    with open(path, "rb") as f:
        head = f.read(4)
        if head != b"\x7fELF":
            continue
        f.seek(0)
        data = f.read()
    seen += 1
    for offset, seg in exec_segments(data):
        for m in PATTERN.finditer(seg):
            tail = seg[m.end() : m.end() + 4]
            if b"\xc3" in tail:
                found.append(
                    f"{os.path.basename(path)} +{offset + m.start():#x}: {seg[m.start() : m.end() + 4].hex(' ')}"
                )
print(f"{seen} ELF files; flush on an argument register with a ret within 4 bytes: {len(found)}")
for line in found[:40]:
    print(" ", line)
