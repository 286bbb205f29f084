# ruff: noqa: E501  (attack code: long report lines)
"""A resume that compacts the parts it found (a ``--keep-parts`` folder) removes them; a hard
link made to one beforehand (outside the folder, same file system) and linked back once the
resume has removed it puts the very inode the resume found back in the folder. The resume's
seal takes it as "as found" (same digest, same device and inode), so the run seals a file it
removed itself and exits 0. The reader ignores a part of a merged batch, so no score moves:
this shows only that the run seals a change it did not make.

python hardlink22.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

from common import ROOT, cardgame, last_line, report, study_file

IN_DELETE = 0x200


def main() -> None:
    from common import Watch

    path = study_file("link", 6, 1)
    folder = os.path.join(ROOT, "link")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--keep-parts")
    print(f"  keep-parts run: exit {done.returncode}: {last_line(done)!r}")
    parts = os.path.join(folder, "seats", "_parts")
    victim = sorted(os.listdir(parts))[0]
    keep = os.path.join(ROOT, "kept-" + victim)
    if os.path.exists(keep):
        os.remove(keep)
    os.link(os.path.join(parts, victim), keep)  # outside the folder, same inode
    print(f"  linked {victim} to {keep}; report before: {report(folder)}")
    watch = Watch(parts, IN_DELETE)
    relinked = []

    def relink() -> None:
        for name in watch.events():
            if name == victim:
                os.makedirs(parts, exist_ok=True)  # the resume removes it once empty
                os.link(keep, os.path.join(parts, victim))
                relinked.append(name)
                return

    threading.Thread(target=relink, daemon=True).start()
    done = subprocess.run(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--resume"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    print(f"  resume (compacts, removes the parts): exit {done.returncode}: {last_line(done)!r}")
    print(
        f"  relinked: {relinked}; parts left in seats/_parts: {sorted(os.listdir(parts)) if os.path.isdir(parts) else []}"
    )
    sealed = json.loads(Path(folder, "manifest.json").read_text())
    names = [n for n in sealed["files"] if n.startswith("seats/")]
    print(f"  its seal: {sealed['seal']['state']}, seats files sealed: {names}")
    print(f"  after: {report(folder)}")
    check = cardgame("simulate", path, "--workers", "1", "--no-progress", "--resume")
    print(f"  a second resume: exit {check.returncode}: {last_line(check)!r}")


if __name__ == "__main__":
    main()
