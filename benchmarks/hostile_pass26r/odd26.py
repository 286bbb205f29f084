# ruff: noqa: E501  (attack code: long report lines)
"""Record files no seal covers, grown to 8 TiB of holes (``truncate``): loose records (a
run's ``records/`` without the rest of its folder, read with a warning) and the records of
an open folder (a run not ended: read with a warning). Is each refused in one line, or does
a reader read 8 TiB (``SealCheck.read``: ``Path.read_bytes``)?

python odd26.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, study_file


def show(what: str, args: list[str]) -> None:
    try:
        d = subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print(f"  {what}: still reading after 120 s; stopped by the script")
        return
    tb = " TRACEBACK" if "Traceback" in d.stderr else ""
    last = (d.stdout + d.stderr).strip().splitlines()
    print(f"  {what}: exit {d.returncode}{tb}: {last[-1][:150] if last else ''!r}")


def main() -> None:
    path = study_file("odd26", 4, 1)
    folder = os.path.join(ROOT, "odd26")
    shutil.rmtree(folder, ignore_errors=True)
    print(
        f"  the run: exit {cardgame('simulate', path, '--workers', '1', '--no-progress', '--records').returncode}"
    )
    record = "records/part-c0000-g0000001.jsonl"

    loose = os.path.join(ROOT, "odd26-loose")
    shutil.rmtree(loose, ignore_errors=True)
    shutil.copytree(os.path.join(folder, "records"), os.path.join(loose, "records"))
    os.truncate(os.path.join(loose, record), 8 << 40)
    print("loose records (records/ alone), one grown to 8 TiB:")
    show("view FOLDER", ["view", loose, "--out", loose + ".html"])
    show("view RECORD", ["view", os.path.join(loose, record), "--out", loose + ".html"])
    show("replay RECORD", ["replay", os.path.join(loose, record)])

    opened = os.path.join(ROOT, "odd26-open")
    shutil.rmtree(opened, ignore_errors=True)
    big = study_file("odd26-open", 40, 1)
    run = subprocess.Popen(
        ["cardgame", "simulate", big, "--workers", "1", "--no-progress", "--records"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    first = Path(opened, "records", "part-c0000-g0000000.jsonl")
    while run.poll() is None and not (
        first.exists()
        and Path(opened, "manifest.json").exists()
        and len(list(first.parent.glob("*.jsonl"))) > 2
    ):
        time.sleep(0.01)
    run.kill()  # the script's own run, as a power cut would: its folder left open
    run.wait()
    state = json.loads(Path(opened, "manifest.json").read_text())["seal"]["state"]
    os.truncate(first, 8 << 40)
    print(f"an open folder (its run killed: mark {state!r}), a record grown to 8 TiB:")
    show("view FOLDER", ["view", opened, "--out", opened + ".html"])
    show("replay RECORD", ["replay", str(first)])
    os.truncate(first, 0)
    os.truncate(os.path.join(loose, record), 0)
    shutil.rmtree(loose)


if __name__ == "__main__":
    main()
