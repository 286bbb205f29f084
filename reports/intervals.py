"""Intervals and tests with the game as the unit: Wilson intervals of rates, Student t
intervals of means, intervals clustered by game or by deal, and Holm's correction.

The game is the unit (docs/statistics.md): the seats of one game are not independent, so
every interval and test on seat rows either works on one value per game or clusters by game
(cluster-robust CR1 errors). In a paired study the games of one deal (every line-up and seat
order that replays it: ``DEAL``) are not independent either: the strategy comparisons cluster
their per-game values by deal (``deal_one_sample``, ``deal_wilson``), which is the plain
per-game interval where every deal is played once. Counts say what they count: ``n_games``,
``n_seats``, ``n_tables``, ``n_pairs``, ``n_deals``. Intervals are 95%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .level import ALPHA  # noqa: F401  (the nominal level, where intervals are 95%)

Z95 = 1.959963984540054
GAME = ["cell", "game_index"]  # the key of a game: the cluster of every seat row
# the key of a deal: a paired study's games of one player count that replay it share the seed
# (sims/seeding.py); unpaired, every game has a seed of its own, so a deal is a game
DEAL = ["players", "seed"]
DUST = 1e-9  # a cluster's residual total below this is float dust of a sum that is zero


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


def deal_codes(frame: pd.DataFrame) -> np.ndarray:
    """An integer per deal (``DEAL``) of each row; each game its own where the frame has no
    seed (tables made by hand)."""
    if "seed" not in frame:
        return game_ids(frame) if set(GAME) <= set(frame) else np.arange(len(frame))
    # the codes of (players, seed) in order of first appearance, as a MultiIndex's
    # factorize numbers them, from one integer per row rather than a tuple per row
    players = pd.factorize(frame["players"])[0].astype(np.int64)
    seeds = pd.factorize(frame["seed"])[0].astype(np.int64)
    return pd.factorize(players * (int(seeds.max(initial=-1)) + 1) + seeds)[0].astype(np.int64)


def repeated(groups: np.ndarray) -> bool:
    """Whether some cluster holds more than one value (else clustering changes nothing)."""
    groups = np.asarray(groups)
    return len(pd.unique(groups)) < len(groups)


def _deal_variance(values: np.ndarray, deals: np.ndarray) -> tuple[float, float, int]:
    """(mean, variance of the mean, clusters): the CR1 sandwich of a mean clustered by deal
    (Liang-Zeger with G/(G-1); statsmodels OLS on a constant with cov_type="cluster"), the
    mean summed exactly (``math.fsum``) and each deal's residual total below ``DUST`` taken
    as zero, so that values which cancel deal by deal (a clone against its twin) give a mean
    and a variance of exactly 0."""
    import math

    n = len(values)
    mean = math.fsum(values) / n
    codes = cluster_codes(deals)
    g = int(codes.max()) + 1
    totals = np.bincount(codes, weights=values - mean, minlength=g)
    totals[np.abs(totals) < DUST] = 0.0
    if not totals.any() and abs(mean) < DUST:
        mean = 0.0
    return mean, g / max(g - 1, 1) * float(totals @ totals) / n**2, g


def deal_one_sample(values, deals=None) -> tuple[float, float, float, float, float]:
    """(mean, ci_low, ci_high, p, df): ``one_sample`` (df n - 1) where every deal holds one
    value; else the interval and t-test of mean 0 clustered by deal (CR1, t with G - 1
    degrees of freedom, Cameron and Miller 2015). Values that never vary (or cancel deal by
    deal) give no test: p is 1 when their mean is 0, else NaN, as in ``one_sample``."""
    values = np.asarray(values, dtype=float)
    keep = ~np.isnan(values)
    if deals is None or not repeated(np.asarray(deals)[keep]):
        mean, low, high, p = one_sample(values)
        return mean, low, high, p, float(keep.sum() - 1)
    values, deals = values[keep], np.asarray(deals)[keep]
    mean, variance, g = _deal_variance(values, deals)
    if g < 2:
        return mean, np.nan, np.nan, np.nan, np.nan
    se = float(np.sqrt(variance))
    if se == 0:
        return mean, mean, mean, (1.0 if mean == 0 else np.nan), float(g - 1)
    half = float(sps.t.ppf(0.975, g - 1) * se)
    p = float(2 * sps.t.sf(abs(mean / se), g - 1))
    return mean, mean - half, mean + half, p, float(g - 1)


def effective_games(values, deals) -> float:
    """The games a rate's deal-clustered variance is worth as independent games: n times the
    ratio of the per-game variance to the clustered one (Kish's design effect); n where every
    deal holds one game, infinite where the values cancel deal by deal."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < 2 or not repeated(deals):
        return float(n)
    _, clustered, _ = _deal_variance(values, np.asarray(deals))
    plain = float(values.var(ddof=1)) / n
    if clustered == 0:
        return float(n) if plain == 0 else np.inf
    return float(n) * plain / clustered


def deal_wilson(values, deals) -> tuple[float, float]:
    """Wilson's interval of the mean of per-game shares in [0, 1] over the games' effective
    number (``effective_games``): the plain Wilson interval of (sum, n) where every deal is
    played once."""
    values = np.asarray(values, dtype=float)
    if not repeated(deals):
        low, high = wilson(float(values.sum()), len(values))
        return float(low), float(high)
    n_eff = effective_games(values, deals)
    mean = float(values.mean())
    if np.isinf(n_eff):
        return mean, mean
    low, high = wilson(mean * n_eff, n_eff)
    return float(low), float(high)


def game_ids(frame: pd.DataFrame) -> np.ndarray:
    """An integer per game (cell, game_index): the cluster of every seat row."""
    cells = pd.factorize(frame["cell"])[0].astype(np.int64)
    return cells * (int(frame["game_index"].max()) + 1 if len(frame) else 1) + frame[
        "game_index"
    ].to_numpy(dtype=np.int64)


def game_table(seats: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seats as a games x places table: ``order`` takes the seats so each game's are
    together (in (cell, game_index) order; as they come where they already are), and for
    the seats taken in that order their game (0..games-1) and place within it."""
    cell = pd.factorize(seats["cell"], sort=True)[0].astype(np.int64)
    index = seats["game_index"].to_numpy(np.int64)
    key = cell * (int(index.max(initial=0)) + 1) + index
    order = np.arange(len(key))
    if len(key) and not bool((key[1:] >= key[:-1]).all()):
        order = np.argsort(key, kind="stable")
    key = key[order]
    start = np.ones(len(key), bool)
    start[1:] = key[1:] != key[:-1]
    game = np.cumsum(start) - 1
    place = np.arange(len(key)) - np.flatnonzero(start)[game]
    return game, place, order


def game_deals(seats: pd.DataFrame) -> np.ndarray:
    """The deal (``deal_codes``) of each game, in ``game_table``'s order of games."""
    if not len(seats):
        return np.zeros(0, np.int64)
    game, _, order = game_table(seats)
    out = np.zeros(int(game[-1]) + 1, np.int64)
    out[game] = deal_codes(seats)[order]
    return out


def cluster_codes(groups: np.ndarray) -> np.ndarray:
    """The clusters as codes 0..G-1 (in order of first appearance): a hash, not a sort."""
    return pd.factorize(np.asarray(groups))[0]


def several(groups: np.ndarray) -> bool:
    """Whether ``groups`` holds at least two different clusters."""
    groups = np.asarray(groups)
    return len(groups) > 0 and bool((groups != groups[0]).any())


def cluster_fit(
    y: np.ndarray, x: np.ndarray, groups: np.ndarray, codes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """OLS with the cluster-robust (CR1) covariance by game: the Liang-Zeger sandwich with the
    small-sample factor G/(G-1) (N-1)/(N-K), t with G-1 degrees of freedom (Cameron and
    Miller 2015); what statsmodels ``OLS(...).fit(cov_type="cluster", use_t=True)`` gives,
    computed with numpy (a report fits dozens: statsmodels' per-fit overhead dominated).
    Returns (coefficients, covariance, degrees of freedom); ``codes``: the groups'
    ``cluster_codes`` where the caller has them."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    codes = cluster_codes(groups) if codes is None else codes
    g = int(codes.max()) + 1
    bread = np.linalg.inv(x.T @ x)
    beta = bread @ (x.T @ y)
    residual = y - x @ beta
    scores = np.column_stack(
        [np.bincount(codes, weights=x[:, j] * residual, minlength=g) for j in range(k)]
    )
    factor = g / (g - 1) * (n - 1) / (n - k)
    return beta, factor * bread @ (scores.T @ scores) @ bread, g - 1


def _cluster_interval(beta, cov, df, i: int) -> tuple[float, float, float, float]:
    """(estimate, ci_low, ci_high, p) of coefficient ``i`` with a t on ``df``."""
    se = float(np.sqrt(max(cov[i, i], 0.0)))
    half = float(sps.t.ppf(0.975, df) * se)
    est = float(beta[i])
    p = float(2 * sps.t.sf(abs(est / se), df)) if se > 0 else (1.0 if est == 0 else 0.0)
    return est, est - half, est + half, p


def cluster_mean(values, groups, codes: np.ndarray | None = None) -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of seat rows, the interval clustered by game (statsmodels OLS on
    a constant, cov_type="cluster"). A column that never varies gets its value as interval.
    ``codes``: the groups' ``cluster_codes`` where the caller has them."""
    y = np.asarray(values, dtype=float)
    groups = np.asarray(groups)
    if len(y) == 0:
        return np.nan, np.nan, np.nan
    mean = float(y.mean())
    if not several(groups):
        return mean, np.nan, np.nan
    if np.ptp(y) == 0:
        return mean, mean, mean
    fit = cluster_fit(y, np.ones((len(y), 1)), groups, codes)
    _, low, high, _ = _cluster_interval(*fit, 0)
    return mean, low, high


def cluster_difference(values, flag, groups) -> tuple[float, float, float, float]:
    """(difference, ci_low, ci_high, p): mean of the flagged rows minus the others, from OLS
    of the values on a constant and the flag with errors clustered by game."""
    y = np.asarray(values, dtype=float)
    x = np.asarray(flag, dtype=float)
    groups = np.asarray(groups)
    if x.sum() < 2 or (1 - x).sum() < 2 or not several(groups):
        return np.nan, np.nan, np.nan, np.nan
    diff = float(y[x == 1].mean() - y[x == 0].mean())
    if np.ptp(y) == 0:
        return diff, diff, diff, 1.0
    return _cluster_interval(*cluster_fit(y, np.column_stack([np.ones_like(x), x]), groups), 1)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979; the same as statsmodels
    ``multipletests(method="holm")``, without its per-call garbage collection), capped at 1;
    NaN p-values stay NaN and are not part of the family."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    known = np.flatnonzero(~np.isnan(p))
    m = len(known)
    if m == 0:
        return out
    order = known[np.argsort(p[known], kind="stable")]
    steps = p[order] * np.arange(m, 0, -1)
    out[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return out


def adjust(p_values: pd.Series) -> pd.Series:
    """Holm's step-down correction over a family (``holm``); NaN p-values stay NaN."""
    p_values = pd.Series(p_values, dtype=float)
    return pd.Series(holm(p_values.to_numpy()), index=p_values.index)


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
    return cluster_mean_tables(frame, by, [column])[column]


def cluster_mean_tables(
    frame: pd.DataFrame, by: list[str], columns: list[str]
) -> dict[str, pd.DataFrame]:
    """``cluster_mean_table`` of each column, by column: the groups and each group's games
    found once for all of them."""
    ids = game_ids(frame)  # once for the frame, not per group
    groups = []
    for key, where in sorted(frame.groupby(by, sort=True).indices.items()):
        key = key if isinstance(key, tuple) else (key,)
        codes = cluster_codes(ids[where])
        groups.append((dict(zip(by, key, strict=True)), where, codes))
    out = {}
    for column in columns:
        values = frame[column].to_numpy(dtype=float)
        rows = []
        for keys, where, codes in groups:
            mean, low, high = cluster_mean(values[where], ids[where], codes)
            rows.append(
                {
                    **keys,
                    "n_games": int(codes.max(initial=-1)) + 1,
                    "n_seats": len(where),
                    "mean": mean,
                    "ci_low": low,
                    "ci_high": high,
                }
            )
        out[column] = pd.DataFrame(rows)
    return out
