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

The standing ends with ``progress``, how far the game has run, the same for every seat.

**The model** is a conditional logit: a seat's score is ``w . standing`` plus its
strategy's terms, ``strength + late x progress`` (who plays: a random seat and a search
player are far apart at equal standings, by a gap that changes as the game runs), and the
chances of a table's seats are the softmax of their scores, so they sum to 1 at any player
count and one weight vector serves 2, 3 and 4 players. A strategy the model does not know
is neutral (the terms are centred on the training pool's average seat) unless the caller
gives its strength. It is fitted by statsmodels' ``ConditionalLogit`` (a runtime
dependency already: no new library), one group per (game, position), the winning seat the
1 (a shared win, rare, is left out of the fit). ``benchmarks/standing.py`` trains it on
games of the built-ins (random and the search player included) and writes
``sims/data/standing.json``, which is all the scoring needs (numpy).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from cardgame import GameState
from cardgame.cards import NUM_COLOURS
from cardgame.resolution import covers

if TYPE_CHECKING:
    from .strategy import StrategySpec

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
    "progress",  # how far the game has run: (rounds done + late) / rounds, 1 when over
)
PROGRESS = FEATURES.index("progress")
MODEL_FILE = "standing.json"
FORMAT = 2


def standing(state: GameState) -> list[list[float]]:
    """Each seat's ``FEATURES`` at this position (the C twin computes the same numbers)."""
    catalogue = state.game.catalogue
    total = sum(catalogue.deck)
    late = 1.0 - len(state.deck) / total
    rounds = state.rules.rounds_for(state.players)
    progress = 1.0 if state.is_over else (state.round - 1 + late) / rounds
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
                progress,
            ]
        )
    return rows


def points_now(features: np.ndarray) -> np.ndarray:
    """What each seat would score if the game ended now, big-city bonuses aside: banked +
    covered - uncovered (positions x seats, from positions x seats x features)."""
    return features[..., 0] + features[..., 1] - features[..., 2]


def strategy_key(seat: StrategySpec | str) -> str:
    """The name of a seat's strategy term: its base strategy, with the knobs that differ
    from the base's defaults (sorted), e.g. ``planner``, ``planner(memory='human')``,
    ``ismcts(iterations=16)``; a bare label is its own key. A ``module:Class`` is not
    imported here: its knobs are all named."""
    if isinstance(seat, str):
        return seat
    knobs = dict(seat.knobs)
    if ":" not in seat.base:
        from .strategy import registered

        cls = registered().get(seat.base)
        if cls is not None and dataclasses.is_dataclass(cls.Knobs):
            defaults = {f.name: f.default for f in dataclasses.fields(cls.Knobs)}
            knobs = {k: v for k, v in knobs.items() if defaults.get(k, _MISSING) != v}
    if not knobs:
        return seat.base
    return f"{seat.base}({', '.join(f'{k}={knobs[k]!r}' for k in sorted(knobs))})"


_MISSING = object()


class StandingModel:
    """The fitted weights (one per ``FEATURES``; ``progress``, the same for every seat,
    weighs 0) and each known strategy's two terms: its strength (log-odds added to its
    seat's score) and how that strength changes as the game runs (times ``progress``).
    ``aliases`` map a few labels records carry (the skill study's configured strategies)
    to their keys."""

    def __init__(
        self,
        weights: Any,
        meta: dict[str, Any] | None = None,
        strengths: Mapping[str, tuple[float, float]] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.weights = np.asarray(weights, dtype=float)
        if len(self.weights) == len(FEATURES) - 1:
            self.weights = np.append(self.weights, 0.0)  # the shared progress weighs nothing
        self.meta = meta or {}
        self.strengths = {k: (float(a), float(b)) for k, (a, b) in (strengths or {}).items()}
        self.aliases = dict(aliases or {})
        self._found: dict[StrategySpec | str, tuple[float, float]] = {}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StandingModel:
        names = tuple(data.get("features", ()))
        if data.get("format") not in (1, FORMAT) or not set(names) <= set(FEATURES):
            raise ValueError(f"{MODEL_FILE}: not a standing model of format 1 or {FORMAT}")
        weights = [float(data["weights"].get(name, 0.0)) for name in FEATURES]
        strengths = {
            key: (float(term["strength"]), float(term["late"]))
            for key, term in data.get("strategies", {}).items()
        }
        meta = {
            k: v
            for k, v in data.items()
            if k not in ("format", "features", "weights", "strategies", "aliases")
        }
        return cls(weights, meta, strengths, data.get("aliases", {}))

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.meta,
            "format": FORMAT,
            "features": list(FEATURES),
            "weights": {name: float(w) for name, w in zip(FEATURES, self.weights, strict=True)},
            "strategies": {
                key: {"strength": a, "late": b} for key, (a, b) in sorted(self.strengths.items())
            },
            "aliases": dict(sorted(self.aliases.items())),
        }

    def known(self, seat: StrategySpec | str) -> str | None:
        """The strategy term the model uses for a seat, or None (unknown: neutral). In turn:
        the seat's own key; for a spec, its base strategy with default knobs (the same
        strategy with other knobs counts as its defaults); for a bare label (a record's),
        the model's alias of that label."""
        key = strategy_key(seat)
        if key in self.strengths:
            return key
        if isinstance(seat, str):
            alias = self.aliases.get(seat)
            return alias if alias in self.strengths else None
        return seat.base if seat.base in self.strengths else None

    def terms(
        self,
        seats: Sequence[StrategySpec | str],
        strengths: Mapping[str, float] | None = None,
    ) -> np.ndarray:
        """Each seat's (strength, late) terms (seats x 2). ``strengths``: a label's (or key's)
        strength given by the caller (e.g. ``strength_from_share`` of a study's own games),
        which overrides the model's, with no change over the game; a seat the model does
        not know and the caller does not give is neutral (0, 0): an average strategy of
        the pool the model was trained on."""
        given = strengths or {}
        rows = []
        for seat in seats:
            label = seat if isinstance(seat, str) else seat.label
            if given and (label in given or strategy_key(seat) in given):
                rows.append((float(given.get(label, given.get(strategy_key(seat), 0.0))), 0.0))
                continue
            rows.append(self._terms_of(seat))
        return np.array(rows, dtype=float).reshape(len(rows), 2)

    def _terms_of(self, seat: StrategySpec | str) -> tuple[float, float]:
        """The model's (strength, late) for one seat, remembered (a study asks every game)."""
        try:
            return self._found[seat]
        except KeyError:
            pass
        except TypeError:  # a knob value that cannot be hashed: not remembered
            key = self.known(seat)
            return self.strengths[key] if key else (0.0, 0.0)
        key = self.known(seat)
        found = self._found[seat] = self.strengths[key] if key else (0.0, 0.0)
        return found

    def chances_many(self, features: Any, terms: np.ndarray | None = None) -> np.ndarray:
        """Chances (positions x seats) from standings (positions x seats x features): the
        softmax of each position's seat scores; ``terms`` (seats x 2, ``terms``) adds each
        seat's strength and its change with ``progress``; None: every seat neutral."""
        x = np.asarray(features, dtype=float)
        scores = x @ self.weights
        if terms is not None:
            t = np.asarray(terms, dtype=float)
            scores = scores + t[:, 0] + t[:, 1] * x[..., PROGRESS]
        scores -= scores.max(axis=-1, keepdims=True)
        odds = np.exp(scores)
        return odds / odds.sum(axis=-1, keepdims=True)

    def chances(
        self, state: GameState, seats: Sequence[StrategySpec | str] | None = None
    ) -> tuple[float, ...]:
        """Each seat's chance at one position (``seats``: who plays each, for the strategy
        terms; None: every seat neutral)."""
        terms = None if seats is None else self.terms(seats)
        return tuple(float(p) for p in self.chances_many([standing(state)], terms)[0])


def fit_model(
    rows: Any,
    keys: Sequence[str],
    won: Any,
    groups: Any,
    reference: str,
    meta: dict[str, Any] | None = None,
) -> tuple[StandingModel, dict[str, float]]:
    """The conditional logit fitted by statsmodels on standings (rows x ``FEATURES``), each
    row's strategy key, whether it won (1 for the winner of its group) and its group (one
    per position): the seat features' weights and, for every key but ``reference`` (fixed
    at 0 in the fit), a strength and its change with ``progress``. The terms are then
    centred on the rows' average seat (a shift every seat shares changes no chance), so
    that an unknown strategy's neutral 0 is the trained pool's average. Returns the model
    and each parameter's standard error (the centring aside)."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    x = np.asarray(rows, dtype=float)
    key_of = np.asarray(keys)
    known = sorted(set(key_of.tolist()) - {reference})
    seat_columns = [i for i, name in enumerate(FEATURES) if name != "progress"]
    indicators = np.column_stack([key_of == key for key in known] or [np.zeros(len(x))])
    indicators = indicators[:, : len(known)].astype(float)
    design = np.column_stack([x[:, seat_columns], indicators, indicators * x[:, [PROGRESS]]])
    fit = ConditionalLogit(np.asarray(won, float), design, groups=np.asarray(groups)).fit(
        disp=False, maxiter=200
    )
    params, errors = np.asarray(fit.params, dtype=float), np.asarray(fit.bse, dtype=float)
    weights = np.zeros(len(FEATURES))
    weights[seat_columns] = params[: len(seat_columns)]
    n, k = len(seat_columns), len(known)
    strength = {reference: 0.0, **dict(zip(known, params[n : n + k], strict=True))}
    late = {reference: 0.0, **dict(zip(known, params[n + k :], strict=True))}
    share = {key: float((key_of == key).mean()) for key in strength}
    mean_strength = sum(share[key] * strength[key] for key in strength)
    mean_late = sum(share[key] * late[key] for key in strength)
    terms = {key: (strength[key] - mean_strength, late[key] - mean_late) for key in strength}
    names = [FEATURES[i] for i in seat_columns]
    names += [f"strength:{key}" for key in known] + [f"late:{key}" for key in known]
    return StandingModel(weights, meta, terms), dict(zip(names, map(float, errors), strict=True))


def strength_from_share(share: float, players: int) -> float:
    """A strength (log-odds) from a strategy's win share at ``players`` seats against the
    rest of a table: the ``s`` with ``e^s / (e^s + players - 1) = share``, the strength
    that gives the share to a seat among neutral rivals at equal standings. A share is
    clipped to [0.01, 0.99]."""
    p = min(max(float(share), 0.01), 0.99)
    return math.log(p * (players - 1) / (1 - p))


@cache
def shipped_model() -> StandingModel:
    """The model shipped with the package (sims/data/standing.json)."""
    text = resources.files("sims").joinpath("data", MODEL_FILE).read_text()
    return StandingModel.from_dict(json.loads(text))
