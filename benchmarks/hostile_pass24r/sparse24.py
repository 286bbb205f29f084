# ruff: noqa: E501  (attack code: long report lines)
"""Files of a sealed folder extended in place (``truncate``: the same inode, holes after
the bytes, nothing on disk).

``manifest``: ``manifest.json`` grown to 8 TiB. Every reader reads the manifest whole
(``read_once``: ``file.read()``, sized by ``fstat``) before anything else: ``MemoryError``,
which nothing catches (``check_sealed`` catches ``OSError``): a traceback, exit 1. (A size
below the machine's memory would be read into it whole; not run on a shared machine.)

``part``: a sealed part grown to 2 GiB: the names match, so the check hashes it whole
before it compares the digest (refused, but after the time shown; 8 TiB would take hours).

python sparse24.py
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from common import ROOT, cardgame, study_file


def tail(out: str) -> str:
    lines = out.strip().splitlines()
    return (
        f"traceback: {'Traceback' in out}, last line: {lines[-1][:150]!r}" if lines else "no output"
    )


def main() -> None:
    path = study_file("sparse24", 8, 1)
    folder = os.path.join(ROOT, "sparse24")
    shutil.rmtree(folder, ignore_errors=True)
    run = ["simulate", path, "--workers", "1", "--no-progress", "--records", "--keep-parts"]
    done = cardgame(*run)
    print(f"  sealed run (--records --keep-parts): exit {done.returncode}")
    record = str(sorted(Path(folder, "records").glob("*.jsonl"))[0])
    manifest = Path(folder, "manifest.json")
    size = manifest.stat().st_size
    os.truncate(manifest, 8 << 40)
    print("  the writer: manifest.json grown to 8 TiB in place")
    commands = {
        "report": ["report", folder, "--format", "md", "--out", folder + ".md"],
        "view FOLDER": ["view", folder, "--out", folder + ".html", "--playouts", "0"],
        "replay RECORD": ["replay", record],
        "--resume": [*run, "--resume"],
    }
    for what, command in commands.items():
        done = cardgame(*command)
        print(f"  {what}: exit {done.returncode}; {tail(done.stdout + done.stderr)}")
    os.truncate(manifest, size)
    part = Path(folder, "seats", "_parts", "part-c0000-g0000000.arrows.lz4")
    os.truncate(part, 2 << 30)
    print("  the writer: manifest.json back as it was; a seats part grown to 2 GiB in place")
    start = time.perf_counter()
    done = cardgame(*commands["report"])
    print(
        f"  report: exit {done.returncode} after {time.perf_counter() - start:.1f} s; {tail(done.stdout + done.stderr)}"
    )


if __name__ == "__main__":
    main()
