# ruff: noqa: E501  (attack code: long report lines)
"""Names the seal leaves out (a killed writer's ``.tmp`` file, a Dask client's ``.dask-run-*``
mark), given to record files: ``records/.dask-run-x.jsonl`` (a copy of a real record file,
forged) and ``records/part-c0000-g0000000.jsonl.tmp``, added to a sealed ``--records``
folder, and added while a run plays. ``view`` lists ``records/*.jsonl`` (pathlib's glob takes
dot names): is the forged record shown, refused, or left out?

python leftout27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common27 import ROOT, cardgame, last_line, study_file


def show(what: str, done: subprocess.CompletedProcess[str]) -> None:
    tb = "Traceback" in done.stderr
    print(
        f"    {what}: exit {done.returncode}{' TRACEBACK' if tb else ''}: {last_line(done)[:170]!r}"
    )


def forged(record: Path) -> bytes:
    return record.read_bytes().replace(b'"seed": ', b'"seed": 9', 1)


def readers(folder: str, path: str) -> None:
    out = os.path.join(ROOT, "leftout27.md")
    show("report", cardgame("report", folder, "--format", "md", "--out", out))
    show(
        "view FOLDER --game 5",
        cardgame(
            "view",
            folder,
            "--game",
            "5",
            "--playouts",
            "0",
            "--out",
            os.path.join(ROOT, "leftout27.html"),
        ),
    )
    show(
        "replay the dot record",
        cardgame("replay", os.path.join(folder, "records", ".dask-run-x.jsonl")),
    )
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
            folder,
            "--resume",
        ),
    )


def main() -> None:
    base = os.path.join(ROOT, "leftout27")
    shutil.rmtree(base, ignore_errors=True)
    path = study_file("leftout27", 4, 2)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    copy = os.path.join(ROOT, "leftout27-copy")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(base, copy)
    records = Path(copy, "records")
    first = sorted(records.glob("part-*.jsonl"))[0]
    Path(records, ".dask-run-x.jsonl").write_bytes(forged(first))
    Path(records, first.name + ".tmp").write_bytes(forged(first))
    print("  records/.dask-run-x.jsonl and records/<first>.jsonl.tmp added to a sealed copy:")
    readers(copy, path)
    runpath = study_file("leftout27-run", 4, 1)
    folder = os.path.join(ROOT, "leftout27-run")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", runpath, "--workers", "1", "--no-progress", "--records"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    records = Path(folder, "records")
    while run.poll() is None and not any(records.glob("part-*.jsonl")):
        time.sleep(0.01)
    Path(records, ".dask-run-x.jsonl").write_bytes(forged(sorted(records.glob("part-*.jsonl"))[0]))
    out, _ = run.communicate(timeout=300)
    print(
        f"  records/.dask-run-x.jsonl added while the run plays: the run exit {run.returncode}: {out.strip().splitlines()[-1][:170]!r}"
    )
    readers(folder, runpath)


if __name__ == "__main__":
    main()
