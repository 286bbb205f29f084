"""A game whose end is slow (``hp31s.heavy``): ``HeavyEnd`` fills ``KEY`` MiB (default 600)
of memory at its first decision and keeps it, so the host's kill at the game's end must
tear that down before it reports, while the worker waits outside any decision limit.
Compared by wall time with ``Light``, the planner holding nothing."""

from __future__ import annotations

import ctypes
import time

from sims.strategies.planner import Planner

from . import key, say


class HeavyEnd(Planner):
    """Holds ``KEY`` MiB, touched, for the whole game."""

    def decide(self, view):
        if not hasattr(self, "_hold"):
            size = int(key() or "600") << 20
            start = time.perf_counter()
            self._hold = ctypes.create_string_buffer(size)
            ctypes.memset(self._hold, 1, size)
            say("HeavyEnd", f"{size >> 20} MiB touched in {time.perf_counter() - start:.2f} s")
        return super().decide(view)


class Light(Planner):
    """The planner as a guest: the control."""
