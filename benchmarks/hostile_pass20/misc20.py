# ruff: noqa: E501  (attack code: long report lines)
"""False refusals of legitimate paths (no attacker): ``results_folder_of`` takes any folder
with a ``games/`` folder or a ``manifest.json`` of any kind for a results folder.

- ``--out`` of ``report`` and ``view`` (``reports/checks.py`` ``out_path_problem``): a page
  anywhere below a folder holding ``games/`` (a home folder with a games folder; Debian's
  ``/usr`` and ``/usr/local``, which hold ``games/``) or a ``manifest.json`` (a web app's,
  a browser extension's) is refused as "lies in the results folder".
- ``replay`` and ``view`` of a loose record file kept in a folder named ``records`` whose
  parent holds ``games/``: refused as "it is not sealed: its manifest.json is missing"
  (and the whole parent folder is walked first).

python misc20.py SEALED_FOLDER_WITH_RECORDS
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from common import ROOT, cardgame, last_line


def main() -> None:
    sealed = sys.argv[1]
    home = Path(ROOT, "home")  # a user's folder: a games folder, a web app, loose records
    shutil.rmtree(home, ignore_errors=True)
    (home / "games").mkdir(parents=True)
    (home / "records").mkdir()
    (home / "web").mkdir()
    (home / "web" / "manifest.json").write_text(json.dumps({"name": "my web app", "icons": []}))
    record = next(Path(sealed, "records").glob("*.jsonl")).read_text().splitlines()[0] + "\n"
    (home / "records" / "game.jsonl").write_text(record)
    (home / "game.jsonl").write_text(record)
    tries = {
        "replay home/game.jsonl (control)": ("replay", str(home / "game.jsonl")),
        "replay home/records/game.jsonl": ("replay", str(home / "records" / "game.jsonl")),
        "view home/records/game.jsonl": (
            "view",
            str(home / "records" / "game.jsonl"),
            "--out",
            str(Path(ROOT, "page.html")),
        ),
        "report --out home/web/report.html": (
            "report",
            sealed,
            "--out",
            str(home / "web" / "report.html"),
        ),
        "report --out home/deep/er/report.html": (
            "report",
            sealed,
            "--out",
            str(home / "deep" / "er" / "report.html"),
        ),
        "view --out home/page.html": ("view", sealed, "--out", str(home / "page.html")),
    }
    if os.path.isdir("/usr/local/games"):
        tries["report --out /usr/local/share/hp20-report.html"] = (
            "report",
            sealed,
            "--out",
            "/usr/local/share/hp20-report.html",
        )
    for what, args in tries.items():
        done = cardgame(*args)
        print(f"{what}: exit {done.returncode}: {last_line(done)!r}")
    done = subprocess.run(
        ["cardgame", "report", os.path.abspath(sealed)],
        cwd=home / "web",
        capture_output=True,
        text=True,
    )
    print(
        f"cd home/web && cardgame report SEALED (default report.html): exit {done.returncode}: {last_line(done)!r}"
    )
    for leftover in ("/usr/local/share/hp20-report.html",):
        if os.path.exists(leftover):
            os.remove(leftover)


if __name__ == "__main__":
    main()
