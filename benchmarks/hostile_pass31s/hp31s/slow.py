"""Whether a seat's stderr is shown when it fails on time (``hp31s.slow``): ``Slow`` says
one line at each of its first ``KEY`` (default 3) decisions, then sleeps 1 s, past the
decision limit. ``Raises`` says the same lines, then raises (its host ended in order)."""

from __future__ import annotations

import time

from sims.strategies.planner import Planner

from . import key, say


class Slow(Planner):
    """Says a line a decision, then decides too slowly."""

    def decide(self, view):
        self._n = getattr(self, "_n", 0) + 1
        say(type(self).__name__, f"decision {self._n}")
        if self._n > int(key() or "3"):
            self.fail()
        return super().decide(view)

    def fail(self) -> None:
        time.sleep(1)


class Raises(Slow):
    """Says a line a decision, then raises."""

    def fail(self) -> None:
        raise RuntimeError("Raises: on purpose")
