# ruff: noqa: E501  (attack code: long report lines)
"""A writer during a ``--backend dask`` run: a file added at the top, and a forged part (a
copy of the run's own first part under a later batch's name: 10, which the run plays later
and so writes over, or 12, past the plan) put in ``games/_parts`` as soon
as the first part lands. The run should end in one line (exit 2), the folder read as changed.

python daskrace29.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file

BACKEND = os.environ.get("BACKEND", "dask")  # BACKEND=local: the same against a local run


def main() -> None:
    path = study_file("daskrace29", 12, 2)
    for what in ("a file added", "a forged part g10", "a forged part g12"):
        base = os.path.join(ROOT, "daskrace29")
        shutil.rmtree(base, ignore_errors=True)
        args = [
            "cardgame",
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--backend",
            "dask",
            "--keep-parts",
            "--out",
            base,
        ]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        parts = Path(base, "games", "_parts")
        did = "nothing (the run ended first)"
        while proc.poll() is None:
            found = sorted(parts.glob("part-*")) if parts.is_dir() else []
            if found:
                if what == "a file added":
                    Path(base, "zzz").write_text("x")
                else:
                    batch = what[-2:]  # 10: a batch the run plays later; 12: past the plan
                    shutil.copy(found[0], parts / f"part-c0000-g00000{batch}.arrows.lz4")
                did = f"done after {found[0].name} landed"
                break
            time.sleep(0.02)
        out, err = proc.communicate(timeout=300)
        tail = (out + err).strip().splitlines()
        tb = " TRACEBACK" if "Traceback" in err else ""
        print(
            f"  {what}: {did}; the run: exit {proc.returncode}{tb}: {tail[-1][:200] if tail else ''!r}",
            flush=True,
        )
        if what.startswith("a forged"):
            forged = parts / f"part-c0000-g00000{what[-2:]}.arrows.lz4"
            first = (parts / "part-c0000-g0000000.arrows.lz4").read_bytes()
            state = (
                "gone"
                if not forged.exists()
                else ("the forged copy" if forged.read_bytes() == first else "the run's own")
            )
            print(f"    at the end, that part is: {state}", flush=True)
        show(
            "report after",
            cardgame(
                "report",
                base,
                "--format",
                "md",
                "--out",
                os.path.join(ROOT, "daskrace29.md"),
                timeout=120,
            ),
        )


if __name__ == "__main__":
    main()
