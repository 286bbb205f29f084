"""The two races of this pass made deterministic, in a process of ours (the shape of the
tests a fix would add): the writer's step is done inside the reader's own look at the file.

1. A named pipe put in ``seats/compact.parquet``'s place right after ``refuse_special``'s
   ``os.stat`` returns: ``load_results(copy, accept_changes=True)`` waits for good (killed
   after 15 s).
2. ``manifest.json`` grown to 8 TiB of holes right after ``read_once``'s ``os.fstat``
   returns: ``check_sealed(copy)`` ends in ``MemoryError``.
3. ``seats/compact.parquet`` grown so right after ``Reading.read``'s ``os.fstat`` (a sealed
   folder read with no flag, after its check): ``load_results(copy)`` the same.

python determ30.py   (after flip30.py, which makes the sealed folder)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from common30 import ROOT

BASE, COPY = os.path.join(ROOT, "flip30"), os.path.join(ROOT, "determ30-copy")

PIPE = """
import os, stat, sys
import sims.reading as reading
from sims.results import load_results
target = os.path.join({copy!r}, "seats", "compact.parquet")
real = os.stat
def stat_then_swap(path, *a, **k):
    found = real(path, *a, **k)
    caller = sys._getframe(1).f_code.co_name
    if caller == "refuse_special" and str(path) == target and stat.S_ISREG(found.st_mode):
        os.remove(target)
        os.mkfifo(target)
    return found
reading.os.stat = stat_then_swap
load_results({copy!r}, accept_changes=True)
print("read to the end")
"""

GROW = """
import os, sys
import sims.reading as reading
from sims.folder import check_sealed
target = os.path.join({copy!r}, "manifest.json")
real = os.fstat
def fstat_then_grow(fd):
    found = real(fd)
    caller = sys._getframe(1).f_code.co_name
    if caller == "read_once" and os.path.realpath(f"/proc/self/fd/{{fd}}") == target:
        os.truncate(target, 8 << 40)
    return found
reading.os.fstat = fstat_then_grow
try:
    check_sealed(__import__("pathlib").Path({copy!r}))
    print("checked")
except BaseException as exc:
    print(type(exc).__name__, str(exc)[:160])
"""

GROW_SEALED = (
    GROW.replace('"read_once"', '"read"')
    .replace('"manifest.json")', '"seats", "compact.parquet")')
    .replace(
        'check_sealed(__import__("pathlib").Path({copy!r}))',
        '__import__("sims.results").results.load_results({copy!r})',
    )
)


def fresh() -> None:
    shutil.rmtree(COPY, ignore_errors=True)
    subprocess.run(["cp", "-a", BASE, COPY], check=True)


def main() -> None:
    for what, code in (
        ("1. a pipe after refuse_special's stat", PIPE),
        ("2. the manifest grown after read_once's fstat", GROW),
        ("3. a sealed table grown after Reading.read's fstat (load_results, sealed)", GROW_SEALED),
    ):
        fresh()
        try:
            done = subprocess.run(
                [sys.executable, "-c", code.format(copy=COPY)],
                capture_output=True,
                text=True,
                timeout=15,
            )
            out = (done.stdout + done.stderr).strip().splitlines()
            print(f"  {what}: exit {done.returncode}: {out[-1][:200] if out else ''!r}")
        except subprocess.TimeoutExpired:
            print(f"  {what}: HANG past 15 s (killed)")


if __name__ == "__main__":
    main()
