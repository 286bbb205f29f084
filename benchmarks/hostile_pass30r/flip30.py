"""A named pipe flipped in and out of a file's place while a reader reads it by name with no
seal in force: ``report --accept-changes`` (a table) and ``replay`` of a loose record.

Pass 29r's fix refuses a special file there with ``os.stat`` (``reading.refuse_special``),
then opens the file *by name* again (Arrow's ``OSFile``, ``read_record_file``'s ``open``),
blocking. A writer that swaps a regular file and a named pipe in the file's place (two
renames, over and over) may be between the two: the ``stat`` sees the file, the ``open``
the pipe, and the reader waits for good.

python flip30.py [TRIES]
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from common30 import ROOT, cardgame, study_file

HANG = 20.0


def flipper(target: str, regular: str, fifo: str, stop: threading.Event) -> None:
    """Put ``regular`` and ``fifo`` (hard links kept outside the folder) in ``target``'s
    place by turns, until ``stop``."""
    tmp_a, tmp_b = os.path.join(ROOT, "flip-a"), os.path.join(ROOT, "flip-b")
    while not stop.is_set():
        for source, tmp in ((fifo, tmp_a), (regular, tmp_b)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.link(source, tmp)
            os.rename(tmp, target)


def attempt(what: str, args: list[str], target: str, regular: str, fifo: str) -> str:
    stop = threading.Event()
    thread = threading.Thread(target=flipper, args=(target, regular, fifo, stop), daemon=True)
    thread.start()
    try:
        done = subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=HANG)
        out = (done.stdout + done.stderr).strip().splitlines()
        tb = " TRACEBACK" if "Traceback" in done.stderr else ""
        return f"exit {done.returncode}{tb}: {(out[-1] if out else '')[:150]!r}"
    except subprocess.TimeoutExpired:
        return f"HANG past {HANG:.0f} s (killed)"
    finally:
        stop.set()
        thread.join()


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    path = study_file("flip30", 4, 2)
    base = os.path.join(ROOT, "flip30")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    record = sorted(p.name for p in Path(base, "records").iterdir())[0]
    fifo = os.path.join(ROOT, "flip-fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    copy = os.path.join(ROOT, "flip30-copy")
    loose = os.path.join(ROOT, "flip30-loose")
    cases = {
        "report --accept-changes, games/compact.parquet flipped": (
            "games/compact.parquet",
            lambda c: [
                "report", c, "--format", "md", "--out", os.path.join(ROOT, "flip30.md"),
                "--accept-changes",
            ],
            copy,
        ),
        "report --accept-changes, seats/compact.parquet flipped": (
            "seats/compact.parquet",
            lambda c: [
                "report", c, "--format", "md", "--out", os.path.join(ROOT, "flip30.md"),
                "--accept-changes",
            ],
            copy,
        ),
        f"replay of a loose record (no manifest), records/{record} flipped": (
            f"records/{record}",
            lambda c: ["replay", os.path.join(c, "records", record)],
            loose,
        ),
        "view --accept-changes of the folder, a record flipped": (
            f"records/{record}",
            lambda c: [
                "view", c, "--playouts", "0", "--out", os.path.join(ROOT, "flip30.html"),
                "--accept-changes",
            ],
            copy,
        ),
    }  # fmt: skip
    for what, (rel, args, where) in cases.items():
        print(f"  {what}", flush=True)
        hangs = 0
        for n in range(tries):
            shutil.rmtree(where, ignore_errors=True)
            subprocess.run(["cp", "-a", base, where], check=True)
            if where == loose:
                for name in os.listdir(where):
                    if name != "records":
                        full = os.path.join(where, name)
                        shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)
            target = os.path.join(where, rel)
            regular = os.path.join(ROOT, "flip-regular")
            if os.path.exists(regular):
                os.remove(regular)
            os.link(target, regular)
            line = attempt(what, args(where), target, regular, fifo)
            hangs += line.startswith("HANG")
            print(f"    try {n + 1}: {line}", flush=True)
            os.remove(regular)
        print(f"    hangs: {hangs} of {tries}", flush=True)


if __name__ == "__main__":
    main()
