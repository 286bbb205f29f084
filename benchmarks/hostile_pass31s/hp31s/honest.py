"""Honest seats around the one-answer-a-view check (``hp31s.honest``): nothing here may
fail. ``Plain`` is the planner as a guest; ``Chatter`` logs from a thread of its own the
whole game (stderr, 50 lines a second), prints 2 KB to stdout each decision, and decides
in a worker thread it waits for (a thread pool), so its answer is written by the main
thread after another thread's work."""

from __future__ import annotations

import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sims.strategies.planner import Planner


class Plain(Planner):
    """The planner, played in its sandbox."""


class Chatter(Planner):
    """Honest: a logging thread, stdout prints and a pool (see the module)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._pool = ThreadPoolExecutor(2)
        self._log = logging.getLogger("chatter")
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
        self._n = 0
        threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        i = 0
        while True:
            i += 1
            if i % 50 == 0:
                self._log.info("tick %d", i)
            time.sleep(0.02)

    def decide(self, view):
        self._n += 1
        print("x" * 2048, flush=True)
        return self._pool.submit(Planner.decide, self, view).result()
