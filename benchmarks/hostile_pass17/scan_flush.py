"""Which shared objects of the sandbox's view hold a cache-flush instruction (clflush,
clflushopt, clwb): what a game could still call through ctypes once its stderr can no
longer run code of its own. Run outside the sandbox, with the project's venv (objdump)."""

import os
import subprocess

from sims import runtime

libs = []
for source, _ in runtime.held_python_copy().binds:
    if os.path.isdir(source):
        for root, _, names in os.walk(source):
            libs += [os.path.join(root, name) for name in names if ".so" in name]
    elif ".so" in source:
        libs.append(source)
hits = {}
for lib in libs:
    text = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True, text=True, check=False
    ).stdout
    lines = [line.strip() for line in text.splitlines() if "clflush" in line or "clwb" in line]
    if lines:
        hits[os.path.basename(lib)] = lines
print(f"{len(libs)} shared objects in the view; with a flush: {hits}")
