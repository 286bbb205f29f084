"""An open folder (its run killed, 300-odd parts) and a --keep-parts sealed one read under a
low limit of open files (ulimit -n): each part read with no seal in force is opened once and
then again by Arrow through /proc/self/fd; does a reader keep them open?"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common31 import ROOT, show, study_file


def limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f'ulimit -n {limit}; exec cardgame "$@"', "cardgame", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def main() -> None:
    path = study_file("fds", 1000, 1)
    folder = Path(f"{ROOT}/fds")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while len(list(folder.glob("games/_parts/*"))) < 300 and run.poll() is None:
        time.sleep(0.2)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    parts = len(list(folder.glob("games/_parts/*")))
    print(f"  the open folder: its run killed, {parts} games parts")
    for limit in (1024, 128, 40):
        show(
            f"report, ulimit -n {limit}",
            limited(limit, "report", str(folder), "--out", f"{ROOT}/fds-report"),
        )
    sealed = f"{ROOT}/bigman-600"
    if os.path.isdir(sealed):
        for limit in (128, 40):
            show(
                f"report of a sealed --keep-parts folder (600 parts), ulimit -n {limit}",
                limited(limit, "report", sealed, "--out", f"{ROOT}/fds-report2"),
            )


if __name__ == "__main__":
    main()
