# ruff: noqa: E501  (attack code: long report lines)
"""A file whose name is not UTF-8 (the byte 0xff) or holds a newline, added to a sealed
folder, and while a run plays: the refusal names it, and a run's or a resume's seal writes
such a name into its manifest (``files``, ``sizes``); any traceback is reported.

python badname29.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file

NAMES = {"0xff": b"games/\xff", "a newline": b"games/a\nb", "0xff at the top": b"\xff\xfe"}


def main() -> None:
    path = study_file("badname29", 4, 2)
    base = os.path.join(ROOT, "badname29")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    copy = os.path.join(ROOT, "badname29-copy")
    for what, name in NAMES.items():
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        with open(os.path.join(os.fsencode(copy), name), "wb") as f:
            f.write(b"x")
        print(f"  a file named {what} added to the sealed folder", flush=True)
        show(
            "report",
            cardgame("report", copy, "--format", "md", "--out", os.path.join(ROOT, "badname29.md")),
        )
        show(
            "view",
            cardgame(
                "view", copy, "--playouts", "0", "--out", os.path.join(ROOT, "badname29.html")
            ),
        )
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
        show("--resume", cardgame(*resume))
        show("--resume --accept-changes (seals the name)", cardgame(*resume, "--accept-changes"))
        show(
            "report after",
            cardgame("report", copy, "--format", "md", "--out", os.path.join(ROOT, "badname29.md")),
        )
        show("--resume after", cardgame(*resume))
    # added while a run plays
    path16 = study_file("badname29-run", 16, 2)
    folder = os.path.join(ROOT, "badname29-run")
    shutil.rmtree(folder, ignore_errors=True)
    proc = subprocess.Popen(
        ["cardgame", "simulate", path16, "--workers", "1", "--no-progress", "--out", folder],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while proc.poll() is None and not Path(folder, "games", "_parts").is_dir():
        time.sleep(0.02)
    with open(os.path.join(os.fsencode(folder), b"games/\xff"), "wb") as f:
        f.write(b"x")
    out, err = proc.communicate(timeout=300)
    tail = (out + err).strip().splitlines()
    print(
        f"  games/0xff added while a run plays: the run: exit {proc.returncode}{' TRACEBACK' if 'Traceback' in err else ''}: {tail[-1][:200] if tail else ''!r}",
        flush=True,
    )
    show(
        "report after",
        cardgame("report", folder, "--format", "md", "--out", os.path.join(ROOT, "badname29.md")),
    )


if __name__ == "__main__":
    main()
