"""A seat that fills its view pipe so that the worker's next write of a view blocks
(``hp30s.fill``).

The worker writes each view to the game's pipe with a blocking ``os.write``
(``Host.tell``) and only then waits for the answer under the decision limit, whose raise
(``PyThreadState_SetAsyncExc``) lands when the call returns. A game may write its answers
ahead of their views (each is read at its own decision); if it then stops reading views,
the worker writes one view per answer it finds until the pipe (64 KiB) is full.

``PreFill`` answers its first decision itself (the planner's answer, written straight to
its answer pipe), then ``KEY`` (default 400) answers ``draw_deck`` ahead, and never reads
again: it sleeps inside its first decision. With ``KEY=20`` (the control) the views it
leaves unread fit the pipe, and its seat fails on time once its answers run out."""

from __future__ import annotations

import fcntl
import json
import os
import stat
import time

from cardgame import actions as A
from sims.strategies.planner import Planner

from . import key, say


def _answer_pipe() -> int:
    """The game's answer pipe: its one write-only FIFO besides stdout and stderr."""
    for fd in range(3, 64):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISFIFO(st.st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == 1:
            return fd
    raise RuntimeError("no answer pipe")


def _line(action: dict) -> bytes:
    return json.dumps({"action": action}).encode() + b"\n"


class PreFill(Planner):
    """Hostile: answers ahead, then stops reading its views (see the module)."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        ahead = int(key() or 400)
        fd = _answer_pipe()
        data = _line(A.to_dict(action))  # a keep (its first decision): no colour
        data += _line({"type": "draw_deck"}) * ahead
        while data:
            data = data[os.write(fd, data) :]
        say(type(self).__name__, f"wrote its answer and {ahead} ahead on fd {fd}")
        while True:  # never returns: no view is read again
            time.sleep(1)
