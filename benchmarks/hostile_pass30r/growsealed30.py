"""``grow30.py`` against a sealed file read *after* its check (``Reading.read``): the writer
waits for the reader to open ``games/compact.parquet`` a second time (inotify: the first is
the check's hashing, the second the read after it), then grows ``seats/compact.parquet`` to
8 TiB of holes and shrinks it back, over and over, while ``report`` (no flag) reads it.
``Reading.read`` compares the size of the file it opened with the sealed one, then reads
with ``file.read()``, sized by a second ``fstat``.

python growsealed30.py [TRIES]   (after flip30.py, which makes the sealed folder)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

from common30 import IN_OPEN, ROOT, Watch
from grow30 import grower


def main() -> None:
    tries = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    base, copy = os.path.join(ROOT, "flip30"), os.path.join(ROOT, "growsealed30-copy")
    tally: dict[str, int] = {}
    for n in range(tries):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        target = os.path.join(copy, "seats", "compact.parquet")
        watch = Watch([os.path.join(copy, "games")], IN_OPEN)
        stop = threading.Event()

        def writer(watch: Watch = watch, target: str = target, stop=stop) -> None:
            opens = 0
            while not stop.is_set() and opens < 2:
                event = watch.next(0.1)
                opens += event is not None and event[1] == "compact.parquet"
            if opens >= 2:
                grower(target, os.path.getsize(target), stop)

        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        out = os.path.join(ROOT, "growsealed30.md")
        try:
            done = subprocess.run(
                ["cardgame", "report", copy, "--format", "md", "--out", out],
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            stop.set()
            thread.join()
            watch.close()
        lines = (done.stdout + done.stderr).strip().splitlines()
        kind = "traceback" if "Traceback" in done.stderr else f"exit {done.returncode}"
        tally[kind] = tally.get(kind, 0) + 1
        print(f"    try {n + 1}: {kind}: {(lines[-1] if lines else '')[:170]!r}", flush=True)
        if kind == "traceback":
            print("      " + "\n      ".join(done.stderr.strip().splitlines()[-5:]), flush=True)
    print(f"    tally: {tally}", flush=True)


if __name__ == "__main__":
    main()
