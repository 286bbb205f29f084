# ruff: noqa: E501  (attack code: long report lines)
"""A folder tree deeper than Python's recursion limit inside a results folder: every listing
of the folder (``Path.rglob``, recursive on Python 3.11) raises RecursionError, which no
command turns into one line. Against a sealed folder: ``report``, ``view``, ``replay`` of a
record and ``--resume`` end in a traceback (exit 1). Made while a run plays: its seal fails
the same way, the seal after failure swallows it, and the folder is left *open* (then the
attack of sealfail23.py goes on from there).

python deep23.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, study_file

DEPTH = 1100  # past the default recursion limit of 1000; the path stays within PATH_MAX


def deep(where: str) -> None:
    """``where``/a/a/.../a, DEPTH levels (by relative steps: no path is ever long)."""
    fd = os.open(where, os.O_RDONLY)
    for _ in range(DEPTH):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def outcome(done: subprocess.CompletedProcess[str]) -> str:
    text = (done.stdout + done.stderr).strip().splitlines()
    tb = any("Traceback" in line for line in text)
    return (
        f"exit {done.returncode}, traceback: {tb}, last line: {(text[-1] if text else '')[:120]!r}"
    )


def main() -> None:
    path = study_file("deep", 6, 1)
    folder = os.path.join(ROOT, "deep-sealed")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame(
        "simulate", path, "--out", folder, "--workers", "1", "--no-progress", "--records"
    )
    print(f"  sealed run with --records: exit {done.returncode}")
    deep(os.path.join(folder, "games"))
    record = sorted(Path(folder, "records").glob("*.jsonl"))[0]
    print(
        f"  report: {outcome(cardgame('report', folder, '--format', 'md', '--out', folder + '.md'))}"
    )
    print(
        f"  view: {outcome(cardgame('view', folder, '--playouts', '0', '--out', folder + '.html'))}"
    )
    print(f"  replay {record.name}: {outcome(cardgame('replay', str(record)))}")
    print(
        f"  --resume: {outcome(cardgame('simulate', path, '--out', folder, '--workers', '1', '--no-progress', '--records', '--resume'))}"
    )

    path = study_file("deeprun", 24, 1)
    folder = os.path.join(ROOT, "deeprun")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    while not Path(folder, "manifest.json").exists() and run.poll() is None:
        time.sleep(0.005)
    deep(folder)
    out, _ = run.communicate(timeout=600)
    lines = out.strip().splitlines()
    print(
        f"  a run while the tree is made: exit {run.returncode}, traceback: "
        f"{any('Traceback' in line for line in lines)}, last line: {lines[-1][:120]!r}"
    )
    mark = json.loads(Path(folder, "manifest.json").read_text())["seal"]["state"]
    print(f"  its mark after the run: {mark!r} (open: readable and resumable unsealed)")


if __name__ == "__main__":
    main()
