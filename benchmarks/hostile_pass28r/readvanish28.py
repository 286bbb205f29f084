"""Row 1's trick against the readers: a sealed file renamed out of the folder after the
seal's check hashed it and before the reader reads it, put back 0.2 s later. Each reader
should refuse in one line (the file is gone when read, and the folder's marks moved).

python readvanish28.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

from common28 import IN_OPEN, ROOT, Watch, cardgame, show, study_file


def attack(base: str, args: list[str], watched: str, opens: int, target: str) -> None:
    """Run ``cardgame args``; at the ``opens``-th open of ``watched`` rename ``target`` away,
    and back 0.2 s later."""
    away = os.path.join(ROOT, "readvanish28-away")
    watch = Watch([os.path.dirname(os.path.join(base, watched))], IN_OPEN)
    run = subprocess.Popen(
        ["cardgame", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    seen, note = 0, "never taken away"
    start = time.monotonic()
    while run.poll() is None:
        event = watch.next(0.1)
        if event is None or event[1] != os.path.basename(watched):
            continue
        seen += 1
        if seen == opens:
            os.rename(os.path.join(base, target), away)
            threading.Timer(0.2, os.rename, (away, os.path.join(base, target))).start()
            note = f"away at {time.monotonic() - start:.2f} s"
    watch.close()
    out, err = run.communicate()
    time.sleep(0.3)
    done = subprocess.CompletedProcess(run.args, run.returncode, out, err)
    show(f"{args[0]} ({target} {note})", done)


def main() -> None:
    path = study_file("readvanish28", 4, 2)
    base = os.path.join(ROOT, "readvanish28")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    record = "records/part-c0000-g0000002.jsonl"
    md, html = os.path.join(ROOT, "readvanish28.md"), os.path.join(ROOT, "readvanish28.html")
    attack(base, ["replay", os.path.join(base, record)], record, 1, record)
    attack(
        base,
        ["view", base, "--game", "3", "--playouts", "0", "--out", html],
        "records/part-c0000-g0000000.jsonl",
        1,
        record,
    )
    attack(
        base,
        ["report", base, "--format", "md", "--out", md],
        "games/compact.parquet",
        2,
        "seats/compact.parquet",
    )
    attack(
        base,
        ["report", base, "--format", "md", "--out", md],
        "seats/compact.parquet",
        2,
        "destinations/compact.parquet",
    )
    attack(
        base,
        [
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            base,
            "--resume",
        ],
        "games/compact.parquet",
        2,
        "seats/compact.parquet",
    )
    show("report after", cardgame("report", base, "--format", "md", "--out", md))


if __name__ == "__main__":
    main()
