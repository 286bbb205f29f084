# ruff: noqa: E501  (attack code: long report lines)
"""A run that fails in its check (``--check-search``) seals its folder but leaves the
check's folder (``checks/search``, a results folder of its own, with a manifest and a mark
of its own) with the check's *open* mark, whose run id is never ended: read on its own,
that folder is "a run not ended", and a forgery in it is shown with that warning only.

The writer makes the check fail: once the check's manifest lands it makes folders at the
names of three of the check's later seats parts ("cannot write (Is a directory)"). Then it
forges the check's seats part (every score +500).

python checkopen24.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, forge_part, last_line, study_file


def state(path: str) -> str:
    return json.loads(Path(path).read_text())["seal"]["state"]


def main() -> None:
    path = study_file("checkopen24", 200, 10)
    folder = os.path.join(ROOT, "checkopen24")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--check-search", "40"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check = os.path.join(folder, "checks", "search")
    manifest = os.path.join(check, "manifest.json")
    while not os.path.exists(manifest) and run.poll() is None:
        time.sleep(0.002)
    for g in (16, 24, 32):
        os.makedirs(os.path.join(check, "seats", "_parts", f"part-c0000-g{g:07d}.arrows.lz4"))
    out, _ = run.communicate(timeout=600)
    print(f"  the run: exit {run.returncode}: {out.strip().splitlines()[-1][:200]!r}")
    print(
        f"  marks: the study's {state(os.path.join(folder, 'manifest.json'))!r}, the check's {state(manifest)!r}"
    )
    from sims.results import load_results

    before = load_results(check).seats["score"].mean()
    part = Path(check, "seats", "_parts", "part-c0000-g0000000.arrows.lz4")
    forge_part(part, os.path.join(ROOT, "checkopen-spare.lz4"))
    print("  the writer: the check's first seats part forged (every score +500)")
    done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(f"  report FOLDER: exit {done.returncode}: {last_line(done)[:170]!r}")
    out = folder + "-check.md"
    done = cardgame("report", check, "--format", "md", "--out", out)
    warned = "its run has not ended" in done.stderr
    after = load_results(check).seats["score"].mean()
    print(
        f"  report FOLDER/checks/search: exit {done.returncode}; 'its run has not ended' warning: {warned}"
    )
    print(
        f"  load_results(FOLDER/checks/search): mean score {before:.1f} before the forgery, {after:.1f} after, no error"
    )


if __name__ == "__main__":
    main()
