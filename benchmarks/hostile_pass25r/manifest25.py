# ruff: noqa: E501  (attack code: long report lines)
"""The run's own manifest changed while it plays: does its seal take the manifest it finds?

``seal`` (sims/folder.py) reads ``manifest.json`` from disk at the run's end and keys what
it finds. The writer puts a manifest whose study is renamed (and, in ``inplace``, writes the
same bytes' length in place) while the run plays, once a few batches landed.

python manifest25.py [rename|inplace]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file


def main(how: str) -> None:
    path = study_file("manifest25", 60, 1)
    folder = os.path.join(ROOT, "manifest25")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    parts = Path(folder, "seats", "_parts")
    while run.poll() is None and len(list(parts.glob("part-*"))) < 5:
        time.sleep(0.005)
    manifest = Path(folder, "manifest.json")
    data = manifest.read_bytes()
    forged = data.replace(b'"manifest25"', b'"FORGED2525"')
    if how == "inplace":
        with open(manifest, "r+b") as f:
            f.write(forged)
    else:
        spare = os.path.join(ROOT, "spare-manifest.json")
        Path(spare).write_bytes(forged)
        os.rename(spare, manifest)
    print(
        f"  the writer: manifest.json's study renamed FORGED2525 ({how}) while the run plays; running: {run.poll() is None}"
    )
    out, _ = run.communicate(timeout=300)
    print(f"  the run: exit {run.returncode}: {out.strip().splitlines()[-1][:200]!r}")
    text = manifest.read_text()
    print(
        f"  the sealed manifest names FORGED2525: {'FORGED2525' in text}; state {json.loads(text)['seal']['state']!r}"
    )
    done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    shown = Path(folder + ".md").read_text() if os.path.exists(folder + ".md") else ""
    print(
        f"  report: exit {done.returncode}: {last_line(done)!r}; shows FORGED2525: {'FORGED2525' in shown}"
    )


if __name__ == "__main__":
    main(sys.argv[1] if sys.argv[1:] else "rename")
