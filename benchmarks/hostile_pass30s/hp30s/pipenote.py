"""A note from one game to the next game of its host, in the times of its pipes
(``hp30s.pipenote``).

A host keeps its two game pipes for all its games. The kernel stamps a pipe's change time on
every write: the view pipe's when the worker writes a view, the answer pipe's when the game
writes its answer, which it may delay as long as its decision limit allows. So the answer
pipe's time less the view pipe's, read by the next game before either is written again (in
its constructor: its first write, "ok", follows it), is the previous game's delay at its
last decision, chosen by that game. With seatings, the next game of a host is, under one
worker, the same deal with the seats swapped: what the note carries of this game's hand is
the rival's hand in the next.

``PipeNote`` encodes the smallest of the six destinations it is dealt (``offer_ids`` of its
first view, 1 to 46) as a delay of ``id * STEP`` at every decision after its first, and in
its constructor decodes the previous game's. ``KEY``: STEP in ms (default 8)."""

from __future__ import annotations

import os
import time

from sims.strategies.planner import Planner

from . import key, say
from .fill import _pipe


def _step() -> float:
    return float(key() or 8) / 1000


def _times(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns


class PipeNote(Planner):
    """Hostile: see the module."""

    def __init__(self, *args, **kwargs):
        view_pipe, answer_pipe = os.fstat(_pipe(0)), os.fstat(_pipe(1))
        delay = (answer_pipe.st_mtime_ns - view_pipe.st_mtime_ns) / 1e9
        step = _step()
        say(
            "PipeNote",
            f"start: answer pipe's time less view pipe's {delay * 1000:.2f} ms: "
            f"the previous game's note reads {round(delay / step)}",
        )
        now = time.time_ns()
        say(
            "PipeNote",
            "start: times (ms before now) view a/m/c "
            + " ".join(f"{(now - t) / 1e6:.2f}" for t in _times(view_pipe))
            + ", answer a/m/c "
            + " ".join(f"{(now - t) / 1e6:.2f}" for t in _times(answer_pipe)),
        )
        super().__init__(*args, **kwargs)
        self._note = None

    def decide(self, view):
        began = time.perf_counter()
        self._n = getattr(self, "_n", 0) + 1
        if self._n == 20:  # within a game, after 19 answers written and 20 views read
            now = time.time_ns()
            ages = [(now - t) / 1e6 for p in (0, 1) for t in _times(os.fstat(_pipe(p)))]
            say(
                "PipeNote",
                "decision 20: ages (ms) view a/m/c, answer a/m/c "
                + " ".join(f"{a:.1f}" for a in ages),
            )
        action = super().decide(view)
        if self._note is None:
            offer = view[9]  # offer_ids: its six dealt destinations
            self._note = min(offer)
            say("PipeNote", f"dealt {sorted(offer)}: writes {self._note} in every answer")
            return action
        left = self._note * _step() - (time.perf_counter() - began)
        if left > 0:
            time.sleep(left)
        return action
