"""The built-in strategies in C: optional, like the native core they build on.

``native_twin(strategy)`` gives a ``NativeStrategy`` that decides what a built-in Python
strategy (exact class, perfect memory) would, or None: for another strategy, knobs the C
fields cannot hold exactly, or when the extension is not built (``NOT_BUILT`` says why).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any


def _load() -> tuple[ModuleType | None, str | None]:
    try:
        return import_module(f"{__name__}._scripted"), None
    except ImportError as exc:  # not built (no compiler, or no native core to cimport)
        return None, str(exc) or type(exc).__name__


scripted, NOT_BUILT = _load()
BUILT = scripted is not None


def twin_classes() -> frozenset[type]:
    """The built-in strategy classes that have a native twin (none when not built)."""
    if scripted is None:
        return frozenset()
    return frozenset(scripted._families())


def native_twin(strategy: Any) -> Any:
    """The native twin of a built-in strategy instance, or None (see the module doc)."""
    if scripted is None:
        return None
    return scripted.native_twin(strategy)


def native_twins(strategies: Any) -> Any:
    """Twins of several strategies (those sharing a ``random.Random`` share its state in C,
    as rollout policies do), or None if one has none or the extension is not built."""
    if scripted is None:
        return None
    return scripted.native_twins(strategies)
