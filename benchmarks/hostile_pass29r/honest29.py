# ruff: noqa: E501  (attack code: long report lines)
"""Honest use, no writer: a sealed folder copied (``tar``, ``cp -r`` without ``-a``), moved,
and runs stopped by SIGINT at several points (during play, during a resume, twice), each
resumed after; every command should exit 0.

python honest29.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file

REFUSED = 0


def read_all(path: str, folder: str, resume: bool = True) -> None:
    global REFUSED
    if resume:  # first: a run stopped early may have landed no record yet
        done = cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            folder,
            "--resume",
            timeout=300,
        )
        REFUSED += done.returncode != 0
        show("--resume", done)
    record = sorted(p.name for p in Path(folder, "records").iterdir())[0]
    checks = [
        (
            "report",
            ["report", folder, "--format", "md", "--out", os.path.join(ROOT, "honest29.md")],
        ),
        ("view", ["view", folder, "--playouts", "0", "--out", os.path.join(ROOT, "honest29.html")]),
        ("replay", ["replay", os.path.join(folder, "records", record)]),
    ]
    for name, args in checks:
        done = cardgame(*args, timeout=300)
        REFUSED += done.returncode != 0
        show(name, done)


def interrupted(path: str, folder: str, delays: list[float], resume: bool) -> None:
    args = [
        "cardgame",
        "simulate",
        path,
        "--workers",
        "1",
        "--no-progress",
        "--records",
        "--out",
        folder,
    ]
    if resume:
        args.append("--resume")
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    for delay in delays:
        time.sleep(max(0.0, start + delay - time.monotonic()))
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    tail = (out + err).strip().splitlines()
    print(
        f"    the run, SIGINT at {delays} s: exit {proc.returncode}{' TRACEBACK' if 'Traceback' in err else ''}: {tail[-1][:160] if tail else ''!r}",
        flush=True,
    )


def main() -> None:
    path = study_file("honest29", 4, 2)
    base = os.path.join(ROOT, "honest29")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    for what, how in (
        (
            "tar round trip",
            lambda dst: subprocess.run(
                f"mkdir -p {dst} && tar -C {base} -cf - . | tar -C {dst} -xf -",
                shell=True,
                check=True,
            ),
        ),
        ("cp -r (times not kept)", lambda dst: subprocess.run(["cp", "-r", base, dst], check=True)),
        (
            "moved (mv) to another name",
            lambda dst: shutil.move(
                subprocess.run(["cp", "-a", base, dst + ".tmpdir"], check=True) and dst + ".tmpdir",
                dst,
            ),
        ),
    ):
        dst = os.path.join(ROOT, "honest29-" + what.split()[0])
        shutil.rmtree(dst, ignore_errors=True)
        shutil.rmtree(dst + ".tmpdir", ignore_errors=True)
        how(dst)
        print(f"  {what}", flush=True)
        read_all(path, dst)
    # runs stopped by SIGINT, then resumed
    path16 = study_file("honest29-int", 16, 2)
    for delays, resume_first in (
        ([2.0], False),
        ([4.0], False),
        ([3.0, 3.3], False),
        ([2.0], True),
    ):
        folder = os.path.join(ROOT, "honest29-int")
        shutil.rmtree(folder, ignore_errors=True)
        print(
            f"  SIGINT at {delays} s{' (and again during the first resume)' if resume_first else ''}",
            flush=True,
        )
        interrupted(path16, folder, delays, False)
        if resume_first:
            interrupted(path16, folder, [1.5], True)
        read_all(path16, folder)
    print(f"  honest commands refused (exit not 0): {REFUSED}")


if __name__ == "__main__":
    main()
