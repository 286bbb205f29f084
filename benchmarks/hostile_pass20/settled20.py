# ruff: noqa: E501  (attack code: long report lines)
"""A study played until settled takes parts another writer put in its folder as batches it
played, and seals them.

Each look after the first is played as a resume (``resume=True``): ``done_batches`` counts
any batch whose parts are in every table's ``_parts``, and the run's reading takes a part
it neither wrote nor found at its start as its own (``Reading.read``, ``own_writes``). So a
writer (no key) puts forged parts of the last look's batches in the folder (made from a run of the same study elsewhere, once the second look is judged: the bytes depend on the study, not
on the key; every seats score +500, planner winning). The run skips those batches, its
compaction merges the forged rows, removes the parts (noted as its own removals) and seals.

python settled20.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import IN_MOVED_TO, ROOT, Watch, forge_part, last_line, report, scores, study_file

TABLES = ("games", "seats", "destinations")


def judged(folder: str) -> int:
    try:
        return len(
            json.loads(Path(folder, "manifest.json").read_text())["plan"]["sequential"]["judged"]
        )
    except (OSError, ValueError, KeyError):
        return 0


def main() -> None:
    study = study_file("settled", 8, 4, 'stop = "settled"\nmax_games = 32\n')
    run = ["cardgame", "simulate", study, "--workers", "1", "--no-progress"]
    pre = os.path.join(ROOT, "settled-pre")  # the same study elsewhere, its parts kept
    if not os.path.isdir(pre):
        subprocess.run([*run, "--keep-parts", "--out", pre], capture_output=True)
    last_look = [f"part-c0000-g{g:07d}.arrows.lz4" for g in (16, 20, 24, 28)]
    staged = os.path.join(ROOT, "settled-staged")
    shutil.rmtree(staged, ignore_errors=True)
    for table in TABLES:
        os.makedirs(os.path.join(staged, table))
        for name in last_look:
            shutil.copy(os.path.join(pre, table, "_parts", name), os.path.join(staged, table, name))
    for name in last_look:
        forge_part(Path(staged, "seats", name), os.path.join(staged, "spare"))
    folder = os.path.join(ROOT, "settled-run")
    shutil.rmtree(folder, ignore_errors=True)
    process = subprocess.Popen(
        [*run, "--out", folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    # once the second look is judged (its judgment written in the manifest), before the
    # last look counts its batches done: put the forged parts beside the others
    while not os.path.isdir(folder):
        time.sleep(0.002)
    watch = Watch(folder, IN_MOVED_TO)
    for event in watch.events():
        if event == "manifest.json" and judged(folder) >= 2:
            break
    for table in TABLES:
        for name in last_look:
            os.rename(
                os.path.join(staged, table, name), os.path.join(folder, table, "_parts", name)
            )
    out, err = process.communicate()
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    print(f"settled: run exit {done.returncode}: {last_line(done)!r}")
    print(f"  {[line for line in out.splitlines() if 'played now' in line]!r}")
    if os.path.exists(os.path.join(folder, "seats", "compact.parquet")):
        s = scores(folder)
        print(f"  scores now: {len(s)} seats, over 400: {sum(x > 400 for x in s)}")
    print(f"  afterwards, no writer left: {report(folder)}")
    print(f"  the same study, untouched: {report(pre)}")


if __name__ == "__main__":
    main()
