"""Legitimate run shapes, no attacker: each must end with exit 0 and a report that reads
its folder (no false refusal). Dask without a scheduler, two workers, with records,
stopped by SIGINT (this script's own run, by pid) once some batches have landed, then
resumed; the same with the local backend and ``--keep-parts``.

python shapes22.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

from common import ROOT, cardgame, last_line, study_file


def landed(folder: str) -> int:
    parts = os.path.join(folder, "games", "_parts")
    return len(os.listdir(parts)) if os.path.isdir(parts) else 0


def shape(name: str, extra: list[str]) -> None:
    path = study_file(name, 40, 1)
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "2", "--no-progress", "--records", *extra]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    start = time.monotonic()
    while landed(folder) < 6 and proc.poll() is None and time.monotonic() - start < 120:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    lines = out.strip().splitlines()
    print(f"  {name} stopped: exit {proc.returncode}: {lines[-1][:200] if lines else ''!r}")
    done = cardgame(
        "simulate", path, "--workers", "2", "--no-progress", "--records", "--resume", *extra
    )
    print(f"  {name} resumed: exit {done.returncode}: {last_line(done)!r}")
    rep = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(f"  {name} report: exit {rep.returncode}: {last_line(rep)!r}")
    records = sorted(os.listdir(os.path.join(folder, "records")))
    view = cardgame("replay", os.path.join(folder, "records", records[0]))
    print(f"  {name} replay of {records[0]}: exit {view.returncode}: {last_line(view)!r}")


def main() -> None:
    shape("shape-dask", ["--backend", "dask"])
    shape("shape-keep", ["--keep-parts"])


if __name__ == "__main__":
    main()
