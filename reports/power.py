"""Power and convergence: what a study's n could detect, how many games a question needs,
and how the key estimates settle as games accumulate.

Every power figure is for a two-sided test at the 5% level with 80% power (docs/statistics.md,
"Power and convergence"). Rates use Cohen's arcsine effect size h with statsmodels'
``NormalIndPower`` (``ratio=0``: one sample against a known share); differences with a
standard error use the normal shortcut MDE = (z_0.975 + z_0.8) * SE, and the n needed for an
observed difference scales that SE as 1/sqrt(n); a t-test's own detectable effect uses t
quantiles (``detectable_effect``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import GAME, wilson
from .level import current_alpha
from .wins import per_game_shares

POWER = 0.8
Z_ALPHA = 1.959963984540054  # z_0.975: the nominal level's (a look's is current_alpha)
Z_POWER = 0.8416212335729143  # z_0.8
FIRST_MARK = 10  # the first checkpoint of a convergence curve, in games
MIN_CONVERGENCE_GAMES = 50  # fewer games: no convergence figure, a sentence instead


def _h_to_rate(p0: float, h: float) -> float:
    """The rate p1 whose arcsine distance from p0 is h (inverse of proportion_effectsize)."""
    angle = math.asin(math.sqrt(p0)) + h / 2
    return math.sin(min(max(angle, 0.0), math.pi / 2)) ** 2


def mde_rate(p0: float, n: float) -> float:
    """The smallest rise above a share p0 that n games detect (80% power, two-sided 5%), in
    the rate's own units (e.g. 0.08 = 8 percentage points); NaN when it cannot be said."""
    from statsmodels.stats.power import NormalIndPower

    if not (0 < p0 < 1) or not n or n < 2 or not np.isfinite(n):
        return math.nan
    h = NormalIndPower().solve_power(
        effect_size=None, nobs1=float(n), alpha=current_alpha(), power=POWER, ratio=0
    )
    return _h_to_rate(p0, float(h)) - p0


def mde_from_se(se: float) -> float:
    """The smallest difference a test with this standard error detects (80%, two-sided 5%)."""
    if not np.isfinite(se):
        return math.nan
    return float((sps.norm.ppf(1 - current_alpha() / 2) + Z_POWER) * se)


def detectable_effect(se: float, dof: float, power: float = POWER) -> float:
    """The smallest true difference a two-sided 5% t-test finds with ``power``:
    (t_{0.975,dof} + t_{power,dof}) * se (the normal formula with t quantiles)."""
    if not np.isfinite(se) or not np.isfinite(dof) or dof < 1:
        return np.nan
    return float((sps.t.ppf(1 - current_alpha() / 2, dof) + sps.t.ppf(power, dof)) * se)


# ------------------------------------------------------------------ convergence
def convergence(seats: pd.DataFrame, points: int = 40) -> pd.DataFrame:
    """Cumulative win rate of every strategy per player count against games played, in
    game-index order (deterministic): one row per (players, strategy, games) checkpoint with
    the Wilson 95% interval over the games it sat in (a strategy's seats' win shares summed
    per game, as in ``wins.win_rates``). Strategies alone at their tables are left out."""
    if seats.empty:
        return pd.DataFrame(
            columns=["players", "strategy", "games", "n_games", "rate", "ci_low", "ci_high"]
        )
    unit = per_game_shares(seats)
    unit = unit[unit["fair"] < 1]
    order = (
        seats[["players", *GAME]].drop_duplicates().sort_values(["players", "game_index", "cell"])
    )
    order["games"] = order.groupby("players").cumcount() + 1
    unit = unit.merge(order, on=["players", *GAME])
    rows = []
    for (players, strategy), group in unit.groupby(["players", "strategy"], sort=True):
        group = group.sort_values("games")
        total = int(order.loc[order["players"] == players, "games"].max())
        start = min(FIRST_MARK, total)  # a rate after 1 or 2 games is 0 or 1: noise
        marks = np.unique(np.linspace(start, total, min(points, total)).round().astype(int))
        played = group["games"].to_numpy()
        wins = group["win"].cumsum().to_numpy()
        for mark in marks:
            k = int(np.searchsorted(played, mark, side="right"))
            if k == 0:
                continue
            low, high = wilson(wins[k - 1], k)
            rows.append(
                {
                    "players": int(players),
                    "strategy": strategy,
                    "games": int(mark),
                    "n_games": k,
                    "rate": wins[k - 1] / k,
                    "ci_low": float(low),
                    "ci_high": float(high),
                }
            )
    return pd.DataFrame(
        rows, columns=["players", "strategy", "games", "n_games", "rate", "ci_low", "ci_high"]
    )


def seat_convergence(seats: pd.DataFrame, points: int = 40) -> pd.DataFrame:
    """Cumulative win rate of the first seat (seat 0, plays first: R6) per player count, in
    game-index order; the key estimate of a study whose seats all play one strategy."""
    first = seats[seats["seat"] == 0].assign(strategy="seat 0")
    rest = seats[seats["seat"] != 0].assign(strategy="other seats")
    frame = convergence(pd.concat([first, rest], ignore_index=True), points)
    return frame[frame["strategy"] == "seat 0"].reset_index(drop=True)


def key_convergence(seats: pd.DataFrame, points: int = 40) -> pd.DataFrame:
    """Strategies' win rates where strategies meet; else the first seat's win rate."""
    frame = convergence(seats, points)
    return frame if not frame.empty else seat_convergence(seats, points)
