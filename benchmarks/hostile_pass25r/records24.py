# ruff: noqa: E501  (attack code: long report lines)
"""An empty ``records/`` folder added to a sealed folder of a run stopped by Ctrl-C (made
without ``--records``): folders are not sealed, so the check passes, but ``--resume`` takes
the folder's ``records/`` as the mark of a run made with records (``_check_resumable``:
``(folder / "records").is_dir()``) and refuses "these results were made with game records:
resume with --records". The user who does as told gets a folder sealed with records of the
batches played by the resume only (``view`` shows the resume's games as the study's
records, ``replay`` of each says nothing of the rest).

python records24.py
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

from common import ROOT, cardgame, last_line, report, study_file

signal.signal(signal.SIGINT, signal.default_int_handler)


def main() -> None:
    path = study_file("records24", 60, 1)
    folder = os.path.join(ROOT, "records24")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--keep-parts"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    parts = os.path.join(folder, "games", "_parts")
    while (not os.path.isdir(parts) or len(os.listdir(parts)) < 20) and run.poll() is None:
        pass
    run.send_signal(signal.SIGINT)  # the user's Ctrl-C, to the script's own run
    run.communicate(timeout=300)
    print(
        f"  run stopped by Ctrl-C: exit {run.returncode}; {len(os.listdir(parts))} of 60 batches landed; {report(folder)[:60]}"
    )
    os.makedirs(os.path.join(folder, "records"))
    print("  the writer: an empty records/ folder")
    done = cardgame(*args[1:], "--resume")
    print(f"  --resume: exit {done.returncode}: {last_line(done)!r}")
    done = cardgame(*args[1:], "--resume", "--records")
    print(f"  --resume --records, as told: exit {done.returncode}: {last_line(done)!r}")
    print(f"  records now: {len(os.listdir(os.path.join(folder, 'records')))} files for 60 batches")
    done = cardgame("view", folder, "--playouts", "0", "--out", folder + ".html")
    print(f"  view: exit {done.returncode}: {last_line(done)[:170]!r}")
    print(f"  {report(folder)[:80]}")


if __name__ == "__main__":
    main()
