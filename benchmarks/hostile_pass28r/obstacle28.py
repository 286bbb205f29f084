# ruff: noqa: E501  (attack code: long report lines)
"""Obstacles put where a run is about to write, while it plays: a folder of the name of a
file it will land (a batch's record file and games part, a compact file), a file where it
makes a folder. Each should end the run in one line (exit 2), never a traceback, never a
game failed for it, and leave a folder that reads as changed or resumes.

python obstacle28.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common28 import ROOT, cardgame, show, study_file

GAMES = 24
OBSTACLES = {
    "records/part-c0000-g0000020.jsonl as a folder": ("records/part-c0000-g0000020.jsonl", "dir"),
    "games/_parts/part-c0000-g0000020.arrows.lz4 as a folder": (
        "games/_parts/part-c0000-g0000020.arrows.lz4",
        "dir",
    ),
    "seats/compact.parquet as a folder": ("seats/compact.parquet", "dir"),
    "games/compact.parquet as a folder": ("games/compact.parquet", "dir"),
    "quality as a file": ("quality", "file"),
}


def main() -> None:
    path = study_file("obstacle28", GAMES, 1)
    base = os.path.join(ROOT, "obstacle28")
    for what, (name, kind) in OBSTACLES.items():
        shutil.rmtree(base, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        start = time.monotonic()
        while not Path(base, "records").is_dir() and run.poll() is None:
            time.sleep(0.005)
        target = Path(base, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            target.mkdir()
        else:
            target.write_bytes(b"")
        out, err = run.communicate(timeout=400)
        tb = "Traceback" in err
        tail = (out + err).strip().splitlines()
        print(
            f"  {what} (at {time.monotonic() - start:.1f} s): the run: exit {run.returncode}{' TRACEBACK' if tb else ''}: {tail[-1][:220] if tail else ''!r}",
            flush=True,
        )
        failed = [line[:160] for line in out.splitlines() if "failed" in line]
        if failed:
            print(f"    games failed: {failed}", flush=True)
        show(
            "report",
            cardgame(
                "report", base, "--format", "md", "--out", os.path.join(ROOT, "obstacle28.md")
            ),
        )
        if kind == "dir":
            os.rmdir(target)
        else:
            target.unlink()
        print(f"    the writer takes its {kind} away", flush=True)
        show(
            "--resume --records",
            cardgame(
                "simulate",
                path,
                "--workers",
                "1",
                "--no-progress",
                "--records",
                "--out",
                base,
                "--resume",
            ),
        )


if __name__ == "__main__":
    main()
