# ruff: noqa: E501  (attack code: long report lines)
"""Pass 26r's huge26 again, by a race: a sealed file swapped for 8 TiB of holes after the
reader's check compared its size (``_resized``, an ``lstat``) and before it hashes it
(``file_seal``, which reads whatever it opens to the end).

The writer makes an 8 TiB sparse file beside the folder (``truncate``: no disk used), watches
``destinations/`` (inotify): when the reader opens ``destinations/compact.parquet`` to hash
it (the first file of its sorted list), it renames the sparse file over
``seats/compact.parquet`` (the last). Does ``report`` (and ``replay``, ``--resume``) refuse at
once, as it does when the file is there before it starts (pass 26r's fix), or hash 8 TiB?
Each command is given 40 s, then ended (this script kills its own run, by its pid).

python hugerace27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common27 import IN_OPEN, ROOT, Watch, last_line, study_file

LIMIT = 40


def attack(folder: str, args: list[str], label: str, nth: int = 1) -> None:
    spare = os.path.join(ROOT, "hugerace27-spare")
    with open(spare, "wb") as f:
        f.truncate(8 << 40)
    watch = Watch([os.path.join(folder, "destinations")], IN_OPEN)
    start = time.monotonic()
    run = subprocess.Popen(
        ["cardgame", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    swapped = None
    while run.poll() is None and swapped is None:
        event = watch.next(0.2)
        if event is not None and event[1] == "compact.parquet":
            nth -= 1
        if nth == 0:
            os.rename(spare, os.path.join(folder, "seats", "compact.parquet"))
            swapped = time.monotonic() - start
    watch.close()
    try:
        out, _ = run.communicate(timeout=max(1.0, LIMIT - (time.monotonic() - start)))
        read = ""
    except subprocess.TimeoutExpired:  # still at it: how much it has read, then ended
        with open(f"/proc/{run.pid}/io") as io:
            rchar = int(next(line for line in io if line.startswith("rchar")).split()[1])
        read = f"; read {rchar / (1 << 30):.1f} GiB in {time.monotonic() - start:.0f} s, still reading: ended by this script (SIGKILL of its own run)"
        run.kill()
        out, _ = run.communicate()
    took = time.monotonic() - start
    lines = out.strip().splitlines()
    print(
        f"  {label}: swapped at {swapped if swapped is None else round(swapped, 2)} s; "
        f"exit {run.returncode} after {took:.1f} s{read}: {(lines[-1] if lines else '')[:160]!r}"
    )


def main() -> None:
    base = os.path.join(ROOT, "hugerace27")
    shutil.rmtree(base, ignore_errors=True)
    path = study_file("hugerace27", 4, 2)
    made = subprocess.run(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records"],
        capture_output=True,
        text=True,
    )
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    copy = os.path.join(ROOT, "hugerace27-copy")
    record = None
    resume = [
        "simulate",
        path,
        "--workers",
        "1",
        "--no-progress",
        "--records",
        "--out",
        "{f}",
        "--resume",
    ]
    report = ["report", "{f}", "--format", "md", "--out", os.path.join(ROOT, "hugerace27.md")]
    for label, args, nth in (
        ("report", report, 1),
        ("replay", ["replay", "{r}"], 1),
        ("--resume --records (swapped at its 1st open of destinations/compact.parquet)", resume, 1),
        ("--resume --records (swapped at its 2nd)", resume, 2),
    ):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        record = os.path.join(copy, "records", sorted(os.listdir(os.path.join(copy, "records")))[0])
        attack(copy, [a.format(f=copy, r=record) for a in args], label, nth)
    shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    main()
