"""Strategies and the Monte Carlo runner (built on cardgame).

The few names a notebook needs: ``load_study``/``quick_study`` to describe a study, ``run``
to play it, ``load_results`` to get its tidy pandas tables.
"""

from .results import Results, load_results
from .runner import run
from .strategy import Strategy, StrategySpec, registered
from .study import Study, load_study, quick_study

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
