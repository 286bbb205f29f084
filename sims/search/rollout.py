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
from cardgame.cards import LOCO
from cardgame.observation import SeatView
from cardgame.resolution import resolve

from ..strategies.planner import Planner
from ..strategies.random_play import RandomStrategy

# a play-out that has not ended after this many turns is scored on its estimated totals
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


def play_out(state: Any, seat_policies: list[Policy], until_turn: int | None = None) -> None:
    """Play ``state`` to its end with one policy per seat, or only until turn ``until_turn``
    (a cut-off: ``reward`` then scores the position with ``estimated_totals``)."""
    view = state.view
    apply = state.apply_unchecked
    limit = MAX_PLAYOUT_TURNS if until_turn is None else min(until_turn, MAX_PLAYOUT_TURNS)
    while not state.is_over:
        if state.turn > limit:
            return
        seat = state.seat
        apply(seat_policies[seat](view(seat)))


def estimated_totals(state: Any) -> list[float]:
    """Each seat's score if its cards still to come were known: destinations reached so far
    (R20), plus the held destinations that its circulation pile, its yard columns and its
    hand could cover together (exact R16 on that pile), minus the held ones they cannot
    (penalties). Big-city bonuses (R21) and cards still to be drawn are left out: a cut-off's
    heuristic, not a score."""
    catalogue = state.game.catalogue
    big = state.game.big_city_set
    points = {d.id: d.points for d in catalogue.destinations}
    totals = []
    for seat in range(state.players):
        pile = [c + h for c, h in zip(state.circulation[seat], state.hands[seat], strict=True)]
        for colour, owner in enumerate(state.yard_owner):
            if owner == seat:
                pile[colour] += state.yard_wagons[colour]
                pile[LOCO] += state.yard_locos[colour]
        held = state.held[seat]
        got = set(resolve(pile, [catalogue.destination(d) for d in held], big))
        reached = sum(points[d] for d in state.reached[seat])
        totals.append(reached + sum(points[d] if d in got else -points[d] for d in held))
    return totals


def reward(state: Any, seat: int, margin_weight: float) -> float:
    """In [0, 1]: the seat's share of the win, blended with its score margin over the best
    rival (a squashed margin separates good from bad losses when play-outs are few). A game
    cut off before its end is scored on ``estimated_totals``."""
    if state.is_over:
        winners = state.winners
        totals = [s.total for s in state.scores]
    else:
        totals = estimated_totals(state)
        top = max(totals)
        winners = tuple(i for i, t in enumerate(totals) if t == top)
    win = 1.0 / len(winners) if seat in winners else 0.0
    if not margin_weight:
        return win
    mine = totals[seat]
    best_rival = max(t for i, t in enumerate(totals) if i != seat)
    margin = 0.5 + 0.5 * math.tanh((mine - best_rival) / MARGIN_SCALE)
    return (1.0 - margin_weight) * win + margin_weight * margin
