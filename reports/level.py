"""The level every verdict of a report is read at: 0.05, or, for a study played until
settled, the share of it its last look spent (sims/looks.py).

A study that stopped once its answers looked settled had several chances to be wrong; its
verdicts hold at 5% over all its looks only when each look's are read at that look's share.
The analysis sets the level once for the whole report (``at_alpha``) and every test, family
interval and power figure reads it here (``current_alpha``), instead of a constant each.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ALPHA = 0.05  # the nominal level: every verdict of a study played as planned
_ALPHA: ContextVar[float] = ContextVar("alpha", default=ALPHA)


def current_alpha() -> float:
    """The level the verdicts being computed are read at."""
    return _ALPHA.get()


@contextmanager
def at_alpha(alpha: float) -> Iterator[None]:
    """Read every verdict inside at ``alpha`` (a look's share of the level)."""
    if not 0 < alpha <= ALPHA:
        raise ValueError(f"a verdict level must be in (0, {ALPHA}], got {alpha!r}")
    token = _ALPHA.set(alpha)
    try:
        yield
    finally:
        _ALPHA.reset(token)
