"""Honest handling of sealed folders that earlier passes did not try: a copy made of hard
links (``cp -al``, ``rsync --link-dest`` style backups) and the original resumed after; a
folder whose times were all touched; one moved to another file system (tmpfs); one made
read-only; a copy by ``cp -a`` of an interrupted run, resumed. Each is read by ``report``,
``view``, ``replay`` and resumed; anything but exit 0 is a false refusal.

python honest30.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common30 import ROOT, cardgame, show, study_file


def reads(folder: str, study: str, resume: bool = True) -> int:
    """``report``, ``view``, ``replay`` of ``folder`` (and a resume); the refusals."""
    bad = 0
    runs = [
        ("report", ["report", folder, "--format", "md", "--out", os.path.join(ROOT, "h30.md")]),
        ("view", ["view", folder, "--playouts", "0", "--out", os.path.join(ROOT, "h30.html")]),
    ]
    records = sorted(Path(folder, "records").glob("part-*.jsonl"))
    if records:
        runs.append(("replay", ["replay", str(records[0])]))
    if resume:
        runs.append(
            (
                "--resume",
                [
                    *("simulate", study, "--workers", "1", "--no-progress", "--records"),
                    *("--out", folder, "--resume"),
                ],
            )
        )
    for name, args in runs:
        done = cardgame(*args)
        show(name, done)
        bad += done.returncode != 0
    return bad


def interrupted(name: str, games: int, after: float) -> tuple[str, str]:
    """A run of ``games`` stopped by SIGINT (our own run) ``after`` seconds in."""
    study = study_file(name, games, 2)
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        [
            *("cardgame", "simulate", study, "--workers", "1", "--no-progress", "--records"),
            *("--out", folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    parts = Path(folder, "games", "_parts")
    start = time.monotonic()
    while run.poll() is None and time.monotonic() - start < after + 30:
        if parts.is_dir() and len(list(parts.glob("part-*"))) >= 2:
            break
        time.sleep(0.05)
    time.sleep(after)
    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=120)
    print(f"  {name}: stopped, exit {run.returncode}: {out.strip().splitlines()[-1:]}")
    return study, folder


def main() -> None:
    bad = 0
    # a hard-link copy, then the original resumed: does the copy still read as sealed?
    study, folder = interrupted("honest30a", 400, 0.5)
    copy = os.path.join(ROOT, "honest30a-links")
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-al", folder, copy], check=True)
    print("  the original resumed (its hard-link copy beside it)")
    done = cardgame(
        "simulate", study, "--workers", "1", "--no-progress", "--records", "--out", folder,
        "--resume",
    )  # fmt: skip
    show("resume of the original", done)
    bad += done.returncode != 0
    print("  the hard-link copy, read after the original's resume")
    bad += reads(copy, study, resume=False)
    print("  the original")
    bad += reads(folder, study, resume=False)

    # every time stamp touched
    touched = os.path.join(ROOT, "honest30a-touched")
    shutil.rmtree(touched, ignore_errors=True)
    subprocess.run(["cp", "-a", folder, touched], check=True)
    subprocess.run(["find", touched, "-exec", "touch", "-d", "2001-01-01", "{}", "+"], check=True)
    print("  every file's times touched to 2001")
    bad += reads(touched, study)

    # moved to another file system
    if os.path.isdir("/dev/shm"):
        moved = "/dev/shm/hp30r-honest"
        shutil.rmtree(moved, ignore_errors=True)
        subprocess.run(["cp", "-a", folder, moved], check=True)
        print("  a copy on tmpfs (/dev/shm)")
        bad += reads(moved, study)
        shutil.rmtree(moved, ignore_errors=True)

    # read-only (root here: the mode says nothing to the kernel, but a reader may look)
    ro = os.path.join(ROOT, "honest30a-ro")
    shutil.rmtree(ro, ignore_errors=True)
    subprocess.run(["cp", "-a", folder, ro], check=True)
    subprocess.run(["chmod", "-R", "a-w", ro], check=True)
    print("  read-only (chmod -R a-w; run as root)")
    bad += reads(ro, study, resume=False)
    subprocess.run(["chmod", "-R", "u+w", ro], check=True)

    # an interrupted run copied with cp -a, the copy resumed twice, the second with nothing
    study, folder = interrupted("honest30b", 300, 1.0)
    copy = os.path.join(ROOT, "honest30b-copy")
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", folder, copy], check=True)
    print("  an interrupted run's cp -a copy, resumed, then everything")
    bad += reads(copy, study)
    bad += reads(copy, study)
    print(f"  honest commands refused (exit not 0): {bad}")


if __name__ == "__main__":
    main()
