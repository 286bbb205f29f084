# ruff: noqa: E501  (attack code: long report lines)
"""A named pipe put in the place of a part of an *open* folder (its run killed mid-way, a
state docs/data.md says is read as before, with a warning) between the reader's check and
its read: the check refuses special files, but an open folder is read by name
(``SealCheck.reading`` is a null context), so the part is opened blocking. The writer
(inotify) swaps the pipe in at the reader's Nth open of ``manifest.json``.

python openpipe29.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common29 import IN_OPEN, ROOT, Watch, cardgame, show, study_file


def open_folder() -> tuple[str, str]:
    path = study_file("openpipe29", 24, 2)
    base = os.path.join(ROOT, "openpipe29")
    shutil.rmtree(base, ignore_errors=True)
    proc = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--out", base],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    parts = Path(base, "games", "_parts")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if parts.is_dir() and len(list(parts.glob("part-*"))) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # our own run: a power cut leaves its folder open
    proc.wait()
    return path, base


def main() -> None:
    _path, base = open_folder()
    print(
        f"  the run killed with parts: {sorted(p.name for p in Path(base, 'games', '_parts').iterdir())}",
        flush=True,
    )
    show(
        "report of the open folder, no writer",
        cardgame(
            "report",
            base,
            "--format",
            "md",
            "--out",
            os.path.join(ROOT, "openpipe29.md"),
            timeout=60,
        ),
    )
    copy = os.path.join(ROOT, "openpipe29-copy")
    for nth in (1, 2, 0):  # 0: at the open of the first part, the last one swapped
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        parts = sorted(Path(copy, "games", "_parts").iterdir())
        part = parts[0] if nth else parts[-1]
        watch = Watch([copy, os.path.join(copy, "games", "_parts")], IN_OPEN)
        proc = subprocess.Popen(
            [
                "cardgame",
                "report",
                copy,
                "--format",
                "md",
                "--out",
                os.path.join(ROOT, "openpipe29.md"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen = 0
        swapped = False
        while proc.poll() is None:
            event = watch.next(0.5)
            if event and (event[1] == "manifest.json" if nth else event[1] == parts[0].name):
                seen += 1
                if seen == nth:
                    os.rename(part, str(part) + ".away")
                    os.mkfifo(part)
                    swapped = True
                    break
        watch.close()
        try:
            out, err = proc.communicate(timeout=25)
            tail = (out + err).strip().splitlines()
            print(
                f"  pipe at open {nth} of manifest.json (swapped: {swapped}): report exit {proc.returncode}{' TRACEBACK' if 'Traceback' in err else ''}: {tail[-1][:200] if tail else ''!r}",
                flush=True,
            )
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            print(
                f"  pipe at open {nth} of manifest.json (swapped: {swapped}): report HANG past 25 s (killed)",
                flush=True,
            )


if __name__ == "__main__":
    main()
