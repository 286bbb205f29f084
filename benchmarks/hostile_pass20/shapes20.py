# ruff: noqa: E501  (attack code: long report lines)
"""Legitimate run shapes, no attacker: each must end with exit 0 and a report that reads
its folder (no false refusal). A big forked run stopped by Ctrl-C (its own run, by pid)
then resumed; a study played until settled whose last look forks its compaction; the
same with ``--records`` and ``--keep-parts``.

python shapes20.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file


def check(what: str, folder: str) -> None:
    done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(f"  {what}: report exit {done.returncode}: {last_line(done)!r}")


def main() -> None:
    big = study_file("shape-big", 120, 1)
    run = ["cardgame", "simulate", big, "--workers", "1", "--no-progress", "--records"]
    folder = os.path.join(ROOT, "shape-big")
    shutil.rmtree(folder, ignore_errors=True)
    process = subprocess.Popen(
        [*run, "--out", folder], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    parts = Path(folder, "seats", "_parts")
    while not (parts.is_dir() and len(list(parts.glob("part-*"))) >= 20):
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)  # this script's own run: Ctrl-C
    out, _ = process.communicate()
    print(
        f"forked run stopped by Ctrl-C: exit {process.returncode}: {out.strip().splitlines()[-1][:160]!r}"
    )
    check("stopped", folder)
    done = subprocess.run([*run, "--out", folder, "--resume"], capture_output=True, text=True)
    print(f"  resume: exit {done.returncode}: {last_line(done)!r}")
    check("resumed", folder)
    settled = study_file("shape-settled", 40, 1, 'stop = "settled"\nmax_games = 160\n')
    for extra in ([], ["--records"], ["--keep-parts"]):
        folder = os.path.join(ROOT, "shape-settled" + "".join(extra))
        shutil.rmtree(folder, ignore_errors=True)
        done = subprocess.run(
            [
                "cardgame",
                "simulate",
                settled,
                "--workers",
                "1",
                "--no-progress",
                *extra,
                "--out",
                folder,
            ],
            capture_output=True,
            text=True,
        )
        games = [
            line for line in done.stdout.splitlines() if "games in" in line or "stopped it" in line
        ]
        print(
            f"settled, up to a last look of 80 batches {extra}: exit {done.returncode}: {games!r}"
        )
        check("settled", folder)


if __name__ == "__main__":
    main()
