# ruff: noqa: E501  (attack code: long report lines)
"""A sealed file grown in place to 8 TiB of holes (``truncate``: same name, same inode, no
disk used): the seal keeps each file's digest but not its size, so every reader's check
(``_seal_found``, sims/folder.py) hashes it whole before it can refuse it. Each command is
given 30 s (``timeout``: the script's own processes only).

python huge26.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common import ROOT, cardgame, copy, study_file


def main() -> None:
    path = study_file("huge26", 8, 1)
    folder = os.path.join(ROOT, "huge26")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  the run: exit {done.returncode}")
    f = copy(folder, os.path.join(ROOT, "huge26-copy"))
    os.truncate(os.path.join(f, "seats", "compact.parquet"), 8 << 40)
    print("  the writer: seats/compact.parquet grown in place to 8 TiB (holes)")
    record = os.path.join(f, "records", "part-c0000-g0000000.jsonl")
    for what, args in (
        ("report", ["report", f, "--format", "md", "--out", f + ".md"]),
        ("replay", ["replay", record]),
        (
            "--resume",
            [
                "simulate",
                path,
                "--out",
                f,
                "--workers",
                "1",
                "--no-progress",
                "--resume",
                "--records",
            ],
        ),
    ):
        start = time.monotonic()
        try:
            d = subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=30)
            print(
                f"  {what}: exit {d.returncode} after {time.monotonic() - start:.1f} s: {(d.stdout + d.stderr).strip()[-150:]!r}"
            )
        except subprocess.TimeoutExpired:
            print(f"  {what}: still checking after 30 s (hashing 8 TiB); stopped by the script")
    os.truncate(os.path.join(f, "seats", "compact.parquet"), 0)
    shutil.rmtree(f)


if __name__ == "__main__":
    main()
