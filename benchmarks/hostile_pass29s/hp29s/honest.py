"""Honest code whose threads end while the host waits for the stop (``hp29s.honest``).

With steady decisions the host, after each answer, waits until every thread of the game is
stopped, reading each thread's state; pass 28s's ExitRace ended the host by having threads
reaped between the open and the read. An honest strategy does this by accident: a thread pool
made and shut down within a decision, whose workers end just as it answers.

- ``PoolEnd``: each decision, a pool of ``KEY`` workers (default 8) runs short jobs and is shut
  down without waiting, and threads of its own that end 0 to 2 ms after it answers.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time

from sims.strategies.planner import Planner

from . import key, say


def _workers() -> int:
    text = key()
    return int(text) if text.isdigit() else 8


class PoolEnd(Planner):
    """Honest: a pool and short-lived threads each decision, ending around its answer."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        k = _workers()
        pool = concurrent.futures.ThreadPoolExecutor(k)
        futures = [pool.submit(sum, range(1000)) for _ in range(k)]
        concurrent.futures.wait(futures)
        pool.shutdown(wait=False)
        for i in range(k):
            threading.Thread(target=time.sleep, args=(0.00025 * i,)).start()
        if n % 20 == 1:
            say("PoolEnd", f"decision {n}: {k} pool workers and {k} short threads")
        return super().decide(view)
