# ruff: noqa: E501  (attack code: long report lines)
"""unseal26.py's trick on a check's folder: while the search check plays, the writer copies
``checks/search/manifest.json`` (open) and removes it; once the run has ended it puts the
copy back and forges the check's seats table. Read by ``report`` of the study's folder, of
the check's folder alone, and ``--resume``.

python check26.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, forge_compact, last_line, study_file


def show(what: str, d: subprocess.CompletedProcess[str]) -> None:
    warned = "not ended" in d.stderr
    print(
        f"  {what}: exit {d.returncode}{' (warns: its run has not ended)' if warned else ''}: {last_line(d)[:150]!r}"
    )


def main() -> None:
    path = study_file("check26", 6, 2)
    folder = os.path.join(ROOT, "check26")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--check-search", "30"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    manifest = Path(folder, "checks", "search", "manifest.json")
    while run.poll() is None and not manifest.exists():
        time.sleep(0.005)
    time.sleep(0.3)
    kept = manifest.read_bytes()
    manifest.unlink()
    print(
        f"  the writer: checks/search/manifest.json removed while the check plays; running: {run.poll() is None}"
    )
    out, _ = run.communicate(timeout=600)
    print(f"  the run: exit {run.returncode}: {out.strip().splitlines()[-1][:200]!r}")
    Path(ROOT, "spare-check.json").write_bytes(kept)
    os.rename(os.path.join(ROOT, "spare-check.json"), manifest)
    print(
        f"  the writer: the check's open manifest put back ({json.loads(kept)['seal']['state']!r})"
    )
    report = ["report", "--format", "md", "--out", os.path.join(ROOT, "check26.md")]
    show("report FOLDER", cardgame(report[0], folder, *report[1:]))
    check = os.path.join(folder, "checks", "search")
    show("report FOLDER/checks/search", cardgame(report[0], check, *report[1:]))
    compact = os.path.join(check, "seats", "compact.parquet")
    if os.path.exists(compact):
        forge_compact(compact, os.path.join(ROOT, "spare.parquet"))
        print("  the writer: checks/search/seats/compact.parquet forged")
        show("report FOLDER", cardgame(report[0], folder, *report[1:]))
        show("report FOLDER/checks/search", cardgame(report[0], check, *report[1:]))
        show("--resume --check-search 30", cardgame(*args[1:], "--resume"))


if __name__ == "__main__":
    main()
