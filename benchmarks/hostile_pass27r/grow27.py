# ruff: noqa: E501  (attack code: long report lines)
"""A sealed file grown in place (the same inode) to 8 TiB of holes after the reader's check
hashed it, before the reader reads it to parse: ``Reading.read`` (sims/reading.py) checks
the file's identity (device, inode: unchanged) and then reads it whole, with no size to hold
it to. A report: the writer waits for the second open of ``games/compact.parquet`` (the
check hashed it, then ``_load`` reads its footer), then truncates ``seats/compact.parquet``
up to 8 TiB. Exit 2 and one line expected; a traceback or a long read is not.

python grow27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common27 import IN_OPEN, ROOT, Watch, last_line, study_file

LIMIT = 40


def attack(
    folder: str, args: list[str], label: str, watched: str, name: str, nth: int, target: str
) -> None:
    watch = Watch([os.path.join(folder, watched)], IN_OPEN)
    start = time.monotonic()
    run = subprocess.Popen(
        ["cardgame", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    grown = None
    while run.poll() is None and grown is None:
        event = watch.next(0.2)
        if event is not None and event[1] == name:
            nth -= 1
            if nth == 0:
                os.truncate(os.path.join(folder, target), 8 << 40)
                grown = time.monotonic() - start
    watch.close()
    try:
        out, err = run.communicate(timeout=LIMIT)
        read = ""
    except subprocess.TimeoutExpired:
        with open(f"/proc/{run.pid}/io") as io:
            rchar = int(next(line for line in io if line.startswith("rchar")).split()[1])
        read = f"; read {rchar / (1 << 30):.1f} GiB in {LIMIT} s, ended by this script (SIGKILL of its own run)"
        run.kill()
        out, err = run.communicate()
    tb = [line for line in err.splitlines() if "Error" in line][-1:] if "Traceback" in err else []
    lines = (out + err).strip().splitlines()
    print(
        f"  {label}: grown at {grown if grown is None else round(grown, 2)} s; exit {run.returncode}{read}"
        f"{' TRACEBACK ' + str(tb) if tb else ''}: {(lines[-1] if lines else '')[:170]!r}"
    )


def main() -> None:
    base = os.path.join(ROOT, "grow27")
    shutil.rmtree(base, ignore_errors=True)
    path = study_file("grow27", 4, 2)
    made = subprocess.run(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records"],
        capture_output=True,
        text=True,
    )
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    copy = os.path.join(ROOT, "grow27-copy")
    report = ["report", copy, "--format", "md", "--out", os.path.join(ROOT, "grow27.md")]
    resume = [
        "simulate",
        path,
        "--workers",
        "1",
        "--no-progress",
        "--records",
        "--out",
        copy,
        "--resume",
    ]
    for attempt in range(2):
        for label, args, nth in (("report", report, 2), ("--resume --records", resume, 2)):
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(base, copy)
            attack(
                copy,
                args,
                f"{label} (try {attempt + 1})",
                "games",
                "compact.parquet",
                nth,
                "seats/compact.parquet",
            )
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        record = sorted(os.listdir(os.path.join(copy, "records")))[0]
        at = os.path.join("records", record)
        # replay: the check hashes the record (its 1st open), then reads it to parse (its 2nd)
        replay = ["replay", os.path.join(copy, at)]
        attack(copy, replay, f"replay (try {attempt + 1})", "records", record, 2, at)


if __name__ == "__main__":
    main()
