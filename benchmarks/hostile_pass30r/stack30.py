"""Where a reader hung by ``flip30.py`` waits: ``report --accept-changes`` of a copy of
flip30's sealed folder while ``games/compact.parquet`` is flipped with a named pipe; once it
has run 10 s, its kernel wait channel, and its Python stack (``PYTHONFAULTHANDLER``, then a
SIGABRT to our own process). Tries up to 8 times for a hang.

python stack30.py   (after flip30.py, which makes the folder)
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time

from common30 import ROOT
from flip30 import flipper


def main() -> None:
    base, copy = os.path.join(ROOT, "flip30"), os.path.join(ROOT, "stack30-copy")
    fifo = os.path.join(ROOT, "stack30-fifo")
    for attempt in range(8):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        if os.path.lexists(fifo):
            os.remove(fifo)
        os.mkfifo(fifo)
        target = os.path.join(copy, "games", "compact.parquet")
        stop = threading.Event()
        thread = threading.Thread(target=flipper, args=(target, "", fifo, stop), daemon=True)
        thread.start()
        out = os.path.join(ROOT, "stack30.md")
        run = subprocess.Popen(
            ["cardgame", "report", copy, "--accept-changes", "--format", "md", "--out", out],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )
        try:
            run.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stop.set()
            thread.join()
            with open(f"/proc/{run.pid}/wchan") as f:
                wchan = f.read()
            print(f"  try {attempt + 1}: still running after 10 s (the flipper stopped)")
            print(f"  wait channel: {wchan}")
            time.sleep(5)
            print(f"  still running 5 s after the flipper stopped: {run.poll() is None}")
            run.send_signal(signal.SIGABRT)
            text, _ = run.communicate(timeout=30)
            print("  its stack (faulthandler, on our SIGABRT):")
            for line in text.splitlines():
                if "File" in line or "Thread" in line or "Fatal" in line:
                    print("   ", line.strip())
            return
        stop.set()
        thread.join()
        text = run.stdout.read() if run.stdout else ""
        print(f"  try {attempt + 1}: exit {run.returncode}: {text.strip().splitlines()[-1:]}")
    print("  no hang in 8 tries")


if __name__ == "__main__":
    main()
