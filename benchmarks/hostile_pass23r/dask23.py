"""The Dask backend (a local cluster, no --scheduler): the writer renames a forged copy over
each seats part as a Dask worker lands it (inotify ``IN_MOVED_TO`` on ``seats/_parts``).
Blocked: the compaction read each part before the forgery landed (a forgery that lands
first is refused by its digest), and removed the forgeries with the parts.

python dask23.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

from common import IN_MOVED_TO, ROOT, Watch, forge_part, report, study_file


def main() -> None:
    path = study_file("dask", 12, 1)
    folder = os.path.join(ROOT, "dask")
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--backend", "dask"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    parts = os.path.join(folder, "seats", "_parts")
    while not os.path.isdir(parts) and run.poll() is None:
        time.sleep(0.002)
    forged: list[str] = []
    watch = Watch(parts, IN_MOVED_TO)

    def forge() -> None:
        for name in watch.events():
            if name.startswith("part-") and name not in forged:
                try:
                    forge_part(os.path.join(parts, name), os.path.join(ROOT, "spare.lz4"))
                    forged.append(name)
                except OSError:
                    pass

    threading.Thread(target=forge, daemon=True).start()
    out, _ = run.communicate(timeout=400)
    print(f"  dask run: exit {run.returncode}: {out.strip().splitlines()[-1][:200]!r}")
    print(f"  parts forged as they landed: {len(forged)}")
    print(f"  after: {report(folder)}")


if __name__ == "__main__":
    main()
