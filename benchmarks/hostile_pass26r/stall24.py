# ruff: noqa: E501  (attack code: long report lines)
"""A run's seal stalled by a file the run wrote, grown in place to 8 TiB (``truncate``:
the same inode, holes, nothing on disk): the seal hashes every file the run knows
(``file_seal``), so it hashes 8 TiB of zeros, hours. The user's Ctrl-C (one: the second is
ignored) sets the stop flag, which the seal never looks at; after ``STOP_GRACE_SECONDS``
(10 s) the CLI's watchdog ends the process with ``os._exit``, "its clean-up was cut short":
no ``finally`` runs, so the folder keeps its *open* mark, whose run id never joins the ended
runs (pass 23r's fix ends it only when the seal raises). The writer then puts the record
back at its size and forges the seats table; ``report`` warns "its run has not ended" and
says ``--resume`` seals it; the resume takes the folder as found and seals the forgery.

python stall24.py [term]   (term: SIGTERM, as a batch system's time limit sends, not Ctrl-C)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, forge_compact, last_line, report, study_file

signal.signal(signal.SIGINT, signal.default_int_handler)


def main(stop: signal.Signals) -> None:
    path = study_file("stall24", 24, 1)
    folder = os.path.join(ROOT, "stall24")
    twin = os.path.join(ROOT, "twin-stall24")
    for f in (folder, twin):
        shutil.rmtree(f, ignore_errors=True)
    done = cardgame("simulate", path, "--out", twin, "--workers", "1", "--no-progress", "--records")
    print(f"  twin run: exit {done.returncode}; {report(twin)}")
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    record = Path(folder, "records", "part-c0000-g0000000.jsonl")
    while not record.exists() and run.poll() is None:
        time.sleep(0.001)
    size = record.stat().st_size
    os.truncate(record, 8 << 40)
    print(f"  the writer: {record.name} (the run's own, {size} bytes) grown in place to 8 TiB")
    seats = Path(folder, "seats", "compact.parquet")
    while not seats.exists() and run.poll() is None:
        time.sleep(0.01)
    time.sleep(15)
    print(f"  15 s after the compaction landed the run is still going: {run.poll() is None}")
    start = time.monotonic()
    run.send_signal(stop)  # the user's Ctrl-C (or a SIGTERM), to the script's own run
    out, _ = run.communicate(timeout=120)
    print(
        f"  {stop.name}: the run ends {time.monotonic() - start:.1f} s later, exit {run.returncode}: {out.strip().splitlines()[-1][:190]!r}"
    )
    mark = json.loads(Path(folder, "manifest.json").read_text())["seal"]["state"]
    print(f"  its mark: {mark!r}")
    os.truncate(record, size)
    forge_compact(str(seats), os.path.join(ROOT, "stall-spare.parquet"))
    print(
        "  the writer: the record back at its size; seats/compact.parquet forged (every score +500)"
    )
    done = cardgame("report", folder, "--format", "md", "--out", folder + "-w.md")
    print(
        f"  report: exit {done.returncode}; warns 'its run has not ended': {'its run has not ended' in done.stderr}"
    )
    done = cardgame(*args[1:], "--resume")
    print(f"  the --resume the warning asks for: exit {done.returncode}: {last_line(done)!r}")
    done = cardgame("report", folder, "--format", "md", "--out", folder + "-w.md")
    print(f"  report after: warns: {'warning' in done.stderr}; {report(folder)}")


if __name__ == "__main__":
    main(signal.SIGTERM if sys.argv[1:] == ["term"] else signal.SIGINT)
