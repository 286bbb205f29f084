"""An honest Ctrl-C while a run seals its folder: a ``--keep-parts`` run of many one-game
batches (some 1,000 files to hash), SIGINT (to our own run) at the seal's first open of a
kept part (inotify: a kept part is not read while the run plays), once or twice (the second
100 ms later). Then ``report`` and ``--resume`` of the folder: a refusal of a folder whose
run was only asked to stop is a false refusal.

python sigseal30.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common30 import IN_OPEN, ROOT, Watch, cardgame, show, study_file


def one(signals: int, games: int) -> int:
    study = study_file(f"sigseal30x{signals}", games, 1)
    folder = os.path.join(ROOT, f"sigseal30x{signals}")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        [
            *("cardgame", "simulate", study, "--workers", "1", "--no-progress"),
            *("--keep-parts", "--records", "--out", folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    parts = Path(folder, "games", "_parts")
    while run.poll() is None and not parts.is_dir():
        time.sleep(0.01)
    watch = Watch([str(parts)], IN_OPEN)
    sent = 0
    start = time.monotonic()
    while run.poll() is None and sent < signals:
        event = watch.next(0.1)
        if event is not None and event[1].startswith("part-"):
            run.send_signal(signal.SIGINT)
            sent += 1
            print(f"  SIGINT {sent} at {time.monotonic() - start:.2f} s (a part opened)")
            time.sleep(0.1)
    watch.close()
    out, _ = run.communicate(timeout=300)
    lines = out.strip().splitlines()
    print(f"  the run ({signals} SIGINT): exit {run.returncode}: {lines[-2:]}")
    bad = 0
    done = cardgame("report", folder, "--format", "md", "--out", os.path.join(ROOT, "ss30.md"))
    show("report after", done)
    bad += done.returncode != 0
    done = cardgame(
        *("simulate", study, "--workers", "1", "--no-progress", "--keep-parts", "--records"),
        *("--out", folder, "--resume"),
    )
    show("--resume after", done)
    bad += done.returncode != 0
    return bad


def main() -> None:
    bad = one(1, 300) + one(2, 300)
    print(f"  honest commands refused (exit not 0): {bad}")


if __name__ == "__main__":
    main()
