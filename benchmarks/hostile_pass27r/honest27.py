# ruff: noqa: E501  (attack code: long report lines)
"""No writer: an honest run of 400 one-game batches (its compaction forked) with ``--records``,
stopped by Ctrl-C at several moments (early, mid-way, as its compact files land: the first
``compact*`` temporary file in ``games/``, and twice in a row), each time resumed with the
command it prints, then reported, viewed and replayed. Any exit but 0 (130 for the stopped
run) is a false refusal.

python honest27.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common27 import ROOT, cardgame, last_line, study_file


def stopped_run(
    path: str, folder: str, when: str, extra: list[str]
) -> subprocess.CompletedProcess[str] | None:
    """The run, Ctrl-C'd at ``when``: a number of seconds after its manifest lands, or
    ``compact``: once a compaction's temporary file shows in ``games/``."""
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "2", "--no-progress", "--records", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    manifest = Path(folder, "manifest.json")
    while run.poll() is None and not manifest.exists():
        time.sleep(0.005)
    if when == "compact":
        games = Path(folder, "games")
        while run.poll() is None and not any(
            p.name.startswith(".compact") for p in games.glob(".*")
        ):
            time.sleep(0.002)
    else:
        time.sleep(float(when))
    running = run.poll() is None
    if running:
        run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=300)
    print(
        f"  Ctrl-C at {when} (running: {running}): exit {run.returncode}: {out.strip().splitlines()[-1][:120]!r}"
    )
    return None


def main() -> None:
    refused = total = 0
    for when in ("0.3", "1.5", "compact", "twice"):
        name = f"honest27-{when.replace('.', '')}"
        path = study_file(name, 400, 1)
        folder = os.path.join(ROOT, name)
        shutil.rmtree(folder, ignore_errors=True)
        if when == "twice":
            stopped_run(path, folder, "0.5", [])
            stopped_run(path, folder, "0.5", ["--resume"])
        else:
            stopped_run(path, folder, when, [])
        checks = [
            (
                "--resume",
                ["simulate", path, "--workers", "2", "--no-progress", "--records", "--resume"],
            ),
            ("report", ["report", folder, "--format", "md", "--out", folder + ".md"]),
            (
                "view",
                ["view", folder, "--game", "400", "--playouts", "0", "--out", folder + ".html"],
            ),
        ]
        for label, args in checks:
            done = cardgame(*args)
            total += 1
            refused += done.returncode != 0
            print(f"    {label}: exit {done.returncode}: {last_line(done)[:150]!r}")
        record = sorted(Path(folder, "records").glob("part-*.jsonl"))[-1]
        done = cardgame("replay", str(record))
        total += 1
        refused += done.returncode != 0
        print(f"    replay {record.name}: exit {done.returncode}: {last_line(done)[:150]!r}")
    print(f"honest commands refused (exit not 0): {refused} of {total}")


if __name__ == "__main__":
    main()
