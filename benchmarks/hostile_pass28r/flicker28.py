# ruff: noqa: E501  (attack code: long report lines)
"""A file that comes and goes while a run seals its folder: ``seal`` lists the folder
(``_result_files``), then ``os.lstat``s every name listed for its size; a name listed and
gone by its ``lstat`` raises FileNotFoundError out of ``seal``. The run's failure path seals
again (``_sealed_after_failure``), and where that second seal finds nothing changed (the
file gone by then) it re-raises the first error: an OSError, which the CLI does not catch.

The writer creates and removes ``FOLDER/zzzz`` (an empty file, sorted last) in a loop from
the moment the run's manifest lands until the run ends.

python flicker28.py [TRIES]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from common28 import ROOT, cardgame, show, study_file


def flicker(path: str, stop: threading.Event) -> int:
    n = 0
    while not stop.is_set():
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
            os.unlink(path)
        except OSError:
            pass
        n += 1
    return n


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    path = study_file("flicker28", 8, 2)
    base = os.path.join(ROOT, "flicker28")
    tracebacks = 0
    for attempt in range(1, tries + 1):
        shutil.rmtree(base, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        start = time.monotonic()
        while not Path(base, "manifest.json").exists() and run.poll() is None:
            time.sleep(0.005)
        stop = threading.Event()
        writer = threading.Thread(target=flicker, args=(os.path.join(base, "zzzz"), stop))
        writer.start()
        out, err = run.communicate(timeout=400)
        stop.set()
        writer.join()
        if os.path.exists(os.path.join(base, "zzzz")):
            os.unlink(os.path.join(base, "zzzz"))
        tb = "Traceback" in err
        tracebacks += tb
        tail = (out + err).strip().splitlines()
        print(
            f"  attempt {attempt}: the run: exit {run.returncode}{' TRACEBACK' if tb else ''} after {time.monotonic() - start:.1f} s: {tail[-1][:200] if tail else ''!r}",
            flush=True,
        )
        if tb:
            print("    " + "\n    ".join(line for line in err.splitlines()[-8:]), flush=True)
            show(
                "report after",
                cardgame(
                    "report", base, "--format", "md", "--out", os.path.join(ROOT, "flicker28.md")
                ),
            )
    print(f"  runs ending in a traceback: {tracebacks} of {tries}")


if __name__ == "__main__":
    main()
