"""A strategy whose module patches the engine when imported: seat 0 scores 100 points more.
Never imported by the test process itself (tests/sims/test_guest.py runs it in a child)."""

from __future__ import annotations

import dataclasses

import cardgame.state as state
from sims.strategies.planner import Planner

_final_scores = state.final_scores


def _cooked(*args, **kwargs):
    scores = list(_final_scores(*args, **kwargs))
    scores[0] = dataclasses.replace(scores[0], bonus_points=scores[0].bonus_points + 100)
    return tuple(scores)


state.final_scores = _cooked


class Patcher(Planner):
    """Plays as the planner; its import made seat 0 100 points richer."""
