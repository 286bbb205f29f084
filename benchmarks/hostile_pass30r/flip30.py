"""A named pipe flipped in and out of a file's place while a reader reads it by name with no
seal in force: ``report --accept-changes`` (a table) and ``replay`` of a loose record.

Pass 29r's fix refuses a special file there with ``os.stat`` (``reading.refuse_special``),
then opens the file *by name* again (Arrow's ``OSFile``, ``read_record_file``'s ``open``),
blocking. A writer that swaps a regular file and a named pipe in the file's place
(``renameat2`` exchanging the two names, over and over) may be between the two: the
``stat`` sees the file, the ``open`` the pipe, and the reader waits for good.

python flip30.py [TRIES]
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from common30 import IN_OPEN, ROOT, Watch, cardgame, study_file

IN_ISDIR = 0x40000000

HANG = 20.0


_libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2


def flipper(target: str, regular: str, fifo: str, stop: threading.Event) -> None:
    """Swap ``target`` with a named pipe kept outside the folder (``renameat2`` with
    ``RENAME_EXCHANGE``: one system call a flip, the name never missing), until ``stop``."""
    if regular:  # a folder to watch: flip once a reader opens another file in it
        watch = Watch([regular], IN_OPEN)
        try:
            while not stop.is_set():
                event = watch.next(0.2)
                if event and event[1] != os.path.basename(target) and not event[2] & IN_ISDIR:
                    break
        finally:
            watch.close()
    a, b = target.encode(), fifo.encode()
    while not stop.is_set():
        for _ in range(1000):
            if _libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
                raise OSError(ctypes.get_errno(), "renameat2")


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


def open_folder() -> str:
    """A folder whose run was killed (SIGKILL, by us, our own run) once a part landed."""
    path = study_file("flip30open", 40, 2)
    base = os.path.join(ROOT, "flip30open")
    shutil.rmtree(base, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--out", base],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    parts = Path(base, "games", "_parts")
    while run.poll() is None and not (parts.is_dir() and len(list(parts.glob("part-*"))) >= 2):
        time.sleep(0.05)
    run.kill()
    run.wait()
    print(f"  the open folder: its run killed, parts {len(list(parts.glob('part-*')))}", flush=True)
    return base


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    path = study_file("flip30", 4, 2)
    base = os.path.join(ROOT, "flip30")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    record = sorted(p.name for p in Path(base, "records").iterdir())[0]
    opened = open_folder()
    norec_study = study_file("flip30norec", 4, 2)
    norec = os.path.join(ROOT, "flip30norec")
    shutil.rmtree(norec, ignore_errors=True)
    made = cardgame("simulate", norec_study, "--workers", "1", "--no-progress", "--out", norec)
    print(f"  the run without records: exit {made.returncode}", flush=True)
    part = sorted(p.name for p in Path(opened, "games", "_parts").iterdir())[-1]
    fifo = os.path.join(ROOT, "flip-fifo")
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
        f"replay --accept-changes of records/{record} in the folder, it flipped": (
            f"records/{record}",
            lambda c: ["replay", os.path.join(c, "records", record), "--accept-changes"],
            copy,
        ),
        "view --accept-changes of the folder, a record flipped": (
            f"records/{record}",
            lambda c: [
                "view", c, "--playouts", "0", "--out", os.path.join(ROOT, "flip30.html"),
                "--accept-changes",
            ],
            copy,
        ),
        f"report of an OPEN folder (its run killed), games/_parts/{part} flipped": (
            f"games/_parts/{part}",
            lambda c: ["report", c, "--format", "md", "--out", os.path.join(ROOT, "flip30.md")],
            os.path.join(ROOT, "flip30-open-copy"),
        ),
        "--resume --records (no --accept-changes) of a folder made WITHOUT records, "
        "games/compact.parquet flipped": (
            "games/compact.parquet",
            lambda c: [
                "simulate", norec_study, "--workers", "1", "--no-progress", "--records",
                "--out", c, "--resume",
            ],
            os.path.join(ROOT, "flip30-norec-copy"),
        ),
    }  # fmt: skip
    for what, (rel, args, where) in cases.items():
        if only not in what:
            continue
        print(f"  {what}", flush=True)
        hangs = 0
        for n in range(tries):
            shutil.rmtree(where, ignore_errors=True)
            source = opened if "OPEN" in what else norec if "WITHOUT" in what else base
            subprocess.run(["cp", "-a", source, where], check=True)
            if where == loose:
                for name in os.listdir(where):
                    if name != "records":
                        full = os.path.join(where, name)
                        shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)
            target = os.path.join(where, rel)
            regular = os.path.dirname(target) if "OPEN" in what else ""
            if os.path.lexists(fifo):
                os.remove(fifo)
            os.mkfifo(fifo)
            line = attempt(what, args(where), target, regular, fifo)
            hangs += line.startswith("HANG")
            print(f"    try {n + 1}: {line}", flush=True)
        print(f"    hangs: {hangs} of {tries}", flush=True)


if __name__ == "__main__":
    main()
