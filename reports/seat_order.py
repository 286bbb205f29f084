"""Seat order: win rate and mean score by seat per player count, and the tests of
equality across seats (blocked by game)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import ALPHA, GAME, mean_table, wilson


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


def seat_advantage(seats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Win rate and mean score by seat per player count, and tests of equality across seats.

    Each game has one row per seat, so a seat's rate is over independent games (Wilson). The
    wins test is the chi-square of the winning seat's counts, one count per game (with one
    winner per game this is exactly Cochran's Q over the games' winner indicators); the score
    test is blocked by game (Friedman, or the sign test at 2 players)."""
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
        by_seat = group.groupby("seat")["win_share"].sum()
        chi2 = sps.chisquare(by_seat.to_numpy()) if by_seat.sum() > 0 else None
        method, statistic, p = _score_test(group)
        tests.append(
            {
                "players": players,
                "n_games": int(group[GAME].drop_duplicates().shape[0]),
                "wins_chi2": float(chi2.statistic) if chi2 else np.nan,
                "wins_p": float(chi2.pvalue) if chi2 else np.nan,
                "score_test": method,
                "score_statistic": statistic,
                "score_p": p,
            }
        )
    tests = pd.DataFrame(tests)
    tests["wins_significant"] = tests["wins_p"] < ALPHA
    tests["score_significant"] = tests["score_p"] < ALPHA
    return table, tests
