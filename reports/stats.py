"""Statistics as functions: tidy DataFrame in, tidy DataFrame out, no plotting.

Every rate comes with ``n``, ``ci_low`` and ``ci_high``: Wilson 95% intervals for
proportions, Student t intervals for means, bootstrap intervals for ratings. Tests of
equality report their p-value and say whether it is significant at 5%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

Z95 = 1.959963984540054
MIN_OFF_TREND = 2.0  # points: a smaller gap from the trend is not worth a designer's time
ALPHA = 0.05


# ------------------------------------------------------------------ intervals
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
    """(n, mean, ci_low, ci_high): Student t 95% interval for the mean."""
    values = pd.Series(values, dtype=float).dropna()
    n = len(values)
    if n == 0:
        return 0, np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return n, mean, np.nan, np.nan
    half = float(sps.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return n, mean, mean - half, mean + half


def _mean_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        n, mean, low, high = mean_ci(group[column])
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n": n,
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows)


def _rate_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    grouped = frame.groupby(by, sort=True)[column].agg(["sum", "count"]).reset_index()
    grouped = grouped.rename(columns={"sum": "successes", "count": "n"})
    grouped["rate"] = grouped["successes"] / grouped["n"]
    grouped["ci_low"], grouped["ci_high"] = wilson(grouped["successes"], grouped["n"])
    return grouped


# ------------------------------------------------------------------ strategies
def win_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """Win rate per strategy and player count; a k-way shared win counts 1/k.

    ``fair`` is 1/players, the rate of a strategy no better than its table.
    """
    table = _rate_table(seats, ["players", "strategy"], "win_share")
    table["fair"] = 1.0 / table["players"]
    table["significant"] = (table["ci_low"] > table["fair"]) | (table["ci_high"] < table["fair"])
    return table.sort_values(["players", "rate"], ascending=[True, False]).reset_index(drop=True)


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """For each ordered pair of strategies at the same table: how often the first finished
    ahead of the second (a tie on the final ranking counts one half)."""
    key = ["cell", "game_index"]
    left = seats[[*key, "players", "strategy", "seat", "score", "reached", "n_big_cities"]]
    pairs = left.merge(left, on=[*key, "players"], suffixes=("", "_other"))
    pairs = pairs[pairs["seat"] != pairs["seat_other"]]
    pairs = pairs[pairs["strategy"] != pairs["strategy_other"]]
    mine = list(zip(pairs["score"], pairs["reached"], pairs["n_big_cities"], strict=True))
    theirs = list(
        zip(pairs["score_other"], pairs["reached_other"], pairs["n_big_cities_other"], strict=True)
    )
    pairs = pairs.assign(
        ahead=[1.0 if a > b else 0.5 if a == b else 0.0 for a, b in zip(mine, theirs, strict=True)]
    )
    table = _rate_table(
        pairs.rename(columns={"strategy_other": "opponent"}), ["strategy", "opponent"], "ahead"
    )
    table["significant"] = (table["ci_low"] > 0.5) | (table["ci_high"] < 0.5)
    return table


def _rankings(seats: pd.DataFrame, labels: list[str]) -> list[tuple[int, ...]]:
    index = {label: i for i, label in enumerate(labels)}
    ordered = seats.sort_values(
        ["cell", "game_index", "score", "reached", "n_big_cities", "seat"],
        ascending=[True, True, False, False, False, True],
    )
    out = []
    for _, group in ordered.groupby(["cell", "game_index"], sort=False):
        strategies = list(group["strategy"])
        if len(set(strategies)) == len(strategies):  # a strategy twice at a table: skip
            out.append(tuple(index[s] for s in strategies))
    return out


def ratings(seats: pd.DataFrame) -> pd.DataFrame:
    """Plackett-Luce strengths of the strategies from every table's final ranking (fitted
    by choix), with Wald 95% intervals from the observed Fisher information; ``rank`` orders
    them, strongest first.

    Strengths are log-scale and centred on 0: exp(a - b) is the odds that a finishes ahead
    of b in a head-to-head. Ties left after R22 are ordered by seat.
    """
    import choix

    labels = sorted(seats["strategy"].unique())
    rankings = _rankings(seats, labels)
    if len(labels) < 2 or len(rankings) < 2:
        return pd.DataFrame(columns=["strategy", "n", "strength", "ci_low", "ci_high", "rank"])
    alpha = 0.01  # a touch of regularisation: a strategy that never lost still gets a value
    point = choix.ilsr_rankings(len(labels), rankings, alpha=alpha)
    point = point - point.mean()
    se = np.sqrt(np.clip(np.diag(_pl_covariance(point, rankings)), 0, None))
    counts = seats.groupby("strategy").size()
    table = pd.DataFrame(
        {
            "strategy": labels,
            "n": [int(counts.get(label, 0)) for label in labels],
            "strength": point,
            "se": se,
            "ci_low": point - Z95 * se,
            "ci_high": point + Z95 * se,
        }
    )
    table = table.sort_values("strength", ascending=False).reset_index(drop=True)
    table["rank"] = np.arange(1, len(table) + 1)
    table["games"] = len(rankings)
    return table


def _pl_covariance(theta: np.ndarray, rankings: list[tuple[int, ...]]) -> np.ndarray:
    """Covariance of the centred Plackett-Luce estimates: the pseudo-inverse of the
    observed information, sum over rankings and places of the softmax covariance of the
    items still in the race (identical rankings are grouped)."""
    from collections import Counter

    info = np.zeros((len(theta), len(theta)))
    for ranking, count in Counter(rankings).items():
        items = np.array(ranking)
        for place in range(len(items) - 1):
            rest = items[place:]
            p = np.exp(theta[rest] - theta[rest].max())
            p /= p.sum()
            info[np.ix_(rest, rest)] += count * (np.diag(p) - np.outer(p, p))
    return np.linalg.pinv(info)


def score_parts(seats: pd.DataFrame) -> pd.DataFrame:
    """Mean score parts per strategy and player count, each with its t interval."""
    parts = []
    for part in ("score", "destination_points", "penalties", "bonus_points"):
        table = _mean_table(seats, ["players", "strategy"], part)
        table.insert(2, "part", part)
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


# ------------------------------------------------------------------ seats
def seat_advantage(seats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Win rate and mean score by seat per player count, and tests of equality across
    seats: chi-square on wins (expected equal), one-way ANOVA on scores."""
    wins = _rate_table(seats, ["players", "seat"], "win_share")
    scores = _mean_table(seats, ["players", "seat"], "score").rename(
        columns={
            "n": "score_n",
            "mean": "mean_score",
            "ci_low": "score_ci_low",
            "ci_high": "score_ci_high",
        }
    )
    table = wins.merge(scores, on=["players", "seat"])
    table["fair"] = 1.0 / table["players"]
    tests = []
    for players, group in seats.groupby("players"):
        by_seat = group.groupby("seat")["win_share"].sum()
        chi2 = sps.chisquare(by_seat.to_numpy()) if by_seat.sum() > 0 else None
        samples = [g["score"].to_numpy() for _, g in group.groupby("seat")]
        anova = sps.f_oneway(*samples) if all(len(s) > 1 for s in samples) else None
        tests.append(
            {
                "players": players,
                "games": int(group[["cell", "game_index"]].drop_duplicates().shape[0]),
                "wins_chi2": float(chi2.statistic) if chi2 else np.nan,
                "wins_p": float(chi2.pvalue) if chi2 else np.nan,
                "score_f": float(anova.statistic) if anova else np.nan,
                "score_p": float(anova.pvalue) if anova else np.nan,
            }
        )
    tests = pd.DataFrame(tests)
    tests["wins_significant"] = tests["wins_p"] < ALPHA
    tests["score_significant"] = tests["score_p"] < ALPHA
    return table, tests


# ------------------------------------------------------------------ destinations
def destination_balance(destinations: pd.DataFrame, min_kept: int = 20) -> pd.DataFrame:
    """Per player count and destination card: keep rate, completion, net points, and a flag
    only where a card is out of line with cards of its printed points and trains beyond the
    card-to-card spread (see reports/destinations.py and docs/statistics.md)."""
    from .destinations import card_balance

    return card_balance(destinations, min_kept)


# ------------------------------------------------------------------ big cities
def big_cities(seats: pd.DataFrame, cities: list[str]) -> pd.DataFrame:
    """Per big city and player count: how often its bonus is won, how often shared, and the
    win-rate lift of winning it (difference of two proportions, normal 95% interval)."""
    rows = []
    for players, group in seats.groupby("players"):
        games = group[["cell", "game_index"]].drop_duplicates().shape[0]
        won = {
            city: group["big_cities"].str.split("|").apply(lambda xs, c=city: c in xs)
            for city in cities
        }
        for city in cities:
            holders = won[city]
            per_game = group.assign(holder=holders).groupby(["cell", "game_index"])["holder"].sum()
            awarded = int((per_game >= 1).sum())
            shared = int((per_game >= 2).sum())
            with_bonus = group.loc[holders, "win_share"]
            without = group.loc[~holders, "win_share"]
            lift, low, high = _difference(with_bonus, without)
            award_low, award_high = wilson(awarded, games)
            share_low, share_high = wilson(shared, max(awarded, 1))
            rows.append(
                {
                    "players": players,
                    "city": city,
                    "games": games,
                    "awarded": awarded,
                    "award_rate": awarded / games,
                    "award_ci_low": float(award_low),
                    "award_ci_high": float(award_high),
                    "shared": shared,
                    "shared_rate": shared / awarded if awarded else np.nan,
                    "shared_ci_low": float(share_low),
                    "shared_ci_high": float(share_high),
                    "n_with": len(with_bonus),
                    "n_without": len(without),
                    "win_lift": lift,
                    "lift_ci_low": low,
                    "lift_ci_high": high,
                }
            )
    return pd.DataFrame(rows)


def _difference(a: pd.Series, b: pd.Series) -> tuple[float, float, float]:
    """Difference of means of two independent samples with a Welch 95% interval."""
    if len(a) < 2 or len(b) < 2:
        return np.nan, np.nan, np.nan
    diff = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = float(np.sqrt(va + vb))
    if se == 0:
        return diff, diff, diff
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(sps.t.ppf(0.975, dof) * se)
    return diff, diff - half, diff + half


# ------------------------------------------------------------------ game length
def game_length(games: pd.DataFrame) -> pd.DataFrame:
    """Steals per game, turns and simulated minutes per player count (t intervals)."""
    ok = games[~games["failed"]]
    tables = []
    for metric in ("steals", "turns", "sim_minutes"):
        table = _mean_table(ok, ["players"], metric)
        table.insert(1, "metric", metric)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def round_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """For games of two rounds: the share of destination points reached in each round."""
    two = seats[seats["round2_points"].notna()]
    if two.empty:
        return pd.DataFrame(columns=["players", "round", "n", "mean", "ci_low", "ci_high"])
    per_game = two.groupby(["players", "cell", "game_index"])[
        ["round1_points", "round2_points"]
    ].sum()
    total = per_game.sum(axis=1)
    per_game = per_game[total > 0]
    share = per_game["round1_points"] / per_game.sum(axis=1)
    rows = []
    for players, values in share.groupby(level="players"):
        n, mean, low, high = mean_ci(values)
        rows.append(
            {"players": players, "round": 1, "n": n, "mean": mean, "ci_low": low, "ci_high": high}
        )
        rows.append(
            {
                "players": players,
                "round": 2,
                "n": n,
                "mean": 1 - mean,
                "ci_low": 1 - high,
                "ci_high": 1 - low,
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ variants
def variant_effects(games: pd.DataFrame, seats: pd.DataFrame, base: str = "base") -> pd.DataFrame:
    """Each variant's difference from the base game per player count, with Welch 95%
    intervals: turns, simulated minutes, steals, mean score, seat 0's win share, destinations
    left unreached.

    Many differences are tested at once, so ``significant`` uses Benjamini-Hochberg
    q < 0.05 over the whole table (``q_value``), not each raw p-value (``p_value``)."""
    if base not in set(games["variant"]) or games["variant"].nunique() < 2:
        return pd.DataFrame(
            columns=[
                "variant",
                "players",
                "metric",
                "base",
                "value",
                "difference",
                "ci_low",
                "ci_high",
                "p_value",
                "q_value",
                "significant",
            ]
        )
    ok = games[~games["failed"]]
    metrics = {
        "turns": (ok, "turns"),
        "sim_minutes": (ok, "sim_minutes"),
        "steals": (ok, "steals"),
        "mean_score": (seats, "score"),
        "seat0_win_share": (seats[seats["seat"] == 0], "win_share"),
        "unreached_per_seat": (seats, "unreached"),
    }
    rows = []
    for variant in sorted(set(games["variant"]) - {base}):
        for players in sorted(set(games["players"])):
            for metric, (frame, column) in metrics.items():
                here = frame[(frame["variant"] == variant) & (frame["players"] == players)][column]
                there = frame[(frame["variant"] == base) & (frame["players"] == players)][column]
                diff, low, high = _difference(here.astype(float), there.astype(float))
                test = sps.ttest_ind(here.astype(float), there.astype(float), equal_var=False)
                rows.append(
                    {
                        "variant": variant,
                        "players": players,
                        "metric": metric,
                        "n": len(here),
                        "n_base": len(there),
                        "base": float(there.mean()),
                        "value": float(here.mean()),
                        "difference": diff,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": float(test.pvalue),
                    }
                )
    table = pd.DataFrame(rows)
    # a metric that never varies gives no p-value: it counts as no evidence (p = 1)
    p_values = table["p_value"].fillna(1.0).to_numpy()
    table["q_value"] = sps.false_discovery_control(p_values, method="bh")
    table["significant"] = table["q_value"] < ALPHA
    return table
