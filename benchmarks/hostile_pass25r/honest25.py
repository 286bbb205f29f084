# ruff: noqa: E501  (attack code: long report lines)
"""No attacker: honest copies and stops that must not be refused.

- ``cp -r`` (rsync is not installed here) and ``tar c | tar x`` copies of a sealed folder (with records);
- a run stopped by Ctrl-C (SIGINT) at several points: before its first batch lands, mid-way,
  and right after its compaction landed; then resumed, reported and replayed.

python honest25.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file

signal.signal(signal.SIGINT, signal.default_int_handler)


def check(label: str, path: str, folder: str) -> int:
    r = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    s = cardgame(
        "simulate",
        path,
        "--out",
        folder,
        "--workers",
        "1",
        "--no-progress",
        "--resume",
        "--records",
    )
    rec = sorted(Path(folder, "records").glob("*.jsonl"))
    p = cardgame("replay", str(rec[0])) if rec else None
    codes = [r.returncode, s.returncode, p.returncode if p else 0]
    bad = [last_line(d) for d in (r, s, p) if d is not None and d.returncode]
    print(
        f"  {label}: report {codes[0]}, --resume {codes[1]}, replay {codes[2]}{'; ' + bad[0][:160] if bad else ''}"
    )
    return int(any(codes))


def stopped(path: str, folder: str, wait_for: str, count: int) -> str:
    """A run stopped by SIGINT once ``count`` files match ``wait_for`` in the folder."""
    shutil.rmtree(folder, ignore_errors=True)
    args = [
        "cardgame",
        "simulate",
        path,
        "--out",
        folder,
        "--workers",
        "2",
        "--no-progress",
        "--records",
    ]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while run.poll() is None and len(list(Path(folder).glob(wait_for))) < count:
        time.sleep(0.005)
    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=120)
    tail = out.strip().splitlines()[-1][:120] if out.strip() else ""
    return f"exit {run.returncode}: {tail!r}"


def main() -> None:
    path = study_file("honest25", 24, 1)
    folder = os.path.join(ROOT, "honest25")
    shutil.rmtree(folder, ignore_errors=True)
    cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    refused = 0
    synced = folder + "-cpr"
    shutil.rmtree(synced, ignore_errors=True)
    subprocess.run(["cp", "-r", folder, synced], check=True)
    refused += check("cp -r (new times, no rsync here)", path, synced)
    untarred = os.path.join(ROOT, "untar")
    shutil.rmtree(untarred, ignore_errors=True)
    os.makedirs(untarred)
    subprocess.run(
        f"tar -C {ROOT} -cf - honest25 | tar -C {untarred} -xf -", shell=True, check=True
    )
    refused += check("tar c | tar x", path, os.path.join(untarred, "honest25"))
    total = 2
    for label, pattern, count in (
        ("Ctrl-C once the manifest exists", "manifest.json", 1),
        ("Ctrl-C at 5 records", "records/part-*.jsonl", 5),
        ("Ctrl-C once the compaction landed", "seats/compact.parquet", 1),
    ):
        f = os.path.join(ROOT, "honest25-int")
        how = stopped(path, f, pattern, count)
        print(f"  {label}: {how}")
        refused += check(label, path, f)
        total += 1
    print(f"  honest folders refused: {refused} of {total}")


if __name__ == "__main__":
    main()
