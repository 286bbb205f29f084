# ruff: noqa: E501  (attack code: long report lines)
"""No attacker: honest handling of sealed folders that must not be refused.

- ``chmod -R g+w`` and ``touch`` of every file (marks move, bytes do not);
- ``mv`` to another name; ``cp -a`` to another file system (``/dev/shm``); ``cp -al``
  (a copy by hard links) then resumed (the resume's files land by rename);
- runs stopped by SIGTERM (not Ctrl-C) with two workers and ``--records``, at 3 points,
  then resumed.

Each: ``report`` and ``--resume`` (and ``replay`` of a record) must exit 0.

python honest24.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file

signal.signal(signal.SIGINT, signal.default_int_handler)


def check(label: str, path: str, folder: str, records: bool = True) -> int:
    extra = ["--records"] if records else []
    r = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    s = cardgame(
        "simulate", path, "--out", folder, "--workers", "1", "--no-progress", "--resume", *extra
    )
    rec = sorted(Path(folder, "records").glob("*.jsonl")) if records else []
    p = cardgame("replay", str(rec[0])) if rec else None
    codes = [r.returncode, s.returncode, p.returncode if p else 0]
    bad = [last_line(d) for d in (r, s, p) if d is not None and d.returncode]
    print(
        f"  {label}: report {codes[0]}, --resume {codes[1]}, replay {codes[2]}{'; ' + bad[0][:160] if bad else ''}"
    )
    return int(any(codes))


def main() -> None:
    path = study_file("honest24", 24, 1)
    folder = os.path.join(ROOT, "honest24")
    shutil.rmtree(folder, ignore_errors=True)
    cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    refused = 0
    subprocess.run(["chmod", "-R", "g+w", folder], check=True)
    subprocess.run(f"find {folder} -type f -exec touch {{}} +", shell=True, check=True)
    refused += check("chmod -R g+w, touch", path, folder)
    moved = folder + "-moved"
    shutil.rmtree(moved, ignore_errors=True)
    os.rename(folder, moved)
    refused += check("mv", path, moved)
    shm = "/dev/shm/hp24r-honest"
    shutil.rmtree(shm, ignore_errors=True)
    subprocess.run(["cp", "-a", moved, shm], check=True)
    refused += check("cp -a to /dev/shm (tmpfs)", path, shm)
    shutil.rmtree(shm, ignore_errors=True)
    linked = folder + "-linked"
    shutil.rmtree(linked, ignore_errors=True)
    subprocess.run(["cp", "-al", moved, linked], check=True)
    refused += check("cp -al (hard links)", path, linked)
    refused += check("  its original after", path, moved)
    big = study_file("honest24t", 80, 1)
    for at in (3, 30, 70):
        stopped = os.path.join(ROOT, f"honest24t-{at}")
        shutil.rmtree(stopped, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", big, "--out", stopped, "--workers", "2", "--no-progress", "--records", "--keep-parts"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        parts = os.path.join(stopped, "games", "_parts")
        while (not os.path.isdir(parts) or len(os.listdir(parts)) < at) and run.poll() is None:
            pass
        run.send_signal(signal.SIGTERM)
        out, _ = run.communicate(timeout=300)
        print(
            f"  SIGTERM after {at} batches: exit {run.returncode}: {out.strip().splitlines()[-1][:100]!r}"
        )
        refused += check(f"  then (stopped at {at})", big, stopped)
    print(f"  honest folders refused: {refused} of 8")


if __name__ == "__main__":
    main()
