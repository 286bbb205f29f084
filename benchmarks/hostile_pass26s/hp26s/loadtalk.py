"""A covert channel between two games played at once by two workers: the machine's load
(``hp26s.loadtalk``). Time is cut in slots of 0.25 s, each carrying a bit both sides
know (a fixed pseudo-random pattern of the slot's number). ``LoadSend`` hashes (four
threads, the GIL let go) through its decisions in slots whose bit is 1 and sleeps in the
others; ``LoadRecv`` times its own hashing for 0.1 s at each decision and, every 40
decisions, says how well its rate tells the slots' bits (a threshold at the median)."""

from __future__ import annotations

import hashlib
import statistics
import threading
import time

from sims.strategies.planner import Planner

from . import say

SLOT = 0.25
BLOCK = b"x" * (1 << 20)


def bit(t: float) -> int:
    return ((int(t / SLOT) * 2654435761) >> 9) & 1


class LoadSend(Planner):
    def decide(self, view):
        action = super().decide(view)
        end = time.monotonic() + 0.2
        if bit(time.time()):

            def burn() -> None:
                while time.monotonic() < end:
                    hashlib.sha256(BLOCK).digest()

            threads = [threading.Thread(target=burn) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        return action


class LoadRecv(Planner):
    def decide(self, view):
        rows = getattr(self, "_rows", [])
        self._rows = rows
        t0 = time.time()
        start = time.monotonic()
        n = 0
        while time.monotonic() - start < 0.1:
            hashlib.sha256(BLOCK).digest()
            n += 1
        rows.append((bit(t0), n, int(t0 / SLOT) == int(time.time() / SLOT)))
        if len(rows) % 40 == 0:
            clean = [(b, n) for b, n, same in rows if same]
            med = statistics.median(n for _, n in clean)
            right = sum((n < med) == (b == 1) for b, n in clean)
            ones = [n for b, n in clean if b] or [0]
            zeros = [n for b, n in clean if not b] or [0]
            say(
                "LoadRecv",
                f"{len(clean)} timed slots: rate in 1-slots {statistics.mean(ones):.1f},"
                f" in 0-slots "
                f"{statistics.mean(zeros):.1f} blocks/0.1 s; bits read right {right}/{len(clean)}",
            )
        return super().decide(view)
