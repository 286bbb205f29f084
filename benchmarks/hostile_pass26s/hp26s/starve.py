"""A seat starving a rival near its decision limit (``hp26s.starve``).

``NearLimit`` is an honest strategy that thinks hard in its first ``HEAVY`` decisions: a
fixed amount of work (``WORK`` SHA-256 passes over 1 MiB, about 1 ms each here) that fits
its decision limit with room on an idle machine; it reports each such decision's wall time.
``Spin`` starts ``THREADS`` threads that hash 32 MiB blocks for ever (``hashlib`` lets go
of the GIL, so they load every core) from its first decision on, within its CPU time for
the game. ``Idle`` is the planner under another name, in the sandbox too: the control."""

from __future__ import annotations

import hashlib
import threading
import time

from sims.strategies.planner import Planner

from . import key, say

HEAVY = 10
WORK = 300
THREADS = 8
BLOCK = b"x" * (1 << 20)
BIG = b"x" * (32 << 20)  # a spinning thread holds the GIL once in 35 ms


class NearLimit(Planner):
    """Honest: its first ``HEAVY`` decisions each do ``WORK`` ms of hashing."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n <= HEAVY:
            t, c = time.perf_counter(), time.thread_time()
            for _ in range(WORK):
                hashlib.sha256(BLOCK).digest()
            wall, cpu = time.perf_counter() - t, time.thread_time() - c
            say(
                "NearLimit",
                f"heavy decision {n}: wall {wall:.3f} s, cpu {cpu:.3f} s,"
                f" wall/cpu {wall / cpu:.2f}",
            )
        return super().decide(view)


class Spin(Planner):
    """Hostile: ``THREADS`` hashing threads from its first decision to its game's end."""

    def decide(self, view):
        if not getattr(self, "_started", False):
            self._started = True

            def run() -> None:
                while True:
                    hashlib.sha256(BIG).digest()

            made = 0
            for _ in range(int(key()) if key().isdigit() else THREADS):
                try:
                    threading.Thread(target=run, daemon=True).start()
                    made += 1
                except RuntimeError:
                    break
            say("Spin", f"{made} spinning threads")
        return super().decide(view)


class Idle(Planner):
    """The planner in the sandbox: the control."""
