"""No attacker: a run stopped by Ctrl-C blames its own worker's last batch on another
writer, and its untouched folder is refused from then on.

At Ctrl-C the run stops taking its workers' answers, but a worker in the middle of a batch
may still land its parts (``land``: it writes them itself). Their digests come back only in
the answer the parent no longer reads, so at the seal ``Reading.accounted`` finds files the
run did not note: "X was added", left out of the seal. The run ends in that line, and
``report``, ``view`` and ``--resume`` refuse the folder ("was added since its run ended")
unless ``--accept-changes``. This script stops its own run (by pid) once 10 batches of
one game each have landed, as a user's Ctrl-C would.

python ctrlc20.py [TRIES [WORKERS]]
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    workers = sys.argv[2] if len(sys.argv) > 2 else "2"
    study = study_file("ctrlc", 60, 1)
    run = ["cardgame", "simulate", study, "--workers", workers, "--no-progress"]
    refused = 0
    for n in range(tries):
        folder = os.path.join(ROOT, f"ctrlc-{n}")
        shutil.rmtree(folder, ignore_errors=True)
        process = subprocess.Popen(
            [*run, "--out", folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        parts = Path(folder, "seats", "_parts")
        while not (parts.is_dir() and len(list(parts.glob("part-*"))) >= 10):
            time.sleep(0.005)
        process.send_signal(signal.SIGINT)  # this script's own run: Ctrl-C
        out, err = process.communicate()
        lines = (out + err).strip().splitlines()
        done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
        again = cardgame(*run[1:], "--out", folder, "--resume")
        refused += done.returncode != 0
        print(f"try {n + 1}: run exit {process.returncode}: {lines[-1][:170] if lines else ''!r}")
        print(f"  report: exit {done.returncode}: {last_line(done)[:170]!r}")
        print(f"  --resume: exit {again.returncode}: {last_line(again)[:170]!r}")
    print(f"untouched folders refused: {refused} of {tries}")


if __name__ == "__main__":
    main()
