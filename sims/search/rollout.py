"""Play-outs: finish a (sampled) game with a fast policy per seat and score it.

Engine-agnostic: a play-out needs ``is_over``, ``seat``, ``view(seat)``, ``apply_unchecked``,
``turn``, ``scores`` and ``winners`` of the state, nothing more.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from cardgame import Action
from cardgame.observation import SeatView

from ..strategies.planner import Planner
from ..strategies.random_play import RandomStrategy

# a play-out that has not ended after this many turns is scored as a draw
MAX_PLAYOUT_TURNS = 2000
# score margin (points) that counts as a clear result in the blended reward
MARGIN_SCALE = 20.0

Policy = Callable[[SeatView], Action]


def _planner(rng: random.Random) -> Policy:
    return Planner(rng).decide


def _random(rng: random.Random) -> Policy:
    return RandomStrategy(rng).decide


ROLLOUT_POLICIES: dict[str, Callable[[random.Random], Policy]] = {
    "planner": _planner,
    "random": _random,
}


def policies(name: str, players: int, rng: random.Random) -> list[Policy]:
    """Fresh rollout policies, one per seat (scripted policies keep per-game state)."""
    make = ROLLOUT_POLICIES[name]
    return [make(rng) for _ in range(players)]


def play_out(state: Any, seat_policies: list[Policy]) -> None:
    """Play ``state`` to its end with one policy per seat."""
    view = state.view
    apply = state.apply_unchecked
    while not state.is_over:
        if state.turn > MAX_PLAYOUT_TURNS:
            return
        seat = state.seat
        apply(seat_policies[seat](view(seat)))


def reward(state: Any, seat: int, margin_weight: float) -> float:
    """In [0, 1]: the seat's share of the win, blended with its score margin over the best
    rival (a squashed margin separates good from bad losses when play-outs are few)."""
    if not state.is_over:
        return 0.5
    winners = state.winners
    win = 1.0 / len(winners) if seat in winners else 0.0
    if not margin_weight:
        return win
    totals = [s.total for s in state.scores]
    mine = totals[seat]
    best_rival = max(t for i, t in enumerate(totals) if i != seat)
    margin = 0.5 + 0.5 * math.tanh((mine - best_rival) / MARGIN_SCALE)
    return (1.0 - margin_weight) * win + margin_weight * margin
