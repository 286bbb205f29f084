# ruff: noqa: E501  (attack code: long report lines)
"""Odd shapes of a sealed folder (made with --records), each on its own copy, read by
``report``, ``view FOLDER``, ``replay`` of a record and ``--resume``: any exit but 0 or 2,
or a traceback? Also a folder made immutable (``chattr -R +i``: read-only, even to root).

python shape25.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from common import ROOT, cardgame, copy, last_line, study_file


def swap_for_file(f: str, name: str) -> None:
    p = Path(f, name)
    shutil.rmtree(p) if p.is_dir() else p.unlink()
    p.write_text("x")


def swap_for_dir(f: str, name: str) -> None:
    p = Path(f, name)
    p.unlink()
    p.mkdir()


SHAPES = {
    "records/ a file": lambda f: swap_for_file(f, "records"),
    "seats/ a file": lambda f: swap_for_file(f, "seats"),
    "manifest.json a folder": lambda f: swap_for_dir(f, "manifest.json"),
    "seats/compact.parquet a folder": lambda f: swap_for_dir(f, "seats/compact.parquet"),
    "records/ emptied": lambda f: [p.unlink() for p in Path(f, "records").iterdir()],
    "immutable (chattr -R +i)": lambda f: subprocess.run(["chattr", "-R", "+i", f], check=True),
}


def main() -> None:
    path = study_file("shape25", 8, 1)
    folder = os.path.join(ROOT, "shape25")
    shutil.rmtree(folder, ignore_errors=True)
    cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    record = os.path.join(folder, "records", "part-c0000-g0000000.jsonl")
    for label, make in SHAPES.items():
        f = os.path.join(ROOT, "shape25-copy")
        subprocess.run(["chattr", "-R", "-i", f], capture_output=True)
        copy(folder, f)
        make(f)
        rows = []
        for what, args in (
            ("report", ["report", f, "--format", "md", "--out", f + ".md"]),
            ("view", ["view", f, "--out", f + ".html"]),
            ("replay", ["replay", record.replace(folder, f)]),
            (
                "--resume",
                [
                    "simulate",
                    path,
                    "--out",
                    f,
                    "--workers",
                    "1",
                    "--no-progress",
                    "--resume",
                    "--records",
                ],
            ),
        ):
            d = cardgame(*args)
            tb = "Traceback" in d.stderr
            rows.append(
                f"{what} {d.returncode}{' TRACEBACK' if tb else ''}: {last_line(d)[len(f) if False else 0 :][:110]!r}"
            )
        print(f"  {label}:\n    " + "\n    ".join(rows))
        for out in (f + ".md", f + ".html"):
            if os.path.exists(out):
                os.remove(out)
    subprocess.run(["chattr", "-R", "-i", os.path.join(ROOT, "shape25-copy")], capture_output=True)


if __name__ == "__main__":
    main()
