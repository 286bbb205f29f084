# ruff: noqa: E501  (attack code: long report lines)
"""A link in place of a file the run wrote or found makes the run's seal raise an OSError
that nothing turns into one line: a traceback, exit 1.

``run``: while a ``--keep-parts`` run plays, the writer puts a link (to a copy of the same
bytes, outside the folder) in place of the first games part the run landed. At its end the
run's seal lists the part (``_result_files`` asks ``Path.is_file``, which follows the link),
knows its name, and hashes it through ``file_seal``, which opens it without following links:
``OSError`` (ELOOP), raised again by the seal after failure, and out of ``cardgame``.

``accept``: a sealed folder holding such a link, resumed with ``--resume --accept-changes``
(``_as_found`` hashes every file the same way, before the run's reading).

python link24.py [run|accept]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file


def tail(out: str) -> str:
    lines = out.strip().splitlines()
    return (
        f"traceback: {'Traceback' in out}, last line: {lines[-1][:160]!r}" if lines else "no output"
    )


def mark(folder: str) -> str:
    try:
        return repr(json.loads(Path(folder, "manifest.json").read_text())["seal"]["state"])
    except (OSError, ValueError, KeyError) as exc:
        return f"unreadable ({exc})"


def during_run() -> None:
    path = study_file("link", 600, 1)
    folder = os.path.join(ROOT, "link")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--keep-parts"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    parts = Path(folder, "games", "_parts")
    first = parts / "part-c0000-g0000000.arrows.lz4"
    while not first.exists() and run.poll() is None:
        time.sleep(0.002)
    spare = os.path.join(ROOT, "link-spare.lz4")
    shutil.copyfile(first, spare)
    os.symlink(spare, str(first) + ".new")
    os.rename(str(first) + ".new", first)  # a link in the part's place
    landed = len(os.listdir(parts))
    out, _ = run.communicate(timeout=600)
    print(f"  the writer: a link in place of {first.name} ({landed} parts landed then)")
    print(f"  the run: exit {run.returncode}; {tail(out)}")
    print(f"  its mark after: {mark(folder)}")
    for command in (
        ["report", folder, "--format", "md", "--out", folder + ".md"],
        [*args[1:], "--resume"],
    ):
        done = cardgame(*command)
        print(
            f"  {command[0]} {'--resume' if command[0] == 'simulate' else ''}: exit {done.returncode}: {last_line(done)[:170]!r}"
        )


def accept() -> None:
    path = study_file("linkacc", 12, 1)
    folder = os.path.join(ROOT, "linkacc")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["simulate", path, "--workers", "1", "--no-progress", "--keep-parts"]
    done = cardgame(*args)
    print(f"  sealed run: exit {done.returncode}")
    first = Path(folder, "seats", "_parts", "part-c0000-g0000000.arrows.lz4")
    spare = os.path.join(ROOT, "linkacc-spare.lz4")
    shutil.copyfile(first, spare)
    first.unlink()
    os.symlink(spare, first)
    for extra in ([], ["--accept-changes"]):
        done = cardgame(*args, "--resume", *extra)
        print(
            f"  --resume {' '.join(extra)}: exit {done.returncode}; {tail(done.stdout + done.stderr)}"
        )


if __name__ == "__main__":
    {"run": during_run, "accept": accept}[(sys.argv[1:] or ["run"])[0]]()
