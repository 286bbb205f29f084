"""Answers ahead of their views, with every view read at once by a thread of its own
(``hp31s.drain``): does the one-answer-a-view check race? The worker reads an answer
already waiting as soon as it has written the view, then asks how much of the view is
unread; a thread blocked in ``read`` on the view pipe is woken by that write and may have
taken the view by then. ``DrainAhead`` answers its first decision as the planner does, then
``KEY`` (default 400) pairs ``draw_destinations``, ``keep_destinations []`` ahead (legal
while the game lasts), starts the reading thread and sleeps in that decision for good."""

from __future__ import annotations

import os
import threading
import time

from cardgame import actions as A
from sims.strategies.planner import Planner

from . import key, say
from .fill import _line, _pipe


def _drain(fd: int) -> None:
    n = 0
    while True:
        data = os.read(fd, 65536)
        if not data:
            return
        n += data.count(b"\n")
        if n % 20 == 0:
            say("DrainAhead", f"{n} views read")


class DrainAhead(Planner):
    """Hostile: answers ahead, views read by a thread (see the module)."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        ahead = int(key() or "400")
        views, answers = _pipe(0), _pipe(1)
        threading.Thread(target=_drain, args=(views,), daemon=True).start()
        pair = _line({"type": "draw_destinations"}) + _line(
            {"type": "keep_destinations", "ids": []}
        )
        data = _line(A.to_dict(action)) + pair * (ahead // 2)
        while data:
            data = data[os.write(answers, data) :]
        say("DrainAhead", f"wrote its answer and {ahead} ahead")
        while True:
            time.sleep(1)
