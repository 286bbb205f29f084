"""A compact file is sealed with the digest of its temporary file as found at landing, not
of the bytes the run wrote: a forged file renamed over the temporary file in between is
sealed as the run's own.

``_CompactWriter.land`` opens ``.compact*.parquet.PID.tmp`` by name, hashes it, renames it
into place and notes that digest as the run's write. The writer (no key) watches the table
folder for the temporary file's last close (the ParquetWriter's footer is written) and
renames a forged compact file, made beforehand from a run of the same study elsewhere (the
bytes depend on the study, not on the key), over it. A big run (two cells of 100 batches
or more before its last: ``shards_of``) closes its first shard's file when its cells are in
and lands it only after the last game: the window is the rest of the run. A small run's
window is the moment between the close and the landing.

python temp20.py shards|small|forked
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import (
    IN_CLOSE_WRITE,
    IN_MOVED_TO,
    ROOT,
    Watch,
    forge_compact,
    last_line,
    report,
    study_file,
)

SHAPES = {  # strategies, games a cell, the file forged
    "shards": ('["planner", "rusher", "big_city"]', 110, "compact-00000.parquet"),
    "small": ('["planner", "rusher"]', 40, "compact.parquet"),
    "forked": ('["planner", "rusher"]', 80, "compact.parquet"),
}


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "shards"
    pool, games, target = SHAPES[shape]
    name = f"temp-{shape}"
    study = study_file(name, games)
    text = Path(study).read_text().replace('["planner", "rusher"]', pool)
    Path(study).write_text(text)
    run = ["cardgame", "simulate", study, "--workers", "1", "--no-progress"]
    pre = os.path.join(
        ROOT, f"{name}-pre"
    )  # the same study, elsewhere: what the forgery starts from
    if not os.path.isdir(pre):
        subprocess.run([*run, "--out", pre], capture_output=True)
    forged = os.path.join(ROOT, f"{name}-forged.parquet")
    shutil.copy(os.path.join(pre, "seats", target), forged)
    forge_compact(forged, forged + ".w")  # in place: ``forged`` holds the forgery
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    temp = f".{target}."  # .compact-00000.parquet.PID.tmp
    swapped: list[str] = []

    def swap() -> None:
        seats = os.path.join(folder, "seats")
        while not os.path.isdir(seats):  # made when the first batch lands
            time.sleep(0.002)
        watch = Watch(seats, IN_CLOSE_WRITE | IN_MOVED_TO)
        for event in watch.events():
            if event.startswith(temp) and event.endswith(".tmp"):
                try:
                    os.rename(forged, os.path.join(folder, "seats", event))
                    swapped.append(event)
                except OSError as exc:
                    swapped.append(f"failed: {exc}")
                return

    threading.Thread(target=swap, daemon=True).start()
    done = subprocess.run([*run, "--out", folder], capture_output=True, text=True)
    print(f"{shape}: run exit {done.returncode}: {last_line(done)!r}")
    print(f"  renamed over the temporary file: {swapped}")
    print(f"  afterwards, no writer left: {report(folder)}")


if __name__ == "__main__":
    main()
