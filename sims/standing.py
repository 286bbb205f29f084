"""Each seat's standing at a position, and its chance of winning from it: the learned model a
study scores every turn of every game with (``[metrics] quality = true``, sims/quality.py).

**The standing** is a handful of numbers per seat, plain counts and sums of the state's fields
(``FEATURES``), so that the native core computes the very same numbers in C at every position
of a game it plays (sims/_native/_standing.pyx, noted by the decision loop; tests/sims/
test_standing.py holds the two equal): points already scored in an earlier round (R18), the
points of the destinations in hand that the circulation pile already covers on its own (R16,
each ticket alone) and of those it does not (a penalty if the game ended now, R20), the
same two weighted by how far the round's deck has run down, the cards in the circulation pile,
in hand and in the seat's rail-yard columns, and whether the seat is the one to move next
(only the mover's standing changes in a turn: without the tempo the favourite swings back
and forth between close seats, 9.1 lead changes a 2-player game instead of 5.8).
``points_now`` is what the seat would score if the game ended now (big-city bonuses aside):
the points leader of the quality metrics.

**The model** is a conditional logit: a seat's score is ``w . standing``, and the chances of
a table's seats are the softmax of their scores, so they sum to 1 at any player count and one
weight vector serves 2, 3 and 4 players. It is fitted by statsmodels' ``ConditionalLogit``
(a runtime dependency already: no new library), one group per (game, position), the winning
seat the 1 (a shared win, rare, is left out of the fit). ``benchmarks/standing.py`` trains it
on games of the scripted built-ins and writes ``sims/data/standing.json``, which is all the
scoring needs (numpy).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from cardgame import GameState
from cardgame.cards import NUM_COLOURS
from cardgame.resolution import covers

FEATURES = (
    "banked",  # points of destinations reached in earlier rounds (R18)
    "covered",  # points of held destinations the circulation pile covers, each alone (R16)
    "uncovered",  # points of held destinations it does not cover: a penalty now (R20)
    "covered_late",  # covered x how far the deck has run down (0 at a full deck, 1 empty)
    "uncovered_late",  # uncovered x the same
    "circulation",  # cards in the circulation pile
    "hand",  # train cards in hand
    "yard",  # cards in the seat's rail-yard columns
    "to_move",  # 1 for the seat to move next, else 0
)
MODEL_FILE = "standing.json"
FORMAT = 1


def standing(state: GameState) -> list[list[float]]:
    """Each seat's ``FEATURES`` at this position (the C twin computes the same numbers)."""
    catalogue = state.game.catalogue
    total = sum(catalogue.deck)
    late = 1.0 - len(state.deck) / total
    rows = []
    for seat in range(state.players):
        circulation = state.circulation[seat]
        covered = uncovered = 0
        for dest_id in state.held[seat]:
            dest = catalogue.destination(dest_id)
            if covers(circulation, dest.need):  # R16, this ticket alone
                covered += dest.points
            else:
                uncovered += dest.points
        yard = 0
        for colour in range(NUM_COLOURS):
            if state.yard_owner[colour] == seat:
                yard += state.yard_wagons[colour] + state.yard_locos[colour]
        rows.append(
            [
                float(sum(state.round_points[seat])),
                float(covered),
                float(uncovered),
                covered * late,
                uncovered * late,
                float(sum(circulation)),
                float(sum(state.hands[seat])),
                float(yard),
                1.0 if seat == state.seat else 0.0,
            ]
        )
    return rows


def points_now(features: np.ndarray) -> np.ndarray:
    """What each seat would score if the game ended now, big-city bonuses aside: banked +
    covered - uncovered (positions x seats, from positions x seats x features)."""
    return features[..., 0] + features[..., 1] - features[..., 2]


class StandingModel:
    """The fitted weights: chances from standings."""

    def __init__(self, weights: np.ndarray, meta: dict[str, Any] | None = None) -> None:
        self.weights = np.asarray(weights, dtype=float)
        self.meta = meta or {}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StandingModel:
        if data.get("format") != FORMAT or tuple(data.get("features", ())) != FEATURES:
            raise ValueError(f"{MODEL_FILE}: not a standing model of format {FORMAT}")
        return cls(np.array([data["weights"][name] for name in FEATURES]), data)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.meta,
            "format": FORMAT,
            "features": list(FEATURES),
            "weights": {name: float(w) for name, w in zip(FEATURES, self.weights, strict=True)},
        }

    def chances_many(self, features: Any) -> np.ndarray:
        """Chances (positions x seats) from standings (positions x seats x features): the
        softmax of each position's seat scores."""
        scores = np.asarray(features, dtype=float) @ self.weights
        scores -= scores.max(axis=-1, keepdims=True)
        odds = np.exp(scores)
        return odds / odds.sum(axis=-1, keepdims=True)

    def chances(self, state: GameState) -> tuple[float, ...]:
        """Each seat's chance at one position."""
        return tuple(float(p) for p in self.chances_many([standing(state)])[0])


@cache
def shipped_model() -> StandingModel:
    """The model shipped with the package (sims/data/standing.json)."""
    text = resources.files("sims").joinpath("data", MODEL_FILE).read_text()
    return StandingModel.from_dict(json.loads(text))
