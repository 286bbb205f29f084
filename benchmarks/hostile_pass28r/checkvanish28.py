# ruff: noqa: E501  (attack code: long report lines)
"""``vanish28.py`` during a check's seal (``--check-search 30``): at the check's seal's open
of ``checks/search/games/compact.parquet`` the writer renames
``checks/search/seats/compact.parquet`` away, and back at the next open of the check's
``manifest.json`` (the failure path reads it). Then the study is read and resumed.

python checkvanish28.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common28 import IN_OPEN, ROOT, Watch, cardgame, show, study_file


def main() -> None:
    path = study_file("checkvanish28", 6, 2)
    base = os.path.join(ROOT, "checkvanish28")
    check = os.path.join(base, "checks", "search")
    away = os.path.join(ROOT, "checkvanish28-away.parquet")
    shutil.rmtree(base, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--check-search", "30", "--out", base],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    start = time.monotonic()
    while not Path(check, "games").is_dir() and run.poll() is None:
        time.sleep(0.01)
    watch = Watch([check, os.path.join(check, "games")], IN_OPEN)
    state, when = "waiting", []
    while run.poll() is None:
        event = watch.next(0.2)
        if event is None:
            continue
        folder, name, _ = event
        if state == "waiting" and folder.endswith("games") and name == "compact.parquet":
            os.rename(os.path.join(check, "seats", "compact.parquet"), away)
            state = "away"
            when.append(f"away at {time.monotonic() - start:.2f} s")
        elif state == "away" and folder == check and name == "manifest.json":
            os.rename(away, os.path.join(check, "seats", "compact.parquet"))
            state = "back"
            when.append(f"back at {time.monotonic() - start:.2f} s")
    if state == "away":
        os.rename(away, os.path.join(check, "seats", "compact.parquet"))
        when.append("back after the run")
    watch.close()
    out, err = run.communicate()
    tb = "Traceback" in err
    tail = (out + err).strip().splitlines()
    print(
        f"  {', '.join(when) or 'never taken away'}; the run: exit {run.returncode}{' TRACEBACK' if tb else ''}: {tail[-1][:200] if tail else ''!r}",
        flush=True,
    )
    md = os.path.join(ROOT, "checkvanish28.md")
    show("report", cardgame("report", base, "--format", "md", "--out", md))
    show("report of the check alone", cardgame("report", check, "--format", "md", "--out", md))
    show(
        "--resume --check-search 30",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--check-search",
            "30",
            "--out",
            base,
            "--resume",
        ),
    )
    show("report after", cardgame("report", base, "--format", "md", "--out", md))


if __name__ == "__main__":
    main()
