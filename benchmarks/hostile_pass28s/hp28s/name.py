"""A seat that voids the game it chooses, with steady decisions (``hp28s.name``).

With steady decisions the host waits, after each answer, until every thread of the game's
process is stopped (sims/guest.py ``_until_stopped``): it reads each thread's
``/proc/PID/task/TID/stat`` as UTF-8 text. The thread's name (``comm``) is written there raw,
and a game may name its own threads (``prctl(PR_SET_NAME)`` is not denied). A name that is not
UTF-8 makes that read raise ``UnicodeDecodeError``, which nothing catches: the host ends, which
the worker takes as the machine's fault (``GuestLost``), and the game is played again; lost
twice, it is recorded as a fault of the machine (seat -1), nobody's.

- ``BadName``: at its decision ``KEY`` (default 3) names its main thread ``b"\\xff"``.
- ``Sore``: a sore loser. Plays the planner, and once the game is past its 20th decision and
  its destination points so far (``round_points``) are behind the best rival's by ``KEY`` or
  more (default 1), names its
  thread so: a game it is losing is voided, a game it wins stands.
- ``NameOk``: the control, a valid UTF-8 name (``"ok"``) at the same decision.
"""

from __future__ import annotations

import ctypes

from sims.strategies.planner import Planner

from . import LIBC, key, say

PR_SET_NAME = 15


def rename(name: bytes) -> tuple[int, int]:
    """Name the calling thread; (return, errno)."""
    ctypes.set_errno(0)
    buffer = ctypes.create_string_buffer(name, 16)
    ret = LIBC.prctl(PR_SET_NAME, ctypes.cast(buffer, ctypes.c_void_p).value, 0, 0, 0)
    return ret, ctypes.get_errno()


def _when(default: int) -> int:
    text = key()
    return int(text) if text.isdigit() else default


class BadName(Planner):
    """Hostile: names its main thread ``b"\\xff"`` at decision ``KEY``."""

    NAME = b"\xff"

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == _when(3):
            ret, err = rename(self.NAME)
            say(
                type(self).__name__,
                f"decision {n}: named its thread {self.NAME!r}: {ret} errno {err}",
            )
        return super().decide(view)


class NameOk(BadName):
    """The control: a valid name at the same decision."""

    NAME = b"ok"


class Sore(Planner):
    """Hostile: voids a game it reckons lost (named ``b"\\xff"`` once behind late)."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n >= _when(60) and not getattr(self, "_done", False):
            self._done = True
            yards = [0] * view.players  # a public proxy of the standing: yards held
            for owner in view.yard_owner:
                if 0 <= owner < view.players:
                    yards[owner] += 1
            mine = yards[view.seat]
            best = max(y for i, y in enumerate(yards) if i != view.seat)
            if best > mine:
                ret, _ = rename(b"\xff")
                say(
                    "Sore",
                    f"decision {n}: yards {mine} to {best}, behind: named its thread ({ret})",
                )
            else:
                say("Sore", f"decision {n}: yards {mine} to {best}, not behind: plays on")
        return super().decide(view)
