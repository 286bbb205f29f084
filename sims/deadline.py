"""A wall-clock limit per strategy decision, enforced in any thread.

A strategy that loops forever would hang a worker (a process-pool worker's main thread, a
Dask worker's thread, or `cardgame watch`). One daemon watchdog thread per process checks the
deciding threads every ``TICK`` seconds; past a decision's limit it raises
``DecisionTimeout`` inside the deciding thread with ``PyThreadState_SetAsyncExc``. That
interrupts pure-Python code at its next bytecode boundary (never inside the import machinery
or a threading primitive, where it could leave a lock held: it waits a tick); a blocking C
call (a long ``time.sleep``) is interrupted when it returns, and the decision is still
recorded as over time. A strategy that catches BaseException and loops on cannot be stopped
from inside Python. The normal path costs a clock read and three attribute accesses per
decision: no lock, and no thread started per decision or per game.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

TICK = 0.05  # seconds between the watchdog's checks
DEFAULT_DECISION_SECONDS = 10.0

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc


class DecisionTimeout(BaseException):
    """Raised inside a decision past its limit (not an Exception: a strategy's
    ``except Exception`` must not swallow it)."""


class Guard:
    """The deadline of one thread's current decision; the watchdog reads it."""

    __slots__ = ("active", "fired", "injected", "limit", "lock", "start", "steady", "tid")

    def __init__(self, limit: float, steady: bool = False) -> None:
        self.tid = threading.get_ident()
        self.limit = limit
        self.steady = steady  # every decision takes its whole limit (``hold``)
        self.start = 0.0
        self.active = False
        self.fired = False
        self.injected = 0.0
        self.lock = threading.Lock()

    def enter(self) -> None:
        """A decision starts now (no lock: ``start`` is set before ``active``)."""
        self.start = time.monotonic()
        self.active = True

    def leave(self) -> bool:
        """The decision is over; True if it ran past the limit (any pending raise is dropped).

        The lock is taken only if the watchdog has fired: it raises only while holding the
        lock, after setting ``fired`` and seeing ``active``, so once ``active`` is False
        either ``fired`` is seen here or no raise can follow.
        """
        self.active = False
        if not self.fired:
            return False
        with self.lock:
            fired, self.fired = self.fired, False
            if fired:
                _set_async_exc(ctypes.c_ulong(self.tid), None)  # clear an undelivered raise
        return fired

    def hold(self) -> bool:
        """Steady decisions: wait out the rest of the decision's limit, so that how long a
        seat thought is no one's to see; False where the decision is past its limit already
        (between the watchdog's ticks: over its time all the same)."""
        rest = self.start + self.limit - time.monotonic()
        if rest < 0:
            return False
        time.sleep(rest)
        return True


_guards: dict[int, Guard] = {}
_registry_lock = threading.Lock()
_watchdog: threading.Thread | None = None


def guard(limit: float, steady: bool = False) -> Guard | None:
    """The calling thread's guard with ``limit`` seconds per decision; None when 0 (off).
    ``steady``: every decision takes all of it (``Guard.hold``)."""
    global _watchdog
    if not limit or limit <= 0:
        return None
    tid = threading.get_ident()
    with _registry_lock:
        found = _guards.get(tid)
        if found is None:
            found = _guards[tid] = Guard(limit)
        found.limit = limit
        found.steady = steady
        if _watchdog is None:
            _watchdog = threading.Thread(target=_watch, name="decision-watchdog", daemon=True)
            _watchdog.start()
    return found


def _watch() -> None:
    while True:
        time.sleep(TICK)
        now = time.monotonic()
        with _registry_lock:
            guards = list(_guards.values())
        for g in guards:
            if g.active and now - g.start > g.limit:
                _fire(g, now)


def _fire(g: Guard, now: float) -> None:
    """Raise in the deciding thread; again every ``limit`` seconds if a strategy swallows it."""
    with g.lock:
        if g.fired and now - g.injected < g.limit:
            return
        g.fired = True  # before reading active: see Guard.leave
        if g.active and time.monotonic() - g.start > g.limit and _interruptible(g.tid):
            g.injected = now
            _set_async_exc(ctypes.c_ulong(g.tid), ctypes.py_object(DecisionTimeout))
        else:
            g.fired = False  # ended (or a new one started) meanwhile, or try at the next tick


# A raise landing inside the import machinery or a threading primitive would leave a lock
# held for good (seen: a deadlock on a module lock); the watchdog waits a tick instead.
_CRITICAL = ("<frozen importlib", threading.__file__)


def _interruptible(tid: int) -> bool:
    frame = sys._current_frames().get(tid)
    return frame is None or not frame.f_code.co_filename.startswith(_CRITICAL)


def _after_fork() -> None:
    """Threads do not survive fork: a forked worker starts its own watchdog when needed."""
    global _watchdog, _registry_lock
    _watchdog = None
    _registry_lock = threading.Lock()
    _guards.clear()


os.register_at_fork(after_in_child=_after_fork)
