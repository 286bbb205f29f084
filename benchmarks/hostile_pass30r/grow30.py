"""A sealed file grown in place and shrunk back, over and over (``truncate`` to 8 TiB of holes
and back: its bytes kept), while a reader reads it: the reader compares the size it opened
(``os.fstat``) with the sealed one, or with the manifest's bound, then reads with
``file.read()``, which sizes its buffer by a second ``fstat`` (CPython's
``FileIO.readall``). Between the two the file may be 8 TiB: a ``MemoryError``.

Targets: ``manifest.json`` (``read_once``: every reader reads it first, sealed or not) and a
record file (``Reading.read``, by ``replay``).

python grow30.py [TRIES]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from common30 import ROOT

BIG = 8 << 40


def grower(target: str, size: int, stop: threading.Event) -> None:
    fd = os.open(target, os.O_WRONLY)
    try:
        while not stop.is_set():
            for _ in range(200):
                os.ftruncate(fd, BIG)
                os.ftruncate(fd, size)
    finally:
        os.close(fd)


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    base, copy = os.path.join(ROOT, "flip30"), os.path.join(ROOT, "grow30-copy")
    record = sorted(p.name for p in Path(base, "records").iterdir())[0]
    cases = {
        "report, manifest.json grown and shrunk": (
            "manifest.json",
            ["report", copy, "--format", "md", "--out", os.path.join(ROOT, "grow30.md")],
        ),
        "replay, manifest.json grown and shrunk": (
            "manifest.json",
            ["replay", os.path.join(copy, "records", record)],
        ),
        "--resume, manifest.json grown and shrunk": (
            "manifest.json",
            [
                *("simulate", os.path.join(ROOT, "flip30.toml"), "--workers", "1"),
                *("--no-progress", "--records", "--out", copy, "--resume"),
            ],
        ),
        f"replay of records/{record}, it grown and shrunk": (
            f"records/{record}",
            ["replay", os.path.join(copy, "records", record)],
        ),
    }
    for what, (rel, args) in cases.items():
        if only not in what:
            continue
        print(f"  {what}", flush=True)
        tally: dict[str, int] = {}
        for n in range(tries):
            shutil.rmtree(copy, ignore_errors=True)
            subprocess.run(["cp", "-a", base, copy], check=True)
            target = os.path.join(copy, rel)
            stop = threading.Event()
            thread = threading.Thread(
                target=grower, args=(target, os.path.getsize(target), stop), daemon=True
            )
            thread.start()
            try:
                done = subprocess.run(
                    ["cardgame", *args], capture_output=True, text=True, timeout=60
                )
            finally:
                stop.set()
                thread.join()
            lines = (done.stdout + done.stderr).strip().splitlines()
            tb = "Traceback" in done.stderr
            kind = "traceback" if tb else "MemoryError" if "MemoryError" in done.stderr else ""
            last = lines[-1][:170] if lines else ""
            tally[kind or f"exit {done.returncode}"] = (
                tally.get(kind or f"exit {done.returncode}", 0) + 1
            )
            print(
                f"    try {n + 1}: exit {done.returncode}{' ' + kind if kind else ''}: {last!r}",
                flush=True,
            )
            if tb:
                print("      " + "\n      ".join(done.stderr.strip().splitlines()[-6:]), flush=True)
        print(f"    tally: {tally}", flush=True)


if __name__ == "__main__":
    main()
