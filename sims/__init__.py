"""Strategies and the Monte Carlo runner (built on cardgame).

The few names a notebook needs: ``load_study``/``quick_study`` to describe a study, ``run``
to play it, ``load_results`` to get its tidy pandas tables. They are imported on first use:
`cardgame --help` imports this package and must not pay for pandas, pyarrow or SimPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "Results": "results",
    "load_results": "results",
    "run": "runner",
    "Strategy": "strategy",
    "StrategySpec": "strategy",
    "registered": "strategy",
    "Study": "study",
    "load_study": "study",
    "quick_study": "study",
}

__all__ = [
    "Results",
    "Strategy",
    "StrategySpec",
    "Study",
    "load_results",
    "load_study",
    "quick_study",
    "registered",
    "run",
]

if TYPE_CHECKING:
    from .results import Results, load_results
    from .runner import run
    from .strategy import Strategy, StrategySpec, registered
    from .study import Study, load_study, quick_study


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'sims' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
