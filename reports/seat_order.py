"""Seat order: win rate and mean score by seat per player count, the tests of equality
across seats (blocked by game), the first seat's edge with its verdict against the practical
margin, and the test of whether that edge differs between player counts.

Seat 0 plays first (R6). Every family of tests here is all the player counts together: "is
there a seat effect at 2, 3 or 4 players" is one question (Holm for the tests across seats,
Bonferroni for the first seat's edge, whose verdict is read off its interval)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import (
    GAME,
    adjust,
    deal_codes,
    deal_one_sample,
    game_ids,
    mean_table,
    wilson,
)
from .level import current_alpha
from .margins import DEFAULT_MARGINS, judge
from .wins import BASELINES


def _score_test(group: pd.DataFrame) -> tuple[str, float, float]:
    """Scores by seat blocked by game: Friedman's rank test within games (3+ seats), the exact
    sign test at 2 seats (Friedman's test for two seats is the sign test)."""
    wide = group.pivot_table(index=GAME, columns="seat", values="score").dropna()
    if len(wide) < 2:
        return "", np.nan, np.nan
    if wide.shape[1] >= 3:
        result = sps.friedmanchisquare(*(wide[c].to_numpy() for c in wide.columns))
        return "Friedman", float(result.statistic), float(result.pvalue)
    diff = wide.iloc[:, 0] - wide.iloc[:, 1]
    ahead, behind = int((diff > 0).sum()), int((diff < 0).sum())
    if ahead + behind == 0:
        return "sign test", np.nan, 1.0
    return "sign test", float(ahead), float(sps.binomtest(ahead, ahead + behind).pvalue)


def _deal_walds(group: pd.DataFrame, columns: list[str]) -> list[tuple[float, float]]:
    """``_deal_wald`` of each column, the games' seats laid out once for all of them."""
    wide = group.pivot_table(index=[*GAME, "seed"], columns="seat", values=columns)
    return [_deal_wald(group, column, wide[column]) for column in columns]


def _deal_wald(
    group: pd.DataFrame, column: str, wide: pd.DataFrame | None = None
) -> tuple[float, float]:
    """(F, p): are the seats' means of ``column`` equal, the games of one deal clustered?
    The Wald test of the k - 1 contrasts seat i minus the last seat with their CR1 covariance
    by deal, as an F on (k - 1, G - k + 1) degrees of freedom (Hotelling's small-sample
    scaling; Cameron and Miller 2015, sec. VI.C). ``wide``: the column's games x seats,
    where the caller has it."""
    if wide is None:
        wide = group.pivot_table(index=[*GAME, "seed"], columns="seat", values=column)
    wide = wide.dropna()
    k = wide.shape[1]
    deals = deal_codes(wide.index.to_frame(index=False).assign(players=0))
    g = len(pd.unique(deals))
    if k < 2 or g <= k:
        return np.nan, np.nan
    values = wide.to_numpy(float)
    contrasts = values[:, :-1] - values[:, -1:]
    mean = contrasts.mean(axis=0)
    totals = np.column_stack(
        [np.bincount(deals, weights=contrasts[:, j] - mean[j]) for j in range(k - 1)]
    )
    cov = g / (g - 1) * totals.T @ totals / len(values) ** 2
    try:
        wald = float(mean @ np.linalg.solve(cov, mean))
    except np.linalg.LinAlgError:
        return np.nan, np.nan
    f = wald / (k - 1) * (g - k + 1) / (g - 1)
    return f, float(sps.f.sf(f, k - 1, g - k + 1))


def seat_advantage(seats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Win rate and mean score by seat per player count, and tests of equality across seats.

    Each game has one row per seat, so a seat's rate is over independent games (Wilson). The
    wins test is the chi-square of the winning seat's counts, one count per game (with one
    winner per game this is exactly Cochran's Q over the games' winner indicators); the score
    test is blocked by game (Friedman, or the sign test at 2 players). Where games share deals
    (a paired study) both are the Wald test of equal seats clustered by deal
    (``_deal_wald``): a deal played in every seat order is one unit, not many."""
    wins = (
        seats.groupby(["players", "seat"])["win_share"]
        .agg(successes="sum", n_games="size")
        .reset_index()
    )
    wins["rate"] = wins["successes"] / wins["n_games"]
    wins["ci_low"], wins["ci_high"] = wilson(wins["successes"], wins["n_games"])
    scores = mean_table(seats, ["players", "seat"], "score").rename(
        columns={"mean": "mean_score", "ci_low": "score_ci_low", "ci_high": "score_ci_high"}
    )
    table = wins.merge(scores.drop(columns="n_games"), on=["players", "seat"])
    table["fair"] = 1.0 / table["players"]
    tests = []
    for players, group in seats.groupby("players"):
        n_games = len(pd.unique(game_ids(group)))
        if len(pd.unique(deal_codes(group))) < n_games:  # games share deals
            walds = _deal_walds(group, ["win_share", "score"])
            (wins_statistic, wins_p), (statistic, p) = walds
            method = "Wald F, clustered by deal"
        else:
            by_seat = group.groupby("seat")["win_share"].sum()
            chi2 = sps.chisquare(by_seat.to_numpy()) if by_seat.sum() > 0 else None
            wins_statistic = float(chi2.statistic) if chi2 else np.nan
            wins_p = float(chi2.pvalue) if chi2 else np.nan
            method, statistic, p = _score_test(group)
        tests.append(
            {
                "players": players,
                "n_games": n_games,
                "wins_chi2": wins_statistic,
                "wins_p": wins_p,
                "score_test": method,
                "score_statistic": statistic,
                "score_p": p,
            }
        )
    tests = pd.DataFrame(tests)
    # one family: the player counts together (Holm), for each of the two tests
    tests["wins_p_adjusted"] = adjust(tests["wins_p"]).to_numpy()
    tests["score_p_adjusted"] = adjust(tests["score_p"]).to_numpy()
    tests["wins_significant"] = tests["wins_p_adjusted"] < current_alpha()
    tests["score_significant"] = tests["score_p_adjusted"] < current_alpha()
    tests["family"] = "the player counts together (Holm)"
    return table, tests


EDGE_COLUMNS = (
    "players tables n_games n_deals rate fair difference ci_low ci_high p_value df".split()
)


def _equal_tables(seats: pd.DataFrame) -> pd.DataFrame:
    """Seat rows of games where every seat holds one and the same non-random strategy."""
    distinct = seats.groupby(GAME)["strategy"].transform("nunique")
    return seats[(distinct == 1) & ~seats["strategy"].isin(BASELINES)]


def seat_edge(seats: pd.DataFrame, margins: dict[str, float] | None = None) -> pd.DataFrame:
    """The first seat's (seat 0, plays first: R6) edge per player count: its win share minus
    the fair share 1/players, one value per game, with a t interval and test over games.

    Measured at tables of equal players (every seat the same non-random strategy) where the
    study has them, as only they isolate the seat order; otherwise over every table (the
    rotation seats each strategy first equally often, so the edge is averaged over unequal
    line-ups: ``tables`` says which). Verdict against the win-share margin, Bonferroni over
    the player counts together (reports/margins.py). In a paired study the games of one deal
    (its seat orders and line-ups) are not independent: interval and test cluster by deal
    (``n_deals``, ``df`` deals - 1)."""
    margins = margins or DEFAULT_MARGINS
    equal = _equal_tables(seats)
    rows = []
    for players, group in seats.groupby("players", sort=True):
        mirror = equal[(equal["players"] == players) & (equal["seat"] == 0)]
        first = mirror if len(mirror) >= 2 else group[group["seat"] == 0]
        fair = 1.0 / players
        values = first["win_share"].to_numpy(dtype=float) - fair
        deals = deal_codes(first)
        diff, low, high, p, df = deal_one_sample(values, deals)
        rows.append({
            "players": int(players),
            "tables": "equal players" if first is mirror else "all tables (rotated)",
            "n_games": len(values), "n_deals": len(pd.unique(deals)), "rate": diff + fair,
            "fair": fair, "difference": diff, "ci_low": low, "ci_high": high, "p_value": p,
            "df": df,
        })  # fmt: skip
    table = pd.DataFrame(rows, columns=EDGE_COLUMNS)
    return judge(table, margins["win_share"], [], df="df", family_name="the player counts together")


def edge_heterogeneity(edge: pd.DataFrame) -> dict[str, Any]:
    """Does the first seat's edge differ between player counts? Cochran's Q of the edges
    with inverse-variance weights, chi-square with (counts - 1) degrees of freedom (the
    homogeneity test of a fixed-effect meta-analysis; statsmodels ``combine_effects`` gives
    the same Q). Empty when fewer than two counts have an interval."""
    usable = edge[np.isfinite(edge["se"].astype(float)) & (edge["se"].astype(float) > 0)]
    if len(usable) < 2:
        return {}
    weights = 1.0 / usable["se"].astype(float) ** 2
    effects = usable["difference"].astype(float)
    pooled = float((weights * effects).sum() / weights.sum())
    q = float((weights * (effects - pooled) ** 2).sum())
    df = len(usable) - 1
    return {
        "q": q,
        "df": df,
        "p_value": float(sps.chi2.sf(q, df)),
        "pooled": pooled,
        "counts": ", ".join(str(int(p)) for p in usable["players"]),
    }
