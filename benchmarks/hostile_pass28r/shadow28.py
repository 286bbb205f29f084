# ruff: noqa: E501  (attack code: long report lines)
"""A name the seal leaves out (``*.tmp``, a killed writer's temporary file) decides what a
reader takes as a table: ``tables_besides_games`` counts a table's folder that holds *any*
file (``_holds_a_file``), ``.tmp`` ones too, while the seal (``_left_by_a_writer``) never
lists them and ``remove_temp_files`` removes only its own patterns. So ``quality/x.tmp``
added to a sealed folder of a study without the quality table passes every seal check and
makes the run count a quality table that no batch wrote.

python shadow28.py
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from common28 import ROOT, cardgame, show, study_file


def simulate(path: str, out: str, *extra: str):
    return cardgame("simulate", path, "--workers", "1", "--no-progress", "--out", out, *extra)


def readers(folder: str, path: str, *extra: str) -> None:
    out = os.path.join(ROOT, "shadow28.md")
    show("report", cardgame("report", folder, "--format", "md", "--out", out))
    show("--resume " + " ".join(extra), simulate(path, folder, "--resume", *extra))
    show("report after", cardgame("report", folder, "--format", "md", "--out", out))


def main() -> None:
    path = study_file("shadow28", 6, 2)
    base = os.path.join(ROOT, "shadow28")
    for kind, extra in (("compacted", ()), ("kept parts", ("--keep-parts",))):
        shutil.rmtree(base, ignore_errors=True)
        made = simulate(path, base, *extra)
        print(f"  {kind}: the run: exit {made.returncode}", flush=True)
        Path(base, "quality").mkdir()
        Path(base, "quality", "x.tmp").write_bytes(b"")
        print(f"  the writer: quality/x.tmp added to the sealed folder ({kind})", flush=True)
        readers(base, path)
    # while a run plays: the file added once the first part lands
    shutil.rmtree(base, ignore_errors=True)
    slow = study_file("shadow28", 40, 1)
    import subprocess

    run = subprocess.Popen(
        ["cardgame", "simulate", slow, "--workers", "1", "--no-progress", "--out", base],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    start = time.monotonic()
    while not Path(base, "manifest.json").exists() and time.monotonic() - start < 60:
        time.sleep(0.01)
    Path(base, "quality").mkdir(exist_ok=True)
    Path(base, "quality", "x.tmp").write_bytes(b"")
    out, err = run.communicate(timeout=400)
    tb = "Traceback" in err
    print(
        f"  while a run plays: quality/x.tmp added at {time.monotonic() - start:.1f} s; the run: exit {run.returncode}{' TRACEBACK' if tb else ''}: {(out + err).strip().splitlines()[-1][:200]!r}",
        flush=True,
    )
    readers(base, slow)


if __name__ == "__main__":
    main()
