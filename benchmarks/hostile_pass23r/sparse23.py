# ruff: noqa: E501  (attack code: long report lines)
"""A sparse file of 8 TiB (no disk used) added to a folder while its run plays: the run's seal
hashes every file of the folder (``folder_seals``), an added one too, before it finds the file
is not the run's; hashing 8 TiB of zeros takes hours, so the run never ends. A user's Ctrl-C
then stops the seal, and a second one its seal after failure: the folder is left open
(sealfail23.py goes on from there). The readers compare names before hashing; the run's seal
does not.

python sparse23.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, study_file

LIMIT = 60  # seconds the run is given after its games landed


def main() -> None:
    path = study_file("sparse", 24, 1)
    folder = os.path.join(ROOT, "sparse")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    manifest = Path(folder, "manifest.json")
    while not manifest.exists() and run.poll() is None:
        time.sleep(0.005)
    huge = Path(folder, "huge")  # beside the manifest: there once it is
    with open(huge, "wb") as file:
        file.truncate(8 << 40)
    print(
        f"  the writer: {huge} of {huge.stat().st_size >> 40} TiB, {huge.stat().st_blocks * 512} bytes on disk"
    )
    compact = Path(folder, "games", "compact.parquet")
    while not compact.exists() and run.poll() is None:
        time.sleep(0.01)
    landed = time.monotonic()
    time.sleep(5)
    fds = f"/proc/{run.pid}/fd"  # the script's own child, looked at by the experimenter
    held = [os.readlink(f"{fds}/{fd}") for fd in os.listdir(fds)] if os.path.isdir(fds) else []
    print(f"  5 s after its games landed the run holds it open: {str(huge) in held}")
    try:
        out, _ = run.communicate(timeout=LIMIT)
        print(f"  run: exit {run.returncode}: {out.strip().splitlines()[-1][:160]!r}")
    except subprocess.TimeoutExpired:
        run.kill()  # the script's own run
        run.communicate()
        mark = json.loads(manifest.read_text())["seal"]["state"]
        print(
            f"  run: its games landed, then still sealing after {time.monotonic() - landed:.0f} s "
            f"(killed by the script); its mark: {mark!r}"
        )
    huge.unlink()


if __name__ == "__main__":
    main()
