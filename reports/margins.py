"""Practical margins and the three verdicts: *different*, *practically equal* or *not yet
known*, each read off a comparison's interval against the margin a designer would notice.

A comparison (a difference with its standard error) belongs to a stated family of m
comparisons (the pairs of strategies at one player count, the player counts of the seat
edge, ...); the correction is Bonferroni's, so that every verdict can be read off one
interval shown to the reader:

- **different**: the family interval (two-sided, level 1 - 0.05/m) excludes 0; the same as
  the Bonferroni-adjusted p-value of the difference test below 0.05;
- **practically equal**: the equivalence interval (level 1 - 2 x 0.05/m) lies inside
  (-margin, +margin): the equivalence test TOST (two one-sided tests, Schuirmann 1987) at 5%
  with Bonferroni over the family. It wins over *different*: a real difference smaller than
  the margin is one a designer would not notice;
- **not yet known** otherwise, with the sample needed to decide at that margin (80% power,
  at 0.05/m).

Margins are per metric (``DEFAULT_MARGINS``); a study file may set them in its ``[report]``
table (``margins = { win_share = 0.03 }``), which the manifest's study dict carries, each from
a hundredth of its default to the most the metric can move (``sims.plan.REPORT_MARGINS``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from sims.errors import ResultsError
from sims.plan import margin_problem

from .level import ALPHA, current_alpha  # noqa: F401

POWER = 0.8
DIFFERENT, EQUAL, UNKNOWN = "different", "practically equal", "not yet known"
VERDICTS = (DIFFERENT, EQUAL, UNKNOWN)

# metric -> (practical margin, what it is in words); a change smaller than the margin is one
# a designer would not notice
DEFAULT_MARGINS: dict[str, float] = {
    "win_share": 0.02,  # 2 percentage points of win share (strategies, seats, variants)
    "log_odds": 0.1,  # Plackett-Luce strength difference
    "score": 1.0,  # points of score (mean score, score margins, swaps)
    "turns": 1.0,  # turns per game, all seats together
    "minutes": 1.0,  # simulated minutes per game
    "steals": 0.1,  # steals per game
    "unreached": 0.1,  # destinations left unreached per seat
    "points_per_game": 0.25,  # a swept ticket's net points per game
    # game quality (reports/quality.py), each a mean per game
    "lead_changes": 0.25,  # a quarter of a lead change per game
    "drama": 0.01,  # how far behind the eventual winner was, in win chance
    "excitement": 0.05,  # total change of win chance over a game
    "decisive_fraction": 0.02,  # 2% of the game earlier or later before it was decided
    "comeback": 0.25,  # 1 / the winner's lowest chance
}
# what each margin is counted in, for the message that refuses one (its range:
# sims.plan.REPORT_MARGINS)
MARGIN_UNITS: dict[str, str] = {
    "win_share": "a share of games",
    "log_odds": "log-odds of strength",
    "score": "points",
    "turns": "turns per game; a game ends by 2000",
    "minutes": "simulated minutes per game",
    "steals": "steals per game",
    "unreached": "unreached destinations per seat",
    "points_per_game": "net points per game",
    "lead_changes": "lead changes per game",
    "drama": "a win chance",
    "excitement": "win chance moved per game",
    "decisive_fraction": "a share of the game",
    "comeback": "the comeback factor, at most 100",
}
MARGIN_WORDS = {
    "win_share": "percentage points of win share",
    "log_odds": "log-odds of strength",
    "score": "points of score",
    "turns": "turns per game",
    "minutes": "simulated minutes",
    "steals": "steals per game",
    "unreached": "unreached destinations per seat",
    "points_per_game": "net points per game",
    "lead_changes": "lead changes per game",
    "drama": "of win chance (drama)",
    "excitement": "of win chance moved per game (excitement)",
    "decisive_fraction": "of the game before it was decided",
    "comeback": "of the comeback factor",
}


def margins_of(study: Mapping[str, Any] | None) -> dict[str, float]:
    """The practical margins of a study: the defaults, updated by its ``[report]`` table's
    ``margins`` (from the manifest's study dict); a bad entry is one ResultsError line."""
    out = dict(DEFAULT_MARGINS)
    report = (study or {}).get("report") or {}
    given = report.get("margins") or {} if isinstance(report, Mapping) else None
    if not isinstance(given, Mapping):
        raise ResultsError("[report] margins: must be a table of metric = margin")
    for name, value in given.items():
        if name not in DEFAULT_MARGINS:
            raise ResultsError(
                f"[report] margins.{name}: unknown metric (known: {', '.join(DEFAULT_MARGINS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ResultsError(f"[report] margins.{name}: must be a positive number, got {value!r}")
        problem = margin_problem(name, value)
        if problem is not None:
            raise ResultsError(f"[report] margins.{name} ({MARGIN_UNITS[name]}): {problem}")
        out[name] = float(value)
    return out


# ------------------------------------------------------------------ tests
def _dist(df: float | None):
    return sps.t(df) if df is not None and np.isfinite(df) else sps.norm


def tost_p(estimate: float, se: float, margin: float, df: float | None = None) -> float:
    """The TOST p-value of |true difference| >= margin: the larger of the two one-sided
    p-values (H0 difference <= -margin, H0 difference >= +margin), Student t with ``df``
    or normal. Rejected at 5% exactly when the 90% interval lies inside (-margin, margin).
    NaN when the standard error is unknown; an exact estimate (se 0) gets 0 or 1."""
    if not (np.isfinite(estimate) and np.isfinite(se)) or se < 0:
        return math.nan
    if se == 0:
        return 0.0 if abs(estimate) < margin else 1.0
    dist = _dist(df)
    lower = float(dist.sf((estimate + margin) / se))  # H0: difference <= -margin
    upper = float(dist.cdf((estimate - margin) / se))  # H0: difference >= +margin
    return max(lower, upper)


def tost_many(estimate, se, margin: float, df) -> np.ndarray:
    """``tost_p`` of many comparisons at once (df infinite: normal)."""
    estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
    df = np.broadcast_to(np.asarray(df, dtype=float), estimate.shape)
    out = np.full(estimate.shape, np.nan)
    ok = np.isfinite(estimate) & np.isfinite(se) & (se >= 0)
    exact = ok & (se == 0)
    out[exact] = np.where(np.abs(estimate[exact]) < margin, 0.0, 1.0)
    live = ok & (se > 0)
    t_rows = live & np.isfinite(df)
    z_rows = live & ~np.isfinite(df)
    for rows, sf, cdf in (
        (t_rows, lambda x, d: sps.t.sf(x, d), lambda x, d: sps.t.cdf(x, d)),
        (z_rows, lambda x, d: sps.norm.sf(x), lambda x, d: sps.norm.cdf(x)),
    ):
        if rows.any():
            e, s, d = estimate[rows], se[rows], df[rows]
            out[rows] = np.maximum(sf((e + margin) / s, d), cdf((e - margin) / s, d))
    return out


def verdict(p_difference: float, p_equivalence: float, alpha: float | None = None) -> str:
    """The verdict of one comparison from its two (family-corrected) p-values, at the
    report's level (reports/level.py) unless ``alpha`` is given."""
    alpha = current_alpha() if alpha is None else alpha
    if np.isfinite(p_equivalence) and p_equivalence < alpha:
        return EQUAL
    if np.isfinite(p_difference) and p_difference < alpha:
        return DIFFERENT
    return UNKNOWN


def interval_verdict(low: float, high: float, margin: float) -> str:
    """The verdict read off one interval (already at the family's level): inside the margin,
    practically equal; else excluding 0, different; else not yet known."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return UNKNOWN
    if -margin < low and high < margin:
        return EQUAL
    if low > 0 or high < 0:
        return DIFFERENT
    return UNKNOWN


# ------------------------------------------------------------------ power at the margin
def decide_factor(family: int = 1, alpha: float | None = None, power: float = POWER) -> float:
    """How many standard errors the margin must span for either verdict to come with
    ``power``: a true difference of the margin found by the two-sided test at level
    alpha / family (z_{1-alpha/2m} + z_power), and no difference shown equivalent by TOST at
    alpha / family (z_{1-alpha/m} + z_{(1+power)/2}); the larger of the two."""
    m = max(int(family), 1)
    level = (current_alpha() if alpha is None else alpha) / m
    superiority = sps.norm.ppf(1 - level / 2) + sps.norm.ppf(power)
    equivalence = sps.norm.ppf(1 - level) + sps.norm.ppf((1 + power) / 2)
    return float(max(superiority, equivalence))


def n_to_decide(n: float, se: float, margin: float, family: int = 1) -> float:
    """The sample size (in the unit of ``n``: games, deals, tables) at which the margin is
    decided with 80% power under the correction in use: the standard error shrinks as
    1/sqrt(n). NaN when the standard error is unknown."""
    if not (np.isfinite(se) and se > 0 and n and np.isfinite(n)):
        return math.nan
    return float(math.ceil(round(n * (decide_factor(family) * se / margin) ** 2, 6)))


def mde(se: float, family: int = 1, alpha: float | None = None, power: float = POWER) -> float:
    """The smallest difference found with ``power`` by a two-sided test at alpha / family."""
    if not np.isfinite(se):
        return math.nan
    level = (current_alpha() if alpha is None else alpha) / max(int(family), 1)
    return float((sps.norm.ppf(1 - level / 2) + sps.norm.ppf(power)) * se)


def games_for_change(sd: float, change: float, family: int = 1, paired: bool = True) -> float:
    """Units needed to detect a change of ``change`` at 80% power, two-sided at 0.05 / family:
    paired (one difference per unit, ``sd`` of the differences) (z + z)^2 sd^2 / change^2;
    unpaired (two independent samples of that size each, ``sd`` of one value)
    2 (z + z)^2 sd^2 / change^2."""
    if not (np.isfinite(sd) and sd > 0 and change > 0):
        return math.nan
    level = current_alpha() / max(int(family), 1)
    z = sps.norm.ppf(1 - level / 2) + sps.norm.ppf(POWER)
    return float(math.ceil((1 if paired else 2) * (z * sd / change) ** 2))


# ------------------------------------------------------------------ whole tables
JUDGED = tuple(
    """
        margin se family_size family_low family_high equiv_low equiv_high p_adjusted p_equivalence
        p_equivalence_adjusted verdict needed family
    """.split()
)


def judge(
    table: pd.DataFrame,
    margin: float,
    family: list[str],
    estimate: str = "difference",
    low: str = "ci_low",
    high: str = "ci_high",
    p_value: str = "p_value",
    df: str | None = None,
    n: str = "n_games",
    family_name: str = "",
) -> pd.DataFrame:
    """Add the verdict columns to a table of comparisons with symmetric 95% intervals (Student
    t with ``df``, else normal). Each ``family`` group (all rows when empty) of m tests gives:
    ``family_low``/``family_high``, the interval at 1 - 0.05/m, and ``p_adjusted``, the
    Bonferroni-adjusted p (below 0.05 exactly when that interval excludes 0);
    ``equiv_low``/``equiv_high`` at 1 - 0.1/m, and ``p_equivalence`` (TOST against the margin)
    with its adjusted ``p_equivalence_adjusted`` (below 0.05 exactly when that interval lies
    inside the margin); ``verdict``; ``needed`` (units of ``n`` to decide at the margin, 80%
    power at 0.05/m; only where not yet known); ``family`` (its description)."""
    out = table.copy()
    if out.empty:
        for column in JUDGED:
            out[column] = pd.Series(dtype=object if column in ("verdict", "family") else float)
        return out
    dof = out[df].astype(float) if df else pd.Series(np.inf, index=out.index)
    finite = np.isfinite(dof.to_numpy())
    clipped = dof.clip(lower=1).to_numpy()

    def quantile(level: float | np.ndarray) -> np.ndarray:
        return np.where(finite, sps.t.ppf(level, clipped), sps.norm.ppf(level))

    value = out[estimate].astype(float).to_numpy()
    se = (out[high].astype(float) - out[low].astype(float)).to_numpy() / (2 * quantile(0.975))
    groups = (
        out.groupby(family, sort=False, dropna=False).indices
        if family
        else {None: np.arange(len(out))}
    )
    size = np.ones(len(out))
    for rows in groups.values():
        size[rows] = max(int(out[p_value].iloc[rows].notna().sum()), 1)
    alpha = current_alpha()
    half = quantile(1 - alpha / (2 * size)) * se
    equiv = quantile(1 - alpha / size) * se
    p_raw = out[p_value].astype(float).to_numpy()
    p_equiv = tost_many(value, se, margin, np.where(finite, clipped, np.inf))
    out["margin"] = margin
    out["se"] = se
    out["family_size"] = size
    out["family_low"], out["family_high"] = value - half, value + half
    out["equiv_low"], out["equiv_high"] = value - equiv, value + equiv
    out["p_adjusted"] = np.minimum(p_raw * size, 1.0)
    out["p_equivalence"] = p_equiv
    out["p_equivalence_adjusted"] = np.minimum(p_equiv * size, 1.0)
    out["verdict"] = [
        verdict(a, b) for a, b in zip(out["p_adjusted"], out["p_equivalence_adjusted"], strict=True)
    ]
    out["needed"] = [
        n_to_decide(float(k), float(s), margin, int(m)) if v == UNKNOWN else math.nan
        for k, s, m, v in zip(out[n], se, size, out["verdict"], strict=True)
    ]
    out["family"] = family_name
    return out
