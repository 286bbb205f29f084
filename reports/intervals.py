"""Intervals and tests with the game as the unit: Wilson intervals of rates, Student t
intervals of means, intervals clustered by game, and Holm's correction.

The game is the unit (docs/statistics.md): the seats of one game are not independent, so
every interval and test on seat rows either works on one value per game or clusters by game
(cluster-robust CR1 errors). Counts say what they count: ``n_games``, ``n_seats``,
``n_tables``, ``n_pairs``. Intervals are 95%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

Z95 = 1.959963984540054
ALPHA = 0.05
GAME = ["cell", "game_index"]  # the key of a game: the cluster of every seat row


def wilson(successes: float | np.ndarray, n: float | np.ndarray, z: float = Z95):
    """Wilson score interval (Wilson 1927); fractional successes (shared wins) allowed."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # rounding removes float dust (1e-18 where the bound is exactly 0 or 1)
    return np.clip(np.round(centre - half, 12), 0, 1), np.clip(np.round(centre + half, 12), 0, 1)


def mean_ci(values: pd.Series) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high): Student t 95% interval for the mean of independent values."""
    values = pd.Series(values, dtype=float).dropna()
    n = len(values)
    if n == 0:
        return 0, np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return n, mean, np.nan, np.nan
    half = float(sps.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return n, mean, mean - half, mean + half


def one_sample(values) -> tuple[float, float, float, float]:
    """(mean, ci_low, ci_high, p): Student t interval and t-test of mean 0 over independent
    values (numpy, as scipy.stats.ttest_1samp computes it, without its per-call overhead).

    Values that never vary give no test: p is 1 when they are all 0, else NaN (a
    separation the caller must say in words)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return np.nan, np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return mean, np.nan, np.nan, np.nan
    sd = float(values.std(ddof=1))
    if sd == 0:
        return mean, mean, mean, 1.0 if mean == 0 else np.nan
    se = sd / np.sqrt(n)
    half = float(sps.t.ppf(0.975, n - 1) * se)
    p = float(2 * sps.t.sf(abs(mean / se), n - 1))
    return mean, mean - half, mean + half, p


def game_ids(frame: pd.DataFrame) -> np.ndarray:
    """An integer per game (cell, game_index): the cluster of every seat row."""
    return frame.groupby(GAME, sort=False).ngroup().to_numpy()


def _cluster_fit(y: np.ndarray, x: np.ndarray, groups: np.ndarray):
    """OLS with cluster-robust (CR1) covariance by game and t with G-1 degrees of freedom."""
    import statsmodels.api as sm

    return sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)


def cluster_mean(values, groups) -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of seat rows, the interval clustered by game (statsmodels OLS on
    a constant, cov_type="cluster"). A column that never varies gets its value as interval."""
    y = np.asarray(values, dtype=float)
    groups = np.asarray(groups)
    if len(y) == 0:
        return np.nan, np.nan, np.nan
    mean = float(y.mean())
    if len(np.unique(groups)) < 2:
        return mean, np.nan, np.nan
    if np.ptp(y) == 0:
        return mean, mean, mean
    low, high = _cluster_fit(y, np.ones((len(y), 1)), groups).conf_int()[0]
    return mean, float(low), float(high)


def cluster_difference(values, flag, groups) -> tuple[float, float, float, float]:
    """(difference, ci_low, ci_high, p): mean of the flagged rows minus the others, from OLS
    of the values on a constant and the flag with errors clustered by game."""
    y = np.asarray(values, dtype=float)
    x = np.asarray(flag, dtype=float)
    groups = np.asarray(groups)
    if x.sum() < 2 or (1 - x).sum() < 2 or len(np.unique(groups)) < 2:
        return np.nan, np.nan, np.nan, np.nan
    diff = float(y[x == 1].mean() - y[x == 0].mean())
    if np.ptp(y) == 0:
        return diff, diff, diff, 1.0
    fit = _cluster_fit(y, np.column_stack([np.ones_like(x), x]), groups)
    low, high = fit.conf_int()[1]
    return float(fit.params[1]), float(low), float(high), float(fit.pvalues[1])


def adjust(p_values: pd.Series) -> pd.Series:
    """Holm's step-down correction (statsmodels multipletests); NaN p-values stay NaN."""
    from statsmodels.stats.multitest import multipletests

    p_values = pd.Series(p_values, dtype=float)
    out = pd.Series(np.nan, index=p_values.index)
    known = p_values.dropna()
    if len(known) == 1:  # Holm over one test is the test itself (and multipletests is slow)
        out[known.index] = known
    elif len(known):
        out[known.index] = multipletests(known.to_numpy(), method="holm")[1]
    return out


def mean_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """Means of one row per game (independent rows): Student t intervals, ``n_games``."""
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        n, mean, low, high = mean_ci(group[column])
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_games": n,
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows)


def cluster_mean_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """Means of seat rows: intervals clustered by game, ``n_games`` and ``n_seats``."""
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        values = group[column].astype(float)
        ids = game_ids(group)
        mean, low, high = cluster_mean(values, ids)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_games": len(np.unique(ids)),
                "n_seats": len(values),
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows)
