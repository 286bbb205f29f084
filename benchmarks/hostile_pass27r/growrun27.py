# ruff: noqa: E501  (attack code: long report lines)
"""grow27's trick while a run plays: a part the run wrote (``games/_parts``, landed by rename)
grown in place to 8 TiB of holes before its compaction (forked: 400 one-game batches) reads
it. ``Reading.read`` takes the run's own file by name and reads it whole. One line and exit 2
expected ("... changed while this run wrote the folder"), never a traceback or a long read.

python growrun27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common27 import ROOT, Watch, study_file

IN_MOVED_TO = 0x80
LIMIT = 60


def main() -> None:
    for workers in ("1", "2"):
        name = f"growrun27-{workers}"
        folder = os.path.join(ROOT, name)
        shutil.rmtree(folder, ignore_errors=True)
        path = study_file(name, 400, 1)
        start = time.monotonic()
        run = subprocess.Popen(
            ["cardgame", "simulate", path, "--workers", workers, "--no-progress"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        parts = os.path.join(folder, "games", "_parts")
        while run.poll() is None and not os.path.isdir(parts):
            time.sleep(0.002)
        watch = Watch([parts], IN_MOVED_TO)
        grown = None
        while run.poll() is None and grown is None:
            event = watch.next(0.2)
            if (
                event is not None
                and event[1].endswith(".arrows.lz4")
                and not event[1].startswith(".")
            ):
                try:
                    os.truncate(os.path.join(parts, event[1]), 8 << 40)
                    grown = (event[1], round(time.monotonic() - start, 2))
                except FileNotFoundError:
                    continue
        watch.close()
        try:
            out, err = run.communicate(timeout=LIMIT)
            read = ""
        except subprocess.TimeoutExpired:
            with open(f"/proc/{run.pid}/io") as io:
                rchar = int(next(line for line in io if line.startswith("rchar")).split()[1])
            read = f"; read {rchar / (1 << 30):.1f} GiB in {LIMIT} s, ended by this script (SIGKILL of its own run)"
            run.kill()
            out, err = run.communicate()
        tb = (
            [line for line in err.splitlines() if "Error" in line][-1:]
            if "Traceback" in err
            else []
        )
        lines = (out + err).strip().splitlines()
        print(
            f"  --workers {workers}: grown {grown}; exit {run.returncode}{read}{' TRACEBACK ' + str(tb) if tb else ''}: {(lines[-1] if lines else '')[:200]!r}"
        )
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
