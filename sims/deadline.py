"""A wall-clock limit per strategy decision, enforced in any thread.

A strategy that loops forever would hang a worker (a process-pool worker's main thread, a
Dask worker's thread, or `cardgame watch`). One daemon watchdog thread per process checks the
deciding threads every ``TICK`` seconds; past a decision's limit it raises
``DecisionTimeout`` inside the deciding thread with ``PyThreadState_SetAsyncExc``. That
interrupts pure-Python code at its next bytecode boundary; a blocking C call (a long
``time.sleep``) is interrupted when it returns, and the decision is still recorded as over
time. The normal path costs two attribute writes and one uncontended lock per decision: no
thread is started per decision or per game.
"""

from __future__ import annotations

import ctypes
import os
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

    __slots__ = ("active", "fired", "injected", "limit", "lock", "start", "tid")

    def __init__(self, limit: float) -> None:
        self.tid = threading.get_ident()
        self.limit = limit
        self.start = 0.0
        self.active = False
        self.fired = False
        self.injected = 0.0
        self.lock = threading.Lock()

    def enter(self) -> None:
        """A decision starts now."""
        self.fired = False
        self.start = time.monotonic()
        self.active = True

    def leave(self) -> bool:
        """The decision is over; True if it ran past the limit (any pending raise is dropped)."""
        with self.lock:
            self.active = False
            fired, self.fired = self.fired, False
            if fired:
                _set_async_exc(ctypes.c_ulong(self.tid), None)  # clear an undelivered raise
        return fired


_guards: dict[int, Guard] = {}
_registry_lock = threading.Lock()
_watchdog: threading.Thread | None = None


def guard(limit: float) -> Guard | None:
    """The calling thread's guard with ``limit`` seconds per decision; None when 0 (off)."""
    global _watchdog
    if not limit or limit <= 0:
        return None
    tid = threading.get_ident()
    with _registry_lock:
        found = _guards.get(tid)
        if found is None:
            found = _guards[tid] = Guard(limit)
        found.limit = limit
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
        if not g.active or (g.fired and now - g.injected < g.limit):
            return
        g.fired = True
        g.injected = now
        _set_async_exc(ctypes.c_ulong(g.tid), ctypes.py_object(DecisionTimeout))


def _after_fork() -> None:
    """Threads do not survive fork: a forked worker starts its own watchdog when needed."""
    global _watchdog, _registry_lock
    _watchdog = None
    _registry_lock = threading.Lock()
    _guards.clear()


os.register_at_fork(after_in_child=_after_fork)
