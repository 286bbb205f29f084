# ruff: noqa: E501  (attack code: long report lines)
"""Class (2) through ``--resume``: as ``timed16.py``, the +500 table stored through the
mapping at the first close of the table once ``cardgame simulate --resume`` has started, and
left there. If the resumed run seals the folder again, the changed table is then sealed, and
every later command reads it with no refusal. python resume16.py SEALED_FOLDER [GAMES] (the run of planner,rusher made as in the README)
"""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from timed16 import Watch, bad_table


def main() -> None:
    sealed = sys.argv[1]
    folder = sealed + "-resume"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(sealed, folder)
    table = os.path.join(folder, "seats", "compact.parquet")
    good, bad, name = bad_table(table)
    fd = os.open(table, os.O_RDWR)
    view = mmap.mmap(fd, len(good))
    view[:] = good
    watch = Watch(table, view, bad)
    watch.armed.set()
    done = subprocess.run(
        [
            "cardgame",
            "simulate",
            "--strategies",
            "planner,rusher",
            "--players",
            "2",
            "--games",
            sys.argv[2] if len(sys.argv) > 2 else "4",
            "--records",
            "--out",
            folder,
            "--resume",
            "--workers",
            "1",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
    )
    watch.armed.clear()
    print(
        f"resume: exit {done.returncode}; stores made {watch.fired}; {(done.stdout + done.stderr).strip()[-300:]}"
    )
    view.close()
    os.close(fd)
    time.sleep(0.1)
    out = folder + ".md"
    rep = subprocess.run(
        ["cardgame", "report", folder, "--format", "md", "--out", out],
        capture_output=True,
        text=True,
    )
    text = Path(out).read_text() if os.path.exists(out) else ""
    last = rep.stderr.strip().splitlines()[-1][:160] if rep.returncode else ""
    print(
        f"a plain report afterwards (no writer): exit {rep.returncode} {last}; '{name} wins 100.0%' in it: {f'{name} wins 100.0% of its games' in text}"
    )


if __name__ == "__main__":
    main()
