# ruff: noqa: E501  (attack code: long report lines)
"""A run's id kept out of the ended runs: its folder left open, then forged and sealed.

``seal`` (sims/folder.py) ends the run's open mark (its id among the ended runs) only after
``read_manifest`` found the manifest; a manifest absent returns ``[]`` (nothing changed),
and one that fails the run's check goes to ``_end_open_mark``, which takes the run id from
the manifest's bytes on disk, as another writer left them. The writer copies the run's open
manifest while it plays, then:

- ``removed``: removes ``manifest.json``;
- ``runid``: puts in its place a copy whose open mark names another run id;
- ``resume``: removes it while a resume of a sealed folder plays (adding a search check);
- ``fifo``: puts a named pipe in its place (``_end_open_mark`` reads it by path, waiting);

and once the run has ended puts the open copy back and forges ``seats/compact.parquet``
(every planner score +500, planner winning every game). Then ``report``, a plain
``--resume`` (as the report's warning says), and ``report`` again.

python unseal26.py [removed|runid|fifo|resume]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, forge_compact, last_line, report, study_file


def main(how: str) -> None:
    name = f"unseal26-{how}"
    path = study_file(name, 30, 1)
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress"]
    manifest = Path(folder, "manifest.json")
    if how == "resume":  # a sealed folder, resumed to add a search check
        done = cardgame(*args[1:])
        print(
            f"  the first run: exit {done.returncode}; mark {json.loads(manifest.read_text())['seal']['state']!r}"
        )
        args += ["--resume", "--check-search", "6"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while run.poll() is None and not (manifest.exists() and b'"open"' in manifest.read_bytes()):
        time.sleep(0.005)
    time.sleep(0.2)
    kept = manifest.read_bytes()
    if how in ("removed", "resume"):
        manifest.unlink()
    elif how == "fifo":
        manifest.unlink()
        os.mkfifo(manifest)
    else:
        other = json.loads(kept)
        other["seal"]["run"] = "0" * 32
        spare = os.path.join(ROOT, "spare-manifest.json")
        Path(spare).write_text(json.dumps(other, indent=1, sort_keys=True) + "\n")
        os.rename(spare, manifest)
    print(
        f"  the writer: manifest.json {'removed' if how == 'resume' else how} while the {'resume' if how == 'resume' else 'run'} plays; running: {run.poll() is None}"
    )
    if how == "fifo":
        try:
            run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            wchan = Path(f"/proc/{run.pid}/wchan").read_text()
            print(f"  the run's process waits in the kernel at {wchan!r}")
            print(
                "  the run: still running 60 s after the writer's fifo (its seal waits on it); Ctrl-C (SIGINT to the script's own run)"
            )
            run.send_signal(2)
        manifest.unlink()
    out, _ = run.communicate(timeout=600)
    lines = out.strip().splitlines()
    print(f"  the run: exit {run.returncode}: {lines[-1][:200] if lines else ''!r}")
    print(
        f"  the run's mark now: {json.loads(manifest.read_text())['seal'] if manifest.exists() else 'no manifest'}"
    )
    spare = os.path.join(ROOT, "spare-manifest.json")
    Path(spare).write_bytes(kept)
    os.rename(spare, manifest)
    forge_compact(
        os.path.join(folder, "seats", "compact.parquet"), os.path.join(ROOT, "spare.parquet")
    )
    print("  the writer: the open manifest put back, seats/compact.parquet forged")
    print(f"  {report(folder)}")
    warned = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
    print(
        f"  its warning: {[w[:110] for w in warned.stderr.splitlines() if 'not ended' in w or 'sealed' in w]}"
    )
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--resume")
    print(f"  --resume: exit {done.returncode}: {last_line(done)!r}")
    print(f"  the mark now: {json.loads(manifest.read_text())['seal']['state']!r}")
    print(f"  {report(folder)}")


if __name__ == "__main__":
    main(sys.argv[1] if sys.argv[1:] else "removed")
