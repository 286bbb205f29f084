# ruff: noqa: E501  (attack code: long report lines)
"""A sealed folder with --records, stripped of its manifest and its games/ folder, is read as
a folder of loose records: ``results_folder_of`` takes a folder as a results folder only with
a manifest, or with both games/ and records/; ``_seal_found`` refuses games/ *or* records/
without a manifest, but is never asked. docs/data.md: "A folder with games/ or records/ but no
manifest file is refused (...), never read as loose records".

The writer moves ``manifest.json`` and ``games/`` out of the folder and puts the records of
another run (the same study, seed 21: other games, each a valid record) in place of the
folder's. ``cardgame view FOLDER``, ``cardgame view FOLDER/records/FILE`` and ``cardgame
replay FOLDER/records/FILE`` show the other games, exit 0, no warning.

python loose23.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file


def seeds(folder: str) -> list[int]:
    return [
        json.loads(line)["seed"]
        for f in sorted(Path(folder, "records").glob("*.jsonl"))
        for line in f.read_text().splitlines()
        if line.strip()
    ]


def main() -> None:
    path = study_file("loose", 4, 1)
    folder = os.path.join(ROOT, "loose")
    other = os.path.join(ROOT, "loose-other")
    for f in (folder, other):
        shutil.rmtree(f, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  sealed run with --records: exit {done.returncode}; its games' seeds {seeds(folder)}")
    text = Path(path).read_text().replace("seed = 20", "seed = 21")
    Path(ROOT, "loose-other.toml").write_text(text)
    cardgame(
        "simulate",
        os.path.join(ROOT, "loose-other.toml"),
        "--out",
        other,
        "--workers",
        "1",
        "--no-progress",
        "--records",
    )
    away = os.path.join(ROOT, "loose-away")
    shutil.rmtree(away, ignore_errors=True)
    os.makedirs(away)
    os.rename(os.path.join(folder, "manifest.json"), os.path.join(away, "manifest.json"))
    os.rename(os.path.join(folder, "games"), os.path.join(away, "games"))
    for f in Path(other, "records").glob("*.jsonl"):
        shutil.copy(f, Path(folder, "records", f.name))
    print(
        f"  the writer: manifest.json and games/ moved out; records now those of seeds {seeds(folder)}"
    )
    record = str(sorted(Path(folder, "records").glob("*.jsonl"))[0])
    done = cardgame("view", folder, "--playouts", "0", "--out", folder + ".html")
    print(f"  view FOLDER: exit {done.returncode}: {last_line(done)[:150]!r}")
    done = cardgame("view", record, "--playouts", "0", "--out", folder + "-r.html")
    print(f"  view FOLDER/records/FILE: exit {done.returncode}: {last_line(done)[:150]!r}")
    done = cardgame("replay", record)
    print(f"  replay FOLDER/records/FILE: exit {done.returncode}: {last_line(done)[:150]!r}")
    done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(f"  report FOLDER (for comparison): exit {done.returncode}: {last_line(done)[:150]!r}")


if __name__ == "__main__":
    main()
