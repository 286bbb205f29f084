# ruff: noqa: E501  (attack code: long report lines)
"""A sealed file of the run's own taken away while the run's seal hashes the folder, and put
back before its second try: ``seal`` lists the folder, then hashes each file by name
(``_seal_unless_resized``: ``os.lstat``, then ``file_seal``); a file gone by then raises
FileNotFoundError out of ``seal``. The run's failure path seals again
(``_sealed_after_failure``), finds the file back, nothing changed, and re-raises the first
error: an OSError, which the CLI does not catch.

The writer watches the folder (inotify): at the seal's open of the last record file (hashed
just before ``seats/compact.parquet``) it renames ``seats/compact.parquet`` out of the
folder, and at the next open of ``manifest.json`` (the failure path reads it) renames it back.

python vanish28.py [TRIES]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common28 import IN_OPEN, ROOT, Watch, cardgame, show, study_file


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    games = 8
    path = study_file("vanish28", games, 2)
    base = os.path.join(ROOT, "vanish28")
    away = os.path.join(ROOT, "vanish28-away.parquet")
    last_record = f"part-c0000-g{games - 2:07d}.jsonl"
    tracebacks = 0
    for attempt in range(1, tries + 1):
        shutil.rmtree(base, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        start = time.monotonic()
        while not Path(base, "records").is_dir() and run.poll() is None:
            time.sleep(0.002)
        watch = Watch([base, os.path.join(base, "records")], IN_OPEN)
        state, when = "waiting", []
        while run.poll() is None or watch.pending:
            event = watch.next(0.2)
            if event is None:
                continue
            folder, name, _ = event
            if state == "waiting" and folder.endswith("records") and name == last_record:
                os.rename(os.path.join(base, "seats", "compact.parquet"), away)
                state = "away"
                when.append(f"away at {time.monotonic() - start:.2f} s")
            elif state == "away" and folder == base and name == "manifest.json":
                os.rename(away, os.path.join(base, "seats", "compact.parquet"))
                state = "back"
                when.append(f"back at {time.monotonic() - start:.2f} s")
        if state == "away":
            os.rename(away, os.path.join(base, "seats", "compact.parquet"))
            when.append("back after the run")
        watch.close()
        out, err = run.communicate(timeout=400)
        tb = "Traceback" in err
        tracebacks += tb
        tail = (out + err).strip().splitlines()
        print(
            f"  attempt {attempt}: {', '.join(when) or 'never taken away'}; the run: exit {run.returncode}{' TRACEBACK' if tb else ''}: {tail[-1][:200] if tail else ''!r}",
            flush=True,
        )
        if tb:
            print("    " + "\n    ".join(err.splitlines()[-6:]), flush=True)
        show(
            "report after",
            cardgame("report", base, "--format", "md", "--out", os.path.join(ROOT, "vanish28.md")),
        )
    print(f"  runs ending in a traceback: {tracebacks} of {tries}")


if __name__ == "__main__":
    main()
