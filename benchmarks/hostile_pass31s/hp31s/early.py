"""A seat that answers a view before it has read all of it (``hp31s.early``).

Pass 30s's fix: once the worker reads an answer it asks how much of the view it sent is
still unread (``FIONREAD``), and any fails the seat. ``Early`` answers its first decision
as the planner does, then takes over the view pipe: it waits until a view has arrived whole
(its size in the pipe steady for 5 ms), reads all of it but ``KEY`` bytes (default 1: the
line's newline; the JSON object is complete without it) and answers ``draw_deck``. With
``KEY=0`` (the control) it reads the whole view first and the check must let it pass: the
game then goes on until ``draw_deck`` is illegal or the game ends."""

from __future__ import annotations

import array
import fcntl
import json
import os
import termios
import time

from sims.strategies.planner import Planner

from . import key, say
from .fill import _line, _pipe


def _waiting(fd: int) -> int:
    buf = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return buf[0]


class Early(Planner):
    """Hostile: reads its views but their last ``KEY`` bytes before it answers."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        leave = int(key() or "1")
        views, answers = _pipe(0), _pipe(1)
        from cardgame import actions as A

        os.write(answers, _line(A.to_dict(action)))
        n = 0
        while True:
            size, steady = 0, 0.0
            while True:  # a view arrived whole: its size steady for 5 ms
                now = _waiting(views)
                if now and now == size:
                    steady += 0.001
                    if steady >= 0.005:
                        break
                else:
                    size, steady = now, 0.0
                time.sleep(0.001)
            data = os.read(views, size - leave) if size > leave else b""
            n += 1
            parsed = "parsed" if data.rstrip(b"\n") and json.loads(data) else "empty"
            say("Early", f"view {n}: {size} bytes, read {len(data)} ({parsed}), left {leave}")
            os.write(answers, _line({"type": "draw_deck"}))
