"""What a tune brings to target: the objectives, each a list of items with a band and a loss
(see the package docstring), and their weighted mix."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TuneError
from .settings import (
    BAND_LIMITS,
    DEFAULT_BANDS,
    OBJECTIVES,
)

# objectives -------------------------------------------------------------------------------


def parse_objective(text: str | Mapping[str, float]) -> dict[str, float]:
    """``seat``, ``destinations``, ``strategies`` or a weighted sum ``seat=1,destinations=0.5``."""
    if isinstance(text, Mapping):
        parts: list[tuple[str, Any]] = [(str(k), v) for k, v in text.items()]
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
        shares = name != "destinations" and isinstance(text, Mapping)
        low, high = BAND_LIMITS[name]
        if not low <= (number * 100 if shares else number) <= high:
            unit = " z" if name == "destinations" else "" if shares else " points"
            scale = 100 if shares else 1
            raise TuneError(
                f"bands: {name} must be from {low / scale:g} to {high / scale:g}{unit}, got {value}"
            )
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
    # destinations: the standard error of each expected value (cards, 3): the fit's own
    # uncertainty at the ticket's cost, which an in-play price read against it inherits
    expected_se: np.ndarray | None = None


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
            self.context.expected, self.context.expected_se = fit_expected(
                self.raw(agg), np.array([costs[c] for c in self.context.card_ids], dtype=float)
            )
        self.context.scales = robust_scales(self.residuals(agg))


def expected_values(raw: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """(cards, parts): each part's Huber fit on [1, costs] across the tickets; a part the
    fit cannot take (too few tickets, no spread) keeps the deck's median."""
    return fit_expected(raw, costs)[0]


def fit_expected(raw: np.ndarray, costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``expected_values`` and each one's standard error (the fit's at the ticket's cost;
    zero where the deck's median stands in)."""
    import warnings

    import statsmodels.api as sm

    errors = np.zeros(raw.shape)
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
                fitted = sm.RLM(y[seen], design[seen], M=sm.robust.norms.HuberT()).fit()
                out[:, k] = design @ fitted.params
                cov = np.asarray(fitted.cov_params())
                errors[:, k] = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", design, cov, design), 0))
        else:
            with warnings_off():
                out[:, k] = np.nanmedian(y) if seen.any() else 0.0
    return out, errors


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
        total: np.ndarray | float = 0.0
        for objective, values in zip(self.objectives, self.values(agg), strict=True):
            total = total + self.weights[objective.name] * objective.loss(values)
        return np.asarray(total)

    def get(self, name: str) -> Objective | None:
        return next((o for o in self.objectives if o.name == name), None)
