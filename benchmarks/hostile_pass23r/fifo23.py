# ruff: noqa: E501  (attack code: long report lines)
"""A sealed file replaced by a named pipe after the seal's check and before the reader reads
it: ``read_once`` opens it by name (``open(path, "rb")``, blocking, following links) before
any identity check, and the open of a pipe with no writer never returns. The report hangs
(a denial of service, not a change: a writer that fed the pipe would be refused by the
identity check after the read).

The window: the check hashes every file (games/compact.parquet closed once), then
``load_results`` reads the games footer (a second close); the writer swaps
``seats/compact.parquet`` for a pipe at that second close.

python fifo23.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading

from common import ROOT, Watch, cardgame, study_file

IN_CLOSE_NOWRITE = 0x10
LIMIT = 60  # seconds the report is given


def main() -> None:
    path = study_file("fifo", 6, 1)
    folder = os.path.join(ROOT, "fifo")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress")
    print(f"  sealed run: exit {done.returncode}")
    games = os.path.join(folder, "games")
    seats = os.path.join(folder, "seats", "compact.parquet")
    watch = Watch(games, IN_CLOSE_NOWRITE)
    swapped = []

    def swap() -> None:
        closes = 0
        for name in watch.events():
            if name == "compact.parquet":
                closes += 1
                if closes == 2:
                    pipe = os.path.join(ROOT, "pipe")
                    if os.path.lexists(pipe):
                        os.remove(pipe)
                    os.mkfifo(pipe)
                    os.rename(pipe, seats)
                    swapped.append("seats/compact.parquet")
                    return

    threading.Thread(target=swap, daemon=True).start()
    try:
        done = cardgame("report", folder, "--format", "md", "--out", folder + ".md", timeout=LIMIT)
        print(
            f"  report: exit {done.returncode}: {done.stderr.strip()[-160:]!r}; swapped: {swapped}"
        )
    except subprocess.TimeoutExpired:
        print(
            f"  report: still blocked after {LIMIT} s (killed by the script's timeout); swapped: {swapped}"
        )


if __name__ == "__main__":
    main()
