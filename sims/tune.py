"""The tuner: search the printed numbers and rule settings for a design that meets a target.

``tune(study, objective, ...)`` changes what an edit set allows (a ticket's points, a big
city's bonus, a rule setting; names as in sweeps, sims/sweep.py) to bring an objective to its
target, and confirms the result on deals the search never saw. docs/design-loop.md walks
through it; the method in brief:

* **Objectives** (a weighted sum of them): each is a list of *items* with a band, and a loss,
  the mean over its items of (deviation / band)^2 (1: every item at the edge of its band).
  ``seat``: every seat's win share minus its fair share 1/players, per player count (band
  1.5 points). ``strategies``: every non-random strategy's win rate minus what the field would
  win (reports/stats.py's ``vs_field``), only the excess counts (band 5 points).
  ``destinations``: every ticket's deal value against what a ticket of its cost gets, in
  robust z units (band 2.5): for how often it is kept when offered (logit), and its holders'
  winning margin and win share (each minus the mean of its cell and seat), that is, what
  keeping it does for its holder, the residual from a Huber fit across the deck on its
  circles and named bonus points; the mean of the three in robust z units (MAD).
* **Evaluation on common deals**: every step plays, for each line-up of the study, a study
  whose variants are the current design (``base``) and the candidate edits
  (``PARAMETER=VALUE``), paired by deals (for ``seat``: by seatings, each deal in every seat
  order), so each candidate is compared with the current design deal by deal; each line-up
  has deals of its own (see ``Runner``). Statistics are per deal (players, seed), intervals
  from a bootstrap over deals (stratified by player count), normal with the bootstrap's
  standard error.
* **Screen**: the current design alone (10% of the budget): is the target already met? For the
  ``destinations`` objective it fixes each ticket's expected deal value for its cost and the
  z-scales, and names the suspects: the tickets (and big cities) furthest from that, whose
  values are then tried (points only in the direction that brings the ticket back in line).
* **Racing** (per round): the arms are played in increments of deals; an arm is dropped once it
  is worse than the best arm (the current design included) at 99% (one-sided), or once it
  cannot improve on the current design by the indifference margin (2% of the current loss)
  at 99%. A round ends when one arm is left and it beats the current design, when none is
  left, or when its budget is spent (a round that has found nothing significant goes on with
  the rest of the search's budget: there is no later round to keep it for).
* **Greedy combination**: of the surviving arms, those that beat the current design at 95%
  (one-sided, Bonferroni over the survivors) are significant; the best is applied, and the
  next round re-evaluates the other significant parameters (and, for ``destinations``, the
  new design's suspects) from the new design. The search stops at ``max_edits`` edits,
  when the target is met, when nothing significant is left or when the budget is spent.
* **Hold-out confirmation**: the starting and the tuned design are played on ``holdout`` games
  each with a different root seed (deals never used in the search); the report's before/after
  intervals and the verdict come from those deals only.

Every evaluation is a results folder under the tune's folder (Parquet), so a rerun of the same
tune (or ``resume``) replays the decisions from the evaluations already there and plays only
what is missing; results are the same whatever the number of workers.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import re
import shutil
import sys
import tomllib
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from cardgame import CardgameError, Catalogue, Rules, default_catalogue
from cardgame.edits import KINDS as CARD_KINDS
from cardgame.edits import CardEdits

from .errors import SimsError, StudyError
from .stopping import catch_stop_signals
from .study import BASE, Study, from_dict
from .sweep import printed_value, set_value, show_value

OBJECTIVES = ("seat", "destinations", "strategies")
# default bands: seat and strategies in win-share points (0.015 = 1.5 points), destinations
# in robust z units of deal value
DEFAULT_BANDS = {"seat": 0.015, "destinations": 2.5, "strategies": 0.05}
DEFAULT_BUDGET = 240_000  # games of the search (screen and rounds)
DEFAULT_HOLDOUT = 20_000  # games per design on the held-out deals
DEFAULT_MAX_EDITS = 2
DEFAULT_SUSPECTS = 3  # destinations: tickets (or cities) tried per round
MAX_EDITS_LIMIT = 10
SCREEN_SHARE = 0.10  # of the search budget: the current design alone
INCREMENTS = 4  # a round's budget is played in about this many increments (arms drop between)
MIN_DEALS_TO_DECIDE = 30  # no arm is dropped or declared better on fewer deals
DROP_LEVEL = 0.99  # racing: worse than the best at 99%, one-sided
SIGNIFICANCE = 0.95  # greedy: better than the current design at 95%, one-sided, Bonferroni
TARGET_LEVEL = 0.95  # items within their band at 95% (Bonferroni over free items)
INDIFFERENCE_SHARE = 0.02  # an arm that cannot gain 2% of the current loss is futile
INDIFFERENCE_FLOOR = 1e-4
BOOTSTRAP = 300  # resamples of deals for standard errors
BATCH_CAP = 400  # games per results part
EVIDENCE_ARMS = 6  # candidates listed in the verdict's evidence, closest to the target first

SPEC_KEYS = {"within", "min", "max", "step", "values"}
DESTINATION_RANGE = (1, 99)
BIG_CITY_RANGE = (1, 50)
# the seat objective's levers: extra cards (0-2) or an extra locomotive at setup for each seat
# after the first, and a first turn of one card for the first seat (first_turn)
SEAT_LEVER_EDITS: dict[str, dict[str, int]] = {
    "seat_extra_cards": {"min": 0, "max": 2},
    "seat_extra_locomotives": {"min": 0, "max": 1},
}
# the setup and draw settings, each within a small range of its current value: the seat
# objective's levers where the rules have no seat levers, and the strategies objective's
DEFAULT_RULE_EDITS: dict[str, dict[str, int]] = {
    "starting_hand": {"within": 2},
    "starting_locomotives": {"within": 1},
    "face_up": {"within": 2},
    "destinations_dealt": {"within": 2},
    "destinations_min_keep": {"within": 1},
    "destinations_drawn": {"within": 2},
}


class TuneError(SimsError):
    """A tune that cannot run: a bad option, objective, edits file or output folder."""


class TuneInterrupted(SimsError):
    """Stopped by Ctrl-C or SIGTERM: the evaluations that finished are kept; the same tune
    continues from them."""


# objectives -------------------------------------------------------------------------------


def parse_objective(text: str | Mapping[str, float]) -> dict[str, float]:
    """``seat``, ``destinations``, ``strategies`` or a weighted sum ``seat=1,destinations=0.5``."""
    if isinstance(text, Mapping):
        parts = [(str(k), v) for k, v in text.items()]
    else:
        if not isinstance(text, str) or not text.strip():
            raise TuneError(f"objective: give one of {', '.join(OBJECTIVES)} or a weighted sum")
        parts = []
        for piece in text.split(","):
            name, eq, weight = piece.strip().partition("=")
            parts.append((name.strip(), weight.strip() if eq else 1.0))
    weights: dict[str, float] = {}
    for name, weight in parts:
        if name not in OBJECTIVES:
            raise TuneError(
                f"objective: unknown objective {name!r} (known: {', '.join(OBJECTIVES)})"
            )
        try:
            value = float(weight)
        except (TypeError, ValueError):
            raise TuneError(
                f"objective: weight of {name} must be a number, got {weight!r}"
            ) from None
        if not (math.isfinite(value) and value > 0):
            raise TuneError(f"objective: weight of {name} must be above 0, got {weight}")
        if name in weights:
            raise TuneError(f"objective: {name} given twice")
        weights[name] = value
    return weights


def parse_bands(text: str | Mapping[str, float] | None) -> dict[str, float]:
    """Bands by objective: ``seat=1.5,strategies=5`` in points, ``destinations=2.5`` in z."""
    bands = dict(DEFAULT_BANDS)
    if not text:
        return bands
    items = (
        list(text.items())
        if isinstance(text, Mapping)
        else [p.strip().partition("=")[::2] for p in text.split(",") if p.strip()]
    )
    for name, value in items:
        name = str(name).strip()
        if name not in OBJECTIVES:
            raise TuneError(f"bands: unknown objective {name!r} (known: {', '.join(OBJECTIVES)})")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TuneError(f"bands: {name} must be a number, got {value!r}") from None
        if not (math.isfinite(number) and number > 0):
            raise TuneError(f"bands: {name} must be above 0, got {value}")
        # points for the win-share objectives when written as a percentage
        bands[name] = (
            number / 100 if name != "destinations" and not isinstance(text, Mapping) else number
        )
    return bands


@dataclass
class Context:
    """What the objectives need to know about the study."""

    players: tuple[int, ...]
    random_labels: frozenset[str]
    labels: tuple[str, ...]
    card_ids: tuple[int, ...]
    card_cities: dict[int, tuple[str, str]]
    city_names: tuple[str, ...]
    bands: dict[str, float]
    # destinations: what each ticket costs or brings besides its points (circles, the bonus
    # points of the big cities it names), from the starting cards; none: judged by the deck
    card_costs: dict[int, tuple[float, float]] | None = None
    # destinations: each ticket's expected deal value given its cost (cards, 3) and the
    # z-scales of the three parts (logit keep rate, margin, win share), set by the screen
    expected: np.ndarray | None = None
    scales: tuple[float, float, float] = (1.0, 1.0, 1.0)


class Objective:
    """Items with a band, per-deal statistics (sums over the deal's games) and a loss."""

    name = ""
    two_sided = True

    def __init__(self, context: Context) -> None:
        self.context = context
        self.band = context.bands[self.name]

    def columns(self) -> list[str]:
        raise NotImplementedError

    def items(self) -> list[str]:
        raise NotImplementedError

    def free_items(self) -> int:
        """How many items a target tests (for the Bonferroni correction)."""
        return len(self.items())

    def values(self, agg: np.ndarray) -> np.ndarray:
        """Item deviations (..., items) from aggregated sums (..., columns)."""
        raise NotImplementedError

    def loss(self, values: np.ndarray) -> np.ndarray:
        dev = values if self.two_sided else np.maximum(values, 0.0)
        with np.errstate(invalid="ignore"), warnings_off():
            return np.nanmean((dev / self.band) ** 2, axis=-1)

    def within(self, estimate: np.ndarray, se: np.ndarray, z: float) -> np.ndarray:
        """Whether each item's interval lies inside its band."""
        if self.two_sided:
            return (np.abs(estimate) + z * se) <= self.band
        return (estimate + z * se) <= self.band


@contextlib.contextmanager
def warnings_off() -> Iterator[None]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        yield


class SeatObjective(Objective):
    """Every seat's win share within the band around its fair share, per player count."""

    name = "seat"

    def columns(self) -> list[str]:
        cols = []
        for p in self.context.players:
            cols += [f"seat:{p}:{s}" for s in range(p)] + [f"games:{p}"]
        return cols

    def items(self) -> list[str]:
        return [f"{p} players, seat {s}" for p in self.context.players for s in range(p)]

    def free_items(self) -> int:
        # a player count's win shares sum to one: p - 1 of them are free
        return max(1, sum(p - 1 for p in self.context.players))

    def values(self, agg: np.ndarray) -> np.ndarray:
        out = []
        i = 0
        for p in self.context.players:
            games = agg[..., i + p]
            with np.errstate(invalid="ignore", divide="ignore"):
                for s in range(p):
                    out.append(np.where(games > 0, agg[..., i + s] / games, np.nan) - 1.0 / p)
            i += p + 1
        return np.stack(out, axis=-1)


class StrategiesObjective(Objective):
    """No non-random strategy above the field by more than the band (one-sided)."""

    name = "strategies"
    two_sided = False

    def _pairs(self) -> list[tuple[int, str]]:
        return [
            (p, label)
            for p in self.context.players
            for label in self.context.labels
            if label not in self.context.random_labels
        ]

    def columns(self) -> list[str]:
        return [
            f"strat:{p}:{label}:{part}"
            for p, label in self._pairs()
            for part in ("value", "field", "games")
        ]

    def items(self) -> list[str]:
        return [f"{label}, {p} players" for p, label in self._pairs()]

    def values(self, agg: np.ndarray) -> np.ndarray:
        n = len(self._pairs())
        value, fld, games = (agg[..., k : 3 * n : 3] for k in range(3))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(games > 0, (value - fld) / games, np.nan)


class DestinationsObjective(Objective):
    """Every ticket as good a deal as the deck for what it costs.

    A ticket's deal value has three parts: the logit of its keep rate when offered, and its
    holders' margin and win share. A ticket with more circles to cover is worth more points,
    and one naming big cities brings their bonuses as well, so each part is compared with
    what a ticket of that cost gets in this deck: a robust (Huber) fit of the part on circles
    and named bonus points across the tickets, made once on the screen. An item is the mean
    over the parts of the ticket's residual in robust z units (1.4826 MAD), less the deck's
    median residual: a ticket whose points are out of line with its cost stands out, where a
    cheap ticket simply kept more often does not."""

    name = "destinations"
    PARTS = ("offered", "kept", "margin", "win")

    def columns(self) -> list[str]:
        return [f"dest:{c}:{part}" for c in self.context.card_ids for part in self.PARTS]

    def items(self) -> list[str]:
        return [f"#{c} {'-'.join(self.context.card_cities[c])}" for c in self.context.card_ids]

    def raw(self, agg: np.ndarray) -> np.ndarray:
        """(..., cards, 3): logit keep rate, mean margin and mean win share of holders."""
        offered, kept, margin, win = (agg[..., k::4] for k in range(4))
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = (kept + 0.5) / (offered + 1.0)
            logit = np.where(offered > 0, np.log(rate / (1 - rate)), np.nan)
            per_margin = np.where(kept > 0, margin / kept, np.nan)
            per_win = np.where(kept > 0, win / kept, np.nan)
        return np.stack([logit, per_margin, per_win], axis=-1)

    def residuals(self, agg: np.ndarray) -> np.ndarray:
        """(..., cards, 3): each part less its expected value, centred on the deck."""
        raw = self.raw(agg)
        if self.context.expected is not None:
            raw = raw - self.context.expected
        with warnings_off():
            return raw - np.nanmedian(raw, axis=-2, keepdims=True)

    def values(self, agg: np.ndarray) -> np.ndarray:
        with warnings_off():
            return np.nanmean(self.residuals(agg) / np.asarray(self.context.scales), axis=-1)

    def fit(self, agg: np.ndarray) -> None:
        """Fix the expected values and the z-scales from one sample's sums (the screen's)."""
        costs = self.context.card_costs
        if costs is not None:
            self.context.expected = expected_values(
                self.raw(agg), np.array([costs[c] for c in self.context.card_ids], dtype=float)
            )
        self.context.scales = robust_scales(self.residuals(agg))


def expected_values(raw: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """(cards, parts): each part's Huber fit on [1, costs] across the tickets; a part the
    fit cannot take (too few tickets, no spread) keeps the deck's median."""
    import warnings

    import statsmodels.api as sm

    out = np.full(raw.shape, np.nan)
    design = np.column_stack([np.ones(len(costs)), costs])
    usable = design[:, 1:].std(axis=0) > 0
    design = design[:, np.r_[True, usable]]
    for k in range(raw.shape[1]):
        y = raw[:, k]
        seen = np.isfinite(y)
        if seen.sum() > design.shape[1] + 2:
            with warnings.catch_warnings():  # a perfect fit warns of a zero scale: it is fine
                warnings.simplefilter("ignore")
                model = sm.RLM(y[seen], design[seen], M=sm.robust.norms.HuberT())
                out[:, k] = design @ model.fit().params
        else:
            with warnings_off():
                out[:, k] = np.nanmedian(y) if seen.any() else 0.0
    return out


def robust_scales(residuals: np.ndarray) -> tuple[float, float, float]:
    """Robust spreads across the deck (1.4826 MAD) of the three parts' residuals."""
    out = []
    with warnings_off():
        for k in range(3):
            column = residuals[:, k]
            mad = 1.4826 * np.nanmedian(np.abs(column - np.nanmedian(column)))
            out.append(float(mad) if np.isfinite(mad) and mad > 0 else 1.0)
    return (out[0], out[1], out[2])


OBJECTIVE_CLASSES: dict[str, type[Objective]] = {
    "seat": SeatObjective,
    "destinations": DestinationsObjective,
    "strategies": StrategiesObjective,
}


class Mix:
    """A weighted sum of objectives over one statistics layout."""

    def __init__(self, weights: dict[str, float], context: Context) -> None:
        self.weights = weights
        self.context = context
        self.objectives = [OBJECTIVE_CLASSES[name](context) for name in weights]
        self.slices: list[slice] = []
        self.columns: list[str] = []
        for objective in self.objectives:
            cols = objective.columns()
            self.slices.append(slice(len(self.columns), len(self.columns) + len(cols)))
            self.columns += cols

    def values(self, agg: np.ndarray) -> list[np.ndarray]:
        return [o.values(agg[..., s]) for o, s in zip(self.objectives, self.slices, strict=True)]

    def loss(self, agg: np.ndarray) -> np.ndarray:
        total = 0.0
        for objective, values in zip(self.objectives, self.values(agg), strict=True):
            total = total + self.weights[objective.name] * objective.loss(values)
        return np.asarray(total)

    def get(self, name: str) -> Objective | None:
        return next((o for o in self.objectives if o.name == name), None)


# the edit space ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A number the tuner may change, and which values it may take."""

    name: str  # as in sweeps: destinations.24.points, big_cities.Chicago, face_up, rounds.4
    within: int | None = None
    low: int | None = None
    high: int | None = None
    step: int = 1
    values: tuple[int | bool, ...] | None = None
    lenient: bool = False  # a default: values the rules refuse are left out, not an error

    @property
    def kind(self) -> str:
        head = self.name.split(".")[0]
        return {"destinations": "destination", "big_cities": "big_city"}.get(head, "rule")

    def grid(self, current: Any) -> list[Any]:
        """Every value this parameter may take from ``current`` (current left out)."""
        if isinstance(current, str):
            options = list(self.values) if self.values is not None else list(_choices(self.name))
            return [v for v in options if v != current]
        if isinstance(current, bool):
            options = list(self.values) if self.values is not None else [not current]
            return [v for v in options if v != current]
        if self.values is not None:
            return [v for v in self.values if v != current]
        low, high = self.domain()
        if self.within is not None:
            low = max(low, current - self.within)
            high = min(high, current + self.within)
        if self.low is not None:
            low = max(low, self.low)
        if self.high is not None:
            high = min(high, self.high)
        below = range(current - self.step, low - 1, -self.step)
        above = range(current + self.step, high + 1, self.step)
        return sorted([*below, *above])

    def domain(self) -> tuple[int, int]:
        if self.kind == "destination":
            return DESTINATION_RANGE
        if self.kind == "big_city":
            return BIG_CITY_RANGE
        return (0, 10**6)


@dataclass(frozen=True)
class Design:
    """The study's base variant and the edits applied to it so far (parameter -> value)."""

    table: dict[str, Any]  # the study's base variant table (rules and card edits)
    edits: tuple[tuple[str, int | bool], ...] = ()

    def with_edit(self, parameter: str, value: int | bool) -> Design:
        edits = dict(self.edits)
        edits[parameter] = value
        return Design(self.table, tuple(edits.items()))

    def variant_table(self) -> dict[str, Any]:
        table = copy.deepcopy(self.table)
        for parameter, value in self.edits:
            set_value(table, parameter, value)
        return table

    def describe(self) -> str:
        return ", ".join(f"{p} = {show_value(v)}" for p, v in self.edits) or "the starting design"


def arm_name(parameter: str, value: int | bool) -> str:
    return f"{parameter}={show_value(value)}"


class Space:
    """The edit set checked against a study: parameters, current values, valid designs."""

    def __init__(self, parameters: list[Parameter], study: Study, base_table: dict[str, Any]):
        self.parameters = {p.name: p for p in parameters}
        self.study = study
        self.base_table = base_table
        self.printed_cards = _base_cards(study)

    def current(self, design: Design, parameter: str, where: str = "edits") -> Any:
        rules, cards = self.resolve(design)
        return current_value(parameter, rules, cards, where)

    def resolve(self, design: Design) -> tuple[Rules, Catalogue]:
        table = design.variant_table()
        rules = {k: v for k, v in table.items() if k not in CARD_KINDS}
        edits = {k: v for k, v in table.items() if k in CARD_KINDS}
        cards = CardEdits.from_dict(edits, self.printed_cards, "").apply(self.printed_cards)
        return Rules.from_dict(rules), cards

    def valid(self, design: Design) -> str | None:
        """None, or why the design is no valid game at one of the study's player counts."""
        try:
            rules, cards = self.resolve(design)
        except CardgameError as exc:
            return str(exc)
        except (TypeError, ValueError) as exc:
            return " ".join(str(exc).split())
        problem = getattr(rules, "deal_problem", None)  # the deck must deal the setup
        if problem is not None and hasattr(cards, "deck"):
            for players in self.study.players:
                why = problem(players, cards.deck)
                if why is not None:
                    return f"{players} players: {why}"
        return None

    def candidates(self, design: Design, names: list[str]) -> list[tuple[str, int | bool]]:
        """Each parameter's values from ``design``: valid games that differ from it at one
        of the study's player counts at least."""
        from .study import same_rules_at

        rules, _ = self.resolve(design)
        out = []
        for name in names:
            parameter = self.parameters[name]
            current = self.current(design, name)
            for value in parameter.grid(current):
                changed = design.with_edit(name, value)
                if self.valid(changed) is not None:
                    continue
                if name.split(".")[0] in Rules._fields:  # a rule: it may not apply here
                    new_rules, _ = self.resolve(changed)
                    if all(same_rules_at(new_rules, rules, p) for p in self.study.players):
                        continue
                out.append((name, value))
        return out


def current_value(parameter: str, rules: Rules, cards: Catalogue, where: str) -> Any:
    """A parameter's value in a design (names as in sweeps, sims/sweep.py); a rule setting
    that is a choice (``first_turn``) too."""
    if parameter in Rules._fields and isinstance(getattr(rules, parameter), str):
        return getattr(rules, parameter)
    return printed_value(parameter, rules, cards, where)


def _choices(parameter: str) -> tuple[str, ...]:
    """The values of a rule setting that is a choice, where the rules module names them."""
    from cardgame import rules as rules_module

    return tuple(getattr(rules_module, f"{parameter.upper()}S", ()))


def ticket_costs(cards: Catalogue) -> dict[int, tuple[float, float]]:
    """What each ticket costs or brings besides its points: its circles (the cards it
    needs) and the bonus points of the big cities it names."""
    bonus = {city.city: city.points for city in cards.big_cities}
    return {
        d.id: (float(len(d.colours)), float(bonus.get(d.city_a, 0) + bonus.get(d.city_b, 0)))
        for d in cards.destinations
    }


def _base_cards(study: Study) -> Catalogue:
    return study.catalogue_for("__no_variant__") or default_catalogue()


def _flatten(data: Any, prefix: str, where: str) -> Iterator[tuple[str, Any]]:
    """Leaf specs of an edits file: a table of spec keys, or a list of values."""
    if isinstance(data, list):
        yield prefix, {"values": data}
        return
    if not isinstance(data, dict) or (prefix and not data):
        raise TuneError(
            f"{where}: {prefix or 'the file'}: give a table such as "
            "{ within = 3 }, { min = 5, max = 9, step = 1 } or { values = [6, 8] }"
        )
    if prefix and set(data) & SPEC_KEYS:
        yield prefix, data  # a spec (unknown keys in it are named by the caller)
        return
    if prefix and not any(isinstance(v, dict | list) for v in data.values()):
        first = next(iter(data))
        raise TuneError(
            f"{where}: {prefix}.{first}: unknown key (known: {', '.join(sorted(SPEC_KEYS))})"
        )
    for key, value in data.items():
        yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key), where)


def _whole(value: Any, key: str, where: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TuneError(f"{where}: {key}: must be a whole number, got {value!r}")
    if low is not None and value < low:
        raise TuneError(f"{where}: {key}: must be at least {low}, got {value}")
    return value


def parse_edits(
    data: Mapping[str, Any],
    study: Study,
    base_table: dict[str, Any],
    where: str = "edits",
    lenient: bool = False,
) -> list[Parameter]:
    """The parameters an edits file (parsed TOML) allows, checked against the study's base."""
    space = Space([], study, base_table)
    start = Design(base_table)
    rules, cards = space.resolve(start)
    out: dict[str, Parameter] = {}
    for name, spec in _flatten(dict(data), "", where):
        key = f"{where}: {name}"
        unknown = sorted(set(spec) - SPEC_KEYS)
        if unknown:
            raise TuneError(
                f"{key}.{unknown[0]}: unknown key (known: {', '.join(sorted(SPEC_KEYS))})"
            )
        names = _expand(name, cards, key)
        within = spec.get("within")
        low, high = spec.get("min"), spec.get("max")
        step = spec.get("step", 1)
        values = spec.get("values")
        if values is not None:
            if set(spec) != {"values"}:
                raise TuneError(f"{key}: give values, or within/min/max/step, not both")
            if not isinstance(values, list) or not values:
                raise TuneError(f"{key}.values: must be a non-empty list")
            for value in values:
                if not isinstance(value, int | str):
                    raise TuneError(f"{key}.values: {value!r} is not a whole number or a boolean")
            if len(set(values)) != len(values):
                raise TuneError(f"{key}.values: a value is listed twice")
            values = tuple(values)
        else:
            if within is None and low is None and high is None:
                raise TuneError(f"{key}: give within = N, min/max, or values = [...]")
            if within is not None:
                within = _whole(within, "within", key, 1)
            if low is not None:
                low = _whole(low, "min", key)
            if high is not None:
                high = _whole(high, "max", key)
            if low is not None and high is not None and high < low:
                raise TuneError(f"{key}: needs min <= max, got {low} > {high}")
            step = _whole(step, "step", key, 1)
        for parameter_name in names:
            here = f"{where}: {parameter_name}"
            try:
                current = current_value(parameter_name, rules, cards, where)
            except StudyError as exc:
                raise TuneError(str(exc)) from None
            if values is not None and any(
                isinstance(v, str) != isinstance(current, str) for v in values
            ):
                kind = "names such as " + repr(current) if isinstance(current, str) else "numbers"
                raise TuneError(f"{here}.values: {parameter_name} takes {kind}")
            if isinstance(current, str) and values is None and (low, high) != (None, None):
                raise TuneError(f"{here}: a choice takes values = [...]")
            if parameter_name in out:
                raise TuneError(f"{here}: named twice")
            if (
                isinstance(current, bool)
                and values is None
                and (low is not None or high is not None)
            ):
                raise TuneError(f"{here}: an on/off setting takes values = [true] or [false]")
            parameter = Parameter(parameter_name, within, low, high, step, values, lenient)
            if not lenient:
                span = parameter.domain()
                if parameter.kind != "rule" and values is None:
                    for bound, label in ((low, "min"), (high, "max")):
                        if bound is not None and not span[0] <= bound <= span[1]:
                            raise TuneError(
                                f"{here}: {label} must be within {span[0]}-{span[1]}, got {bound}"
                            )
                explicit = (
                    values
                    if values is not None
                    else (
                        list(range(low, high + 1, step))
                        if low is not None and high is not None
                        else []
                    )
                )
                for value in explicit:
                    if value == current:
                        continue
                    problem = space.valid(start.with_edit(parameter_name, value))
                    if problem is not None:
                        raise TuneError(f"{here} = {show_value(value)}: {problem}")
            if not parameter.grid(current):
                if lenient:
                    continue
                raise TuneError(
                    f"{here}: allows no value other than the current {show_value(current)}"
                )
            out[parameter_name] = parameter
    if not out:
        raise TuneError(f"{where}: names nothing to change")
    return list(out.values())


def _expand(name: str, cards: Catalogue, key: str) -> list[str]:
    """``destinations.*.points`` and ``big_cities.*``: one parameter per ticket or city."""
    parts = name.split(".")
    if parts[0] == "destinations" and len(parts) >= 2 and parts[1] == "*":
        if parts[2:] not in ([], ["points"]):
            raise TuneError(f"{key}: a ticket's parameter is destinations.ID.points")
        return [f"destinations.{d.id}.points" for d in cards.destinations]
    if parts[0] == "destinations" and len(parts) == 2:
        return [f"{name}.points"]  # destinations.24: its points
    if parts[0] == "big_cities" and len(parts) >= 2 and parts[1] == "*":
        if parts[2:] not in ([], ["points"]):
            raise TuneError(f"{key}: a big city's parameter is big_cities.CITY")
        return [f"big_cities.{c.city}" for c in cards.big_cities]
    if parts[0] == "big_cities" and parts[2:] == ["points"]:
        return [".".join(parts[:2])]
    return [name]


def load_edits(
    path: str | Path, study: Study, base_table: dict[str, Any]
) -> tuple[list[Parameter], dict[str, Any]]:
    """An edits file: its parameters and its parsed data (kept with the tune's settings)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TuneError(f"{where}: no such edits file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TuneError(f"{where}: cannot read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TuneError(f"{where}: not valid TOML ({exc})") from None
    return parse_edits(data, study, base_table, where), data


def default_edits(weights: dict[str, float], players: tuple[int, ...]) -> dict[str, Any]:
    """What may change by default, as an edits file would say it: for ``seat`` the levers
    against a seat edge (extra cards or locomotives at setup for the later seats, a first turn
    of one card for the first seat), or the setup and draw settings where the rules have no
    such levers; for ``strategies`` the setup and draw settings and the big-city bonuses; for
    ``destinations`` every ticket's points and every bonus."""
    data: dict[str, Any] = {}
    levers = all(f in Rules._fields for f in SEAT_LEVER_EDITS)
    if "seat" in weights and levers:
        for seat in range(1, max(players)):
            for lever, spec in SEAT_LEVER_EDITS.items():
                data[f"{lever}.{seat}"] = dict(spec)
        data["first_turn"] = {"values": ["one_card"]}
    if ("seat" in weights and not levers) or "strategies" in weights:
        data.update(copy.deepcopy(DEFAULT_RULE_EDITS))
    if "strategies" in weights:
        data["big_cities.*"] = {"within": 4, "step": 2}
    if "destinations" in weights:
        data["destinations.*.points"] = {"within": 6}
        data["big_cities.*"] = {"within": 4}
    return data


# evaluations ------------------------------------------------------------------------------


def step_seed(root: int, label: str) -> int:
    """The root seed of one evaluation: the search's steps and the hold-out never share one."""
    sequence = np.random.SeedSequence(root, spawn_key=(zlib.crc32(label.encode()),))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


@dataclass
class Evaluation:
    """One study played: its arms' per-deal statistics, aligned on the same deals."""

    label: str
    folder: Path
    seed: int
    games: int
    deals: pd.DataFrame  # players, deal, seed (one row per deal, the rows of each matrix)
    stats: dict[str, np.ndarray]  # arm -> (deals, columns)


class Runner:
    """Builds and plays the tune's studies, and reads what the objectives need.

    A step is one study per line-up (``evaluations/STEP/LINEUP``), each with a root seed of its
    own: the arms of a line-up replay the same deals (common random numbers), and different
    line-ups play different deals. One study for all line-ups would deal game i alike at every
    line-up of a player count, and a deal's own bias (how much it favours the first seat, how
    well a ticket fits it) would then count once per line-up: on the strategy ladder at 2
    players that multiplies the variance of the first seat's share by about 3.5.
    """

    def __init__(self, tuner: Tuner) -> None:
        self.t = tuner
        cells = [c for c in tuner.study.cells() if c.variant == BASE] or tuner.study.cells()
        self.lineups = sorted({c.lineup for c in cells}, key=lambda x: (len(x), x))

    def study(
        self,
        designs: dict[str, Design],
        deals: int,
        seed: int,
        folder: Path,
        lineups: list[tuple[str, ...]] | None = None,
    ) -> Study:
        data = copy.deepcopy(self.t.source)
        data.pop("sweeps", None)
        data.pop("pool", None)
        lineups = self.lineups if lineups is None else lineups
        data["name"] = self.t.study.name
        data["seed"] = seed
        data["games_per_cell"] = deals
        data["lineups"] = [list(x) for x in lineups]
        data["players"] = sorted({len(x) for x in lineups})
        data["pairing"] = self.t.pairing
        data["output"] = str(folder)
        data["batch_size"] = max(1, min(deals, BATCH_CAP))
        if self.t.cards is not None:
            data["cards"] = self.t.cards
        data["variants"] = {name: design.variant_table() for name, design in designs.items()}
        return from_dict(data, f"tune step {folder.name}")

    def deal_cost(self, designs: dict[str, Design]) -> tuple[int, float]:
        """The smallest games per line-up that plays every seat order equally often, and
        the games that many cost (all line-ups, these arms) divided by it."""
        probe = self.study(designs, 1, 0, Path("probe"))
        unit = 1
        if probe.rotation == "permutations":
            for cell in probe.cells():
                unit = math.lcm(unit, len(cell.seatings()))
        study = self.study(designs, unit, 0, Path("probe"))
        return unit, study.total_games / unit

    def play(self, label: str, designs: dict[str, Design], deals: int) -> Evaluation:
        """Play ``deals`` games per line-up and arm (one study per line-up) and read them."""
        parts = []
        games = 0
        for lineup in self.lineups:
            name = f"{len(lineup)}p-{'+'.join(lineup)}"
            folder = self.t.out / "evaluations" / label / name
            seed = step_seed(self.t.seed, f"{label}/{name}")
            study = self.study(designs, deals, seed, folder, [lineup])
            self._run(study, folder, label)
            parts.append(self.read(study, folder, designs))
            games += study.total_games
        deals_frame = pd.concat([p[0] for p in parts], ignore_index=True)
        stats = {a: np.concatenate([p[1][a] for p in parts]) for a in designs}
        return Evaluation(label, self.t.out / "evaluations" / label, 0, games, deals_frame, stats)

    def _run(self, study: Study, folder: Path, label: str) -> None:
        from .runner import run

        resume = (folder / "manifest.json").is_file()
        if folder.exists() and not resume:
            shutil.rmtree(folder)  # a study stopped before its first batch landed
        summary = run(
            study,
            workers=self.t.workers,
            out=folder,
            resume=resume,
            progress=False,
            stop=self.t.stop,
        )
        if summary.interrupted or self.t.stop:
            raise TuneInterrupted("interrupted")
        if summary.failures:
            raise TuneError(
                f"{folder}: {len(summary.failures)} game(s) failed, e.g. {summary.failures[0]}"
            )
        self.t.spent_bar(study.total_games, label)

    def read(
        self, study: Study, folder: Path, designs: dict[str, Design]
    ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
        """The deals of one study and each arm's per-deal statistics on them."""
        games, seats, dests = read_tables(folder, "destinations" in self.t.weights)
        frame = per_deal(games, seats, dests, self.t.mix, reference=BASE)
        deals = (
            games.groupby(["players", "seed"])["game_index"]
            .min()
            .rename("first_game")
            .reset_index()
            .sort_values(["players", "first_game", "seed"])
            .reset_index(drop=True)
        )
        index = pd.MultiIndex.from_frame(deals[["players", "seed"]])
        stats = {}
        variants = set(frame.index.get_level_values("variant"))
        width = len(self.t.mix.columns)

        def matrix(name: str) -> np.ndarray:
            if name not in variants:
                return np.zeros((len(index), width))
            return frame.loc[name].reindex(index, fill_value=0.0).to_numpy()

        base = matrix(BASE)
        for name in designs:
            # where an arm equals the current design (a rule of other player counts) it
            # plays the same games: the current design's rows stand for it
            played = np.isin(deals["players"].to_numpy(), study.players_for(name))
            stats[name] = np.where(played[:, None], matrix(name), base)
        return deals, stats


def read_tables(folder: Path, destinations: bool) -> tuple[pd.DataFrame, ...]:
    """The columns the objectives read, finished games only."""
    import pyarrow.dataset as ds

    def table(name: str, columns: list[str]) -> pd.DataFrame:
        return ds.dataset(folder / name, format="parquet").to_table(columns=columns).to_pandas()

    keys = ["variant", "players", "cell", "game_index", "seed"]
    games = table("games", [*keys, "failed"])
    games = games[~games["failed"]].drop(columns="failed")
    seats = table("seats", [*keys, "seat", "strategy", "score", "win_share"])
    seats = seats.merge(games[["cell", "game_index"]], on=["cell", "game_index"])
    dests = (
        table("destinations", ["cell", "game_index", "seat", "destination_id", "kept"])
        if destinations
        else pd.DataFrame(columns=["cell", "game_index", "seat", "destination_id", "kept"])
    )
    return games, seats, dests


def per_deal(
    games: pd.DataFrame, seats: pd.DataFrame, dests: pd.DataFrame, mix: Mix, reference: str
) -> pd.DataFrame:
    """Sums per (variant, players, deal) of every statistic the mix needs; a deal is its
    seed (in a paired study every cell of a player count replays the same seeds)."""
    keys = ["variant", "players", "seed"]
    parts = []
    ctx = mix.context
    if mix.get("seat") is not None:
        wins = seats.pivot_table(index=keys, columns="seat", values="win_share", aggfunc="sum")
        counts = games.groupby(keys).size()
        frame = pd.DataFrame(index=counts.index)
        for p in ctx.players:
            at = counts.index.get_level_values("players") == p
            for s in range(p):
                column = wins[s] if s in wins.columns else 0.0
                frame[f"seat:{p}:{s}"] = np.where(at, column.reindex(counts.index).fillna(0.0), 0.0)
            frame[f"games:{p}"] = np.where(at, counts, 0)
        parts.append(frame)
    if mix.get("strategies") is not None:
        parts.append(_strategy_sums(seats, ctx))
    if mix.get("destinations") is not None:
        parts.append(_destination_sums(seats, dests, ctx, reference))
    out = pd.concat(parts, axis=1).fillna(0.0)
    out.index = out.index.set_names(["variant", "players", "seed"])
    return out.reindex(columns=mix.columns, fill_value=0.0).astype(float)


def _strategy_sums(seats: pd.DataFrame, ctx: Context) -> pd.DataFrame:
    """Per deal and strategy: its win share, what the field would win, games it met others."""
    keys = ["variant", "players", "seed"]
    s = seats.assign(is_random=seats["strategy"].isin(ctx.random_labels))
    game = ["cell", "game_index"]
    s["random_seats"] = s.groupby(game)["is_random"].transform("sum")
    s["random_share"] = (
        (s["win_share"] * s["is_random"]).groupby([s["cell"], s["game_index"]]).transform("sum")
    )
    per = (
        s.groupby([*game, "variant", "players", "seed", "strategy"], sort=False)
        .agg(
            value=("win_share", "sum"),
            seats=("seat", "size"),
            random_seats=("random_seats", "first"),
            random_share=("random_share", "first"),
        )
        .reset_index()
    )
    per = per[(per["seats"] < per["players"]) & ~per["strategy"].isin(ctx.random_labels)]
    others = per["players"] - per["random_seats"]
    per["field"] = np.where(
        others > 0, per["seats"] * (1 - per["random_share"]) / others.clip(lower=1), 0.0
    )
    per["games"] = 1.0
    sums = per.groupby([*keys, "strategy"])[["value", "field", "games"]].sum()
    wide = sums.unstack("strategy").fillna(0.0)
    frame = pd.DataFrame(index=wide.index)
    for p in ctx.players:
        at = wide.index.get_level_values("players") == p
        for label in ctx.labels:
            if label in ctx.random_labels:
                continue
            for part in ("value", "field", "games"):
                column = wide[(part, label)] if (part, label) in wide.columns else 0.0
                frame[f"strat:{p}:{label}:{part}"] = np.where(at, column, 0.0)
    return frame


def _margins(seats: pd.DataFrame) -> pd.Series:
    """Each seat's score minus the best score among the other seats of its game."""
    game = [seats["cell"], seats["game_index"]]
    best = seats.groupby(game)["score"].transform("max")
    count_best = (seats["score"] == best).groupby(game).transform("sum")
    second = seats["score"].where(seats["score"] < best).groupby(game).transform("max")
    other_best = np.where((seats["score"] == best) & (count_best == 1), second, best)
    return seats["score"] - pd.Series(other_best, index=seats.index).fillna(seats["score"])


def _destination_sums(
    seats: pd.DataFrame, dests: pd.DataFrame, ctx: Context, reference: str
) -> pd.DataFrame:
    """Per deal and ticket: offered, kept, and the kept ones' holders' margin and win share,
    each minus the reference design's mean for the same line-up and seat."""
    s = seats.assign(margin=_margins(seats))
    s["slot"] = s["cell"].str.split("/", n=1).str[1] + "#" + s["seat"].astype(str)
    ref = s[s["variant"] == reference] if (s["variant"] == reference).any() else s
    means = ref.groupby("slot")[["margin", "win_share"]].mean()
    s["margin"] -= s["slot"].map(means["margin"]).fillna(0.0)
    s["win"] = s["win_share"] - s["slot"].map(means["win_share"]).fillna(0.0)
    keys = ["variant", "players", "seed"]
    d = dests.merge(
        s[["cell", "game_index", "seat", *keys, "margin", "win"]], on=["cell", "game_index", "seat"]
    )
    kept = d["kept"].astype(float)
    d = d.assign(offered=1.0, kept=kept, margin=d["margin"] * kept, win=d["win"] * kept)
    sums = d.groupby([*keys, "destination_id"])[["offered", "kept", "margin", "win"]].sum()
    wide = sums.unstack("destination_id").fillna(0.0)
    columns = {}
    for c in ctx.card_ids:
        for part in DestinationsObjective.PARTS:
            columns[f"dest:{c}:{part}"] = wide[(part, c)] if (part, c) in wide.columns else 0.0
    return pd.DataFrame(columns, index=wide.index)


# statistics over deals --------------------------------------------------------------------


class Sample:
    """Per-deal statistics of several arms on the same deals, with bootstrap weights."""

    def __init__(self, deals: pd.DataFrame, stats: dict[str, np.ndarray], seed: int) -> None:
        self.deals = deals
        self.stats = stats
        rng = np.random.default_rng(seed)
        n = len(deals)
        weights = np.zeros((BOOTSTRAP, n))
        for _, rows in deals.groupby("players").indices.items():
            counts = rng.multinomial(len(rows), np.full(len(rows), 1.0 / len(rows)), size=BOOTSTRAP)
            weights[:, rows] = counts
        self.weights = weights
        self._sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def agg(self, arm: str) -> tuple[np.ndarray, np.ndarray]:
        """The sums over all deals, and over each bootstrap resample (read-only: made once
        per arm, however often racing, significance and the records ask)."""
        if arm not in self._sums:
            matrix = self.stats[arm]
            total, boot = matrix.sum(axis=0), self.weights @ matrix
            total.setflags(write=False)
            boot.setflags(write=False)
            self._sums[arm] = (total, boot)
        return self._sums[arm]


def normal_z(level: float) -> float:
    return float(st.norm.ppf(level))


# the tune ---------------------------------------------------------------------------------


@dataclass
class TuneResult:
    """What ``tune`` found: the edits (parameter -> value), every evaluation (one row per arm
    and step), the hold-out comparison (one row per item and design), and the verdict."""

    edits: dict[str, int | bool]
    evaluations: pd.DataFrame
    holdout: pd.DataFrame
    target_met: bool | None
    summary: list[str]
    folder: Path
    study_file: Path | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)


class Tuner:
    """One tune: settings checked up front (nothing is written before), then the search."""

    def __init__(
        self,
        study: Study,
        objective: str | Mapping[str, float] = "seat",
        edits: str | Path | Mapping[str, Any] | None = None,
        max_edits: int = DEFAULT_MAX_EDITS,
        budget: int = DEFAULT_BUDGET,
        holdout: int = DEFAULT_HOLDOUT,
        cards: str | None = None,
        workers: int | None = None,
        out: str | Path = "tune",
        players: list[int] | tuple[int, ...] | None = None,
        seed: int | None = None,
        bands: str | Mapping[str, float] | None = None,
        suspects: int = DEFAULT_SUSPECTS,
        progress: bool = True,
        stop: Any = None,
        log: Any = None,
    ) -> None:
        self.weights = parse_objective(objective)
        self.bands = parse_bands(bands)
        self.max_edits = _whole(max_edits, "max-edits", "tune", 1)
        if self.max_edits > MAX_EDITS_LIMIT:
            raise TuneError(f"tune: max-edits: at most {MAX_EDITS_LIMIT}, got {max_edits}")
        self.budget = _whole(budget, "budget", "tune", 1)
        self.holdout = _whole(holdout, "holdout", "tune", 0)
        self.suspects = _whole(suspects, "suspects", "tune", 1)
        self.workers = workers
        if workers is not None:
            _whole(workers, "workers", "tune", 1)
        self.out = Path(out)
        self.progress = progress
        self.log = log or self._say
        self.study = self._study(study, cards, players, seed)
        self.cards = self.study.cards
        self.players = self.study.players
        self.seed = self.study.seed
        self.source = copy.deepcopy(self.study.source)
        # common random numbers: every arm replays the same deals; for the seat objective each
        # deal is also played in every seat order of a line-up, so that within a deal the
        # strategies' strengths cancel and what is left is the seats' own
        self.pairing = (
            "seatings"
            if "seat" in self.weights and self.study.rotation == "permutations"
            else "deals"
        )
        self.base_table = self._base_table()
        if isinstance(edits, str | Path):
            self.parameters, self.edits_data = load_edits(edits, self.study, self.base_table)
        else:
            data = (
                dict(edits)
                if edits is not None
                else default_edits(self.weights, tuple(self.study.players))
            )
            where = "edits" if edits is not None else "default edits"
            self.parameters = parse_edits(
                data, self.study, self.base_table, where, lenient=edits is None
            )
            self.edits_data = data
        self.space = Space(self.parameters, self.study, self.base_table)
        self.allowed = self.space.parameters  # name -> Parameter
        self.context = self._context()
        self.mix = Mix(self.weights, self.context)
        self.runner = Runner(self)
        self.stop = stop
        self.bar: Any = None
        self.spent = 0
        self.trace: list[dict[str, Any]] = []
        self.rows: list[dict[str, Any]] = []
        self.item_rows: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def _say(self, line: str) -> None:
        """A line on stderr that leaves the progress bar intact."""
        if getattr(self, "bar", None) is not None and not self.bar.disable:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    # setup ---------------------------------------------------------------------------------

    def _study(self, study: Study, cards: str | None, players: Any, seed: int | None) -> Study:
        if not study.source:
            raise TuneError("study: build it with sims.study.load_study or from_dict")
        data = copy.deepcopy(study.source)
        if cards is not None:
            data["cards"] = str(cards)
        if players is not None:
            data["players"] = list(players)
            if isinstance(data.get("lineups"), list):  # keep the line-ups of these counts
                kept = [
                    x
                    for x in data["lineups"]
                    if len(x["seats"] if isinstance(x, dict) else x) in set(players)
                ]
                if not kept:
                    raise TuneError(f"players: the study has no line-up of {players} players")
                data["lineups"] = kept
        if seed is not None:
            data["seed"] = _whole(seed, "seed", "tune", 0)
        data.pop("sweeps", None)
        variants = data.get("variants")
        if isinstance(variants, dict):  # the tune starts from the study's base variant
            data["variants"] = {BASE: variants.get(BASE, {})}
        try:
            return from_dict(data, study.name if study.source else "study")
        except SimsError as exc:
            raise TuneError(str(exc)) from None

    def _base_table(self) -> dict[str, Any]:
        variants = self.source.get("variants") or {}
        table = dict(variants.get(BASE, {}))
        table.pop("players", None)
        return table

    def _context(self) -> Context:
        cards = _base_cards(self.study)
        labels = sorted({s for cell in self.study.cells() for s in cell.lineup})
        randoms = frozenset(k for k, v in self.study.strategies.items() if v.base == "random")
        if "strategies" in self.weights and not [x for x in labels if x not in randoms]:
            raise TuneError("objective strategies: the study seats no strategy but random")
        if "strategies" in self.weights and all(
            len(set(c.lineup)) == 1 for c in self.study.cells()
        ):
            raise TuneError("objective strategies: no line-up seats two different strategies")
        return Context(
            players=self.study.players,
            random_labels=randoms,
            labels=tuple(labels),
            card_ids=tuple(d.id for d in cards.destinations),
            card_cities={d.id: (d.city_a, d.city_b) for d in cards.destinations},
            city_names=cards.big_city_names,
            bands=self.bands,
            card_costs=ticket_costs(cards),
        )

    def settings(self) -> dict[str, Any]:
        """What fixes the tune's decisions (a rerun with other settings is refused)."""
        return json.loads(
            json.dumps(
                {
                    "study": self.study.to_dict(),
                    "objective": self.weights,
                    "bands": {k: v for k, v in self.bands.items() if k in self.weights},
                    "edits": self.edits_data,
                    "max_edits": self.max_edits,
                    "budget": self.budget,
                    "holdout": self.holdout,
                    "suspects": self.suspects,
                },
                sort_keys=True,
                default=str,
            )
        )

    def prepare_folder(self, resume: bool) -> None:
        """Refuse a folder that holds something else, or other settings; write the settings."""
        out = self.out
        if out.exists() and not out.is_dir():
            raise TuneError(f"{out}: is a file, not a folder")
        state = out / "tune.json"
        if state.is_file():
            try:
                saved = json.loads(state.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise TuneError(f"{state}: cannot read ({exc})") from None
            old = saved.get("settings", {})
            new = self.settings()
            if old != new:
                changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
                raise TuneError(
                    f"{out}: holds a tune with other settings ({', '.join(changed)} differ); "
                    "rerun it with the same ones, or choose another --out"
                )
            return
        if resume:
            raise TuneError(f"{out}: holds no tune to resume")
        if out.exists() and any(out.iterdir()):
            raise TuneError(f"{out}: folder is not empty and holds no tune")
        try:
            out.mkdir(parents=True, exist_ok=True)
            _write_json(state, {"settings": self.settings(), "status": "running"})
        except OSError as exc:
            raise TuneError(f"{out}: cannot write: {exc.strerror or exc}") from None

    # progress ------------------------------------------------------------------------------

    def spent_bar(self, games: int, label: str) -> None:
        self.spent += games if not label.startswith("holdout") else 0
        if self.bar is not None:
            self.bar.update(games)
            self.bar.set_postfix_str(label)

    # the search ----------------------------------------------------------------------------

    def run(self, resume: bool = False) -> TuneResult:
        self.prepare_folder(resume)
        with _stop_signals(self) as stop:
            self.stop = stop
            from tqdm import tqdm

            holdout_games = self.holdout * 2
            self.bar = tqdm(
                total=self.budget + holdout_games,
                unit="game",
                desc="tune",
                file=sys.stderr,
                disable=not self.progress,
                dynamic_ncols=True,
            )
            try:
                design, met = self.search()
                result = self.confirm(design, met)
                self.bar.total = self.bar.n  # the search may stop before its budget
                self.bar.refresh()
            finally:
                self.bar.close()
        return result

    def _announce(self) -> None:
        names = ", ".join(
            f"{k}={v:g}" if len(self.weights) > 1 else k for k, v in self.weights.items()
        )
        self.log(
            f"tune {self.study.name}: objective {names}; {len(self.parameters)} parameter(s) "
            f"may change; at most {self.max_edits} edit(s); search budget {self.budget:,} games, "
            f"hold-out {self.holdout:,} games per design -> {self.out}"
        )

    def search(self) -> tuple[Design, bool | None]:
        self._announce()
        design = Design(self.base_table)
        screen_games = max(1, int(self.budget * SCREEN_SHARE))
        unit, cost = self.runner.deal_cost({BASE: design})
        deals = max(unit, int(screen_games // cost) // unit * unit)
        if deals * cost > self.budget:
            self.notes.append("the budget does not cover the smallest screen: nothing searched")
            return design, None
        screen = self.runner.play("screen", {BASE: design}, deals)
        sample = Sample(screen.deals, screen.stats, step_seed(self.seed, "boot:screen"))
        destinations = self.mix.get("destinations")
        if isinstance(destinations, DestinationsObjective):
            total, _ = sample.agg(BASE)
            destinations.fit(total[self.mix.slices[self.mix.objectives.index(destinations)]])
        met, _ = self.record_items("screen", sample, BASE, design)
        self.record_arms("screen", 0, 0, sample, {BASE: design}, {}, design)
        self.trace.append(
            {
                "step": "screen",
                "games": screen.games,
                "deals": len(screen.deals),
                "design": design.describe(),
                "target_met": met,
            }
        )
        self.log(
            f"screen: {screen.games:,} games, {len(screen.deals):,} deals; "
            f"target {'met' if met else 'not met'} by {design.describe()}"
        )
        if met:
            return design, True
        pending = self.first_parameters(sample, design)
        rounds = 0
        while rounds < self.max_edits and pending:
            rounds += 1
            left = self.budget - self.spent
            share = left / (self.max_edits - rounds + 1)
            outcome = self.round(rounds, design, pending, share)
            if outcome is None:
                break
            winner, significant, winner_sample = outcome
            if winner is None:
                self.log(f"round {rounds}: no edit beats {design.describe()} significantly")
                break
            parameter, value = winner
            design = design.with_edit(parameter, value)
            met, _ = self.record_items(
                f"round {rounds}", winner_sample, arm_name(parameter, value), design
            )
            self.log(
                f"round {rounds}: applied {parameter} = {show_value(value)}; target "
                f"{'met' if met else 'not met'} on the search's deals"
            )
            if met:
                return design, True
            pending = [p for p in significant if p != parameter]
            if not pending and not isinstance(destinations, DestinationsObjective):
                self.log(f"round {rounds}: no other significant edit to combine with it")
            if isinstance(destinations, DestinationsObjective):
                extra = self.suspect_parameters(winner_sample, arm_name(parameter, value), design)
                pending += [p for p in extra if p not in pending and p not in dict(design.edits)]
        return design, False

    def first_parameters(self, sample: Sample, design: Design) -> list[str]:
        """Round 1's parameters: every one allowed, the screened kinds only where suspect."""
        screened = self._screened()
        names = [p for p in self.allowed if self.allowed[p].kind not in screened]
        names += self.suspect_parameters(sample, BASE, design)
        return names

    def _screened(self) -> set[str]:
        return {"destination", "big_city"} if "destinations" in self.weights else set()

    def suspect_parameters(self, sample: Sample, arm: str, design: Design) -> list[str]:
        """The tickets (and cities) furthest from what their cost earns, worst first."""
        objective = self.mix.get("destinations")
        if not isinstance(objective, DestinationsObjective):
            return []
        index = self.mix.objectives.index(objective)
        total, _ = sample.agg(arm)
        d = objective.values(total[self.mix.slices[index]])
        scores: dict[str, float] = {}
        for c, value in zip(self.context.card_ids, d, strict=True):
            name = f"destinations.{c}.points"
            if name in self.allowed and np.isfinite(value):
                scores[name] = abs(float(value))
        for city in self.context.city_names:
            name = f"big_cities.{city}"
            if name in self.allowed:
                mine = [
                    v
                    for c, v in zip(self.context.card_ids, d, strict=True)
                    if city in self.context.card_cities[c] and np.isfinite(v)
                ]
                if mine:
                    scores[name] = abs(float(np.mean(mine)))
        chosen = sorted(scores, key=lambda k: (-scores[k], k))[: self.suspects]
        self.direction = getattr(self, "direction", {})
        for name in chosen:
            if name.startswith("destinations."):
                c = int(name.split(".")[1])
                self.direction[name] = -1 if d[self.context.card_ids.index(c)] > 0 else 1
        self.log("suspects: " + ", ".join(f"{n} ({scores[n]:.2f})" for n in chosen))
        return chosen

    def arms_for(self, design: Design, names: list[str]) -> dict[str, tuple[str, int | bool]]:
        arms = {}
        for parameter, value in self.space.candidates(design, names):
            direction = getattr(self, "direction", {}).get(parameter)
            if direction is not None:
                current = self.space.current(design, parameter)
                if (value - current) * direction < 0:
                    continue
            arms[arm_name(parameter, value)] = (parameter, value)
        return arms

    def round(
        self, number: int, design: Design, names: list[str], budget: float
    ) -> tuple[tuple[str, int | bool] | None, list[str], Sample] | None:
        arms = self.arms_for(design, names)
        if not arms:
            self.notes.append(f"round {number}: no candidate edit is a valid game")
            return None
        alive = dict(arms)
        designs = {BASE: design, **{a: design.with_edit(p, v) for a, (p, v) in arms.items()}}
        blocks: dict[str, list[np.ndarray]] = {a: [] for a in designs}
        deals_frames: list[pd.DataFrame] = []
        spent = 0.0
        increment_games = budget / INCREMENTS
        step = 0
        dropped: dict[str, str] = {}
        sample: Sample | None = None
        self.log(
            f"round {number}: {len(arms)} candidate edit(s) of "
            f"{len({p for p, _ in arms.values()})} "
            f"parameter(s) from {design.describe()}"
        )
        while True:
            current = {BASE: design, **{a: designs[a] for a in alive}}
            unit, cost = self.runner.deal_cost(current)
            left = min(budget - spent, self.budget - self.spent)
            target = min(max(increment_games, unit * cost), left)
            deals = int(target // cost) // unit * unit
            if deals < unit or (sample is not None and target < increment_games / 2):
                # the round's share is spent: with nothing significant yet there is no later
                # round to save for, so the round goes on with what is left of the budget
                whole = spent + self.budget - self.spent
                if sample is None or whole <= budget or self.significant(sample, alive, arms)[0]:
                    break
                budget = whole
                continue
            step += 1
            evaluation = self.runner.play(f"r{number}-s{step:02d}", current, deals)
            spent += evaluation.games
            deals_frames.append(evaluation.deals.assign(step=step))
            for a in current:
                blocks[a].append(evaluation.stats[a])
            all_deals = pd.concat(deals_frames, ignore_index=True)
            stats = {a: np.concatenate(blocks[a]) for a in current}
            sample = Sample(all_deals, stats, step_seed(self.seed, f"boot:r{number}-s{step:02d}"))
            decided = self.race(number, step, sample, alive, arms, dropped, design, len(all_deals))
            self.trace.append(
                {
                    "step": f"r{number}-s{step:02d}",
                    "games": evaluation.games,
                    "deals": len(evaluation.deals),
                    "arms": len(current) - 1,
                    "design": design.describe(),
                }
            )
            if decided:
                break
        if sample is None:
            self.notes.append(f"round {number}: the budget left does not cover one increment")
            return None
        return self.conclude(number, step, sample, alive, arms, design)

    def _estimates(self, sample: Sample, arms: list[str]) -> dict[str, tuple[float, np.ndarray]]:
        """Each arm's loss and its bootstrap replicates, as the search compares them."""
        base_total, base_boot = sample.agg(BASE)
        out = {}
        for a in arms:
            total, boot = sample.agg(a)
            borrowed = self._borrowed_columns(a)
            if borrowed.size:
                total, boot = total.copy(), boot.copy()
                total[borrowed] = base_total[borrowed]
                boot[:, borrowed] = base_boot[:, borrowed]
            out[a] = (float(self.mix.loss(total)), np.asarray(self.mix.loss(boot)))
        return out

    def _borrowed_columns(self, arm: str) -> np.ndarray:
        """For an arm that edits a ticket's points (or a big city's bonus), the destinations
        statistics of every other ticket (of every ticket not naming the city), which the
        search takes from the current design.

        Once the edited ticket is dealt the paired games diverge, so every ticket's deal
        value differs between the arms by sampling noise: summed over 46 tickets, that noise
        drowns the gain on the one ticket the edit is about (a planted ticket's best fix gained
        0.015 on a loss of 0.154 with a standard error of 0.023). An edit's real effect on
        the other tickets is small; the hold-out, which compares every ticket, judges it."""
        objective = self.mix.get("destinations")
        if arm == BASE or not isinstance(objective, DestinationsObjective):
            return np.empty(0, dtype=int)
        parameter = arm.split("=", 1)[0]
        ids = self.context.card_ids
        if parameter.startswith("destinations.") and parameter.endswith(".points"):
            focus = {int(parameter.split(".")[1])}
        elif parameter.startswith("big_cities."):
            city = parameter.split(".", 1)[1]
            focus = {c for c in ids if city in self.context.card_cities[c]}
        else:
            return np.empty(0, dtype=int)
        start = self.mix.slices[self.mix.objectives.index(objective)].start
        width = len(DestinationsObjective.PARTS)
        return np.array(
            [
                start + width * i + k
                for i, c in enumerate(ids)
                if c not in focus
                for k in range(width)
            ],
            dtype=int,
        )

    def race(
        self,
        number: int,
        step: int,
        sample: Sample,
        alive: dict[str, tuple[str, Any]],
        arms: dict[str, tuple[str, Any]],
        dropped: dict[str, str],
        design: Design,
        deals: int,
    ) -> bool:
        """Drop the arms that lost; True when the round is decided."""
        est = self._estimates(sample, [BASE, *alive])
        base_loss, base_boot = est[BASE]
        margin = max(INDIFFERENCE_FLOOR, INDIFFERENCE_SHARE * base_loss)
        z_drop = normal_z(DROP_LEVEL)
        if deals >= MIN_DEALS_TO_DECIDE:
            best = min([BASE, *alive], key=lambda a: (est[a][0], a))
            for a in alive:
                if a == best:
                    continue
                diff = est[a][0] - est[best][0]
                se = float(np.std(est[a][1] - est[best][1], ddof=1))
                if diff - z_drop * se > 0:
                    dropped[a] = f"worse than {best} at 99% at step {step}"
                    continue
                gain = est[a][0] - base_loss
                se = float(np.std(est[a][1] - base_boot, ddof=1))
                if gain - z_drop * se > -margin:
                    dropped[a] = (
                        f"cannot gain {margin:.3g} on the current design at 99% at step {step}"
                    )
        for a in list(alive):
            if a in dropped:
                del alive[a]
        self.record_arms(
            f"r{number}-s{step:02d}",
            number,
            step,
            sample,
            {BASE: design, **{a: design.with_edit(*arms[a]) for a in arms}},
            dropped,
            design,
            est,
        )
        if not alive:
            return True
        # decided: one arm left, and it beats the current design
        return len(alive) == 1 and bool(self.significant(sample, alive, arms)[0])

    def conclude(
        self,
        number: int,
        step: int,
        sample: Sample,
        alive: dict[str, tuple[str, Any]],
        arms: dict[str, tuple[str, Any]],
        design: Design,
    ) -> tuple[tuple[str, int | bool] | None, list[str], Sample]:
        significant, best_of = self.significant(sample, alive, arms)
        for row in self.rows:
            if row["step"] == f"r{number}-s{step:02d}" and row["arm"] in best_of.values():
                row["status"] = "significant" if row["parameter"] in significant else row["status"]
        for a in [BASE, *alive]:  # the evidence: each arm's items at the end of the round
            self.record_items(
                f"r{number}-end", sample, a, design if a == BASE else design.with_edit(*arms[a])
            )
        if not significant:
            return None, [], sample
        winner = best_of[significant[0]]
        for row in self.rows:
            if row["step"] == f"r{number}-s{step:02d}" and row["arm"] == winner:
                row["status"] = "applied"
        return arms[winner], significant, sample

    def significant(
        self, sample: Sample, alive: dict[str, tuple[str, Any]], arms: dict[str, tuple[str, Any]]
    ) -> tuple[list[str], dict[str, str]]:
        """The parameters whose best surviving arm beats the current design at 95% (one-sided,
        Bonferroni over the surviving arms), best first; and each one's best arm."""
        est = self._estimates(sample, [BASE, *alive])
        base_loss, base_boot = est[BASE]
        z_sig = normal_z(1 - (1 - SIGNIFICANCE) / max(1, len(alive)))
        best_of: dict[str, str] = {}
        for a, (p, _) in alive.items():
            if p not in best_of or (est[a][0], a) < (est[best_of[p]][0], best_of[p]):
                best_of[p] = a
        significant = []
        if len(sample.deals) >= MIN_DEALS_TO_DECIDE:
            for p, a in best_of.items():
                se = float(np.std(est[a][1] - base_boot, ddof=1))
                if est[a][0] - base_loss + z_sig * se < 0:
                    significant.append(p)
        significant.sort(key=lambda p: (est[best_of[p]][0], p))
        return significant, best_of

    # records -------------------------------------------------------------------------------

    def record_arms(
        self,
        label: str,
        number: int,
        step: int,
        sample: Sample,
        designs: dict[str, Design],
        dropped: dict[str, str],
        design: Design,
        est: dict[str, tuple[float, np.ndarray]] | None = None,
    ) -> None:
        present = [a for a in designs if a in sample.stats]
        if est is None:
            est = self._estimates(sample, present)
        base_loss, base_boot = est[BASE]
        for a in present:
            if a not in est:
                continue
            loss, boot = est[a]
            parameter, value = (None, None) if a == BASE else a.split("=", 1)
            diff_se = float(np.std(boot - base_boot, ddof=1)) if a != BASE else 0.0
            just_dropped = a in dropped and dropped[a].endswith(f" at step {step}")
            self.rows.append(
                {
                    "step": label,
                    "round": number,
                    "increment": step,
                    "arm": a,
                    "parameter": parameter,
                    "value": value,
                    "design": designs[a].describe(),
                    "deals": len(sample.deals),
                    "loss": loss,
                    "loss_se": float(np.std(boot, ddof=1)),
                    "difference": loss - base_loss if a != BASE else 0.0,
                    "difference_se": diff_se,
                    "status": (
                        "current"
                        if a == BASE
                        else f"dropped: {dropped[a]}"
                        if just_dropped
                        else "racing"
                    ),
                }
            )

    def record_items(
        self, label: str, sample: Sample, arm: str, design: Design
    ) -> tuple[bool, list[dict[str, Any]]]:
        """Each item's estimate and interval for one arm; whether the target is met."""
        total, boot = sample.agg(arm)
        rows = []
        met = True
        for objective, values, bvalues in zip(
            self.mix.objectives,
            self.mix.values(total),
            self.mix.values(boot),
            strict=True,
        ):
            z = normal_z(
                1 - (1 - TARGET_LEVEL) / (2 if objective.two_sided else 1) / objective.free_items()
            )
            with warnings_off():
                se = np.nanstd(bvalues, axis=0, ddof=1)
            inside = objective.within(values, se, z)
            inside = np.where(np.isfinite(values), inside, False)
            met = met and bool(np.all(inside))
            for name, v, e, ok in zip(objective.items(), values, se, inside, strict=True):
                rows.append(
                    {
                        "step": label,
                        "arm": arm,
                        "design": design.describe(),
                        "objective": objective.name,
                        "item": name,
                        "estimate": float(v),
                        "se": float(e),
                        "low": float(v - z * e),
                        "high": float(v + z * e),
                        "band": objective.band,
                        "within": bool(ok),
                    }
                )
        self.item_rows += rows
        return met, rows

    # hold-out ------------------------------------------------------------------------------

    def confirm(self, design: Design, met_in_search: bool | None) -> TuneResult:
        start = Design(self.base_table)
        edited = bool(design.edits)
        holdout = pd.DataFrame()
        target_met: bool | None = None
        summary: list[str] = []
        if self.holdout > 0:
            designs = {BASE: start, **({"tuned": design} if edited else {})}
            unit, cost = self.runner.deal_cost(designs)
            deals = max(unit, math.ceil(self.holdout * len(designs) / cost / unit) * unit)
            evaluation = self.runner.play("holdout", designs, deals)
            sample = Sample(
                evaluation.deals, evaluation.stats, step_seed(self.seed, "boot:holdout")
            )
            before_met, before = self.record_items("holdout", sample, BASE, start)
            target_met = before_met
            after = before
            if edited:
                target_met, after = self.record_items("holdout", sample, "tuned", design)
            holdout = self.paired(sample, before, after, edited)
            self.trace.append(
                {
                    "step": "holdout",
                    "games": evaluation.games,
                    "deals": len(evaluation.deals),
                    "design": design.describe(),
                    "target_met": target_met,
                }
            )
        summary = self.verdict(start, design, target_met, holdout, met_in_search)
        for line in summary:
            self.log(line)
        return self.write(design, holdout, target_met, summary)

    def paired(
        self,
        sample: Sample,
        before: list[dict[str, Any]],
        after: list[dict[str, Any]],
        edited: bool,
    ) -> pd.DataFrame:
        """Items before and after on the held-out deals, with the paired difference; and the
        loss of each design."""
        frame = pd.DataFrame(before).assign(design_label="before")
        if edited:
            frame = pd.concat([frame, pd.DataFrame(after).assign(design_label="after")])
        frame = frame.reset_index(drop=True)
        if edited:
            tb, bb = sample.agg(BASE)
            ta, ba = sample.agg("tuned")
            diffs = []
            for vb, va, bvb, bva in zip(
                self.mix.values(tb),
                self.mix.values(ta),
                self.mix.values(bb),
                self.mix.values(ba),
                strict=True,
            ):
                with warnings_off():
                    se = np.nanstd(bva - bvb, axis=0, ddof=1)
                diffs += list(zip(va - vb, se, strict=True))
            z = normal_z(0.975)
            n = len(diffs)
            frame["difference"] = [d for d, _ in diffs] * 2
            frame["difference_low"] = [d - z * e for d, e in diffs] * 2
            frame["difference_high"] = [d + z * e for d, e in diffs] * 2
            assert len(frame) == 2 * n
            lb, bl = float(self.mix.loss(tb)), self.mix.loss(bb)
            la, al = float(self.mix.loss(ta)), self.mix.loss(ba)
            self.holdout_loss = {
                "before": lb,
                "after": la,
                "before_se": float(np.std(bl, ddof=1)),
                "after_se": float(np.std(al, ddof=1)),
                "difference_se": float(np.std(al - bl, ddof=1)),
            }
        else:
            tb, bb = sample.agg(BASE)
            self.holdout_loss = {
                "before": float(self.mix.loss(tb)),
                "before_se": float(np.std(self.mix.loss(bb), ddof=1)),
            }
        return frame

    def verdict(
        self,
        start: Design,
        design: Design,
        target_met: bool | None,
        holdout: pd.DataFrame,
        met_in_search: bool | None,
    ) -> list[str]:
        lines = []
        edits = ", ".join(
            f"{p} {show_value(self.space.current(start, p))} -> {show_value(v)}"
            for p, v in design.edits
        )
        if design.edits:
            lines.append(f"Edits found: {edits}.")
        elif met_in_search:
            lines.append("No edit needed: the starting design meets the target on the screen.")
        else:
            lines.append("No edit within the allowed set improves the objective significantly.")
        lines += self.evidence()
        if holdout.empty:
            lines.append("No hold-out confirmation (holdout = 0).")
            return lines
        designs = 2 if design.edits else 1
        games = int(self.trace[-1]["games"])
        deals = int(self.trace[-1]["deals"])
        held = f"{games // designs:,} held-out games per design ({deals:,} deals)"
        worst = self._worst(holdout)
        if target_met:
            lines.append(
                f"Confirmed on {held}: every item of the tuned design within its band at 95%"
                + (f" (worst: {worst})." if worst else ".")
            )
        else:
            what = "the tuned design" if design.edits else "the starting design"
            lines.append(
                f"On {held} {what} does NOT meet the target at 95%"
                + (f" (worst: {worst})" if worst else "")
                + f": no set of at most {self.max_edits} allowed edit(s) reached it in this search."
            )
        return lines

    def evidence(self) -> list[str]:
        """Per round: the best candidate and how sure the search was of it, and where each
        arm still racing at the end left the objective's worst item."""
        lines = []
        frame = pd.DataFrame(self.rows)
        if frame.empty:
            return lines
        race = frame[(frame["round"] > 0) & (frame["arm"] != BASE)]
        items = pd.DataFrame(self.item_rows)
        for number, part in race.groupby("round"):
            last = part.sort_values("increment").groupby("arm").tail(1)
            best = last.loc[last["difference"].idxmin()]
            dropped = last[last["status"].str.startswith("dropped")]
            z = normal_z(0.975)
            lines.append(
                f"Round {number}: {len(last)} candidate(s), {len(dropped)} dropped; best "
                f"{best['arm']}: loss {best['difference']:+.3g} from the current design "
                f"({best['difference'] - z * best['difference_se']:+.3g} to "
                f"{best['difference'] + z * best['difference_se']:+.3g}, 95%, "
                f"{int(best['deals']):,} deals): {best['status']}."
            )
            end = items[items["step"] == f"r{number}-end"] if not items.empty else items
            if not end.empty:
                shown = []
                for arm, mine in end.groupby("arm", sort=False):
                    row = mine.loc[shown_item(str(arm), mine)]
                    shown.append((str(arm), row, float(_excess(row.to_frame().T).iloc[0])))
                current = [x for x in shown if x[0] == BASE]
                others = sorted((x for x in shown if x[0] != BASE), key=lambda x: (x[2], x[0]))
                listed = current + others[:EVIDENCE_ARMS]
                more = len(others) - EVIDENCE_ARMS
                lines.append(
                    f"Round {number} at its end (the edited ticket, else the worst item; "
                    "closest to the target first): "
                    + "; ".join(
                        f"{'current design' if a == BASE else a}: {r['item']} {_fmt(r)}"
                        for a, r, _ in listed
                    )
                    + (
                        f"; and {more} more (evaluations.parquet, items.parquet)"
                        if more > 0
                        else ""
                    )
                    + "."
                )
            if not dropped.empty:
                lines.append(
                    f"Round {number}, dropped: "
                    + "; ".join(f"{r['arm']} ({r['status'].removeprefix('dropped: ')})"
                                for _, r in dropped.iterrows())
                    + "."
                )  # fmt: skip
        return lines

    def _worst(self, holdout: pd.DataFrame) -> str:
        label = "after" if (holdout["design_label"] == "after").any() else "before"
        part = holdout[holdout["design_label"] == label]
        if part.empty:
            return ""
        row = part.loc[_excess(part).idxmax()]
        return f"{row['item']} {_fmt(row)}"

    # outputs -------------------------------------------------------------------------------

    def write(
        self, design: Design, holdout: pd.DataFrame, target_met: bool | None, summary: list[str]
    ) -> TuneResult:
        evaluations = pd.DataFrame(self.rows)
        items = pd.DataFrame(self.item_rows)
        evaluations.to_parquet(self.out / "evaluations.parquet", index=False)
        if not items.empty:
            items.to_parquet(self.out / "items.parquet", index=False)
        if not holdout.empty:
            holdout.to_parquet(self.out / "holdout.parquet", index=False)
        study_file = self.out / "edits.toml"
        write_study_file(study_file, self, design)
        edits = {p: v for p, v in design.edits}
        start = Design(self.base_table)
        _write_json(
            self.out / "tune.json",
            {
                "settings": self.settings(),
                "status": "done",
                "edits": [
                    {"parameter": p, "from": self.space.current(start, p), "to": v}
                    for p, v in design.edits
                ],
                "target_met": target_met,
                "summary": summary,
                "notes": self.notes,
                "trace": self.trace,
                "games": {
                    "search": self.spent,
                    "holdout": int(self.trace[-1]["games"])
                    if self.trace and self.trace[-1]["step"] == "holdout"
                    else 0,
                },
                "holdout_loss": getattr(self, "holdout_loss", None),
            },
        )
        return TuneResult(
            edits, evaluations, holdout, target_met, summary, self.out, study_file, self.trace
        )


def shown_item(arm: str, items: pd.DataFrame) -> Any:
    """The item that says most about an arm: the ticket it edits, else its worst item."""
    if arm.startswith("destinations."):
        card = f"#{arm.split('.')[1]} "
        mine = items[items["item"].str.startswith(card)]
        if not mine.empty:
            return mine.index[0]
    return _excess(items).idxmax()


def _excess(frame: pd.DataFrame) -> pd.Series:
    """Each item's deviation in bands (for strategies only an excess counts), rounded so that
    mirror images (the two seats at 2 players) tie and the first is named."""
    size = frame["estimate"] / frame["band"]
    return size.abs().where(frame["objective"] != "strategies", size).round(9)


def _fmt(row: pd.Series) -> str:
    if row["objective"] == "destinations":
        return (
            f"{row['estimate']:+.2f} ({row['low']:+.2f} to {row['high']:+.2f}, "
            f"band ±{row['band']:g})"
        )
    scale = 100
    return (
        f"{row['estimate'] * scale:+.1f} points ({row['low'] * scale:+.1f} to "
        f"{row['high'] * scale:+.1f}, band ±{row['band'] * scale:g})"
    )


def _write_json(path: Path, data: Any) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str), encoding="utf-8")
    temp.replace(path)


# the study file of the result -------------------------------------------------------------

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: Any) -> str:
    text = str(key)
    return text if _BARE.match(text) else json.dumps(text)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def to_toml(data: Mapping[str, Any], comment: str = "") -> str:
    """A small TOML writer for study files: scalars and lists first, then [tables] (tables of
    tables, such as variants, as [variants.NAME]); deeper tables inline."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    tables = {k: v for k, v in data.items() if isinstance(v, Mapping)}
    for key, value in data.items():
        if key not in tables:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, table in tables.items():
        if table and all(isinstance(v, Mapping) for v in table.values()):
            for name, sub in table.items():
                lines += ["", f"[{_key(key)}.{_key(name)}]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in sub.items()]
        else:
            lines += ["", f"[{_key(key)}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def study_document(tuner: Tuner, design: Design) -> dict[str, Any]:
    """The study with the starting design as base and the tuned one as a variant."""
    data = copy.deepcopy(tuner.source)
    data.pop("sweeps", None)
    name = f"{tuner.study.name}-tuned"
    data["name"] = name
    data["players"] = list(tuner.players)
    data["pairing"] = "deals"
    data["output"] = f"results/{name}"
    if tuner.cards is not None:
        data["cards"] = str(Path(tuner.cards).resolve())
    variants = {BASE: tuner.base_table}
    if design.edits:
        variants["tuned"] = design.variant_table()
    data["variants"] = variants
    order = [
        "name",
        "description",
        "seed",
        "players",
        "games_per_cell",
        "rotation",
        "pairing",
        "batch_size",
        "engine",
        "isolation",
        "cards",
        "pool",
        "lineups",
        "output",
    ]
    ordered = {k: data[k] for k in order if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return ordered


def write_study_file(path: Path, tuner: Tuner, design: Design) -> None:
    document = study_document(tuner, design)
    edits = "\n".join(f"  {p} = {show_value(v)}" for p, v in design.edits) or "  (none)"
    comment = (
        f"Written by cardgame tune ({', '.join(tuner.weights)}): the study {tuner.study.name}\n"
        "with the design it started from as [variants.base] and the tuned design as\n"
        "[variants.tuned], paired by deals. Play and report it:\n"
        f"  cardgame simulate {path}\n  cardgame report {document['output']}\n"
        f"Edits:\n{edits}"
    )
    text = to_toml(document, comment)
    # what we write must be a study the simulator accepts
    from_dict(tomllib.loads(text), str(path))
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


# signals ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _stop_signals(tuner: Tuner) -> Iterator[Any]:
    """SIGINT/SIGTERM set a flag that the runs and the search poll (unless the caller gave
    one): the evaluation in flight stops cleanly and the tune can be continued."""
    if tuner.stop is not None:
        yield tuner.stop
        return
    with catch_stop_signals() as flag:
        yield flag


def tune(
    study: Study | str | Path,
    objective: str | Mapping[str, float] = "seat",
    edits: str | Path | Mapping[str, Any] | None = None,
    max_edits: int = DEFAULT_MAX_EDITS,
    budget: int = DEFAULT_BUDGET,
    holdout: int = DEFAULT_HOLDOUT,
    cards: str | None = None,
    workers: int | None = None,
    out: str | Path = "tune",
    resume: bool = False,
    **options: Any,
) -> TuneResult:
    """Tune ``study`` for ``objective`` (see the module docstring); returns the edits and a
    frame of evaluations (``TuneResult.edits``, ``TuneResult.evaluations``). ``options``:
    players, seed, bands, suspects, progress, stop, log."""
    if not isinstance(study, Study):
        from .study import load_study

        study = load_study(study)
    return Tuner(
        study, objective, edits, max_edits, budget, holdout, cards, workers, out, **options
    ).run(resume)
