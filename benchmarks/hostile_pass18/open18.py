# ruff: noqa: E501  (attack code: long report lines)
"""A sealed folder downgraded to *open* with the manifest of another run of the same study.

An open mark is keyed over the manifest (less its digests and mark) and the run's id, and is
refused only once that id is in the user's ``ended-runs``: it names no folder and no file.
A run killed mid-way (SIGKILL: a process of the same user may send it; or a crash) never
ends, so its open manifest stays good forever. Put into any sealed folder of the same study,
it makes that folder read as a run not ended: its files are then read unchecked, the report
says nothing (every game is there), and a ``--resume`` seals whatever it holds.
python open18.py SEALED_FOLDER
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from common import STUDY, cardgame, copy, forge_folder, report, scores


def killed_run(folder: str) -> str:
    """Start the same study into ``folder`` and SIGKILL it once its games part has landed
    (before its seal); tried again where the run sealed first."""
    manifest = os.path.join(folder, "manifest.json")
    games = os.path.join(folder, "games", "_parts", "part-c0000-g0000000.arrows.lz4")
    for _ in range(5):
        shutil.rmtree(folder, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", *STUDY, "--out", folder, "--no-progress"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while not os.path.exists(games) and run.poll() is None:
            time.sleep(0.0002)
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
        state = (
            json.loads(Path(manifest).read_text())["seal"]["state"]
            if os.path.exists(manifest)
            else None
        )
        if state == "open":
            break
    print(f"the run into {folder} killed as its games part landed: its mark is {state!r}")
    return manifest


def main() -> None:
    sealed = sys.argv[1]
    manifest = killed_run(sealed + "-killed")
    killed = os.path.dirname(manifest)
    own = copy(
        killed, sealed + "-killed-forged"
    )  # the writer kills the user's run: no other folder needed
    forge_folder(own)
    print("the killed run's own folder, forged: " + report(own))
    print("the killed run's folder, untouched, before: " + report(killed))
    folder = copy(sealed, sealed + "-open")
    name = forge_folder(folder)
    print("forged table, sealed manifest: " + report(folder, name))
    shutil.copyfile(manifest, os.path.join(folder, "manifest.json"))
    print("forged table, the killed run's manifest: " + report(folder, name))
    done = cardgame("simulate", *STUDY, "--out", folder, "--resume", "--no-progress")
    print(
        f"resume: exit {done.returncode}: {done.stdout.strip().splitlines()[0] if done.stdout else done.stderr.strip()[-150:]!r}"
    )
    print(
        f"sealed again: {json.loads(Path(folder, 'manifest.json').read_text())['seal']['state']}; scores {scores(folder)}"
    )
    print("afterwards: " + report(folder, name))
    print("the killed run's folder, untouched, after: " + report(killed))


if __name__ == "__main__":
    main()
