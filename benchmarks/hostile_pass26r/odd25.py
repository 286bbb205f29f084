# ruff: noqa: E501  (attack code: long report lines)
"""Odd entries added to a sealed folder (made with --records), each on its own copy, each
read by ``report``, ``view FOLDER``, ``replay`` of its first record and ``--resume``:
folders are no files, so the seal lists none of them; what do the readers make of them?

python odd25.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from common import ROOT, cardgame, copy, last_line, study_file


def dup_study(folder: str) -> None:
    """A manifest with a second, earlier "study" key (JSON's last one wins)."""
    p = Path(folder, "manifest.json")
    text = p.read_text()
    p.write_text(text.replace("{", '{\n "study": {"name": "FORGED2525"},', 1))


ODD = {
    "records/a.jsonl/ (a folder named like a record)": lambda f: os.makedirs(
        os.path.join(f, "records", "a.jsonl")
    ),
    "records/a.jsonl/ holding a file": lambda f: (
        os.makedirs(os.path.join(f, "records", "a.jsonl")),
        Path(f, "records", "a.jsonl", "x").write_text("{}\n"),
    ),
    "checks/search/ (an empty check folder)": lambda f: os.makedirs(
        os.path.join(f, "checks", "search")
    ),
    "seats/compact.parquet.tmp (a killed writer's name)": lambda f: Path(
        f, "seats", "compact.parquet.tmp"
    ).write_bytes(Path(f, "seats", "compact.parquet").read_bytes()),
    "records/part-x.jsonl.tmp": lambda f: Path(f, "records", "part-x.jsonl.tmp").write_text("{}\n"),
    "a second, earlier study key in manifest.json": dup_study,
}


def main() -> None:
    path = study_file("odd25", 8, 1)
    folder = os.path.join(ROOT, "odd25")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  the run: exit {done.returncode}")
    for label, make in ODD.items():
        f = copy(folder, os.path.join(ROOT, "odd25-copy"))
        make(f)
        rec = sorted(Path(f, "records").glob("part-*.jsonl"))[0]
        rows = []
        for what, args in (
            ("report", ["report", f, "--format", "md", "--out", f + ".md"]),
            ("view", ["view", f, "--out", f + ".html"]),
            ("replay", ["replay", str(rec)]),
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
            rows.append(f"{what} {d.returncode}{' TRACEBACK' if tb else ''}")
            if d.returncode not in (0, 2) or tb or (d.returncode == 0 and what == "report"):
                rows.append(repr(last_line(d)[:160]))
        shown = Path(f + ".md").read_text() if os.path.exists(f + ".md") else ""
        print(
            f"  {label}: {'; '.join(rows)}{'; report shows FORGED2525' if 'FORGED2525' in shown else ''}"
        )
        for out in (f + ".md", f + ".html"):
            if os.path.exists(out):
                os.remove(out)


if __name__ == "__main__":
    main()
