"""A covert channel between two games played at once by two workers: a shared file's lock
(``hp27s.locktalk``). Every sandbox maps the one tmpfs copy of the view, and a tmpfs's
``lseek(SEEK_DATA/SEEK_HOLE)`` walks the file's pages under the file's inode lock, held
exclusively. Time is cut in slots of 0.25 s, each carrying a bit both sides know.
``LockSend`` seeks holes in the view's largest library on two threads through its
decisions in 1-slots and sleeps in 0-slots; ``LockRecv`` times ``PROBES`` seeks of its own
at each decision (then waits 0.12 s, to last as long as the
sender's game) and, every 40 decisions, says how well the median time tells the bits."""

from __future__ import annotations

import glob
import os
import statistics
import threading
import time

from sims.strategies.planner import Planner

from . import say

SLOT = 0.25
PROBES = 40
SEEK_HOLE = 4


def bit(t: float) -> int:
    return ((int(t / SLOT) * 2654435761) >> 9) & 1


def big_file() -> str:
    """The largest shared library of the view (numpy's BLAS, else libpython's)."""
    import numpy

    root = os.path.dirname(os.path.dirname(numpy.__file__))
    files = glob.glob(f"{root}/numpy*/**/*.so*", recursive=True)
    return max(files, key=os.path.getsize)


class LockSend(Planner):
    def decide(self, view):
        if not hasattr(self, "_fd"):
            self._fd = [os.open(big_file(), os.O_RDONLY) for _ in range(2)]
        action = super().decide(view)
        end = time.monotonic() + 0.25
        if bit(time.time()):

            def hold(fd: int) -> None:
                while time.monotonic() < end:
                    os.lseek(fd, 0, SEEK_HOLE)

            threads = [threading.Thread(target=hold, args=(fd,)) for fd in self._fd]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        return action


class LockRecv(Planner):
    def decide(self, view):
        if not hasattr(self, "_fd"):
            path = big_file()
            self._fd = os.open(path, os.O_RDONLY)
            self._rows: list[tuple[int, float, bool]] = []
            say("LockRecv", f"file {os.path.basename(path)}, {os.path.getsize(path) >> 20} MiB")
        rows = self._rows
        t0 = time.time()
        times = []
        for _ in range(PROBES):
            s = time.perf_counter_ns()
            os.lseek(self._fd, 0, SEEK_HOLE)
            times.append(time.perf_counter_ns() - s)
        rows.append(
            (bit(t0), statistics.median(times) / 1000, int(t0 / SLOT) == int(time.time() / SLOT))
        )
        if len(rows) % 40 == 0:
            clean = [(b, us) for b, us, same in rows if same]
            med = statistics.median(us for _, us in clean)
            right = sum((us > med) == (b == 1) for b, us in clean)
            ones = [us for b, us in clean if b] or [0]
            zeros = [us for b, us in clean if not b] or [0]
            say(
                "LockRecv",
                f"{len(clean)} timed slots: median seek in 1-slots"
                f" {statistics.median(ones):.0f} us,"
                f" in 0-slots {statistics.median(zeros):.0f} us; bits read right"
                f" {right}/{len(clean)}",
            )
        time.sleep(0.12)  # as slow a game as the sender's, so that the two overlap
        return super().decide(view)
