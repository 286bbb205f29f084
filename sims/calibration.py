"""Calibration of win-chance estimates: Brier score, reliability curve, expected calibration
error, with intervals from a bootstrap over games.

Shared by the play-out oracle's benchmark (benchmarks/winchance.py) and the learned model's
(benchmarks/standing.py), so both are measured by the same code. An estimate is a seat's
chance at one position; its outcome is the seat's share of the real win (1, 0, or 1/k of a
shared win). The positions and seats of one game are not independent, so intervals resample
whole games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

BINS = 10  # equal-width bins of the reliability curve and the ECE


@dataclass(frozen=True)
class Bin:
    """One bin of the reliability curve: estimates in ``[low, high)`` (the last bin holds
    1.0 too), how many, their mean and the mean outcome (nan when empty)."""

    low: float
    high: float
    n: int
    mean_estimate: float
    won: float


def bin_index(p: np.ndarray, bins: int = BINS) -> np.ndarray:
    """The bin of each estimate: ``floor(p * bins)``, 1.0 in the last bin."""
    return np.minimum((np.asarray(p, dtype=float) * bins).astype(int), bins - 1)


def brier(p: np.ndarray, y: np.ndarray) -> float:
    """Mean squared difference between estimate and outcome (Brier 1950)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    return float(np.mean((p - y) ** 2))


def reliability(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> list[Bin]:
    """The reliability curve: per bin, the count, mean estimate and mean outcome."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    which = bin_index(p, bins)
    out = []
    for b in range(bins):
        inside = which == b
        n = int(inside.sum())
        mean_p = float(p[inside].mean()) if n else float("nan")
        mean_y = float(y[inside].mean()) if n else float("nan")
        out.append(Bin(b / bins, (b + 1) / bins, n, mean_p, mean_y))
    return out


def ece(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error: the bins' gaps ``|mean estimate - mean outcome|``
    weighted by their share of the estimates (Naeini et al. 2015), equal-width bins."""
    total = len(np.asarray(p))
    return float(
        sum(b.n / total * abs(b.mean_estimate - b.won) for b in reliability(p, y, bins) if b.n)
    )


def noise(game: np.ndarray, p: np.ndarray, y: np.ndarray, bins: int = BINS) -> tuple[float, float]:
    """The binned ECE's sampling noise and the ECE with it taken out: (the ECE a calibrated
    estimator would show on average on a sample like this one, the debiased ECE).

    A bin's gap ``mean outcome - mean estimate`` has a sampling variance ``v`` even when the
    estimates are calibrated, and ``|gap|`` is biased upward by it: on a few hundred games a
    calibrated estimator shows an ECE of a few hundredths. ``v`` is estimated from each
    game's residuals in the bin (the seats and positions of one game are not independent,
    so whole games are the units); the calibrated reference's ECE is ``sum w_b sqrt(2 v_b /
    pi)`` (the mean of ``|N(0, v_b)|``) and the debiased ECE ``sum w_b sqrt(max(gap_b^2 -
    v_b, 0))`` (the squared gap less its noise, as Kumar et al. 2019 debias the squared
    calibration error), ``w_b`` the bin's share of the estimates."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    _, code = np.unique(np.asarray(game), return_inverse=True)
    which = bin_index(p, bins)
    total = len(p)
    floor = debiased = 0.0
    for b in range(bins):
        inside = which == b
        n = int(inside.sum())
        if not n:
            continue
        gap = float((y[inside] - p[inside]).mean())
        games, local = np.unique(code[inside], return_inverse=True)
        residual = np.bincount(local, weights=y[inside] - p[inside])
        count = np.bincount(local).astype(float)
        clusters = len(games)
        spread = float(((residual - count * gap) ** 2).sum()) / n**2
        variance = spread * clusters / (clusters - 1) if clusters > 1 else gap * gap
        floor += n / total * math.sqrt(2 * variance / math.pi)
        debiased += n / total * math.sqrt(max(gap * gap - variance, 0.0))
    return floor, debiased


def bootstrap(
    game: np.ndarray,
    p: np.ndarray,
    y: np.ndarray,
    draws: int,
    seed: int,
    bins: int = BINS,
) -> tuple[np.ndarray, np.ndarray]:
    """Brier score and ECE of ``draws`` resamples of whole games (with replacement).

    Each game is reduced once to its sums (estimates, squared errors, and per bin the count,
    the estimates' sum and the outcomes' sum); a resample is then a vector of how many times
    each game was drawn, and its figures a matrix product. The draws depend only on
    ``seed`` and the number of games, so two estimators scored on the same games and seed
    get the same resamples: their difference is a paired bootstrap."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    games, code = np.unique(np.asarray(game), return_inverse=True)
    count = len(games)
    which = bin_index(p, bins)
    n = np.bincount(code, minlength=count).astype(float)
    sse = np.bincount(code, weights=(p - y) ** 2, minlength=count)
    cell = code * bins + which
    size = count * bins
    bin_p = np.bincount(cell, weights=p, minlength=size).reshape(count, bins)
    bin_y = np.bincount(cell, weights=y, minlength=size).reshape(count, bins)
    rng = np.random.default_rng(seed)
    weights = np.empty((draws, count))
    for d in range(draws):
        weights[d] = np.bincount(rng.choice(count, count), minlength=count)
    total = weights @ n
    briers = (weights @ sse) / total
    eces = np.abs(weights @ bin_p - weights @ bin_y).sum(axis=1) / total
    return briers, eces


def interval(values: np.ndarray) -> list[float]:
    """The central 95% of bootstrap values."""
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


def report(
    game: np.ndarray,
    players: np.ndarray,
    p: np.ndarray,
    y: np.ndarray,
    draws: int,
    seed: int,
) -> dict[str, Any]:
    """Every figure of a calibration, overall and per player count: Brier score with the
    uninformed guess 1/players beside it, ECE, the reliability bins, 95% intervals from
    ``draws`` bootstrap resamples of games."""
    game, players = np.asarray(game), np.asarray(players, dtype=float)
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    briers, eces = bootstrap(game, p, y, draws, seed)
    out: dict[str, Any] = {
        "games": len(np.unique(game)),
        "estimates": len(p),
        "brier": brier(p, y),
        "brier_ci": interval(briers),
        "brier_uninformed": brier(1 / players, y),
        "ece": ece(p, y),
        "ece_ci": interval(eces),
        "ece_noise": noise(game, p, y)[0],
        "ece_debiased": noise(game, p, y)[1],
        "bins": [
            {"low": b.low, "high": b.high, "n": b.n, "mean_estimate": b.mean_estimate, "won": b.won}
            for b in reliability(p, y)
        ],
        "by_players": {},
    }
    for count in (2, 3, 4):
        part = players == count
        if not part.any():
            continue
        b_part, e_part = bootstrap(game[part], p[part], y[part], draws, seed)
        out["by_players"][count] = {
            "games": len(np.unique(game[part])),
            "brier": brier(p[part], y[part]),
            "brier_ci": interval(b_part),
            "brier_uninformed": brier(np.full(int(part.sum()), 1 / count), y[part]),
            "ece": ece(p[part], y[part]),
            "ece_ci": interval(e_part),
        }
    return out


def by_group(
    game: np.ndarray,
    group: np.ndarray,
    p: np.ndarray,
    y: np.ndarray,
    draws: int,
    seed: int,
) -> dict[Any, dict[str, Any]]:
    """The calibration of each group's estimates apart (e.g. the seats of one strategy):
    how many games and estimates, the mean estimate beside the mean outcome (the group's
    bias), Brier score and ECE with 95% intervals from a bootstrap over the games the group
    sits in, and the ECE's noise floor and debiased value (``noise``). A model calibrated
    overall can be biased for every group, one up and another down: only this shows it."""
    game, group = np.asarray(game), np.asarray(group)
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    out: dict[Any, dict[str, Any]] = {}
    for value in sorted(set(group.tolist())):
        part = group == value
        briers, eces = bootstrap(game[part], p[part], y[part], draws, seed)
        out[value] = {
            "games": len(np.unique(game[part])),
            "estimates": int(part.sum()),
            "mean_estimate": float(p[part].mean()),
            "won": float(y[part].mean()),
            "brier": brier(p[part], y[part]),
            "brier_ci": interval(briers),
            "ece": ece(p[part], y[part]),
            "ece_ci": interval(eces),
        }
        floor, debiased = noise(game[part], p[part], y[part])
        out[value]["ece_noise"] = floor
        out[value]["ece_debiased"] = debiased
    return out
