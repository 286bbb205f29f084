"""Stop signals as a flag: SIGINT (Ctrl-C) and SIGTERM only mark that a stop was asked,
and the scheduling loops poll it.

An exception raised at an arbitrary point could leave a pool's locks or queues half-updated,
and a second quick Ctrl-C must never interrupt the clean-up (that hung runs before). A signal
ignored from the start (``nohup``, a background job of a script) stays ignored: that is what
the caller asked for.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
POLL_SECONDS = 0.1


class StopFlag(Protocol):
    """What the run polls: true once a stop signal came; ``signal`` is its number."""

    signal: int | None

    def __bool__(self) -> bool: ...


class Stop:
    """The first stop signal received (None while running)."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __bool__(self) -> bool:
        return self.signal is not None

    def handler(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signum


S = TypeVar("S", bound=Stop)


@contextmanager
def routed_to(flag: S, ignore_after_stop: bool = False) -> Iterator[S]:
    """Route SIGINT and SIGTERM to ``flag`` while the block runs (main thread only: signal
    handlers can be set nowhere else); with ``ignore_after_stop``, leave them ignored once a
    stop came, so a second Ctrl-C cannot cut the exit short."""
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, old in previous.items():
        if old is not signal.SIG_IGN:
            signal.signal(sig, flag.handler)
    try:
        yield flag
    finally:
        for sig, old in previous.items():
            signal.signal(sig, signal.SIG_IGN if ignore_after_stop and flag else old)


@contextmanager
def catch_stop_signals() -> Iterator[Stop]:
    """A fresh flag for SIGINT and SIGTERM for the block's duration."""
    with routed_to(Stop()) as stop:
        yield stop
