# ruff: noqa: E501  (attack code: long report lines)
"""The Dask backend (a local cluster), never run by the earlier passes: an honest run with
records, read and resumed; then a sealed Dask folder with a ``.dask-run-*`` mark (a name the
seal leaves out) holding bytes, and a forged table added beside it, read by ``report``.

python dask29.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file


def main() -> None:
    path = study_file("dask29", 4, 2)
    base = os.path.join(ROOT, "dask29")
    shutil.rmtree(base, ignore_errors=True)
    run = [
        "simulate",
        path,
        "--workers",
        "1",
        "--no-progress",
        "--records",
        "--backend",
        "dask",
        "--out",
        base,
    ]
    show("the Dask run", cardgame(*run, timeout=300))
    print(
        f"  files: {sorted(str(p.relative_to(base)) for p in Path(base).rglob('*') if p.is_file())}",
        flush=True,
    )
    show(
        "report",
        cardgame(
            "report", base, "--format", "md", "--out", os.path.join(ROOT, "dask29.md"), timeout=120
        ),
    )
    show("--resume (Dask)", cardgame(*run, "--resume", timeout=300))
    show(
        "--resume (local)",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            base,
            "--resume",
            timeout=300,
        ),
    )
    copy = base + "-mark"
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", base, copy], check=True)
    Path(copy, ".dask-run-zz").write_bytes(b"x" * 1000)
    Path(copy, "games", ".dask-run-zz").write_bytes(b"x")
    show(
        "report, .dask-run-zz marks added (left out of the seal)",
        cardgame(
            "report", copy, "--format", "md", "--out", os.path.join(ROOT, "dask29.md"), timeout=120
        ),
    )
    show("--resume (Dask) of it", cardgame(*run[:-1], copy, "--resume", timeout=300))
    print(
        f"  marks left after the resume: {sorted(str(p.relative_to(copy)) for p in Path(copy).rglob('.dask-run-*'))}",
        flush=True,
    )


if __name__ == "__main__":
    main()
