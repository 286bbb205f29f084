"""Pass 30s's attack, copied; its words describe the code before that pass's fix.

A seat that fills its view pipe so that the worker's next write of a view blocks
(``hp31s.fill``).

The worker writes each view to the game's pipe with a blocking ``os.write``
(``Host.tell``) and only then waits for the answer under the decision limit, whose raise
(``PyThreadState_SetAsyncExc``) lands when the call returns. A game may write its answers
ahead of their views (each is read at its own decision); if it then stops reading views,
the worker writes one view per answer it finds until the pipe (64 KiB) is full.

``PreFill`` answers its first decision itself (the planner's answer, written straight to
its answer pipe), then ``N`` answers ahead, and never reads again: it sleeps inside its
first decision. ``KEY``: ``N`` (default 400) answers ``draw_deck``; ``N,dest`` answers
``draw_destinations`` and ``keep_destinations []`` in turn (keep none: the destination deck
does not shrink). With ``KEY=10`` (the control) the views it leaves unread fit even an
8 KiB pipe, and its seat fails on time once its answers run out. Run under
``smallpipe.py`` for the pipe a user over the kernel's soft pipe limit gets."""

from __future__ import annotations

import array
import fcntl
import json
import os
import stat
import termios
import threading
import time

from cardgame import actions as A
from sims.guest import SV_RULES
from sims.strategies.planner import Planner

from . import key, say


def _pipe(mode: int) -> int:
    """The game's answer pipe (``mode`` 1, write-only) or view pipe (0, read-only)."""
    for fd in range(3, 64):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISFIFO(st.st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == mode:
            return fd
    raise RuntimeError("no such pipe")


def _watch(fd: int, name: str) -> None:
    """Say how many bytes of views wait unread, each time that passes another 2 KiB."""
    said = 0
    buf = array.array("i", [0])
    while True:
        fcntl.ioctl(fd, termios.FIONREAD, buf)
        if buf[0] >= said + 2048:
            said = buf[0] // 2048 * 2048
            say(name, f"{buf[0]} bytes of views unread")
        time.sleep(0.02)


def _line(action: dict) -> bytes:
    return json.dumps({"action": action}).encode() + b"\n"


class PreFill(Planner):
    """Hostile: answers ahead, then stops reading its views (see the module)."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        ahead, _, mode = (key() or "400").partition(",")
        ahead = int(ahead)
        fd = _pipe(1)
        size = len(json.dumps({"op": "decide", "view": list(view[:SV_RULES])}))
        say(type(self).__name__, f"its first view: {size} bytes")
        threading.Thread(target=_watch, args=(_pipe(0), type(self).__name__), daemon=True).start()
        data = _line(A.to_dict(action))  # a keep (its first decision): no colour
        if mode == "dest":  # draw destinations, keep none: legal as long as the game lasts
            pair = _line({"type": "draw_destinations"}) + _line(
                {"type": "keep_destinations", "ids": []}
            )
            data += pair * (ahead // 2)
        else:
            data += _line({"type": "draw_deck"}) * ahead
        while data:
            data = data[os.write(fd, data) :]
        say(type(self).__name__, f"wrote its answer and {ahead} ahead on fd {fd}")
        while True:  # never returns: no view is read again
            time.sleep(1)


class Staller(Planner):
    """A colluding seat that reads its views and draws no train card: destinations drawn,
    none kept, every turn, so that the train deck never empties and the game lasts until
    the runner's cap on turns (``sims.match.MAX_TURNS``)."""

    def decide(self, view):
        phase = view[3]
        if phase == A.Phase.TURN:
            return A.DRAW_DESTINATIONS
        if phase == A.Phase.KEEP_DRAWN:
            return A.KeepDestinations(())
        return super().decide(view)
