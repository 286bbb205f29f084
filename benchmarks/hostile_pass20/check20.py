# ruff: noqa: E501  (attack code: long report lines)
"""A check's folder is sealed on its own over whatever it holds: a compact file renamed in
after the check's compaction landed it and before its seal is sealed there.

``_run_checks`` seals each ``checks/NAME`` with ``seal(Path(check.output))``, given no
reading of what the run wrote, so it digests the folder as it finds it. The study's own
seal (the outer one) accounts for those files and fails the run; but the check's folder,
a results folder of its own, is then read on its own as sealed. The writer (no key)
watches ``checks/search/seats`` and, once the check's compaction lands its
``compact.parquet`` there (``IN_MOVED_TO``), renames a forged one (from a run of the same
study elsewhere, every score +500) over it.

python check20.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

import pyarrow.parquet as pq
from common import IN_MOVED_TO, ROOT, Watch, cardgame, forge_compact, last_line

STUDY = [
    "--strategies",
    "planner,rusher",
    "--players",
    "2",
    "--games",
    "4",
    "--workers",
    "1",
    "--no-progress",
    "--check-search",
    "2",
]


def main() -> None:
    pre = os.path.join(ROOT, "check-pre")
    if not os.path.isdir(pre):
        subprocess.run(["cardgame", "simulate", *STUDY, "--out", pre], capture_output=True)
    forged = os.path.join(ROOT, "check-forged.parquet")
    shutil.copy(os.path.join(pre, "checks", "search", "seats", "compact.parquet"), forged)
    forge_compact(forged, forged + ".w")
    folder = os.path.join(ROOT, "check-run")
    shutil.rmtree(folder, ignore_errors=True)
    seats = os.path.join(folder, "checks", "search", "seats")
    swapped: list[str] = []

    def swap() -> None:
        while not os.path.isdir(seats):
            time.sleep(0.001)
        for event in Watch(seats, IN_MOVED_TO).events():
            if event == "compact.parquet":
                os.rename(forged, os.path.join(seats, event))
                swapped.append(event)
                return

    threading.Thread(target=swap, daemon=True).start()
    done = subprocess.run(
        ["cardgame", "simulate", *STUDY, "--out", folder], capture_output=True, text=True
    )
    print(f"check: run exit {done.returncode}: {last_line(done)!r}; swapped: {swapped}")
    study = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(f"  report of the study: exit {study.returncode}: {last_line(study)!r}")
    inner = os.path.join(folder, "checks", "search")
    check = cardgame("report", inner, "--format", "md", "--out", folder + "-check.md")
    print(f"  report of its check's folder: exit {check.returncode}: {last_line(check)!r}")
    print(
        f"  the check's scores: {pq.read_table(os.path.join(seats, 'compact.parquet'))['score'].to_pylist()}; untouched: {pq.read_table(os.path.join(pre, 'checks', 'search', 'seats', 'compact.parquet'))['score'].to_pylist()}"
    )


if __name__ == "__main__":
    main()
