"""A run whose seal another writer makes fail leaves its folder open, and the --resume
that the report's warning asks for seals whatever the folder then holds.

The writer waits for the run's first manifest (``manifest.json`` landed), then makes a
folder at the manifest's temporary name, ``.manifest.json.tmp``: every later manifest write
(``write_atomic``) opens that name for writing and fails (IsADirectoryError). The run plays
all its games; its seal fails, and so does the seal after failure, which swallows the error:
the folder keeps its *open* mark. The writer then removes its folder, forges the seats table
(every score +500) and waits. ``report`` reads the forgery (with the warning "its run has not
ended"); ``--resume``, as that warning says, finds the folder open, takes the forgery as
found and seals it; every report after exits 0 with no warning.

``manifest`` instead of a batch count: no folder; the writer rewrites ``manifest.json`` with
the same JSON content in other bytes (``indent=2``) once the run's games are played: the
open mark still holds (it is keyed over the content), but the run's seal reads a manifest
"changed while this run wrote the folder" and fails the same way.

python sealfail23.py [24|80|manifest]   (24: the compaction in the parent's threads; 80: forked)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, forge_compact, last_line, report, scores, study_file


def main(batches: int, how: str) -> None:
    name = f"sealfail{batches}{how}"
    path = study_file(name, batches, 1)
    folder = os.path.join(ROOT, name)
    twin = os.path.join(ROOT, f"twin-{name}")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(twin, ignore_errors=True)
    done = cardgame("simulate", path, "--out", twin, "--workers", "1", "--no-progress")
    print(f"  twin run: exit {done.returncode}; {report(twin)}")
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    manifest = Path(folder, "manifest.json")
    blocker = Path(folder, ".manifest.json.tmp")
    while not manifest.exists() and run.poll() is None:
        time.sleep(0.005)
    if how == "dir":
        blocker.mkdir()  # the manifest's temporary name, taken by a folder
    else:  # the same content in other bytes, once the games are played (the seal is next)
        games = Path(folder, "games")
        while not (games / "compact.parquet").exists() and run.poll() is None:
            time.sleep(0.001)
        content = json.loads(manifest.read_text())
        Path(folder, "other.json").write_text(json.dumps(content, indent=2))
        os.replace(Path(folder, "other.json"), manifest)
    out, _ = run.communicate(timeout=600)
    print(f"  attacked run: exit {run.returncode}: {out.strip().splitlines()[-1][:200]!r}")
    state = json.loads(manifest.read_text())["seal"]["state"]
    print(f"  its mark after the run: {state!r}")
    if how == "dir":
        blocker.rmdir()
    forge_compact(
        os.path.join(folder, "seats", "compact.parquet"), os.path.join(ROOT, "spare.parquet")
    )
    print(f"  forged: scores now (first 4) {scores(folder)[:4]}, twin {scores(twin)[:4]}")
    done = cardgame("report", folder, "--format", "md", "--out", folder + "-w.md")
    print(f"  report: exit {done.returncode}; warning: {'its run has not ended' in done.stderr}")
    print(f"  {report(folder)}")
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--resume")
    print(f"  the --resume the warning asks for: exit {done.returncode}: {last_line(done)!r}")
    state = json.loads(manifest.read_text())["seal"]["state"]
    done = cardgame("report", folder, "--format", "md", "--out", folder + "-w.md")
    print(f"  its mark now: {state!r}; report warns: {'its run has not ended' in done.stderr}")
    print(f"  afterwards: {report(folder)}")


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else "24"
    main(24 if arg == "manifest" else int(arg), "manifest" if arg == "manifest" else "dir")
