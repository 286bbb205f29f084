# ruff: noqa: E501  (attack code: long report lines)
"""Honest use, no writer: a folder read and resumed through a link to it; permissions changed
(a change time moved, no byte); Ctrl-C (SIGINT to the run's own process) as the seal hashes
the folder, and twice (the second during the seal), each resumed with the command it printed.
Every command should exit 0 (130 for the interrupted runs themselves).

python honest28.py
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common28 import IN_OPEN, ROOT, Watch, cardgame, show, study_file

refused = 0
asked = 0


def honest(what: str, done: subprocess.CompletedProcess[str]) -> None:
    global refused, asked
    asked += 1
    refused += done.returncode != 0
    show(what, done)


def readers(folder: str, path: str, records: str) -> None:
    honest(
        "report",
        cardgame("report", folder, "--format", "md", "--out", os.path.join(ROOT, "honest28.md")),
    )
    honest(
        "view --game 1",
        cardgame(
            "view",
            folder,
            "--game",
            "1",
            "--playouts",
            "0",
            "--out",
            os.path.join(ROOT, "honest28.html"),
        ),
    )
    honest("replay", cardgame("replay", os.path.join(folder, "records", records)))
    honest(
        "--resume",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            folder,
            "--resume",
        ),
    )


def interrupted(path: str, base: str, last_record: str, twice: bool) -> None:
    shutil.rmtree(base, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    while not Path(base, "records").is_dir() and run.poll() is None:
        time.sleep(0.002)
    if twice:
        time.sleep(0.3)
        run.send_signal(signal.SIGINT)
    watch = Watch([os.path.join(base, "records")], IN_OPEN)
    sent = False
    while run.poll() is None:
        event = watch.next(0.2)
        if event is not None and not sent and event[1].startswith("part-"):
            run.send_signal(signal.SIGINT)  # at the seal's open of a record file
            sent = True
    watch.close()
    out, err = run.communicate()
    tail = (out + err).strip().splitlines()
    print(
        f"  Ctrl-C{' twice' if twice else ''} as the seal hashes: the run: exit {run.returncode}{' TRACEBACK' if 'Traceback' in err else ''}: {tail[-1][:200] if tail else ''!r}",
        flush=True,
    )
    line = next(
        (ln for ln in err.splitlines() if "Continue with:" in ln or "continue with:" in ln), ""
    )
    command = line.split("ontinue with: ", 1)[1] if line else ""
    if command:
        args = shlex.split(command)
        honest(
            "the resume it printed",
            subprocess.run(args, capture_output=True, text=True, timeout=400),
        )
    readers(base, path, last_record)


def main() -> None:
    games = 8
    path = study_file("honest28", games, 2)
    base = os.path.join(ROOT, "honest28")
    last_record = f"part-c0000-g{games - 2:07d}.jsonl"
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    link = os.path.join(ROOT, "honest28-link")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(base, link)
    print("  through a link to the folder:", flush=True)
    readers(link, path, last_record)
    print("  after chmod -R go-rwx, then g+rX (change times moved, no byte):", flush=True)
    subprocess.run(["chmod", "-R", "go-rwx", base], check=True)
    subprocess.run(["chmod", "-R", "g+rX", base], check=True)
    readers(base, path, last_record)
    interrupted(path, base, last_record, twice=False)
    interrupted(path, base, last_record, twice=True)
    print(f"  honest commands refused (exit not 0): {refused} of {asked}")


if __name__ == "__main__":
    main()
