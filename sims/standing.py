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
strategy's terms at this table's player count, ``strength + late x progress`` (who plays: a
random seat and a search player are far apart at equal standings, by a gap that changes as
the game runs and with the number of players: the search player is strongest head to head),
and, where fitted, a match-up term, ``c`` times the mean rating of the seat's rivals. The
chances of a table's seats are the softmax of their scores, so they sum to 1 at any player
count and one weight vector serves 2, 3 and 4 players. A strategy the model does not know
is neutral (the terms are centred on the training pool's average seat) unless the caller
gives its strength. It is fitted by ``conditional_logit``, Newton's method in numpy on
the exact likelihood statsmodels' ``ConditionalLogit`` maximises (the same maximum, in a
minute where statsmodels' BFGS took 26), one group per (game, position), the winning seat
the 1 (a shared win, rare, is left out of the fit). ``benchmarks/standing.py`` trains it on
games of the built-ins and of the skill study's line-ups (random and the search player
included) and writes ``sims/data/standing.json``, which is all the scoring needs (numpy).
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
FORMAT = 3
FORMATS = (1, 2, 3)


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
            if covers(circulation, dest.need_of(len(circulation) - 1)):  # R16, alone
                covered += dest.points
            else:
                uncovered += dest.points
        yard = 0
        for colour in range(len(state.yard_owner)):
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
    weighs 0) and each known strategy's terms: its strength (log-odds added to its seat's
    score) and how that strength changes as the game runs (times ``progress``), pooled
    (``strengths``) and per player count (``by_players``: key -> {players: (strength,
    late)}, used where present); and the match-up term (``rivals``: key -> c): ``c`` times
    the mean ``rating`` of the seat's rivals (``ratings``: key -> the strategy's pooled
    strength of a fit without match-ups), so a strategy's edge can grow or shrink with how
    strong the table is. ``aliases`` map a few labels records carry (the skill study's
    configured strategies) to their keys."""

    def __init__(
        self,
        weights: Any,
        meta: dict[str, Any] | None = None,
        strengths: Mapping[str, tuple[float, float]] | None = None,
        aliases: Mapping[str, str] | None = None,
        by_players: Mapping[str, Mapping[int, tuple[float, float]]] | None = None,
        ratings: Mapping[str, float] | None = None,
        rivals: Mapping[str, float] | None = None,
    ) -> None:
        self.weights = np.asarray(weights, dtype=float)
        if len(self.weights) == len(FEATURES) - 1:
            self.weights = np.append(self.weights, 0.0)  # the shared progress weighs nothing
        self.meta = meta or {}
        self.strengths = {k: (float(a), float(b)) for k, (a, b) in (strengths or {}).items()}
        self.aliases = dict(aliases or {})
        self.by_players = {
            k: {int(n): (float(a), float(b)) for n, (a, b) in counts.items()}
            for k, counts in (by_players or {}).items()
        }
        self.ratings = {k: float(r) for k, r in (ratings or {}).items()}
        self.rivals = {k: float(c) for k, c in (rivals or {}).items()}
        self._found: dict[StrategySpec | str, str | None] = {}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StandingModel:
        names = tuple(data.get("features", ()))
        if data.get("format") not in FORMATS or not set(names) <= set(FEATURES):
            raise ValueError(f"{MODEL_FILE}: not a standing model of format 1 to {FORMAT}")
        weights = [float(data["weights"].get(name, 0.0)) for name in FEATURES]
        terms = data.get("strategies", {})
        strengths = {key: (float(t["strength"]), float(t["late"])) for key, t in terms.items()}
        by_players = {
            key: {int(n): (float(c["strength"]), float(c["late"])) for n, c in t.items()}
            for key, t in ((k, t.get("by_players", {})) for k, t in terms.items())
            if t
        }
        ratings = {key: float(t["rating"]) for key, t in terms.items() if "rating" in t}
        rivals = {key: float(t["rivals"]) for key, t in terms.items() if "rivals" in t}
        meta = {
            k: v
            for k, v in data.items()
            if k not in ("format", "features", "weights", "strategies", "aliases")
        }
        return cls(weights, meta, strengths, data.get("aliases", {}), by_players, ratings, rivals)

    def to_dict(self) -> dict[str, Any]:
        strategies: dict[str, Any] = {}
        for key, (a, b) in sorted(self.strengths.items()):
            term: dict[str, Any] = {"strength": a, "late": b}
            if key in self.by_players:
                term["by_players"] = {
                    str(n): {"strength": s, "late": late}
                    for n, (s, late) in sorted(self.by_players[key].items())
                }
            if key in self.ratings:
                term["rating"] = self.ratings[key]
            if key in self.rivals:
                term["rivals"] = self.rivals[key]
            strategies[key] = term
        return {
            **self.meta,
            "format": FORMAT,
            "features": list(FEATURES),
            "weights": {name: float(w) for name, w in zip(FEATURES, self.weights, strict=True)},
            "strategies": strategies,
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
        """Each seat's (strength, late) terms (seats x 2) at this table: the strategy's
        terms for this many players (else its pooled ones) plus its match-up term, ``c``
        times its rivals' mean rating. ``strengths``: a label's (or key's) strength given
        by the caller (e.g. ``strength_from_share`` of a study's own games), which
        overrides the model's, with no change over the game and no match-up term, and is
        that seat's rating for its rivals; a seat the model does not know and the caller
        does not give is neutral (0, 0, rating 0): an average strategy of the pool the
        model was trained on."""
        given = strengths or {}
        players = len(seats)
        rows, ratings, slopes = [], [], []
        for seat in seats:
            label = seat if isinstance(seat, str) else seat.label
            if given and (label in given or strategy_key(seat) in given):
                value = float(given.get(label, given.get(strategy_key(seat), 0.0)))
                rows.append((value, 0.0))
                ratings.append(value)
                slopes.append(0.0)
                continue
            key = self._key_of(seat)
            if key is None:
                rows.append((0.0, 0.0))
                ratings.append(0.0)
                slopes.append(0.0)
                continue
            rows.append(self.by_players.get(key, {}).get(players, self.strengths[key]))
            ratings.append(self.ratings.get(key, 0.0))
            slopes.append(self.rivals.get(key, 0.0))
        terms = np.array(rows, dtype=float).reshape(len(rows), 2)
        if players > 1 and any(slopes):
            r = np.asarray(ratings)
            rival_mean = (r.sum() - r) / (players - 1)
            terms[:, 0] += np.asarray(slopes) * rival_mean
        return terms

    def _key_of(self, seat: StrategySpec | str) -> str | None:
        """``known``, remembered (a study asks every game)."""
        try:
            return self._found[seat]
        except KeyError:
            pass
        except TypeError:  # a knob value that cannot be hashed: not remembered
            return self.known(seat)
        found = self._found[seat] = self.known(seat)
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


@dataclasses.dataclass(frozen=True)
class Fit:
    """A conditional logit's maximum: the parameters, their standard errors (from the
    penalised information matrix), the log-likelihood and the Newton steps taken."""

    params: np.ndarray
    errors: np.ndarray
    loglik: float
    steps: int


def conditional_logit(
    design: np.ndarray,
    winner: np.ndarray,
    mask: np.ndarray,
    penalty: np.ndarray | None = None,
    start: np.ndarray | None = None,
    chunk: int = 16384,
) -> Fit:
    """The conditional logit by Newton's method: ``design`` (groups x seats x parameters,
    padded), each group's winning seat, ``mask`` (groups x seats: a real seat), and an
    optional ridge ``penalty`` per parameter (``penalty[k] / 2 x beta_k**2`` taken off the
    log-likelihood). The log-likelihood is concave, so Newton from 0 (or ``start``) with
    step halving converges in a handful of steps; the sums run over fixed chunks in a fixed
    order, so the result depends on nothing but the data."""
    groups, _, size = design.shape
    pen = np.zeros(size) if penalty is None else np.asarray(penalty, dtype=float)
    beta = np.zeros(size) if start is None else np.asarray(start, dtype=float).copy()
    index = np.arange(groups)

    def evaluate(b: np.ndarray, full: bool) -> tuple[float, np.ndarray, np.ndarray]:
        loglik, grad, info = 0.0, np.zeros(size), np.zeros((size, size))
        for lo in range(0, groups, chunk):
            x = design[lo : lo + chunk]
            at = index[lo : lo + chunk] - lo
            scores = np.where(mask[lo : lo + chunk], x @ b, -np.inf)
            scores -= scores.max(axis=1, keepdims=True)
            odds = np.exp(scores)
            total = odds.sum(axis=1)
            won = winner[lo : lo + chunk]
            loglik += float((scores[at, won] - np.log(total)).sum())
            if full:
                p = odds / total[:, None]
                mean = np.einsum("gs,gsk->gk", p, x)
                grad += (x[at, won] - mean).sum(axis=0)
                flat = x.reshape(-1, size)
                info += (flat * p.reshape(-1, 1)).T @ flat - mean.T @ mean
        loglik -= 0.5 * float(pen @ (b * b))
        return loglik, grad - pen * b, info + np.diag(pen)

    loglik, grad, info = evaluate(beta, True)
    steps = 0
    while steps < 100:
        steps += 1
        step = np.linalg.solve(info, grad)
        scale = 1.0
        while True:
            trial = beta + scale * step
            value = evaluate(trial, False)[0]
            if value >= loglik - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        beta = trial
        improved = value - loglik
        loglik, grad, info = evaluate(beta, True)
        if np.max(np.abs(scale * step)) < 1e-9 or improved < 1e-11:
            break
    errors = np.sqrt(np.diag(np.linalg.inv(info)))
    return Fit(beta, errors, loglik, steps)


def _padded(
    rows: np.ndarray, groups: np.ndarray, won: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows gathered by group (groups x seats, padded): each row's (group, seat) slot, the
    mask of real seats, each group's winning seat (the first row with ``won`` 1), and the
    row order (groups in first-seen order, rows in their order within a group)."""
    _, first, code = np.unique(groups, return_index=True, return_inverse=True)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    code = rank[code]
    order = np.lexsort((np.arange(len(code)), code))
    code = code[order]
    starts = np.searchsorted(code, np.arange(code.max() + 1))
    seat = np.arange(len(code)) - starts[code]
    mask = np.zeros((len(starts), int(seat.max()) + 1), dtype=bool)
    mask[code, seat] = True
    winner = np.zeros(len(starts), dtype=int)
    hit = np.asarray(won, dtype=float)[order] == 1
    winner[code[hit][::-1]] = seat[hit][::-1]
    return np.column_stack([code, seat]), mask, winner, order


def fit_model(
    rows: Any,
    keys: Sequence[str],
    won: Any,
    groups: Any,
    reference: str,
    meta: dict[str, Any] | None = None,
    by_players: bool = False,
    rivals: bool = False,
    shrink: float = 4.0,
) -> tuple[StandingModel, dict[str, float]]:
    """The conditional logit (``conditional_logit``: plain numpy, the maximum statsmodels'
    ``ConditionalLogit`` finds) on standings (rows x ``FEATURES``), each row's strategy
    key, whether it won (1 for the winner of its group) and its group (one per position,
    its seats' rows): the seat features' weights and, for every key but ``reference``
    (fixed at 0 in the fit), a strength and its change with ``progress``.

    ``by_players``: each key's terms also per player count (the group's size), as offsets
    from the pooled terms with a ridge penalty ``shrink`` (a count with few games stays
    near the pooled terms); ``rivals``: the match-up term, each key's ``c`` times the mean
    rating of the seat's rivals, the ratings being the pooled strengths of the fit without
    these (a first fit). The terms are then centred on the rows' average seat (per player
    count where they are per count; a shift every seat shares changes no chance), so that
    an unknown strategy's neutral 0 is the trained pool's average. Returns the model and
    each parameter's standard error (the centring aside)."""
    x = np.asarray(rows, dtype=float)
    key_of = np.asarray(keys)
    slots, mask, winner, order = _padded(x, np.asarray(groups), np.asarray(won))
    x, key_of = x[order], key_of[order]
    size_of = mask.sum(axis=1)[slots[:, 0]]
    known = sorted(set(key_of.tolist()) - {reference})
    seat_columns = [i for i, name in enumerate(FEATURES) if name != "progress"]
    indicators = np.column_stack(
        [key_of == key for key in known] or [np.zeros(len(x), dtype=bool)]
    )[:, : len(known)].astype(float)
    progress = x[:, [PROGRESS]]
    columns = [x[:, seat_columns], indicators, indicators * progress]
    names = [FEATURES[i] for i in seat_columns]
    names += [f"strength:{key}" for key in known] + [f"late:{key}" for key in known]

    def fit(parts: list[np.ndarray], penalty: np.ndarray, start: Any = None) -> Fit:
        flat = np.column_stack(parts)
        design = np.zeros((*mask.shape, flat.shape[1]))
        design[slots[:, 0], slots[:, 1]] = flat
        return conditional_logit(design, winner, mask, penalty, start)

    n, k = len(seat_columns), len(known)
    first = fit(columns, np.zeros(n + 2 * k))
    params, errors = first.params, first.errors
    pooled = {reference: 0.0, **dict(zip(known, params[n : n + k], strict=True))}
    share = {key: float((key_of == key).mean()) for key in pooled}
    ratings = {key: pooled[key] - sum(share[j] * pooled[j] for j in pooled) for key in pooled}
    counts = sorted(set(size_of.tolist())) if by_players else []
    extra, extra_names, extra_penalty = [], [], []
    for count in counts:
        at = (size_of == count)[:, None]
        extra += [indicators * at, indicators * progress * at]
        extra_names += [f"strength:{key}@{count}" for key in known]
        extra_names += [f"late:{key}@{count}" for key in known]
        extra_penalty += [shrink] * (2 * k)
    rival_mean = np.zeros(len(x))
    if rivals:
        rating = np.array([ratings[key] for key in key_of.tolist()])
        table = np.zeros(mask.shape)
        table[slots[:, 0], slots[:, 1]] = rating
        rival_mean = (table.sum(axis=1)[slots[:, 0]] - rating) / np.maximum(size_of - 1, 1)
        extra.append(indicators * rival_mean[:, None])
        extra_names += [f"rivals:{key}" for key in known]
        extra_penalty += [shrink] * k
    if extra:
        penalty = np.concatenate([np.zeros(n + 2 * k), extra_penalty])
        start = np.concatenate([params, np.zeros(len(extra_penalty))])
        second = fit(columns + extra, penalty, start)
        params, errors = second.params, second.errors
        names += extra_names
    weights = np.zeros(len(FEATURES))
    weights[seat_columns] = params[:n]
    every = [reference, *known]
    strength = {reference: 0.0, **dict(zip(known, params[n : n + k], strict=True))}
    late = {reference: 0.0, **dict(zip(known, params[n + k : n + 2 * k], strict=True))}
    slope = {reference: 0.0}
    if rivals:
        slope.update(zip(known, params[len(params) - k :], strict=True))
    base_strength, base_late = strength, late
    found = dict(zip(names, map(float, errors), strict=True))
    if counts:  # the pooled terms are the first fit's: one strength for every table
        strength = pooled
        late = {reference: 0.0, **dict(zip(known, first.params[n + k : n + 2 * k], strict=True))}
        pooled_errors = map(float, first.errors[n : n + 2 * k])
        found.update(zip(names[n : n + 2 * k], pooled_errors, strict=True))
    mean_strength = sum(share[key] * strength[key] for key in every)
    mean_late = sum(share[key] * late[key] for key in every)
    terms = {key: (strength[key] - mean_strength, late[key] - mean_late) for key in every}
    per_count: dict[str, dict[int, tuple[float, float]]] = {key: {} for key in every}
    for j, count in enumerate(counts):
        offset = n + 2 * k + 2 * k * j
        at = size_of == count
        a = {reference: 0.0, **dict(zip(known, params[offset : offset + k], strict=True))}
        b = {reference: 0.0, **dict(zip(known, params[offset + k : offset + 2 * k], strict=True))}
        total = {key: base_strength[key] + a[key] for key in every}
        change = {key: base_late[key] + b[key] for key in every}
        here = key_of[at]
        slopes = np.array([slope.get(key, 0.0) for key in here.tolist()])
        seat_strength = np.array([total[key] for key in here.tolist()]) + slopes * rival_mean[at]
        seat_late = np.array([change[key] for key in here.tolist()])
        for key in every:
            per_count[key][int(count)] = (
                total[key] - float(seat_strength.mean()),
                change[key] - float(seat_late.mean()),
            )
    model = StandingModel(
        weights,
        meta,
        terms,
        by_players={key: c for key, c in per_count.items() if c},
        ratings=ratings if rivals else None,
        rivals=slope if rivals else None,
    )
    return model, found


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
