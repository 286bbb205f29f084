# ruff: noqa: E501  (attack code: long report lines)
"""A big run's forked compaction reads parts unchecked, so a part forged between its
worker's landing and the compaction is sealed.

A run of 64 batches or more compacts in a forked child (``ForkedCompaction``). The parent
notes each part's digest (from its worker's summary) in its own ``Reading``; the child
only gets batch ids down its pipe, and its copy of the reading (made at the fork) knows
none of the parts landed since, so it takes each as "the run's own" (``Reading.read``:
``own_writes`` and not ``same_file``) and merges whatever the file holds. It then notes
the compact file it wrote and the parts it removed; the parent takes that ledger, and the
seal covers the forgery. The writer (no key) watches ``seats/_parts`` and renames a forged
copy over each part as it lands.

python forked20.py BATCHES   (80: forked; 40: the parent's threads, a control)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import (
    IN_MOVED_TO,
    ROOT,
    Watch,
    cardgame,
    forge_part,
    last_line,
    report,
    scores,
    study_file,
)


def forger(folder: str, stop: threading.Event, forged: list[str]) -> None:
    """Rename a forged copy over each seats part as it lands."""
    parts = os.path.join(folder, "seats", "_parts")
    while not os.path.isdir(parts):
        if stop.is_set():
            return
        time.sleep(0.002)
    watch = Watch(parts, IN_MOVED_TO)
    seen: set[str] = set()

    def one(name: str) -> None:
        if name.startswith("part-") and name not in seen:
            seen.add(name)
            try:
                forge_part(Path(parts, name), os.path.join(ROOT, f"spare-{name}"))
                forged.append(name)
            except OSError:
                pass  # compacted and removed meanwhile

    for name in sorted(os.listdir(parts)):
        one(name)
    for name in watch.events():
        if stop.is_set():
            return
        one(name)


def main() -> None:
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    mode = "fresh"
    study = study_file(f"forked{batches}", batches)
    folder = os.path.join(ROOT, f"forked{batches}-{mode}")
    command = ["cardgame", "simulate", study, "--workers", "1", "--no-progress", "--out", folder]
    stop = threading.Event()
    forged: list[str] = []
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    thread = threading.Thread(target=forger, args=(folder, stop, forged), daemon=True)
    thread.start()
    done = subprocess.run(command, capture_output=True, text=True)
    stop.set()
    print(f"{batches} batches ({mode}): run exit {done.returncode}: {last_line(done)!r}")
    print(f"  parts forged while it played: {len(forged)}")
    if os.path.exists(os.path.join(folder, "seats", "compact.parquet")):
        s = scores(folder)
        print(f"  scores now (first 8): {s[:8]}; over 400: {sum(x > 400 for x in s)} of {len(s)}")
    print(f"  afterwards, no writer left: {report(folder)}")
    if done.returncode:  # the run saw the change: its folder is left open, not sealed
        mark = json.loads(Path(folder, "manifest.json").read_text())["seal"]["state"]
        warned = [
            line
            for line in cardgame("report", folder, "--out", folder + ".html").stderr.splitlines()
            if "warning" in line
        ]
        print(
            f"  its mark: {mark!r}; the report's warning: {warned[0][:150] if warned else None!r}"
        )
        again = cardgame(
            "simulate", study, "--workers", "1", "--no-progress", "--out", folder, "--resume"
        )
        print(
            f"  then the --resume the warning asks for: exit {again.returncode}: {last_line(again)!r}"
        )
        print(f"  afterwards: {report(folder)}")


if __name__ == "__main__":
    main()
