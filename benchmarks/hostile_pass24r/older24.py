"""No attacker: folders sealed by older commits of the seal (pass 20's fix, 14c20a6; pass
22's fix, 9c6d2eb; pass 23r's base, a3e40d4), reported and viewed by this code. Each old
tree is unpacked with ``git archive`` and run on the Python engine through ``PYTHONPATH``
(its native core is not built), with the same seal key.

python older24.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from common import ROOT, cardgame, last_line, report, study_file

COMMITS = ("14c20a6", "9c6d2eb", "a3e40d4")
REPO = Path(__file__).resolve().parents[2]


def main() -> None:
    path = study_file("older", 4, 1)
    for commit in COMMITS:
        tree = os.path.join(ROOT, f"old-{commit}")
        if not os.path.isdir(tree):
            os.makedirs(tree)
            archive = subprocess.run(
                ["git", "-C", str(REPO), "archive", commit, "cardgame", "sims", "reports"],
                capture_output=True,
                check=True,
            )
            subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
        folder = os.path.join(ROOT, f"older-{commit}")
        shutil.rmtree(folder, ignore_errors=True)
        env = {**os.environ, "PYTHONPATH": tree, "CARDGAME_ENGINE": "python"}
        args = ["cardgame", "simulate", path, "--out", folder, "--workers", "1", "--no-progress"]
        made = subprocess.run(
            [*args, "--records"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        view = cardgame("view", folder, "--playouts", "0", "--out", folder + ".html")
        resume = cardgame(
            "simulate", path, "--out", folder, "--workers", "1", "--no-progress", "--records",
            "--resume",
        )  # fmt: skip
        print(
            f"  {commit}: made: exit {made.returncode}; now: {report(folder)[:60]}; view: exit "
            f"{view.returncode}; resume: exit {resume.returncode} {last_line(resume)[:110]!r}"
        )


if __name__ == "__main__":
    main()
