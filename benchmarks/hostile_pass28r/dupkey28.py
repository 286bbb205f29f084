# ruff: noqa: E501  (attack code: long report lines)
"""The manifest's own bytes are sealed by what they parse to (``_manifest_digest`` of the
parsed JSON), not by their bytes: a manifest rewritten with a duplicate key placed before the
real one (JSON parsers that keep the first, and a reader's eye, see the forged value;
Python's keeps the last) passes every reader's check.

python dupkey28.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from common28 import ROOT, cardgame, show, study_file


def main() -> None:
    path = study_file("dupkey28", 4, 2)
    base = os.path.join(ROOT, "dupkey28")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    manifest = Path(base, "manifest.json")
    real = json.loads(manifest.read_text())
    forged = dict(real["study"], name="a study nobody ran", seed=1)
    body = json.dumps(real, indent=3)[1:]  # the real keys, after the forged one
    manifest.write_text('{"study": ' + json.dumps(forged) + "," + body)
    print(
        f"  the writer: manifest.json rewritten, its first key a forged study: {manifest.read_text()[:90]!r}",
        flush=True,
    )
    md = os.path.join(ROOT, "dupkey28.md")
    show("report", cardgame("report", base, "--format", "md", "--out", md))
    show(
        "--resume",
        cardgame("simulate", path, "--workers", "1", "--no-progress", "--out", base, "--resume"),
    )


if __name__ == "__main__":
    main()
