"""The optional native core: compiled kernels, chosen at import time.

The pure-Python engine is the reference; a kernel here must give the same results bit for
bit (tests/test_native*.py). ``CARDGAME_ENGINE=python|native`` chooses (default: native when
the extension is built). A bad value or an unbuilt native core never breaks the import: the
engine falls back to Python and ``PROBLEM`` says why (the CLI reports it, exit 2).
"""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType

ENV = "CARDGAME_ENGINE"
ENGINES = ("python", "native")


def _load() -> tuple[ModuleType | None, str | None]:
    """The compiled resolution kernel, or None and why it cannot be imported."""
    try:
        return import_module(f"{__name__}._resolution"), None
    except ImportError as exc:  # not built (no compiler), or built for another Python
        return None, str(exc) or type(exc).__name__


def _choose(kernel: ModuleType | None, why_not: str | None) -> tuple[str, str | None]:
    """The engine in use and a problem to report, from ``CARDGAME_ENGINE``."""
    asked = os.environ.get(ENV, "").strip().lower()
    if asked and asked not in ENGINES:
        return ("native" if kernel else "python"), f"{ENV}={asked!r}: expected python or native"
    if asked == "python":
        return "python", None
    if kernel is None:
        return "python", (
            f"{ENV}=native but the native extension is not built: {why_not}"
            if asked == "native"
            else None
        )
    return "native", None


resolution_kernel, NOT_BUILT = _load()
BUILT = resolution_kernel is not None
ENGINE, PROBLEM = _choose(resolution_kernel, NOT_BUILT)


def describe() -> str:
    """One line: the engine in use and whether the extension is built."""
    built = "built" if BUILT else f"not built: {NOT_BUILT}"
    return f"engine: {ENGINE} (native extension {built})"
