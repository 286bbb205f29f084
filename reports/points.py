"""Where the points come from: score parts per strategy (destination points, penalties,
big-city bonuses) and, in games of two rounds, the share of destination points each round
brings."""

from __future__ import annotations

import pandas as pd

from .intervals import GAME, cluster_mean_tables, mean_ci


def score_parts(seats: pd.DataFrame) -> pd.DataFrame:
    """Mean score parts per strategy and player count; intervals clustered by game."""
    names = ["score", "destination_points", "penalties", "bonus_points"]
    tables = cluster_mean_tables(seats, ["players", "strategy"], names)
    parts = []
    for part in names:
        table = tables[part]
        table.insert(2, "part", part)
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


def round_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """For games of two rounds: the share of destination points reached in each round (one
    value per game)."""
    two = seats[seats["round2_points"].notna()]
    if two.empty:
        return pd.DataFrame(columns=["players", "round", "n_games", "mean", "ci_low", "ci_high"])
    per_game = two.groupby(["players", *GAME])[["round1_points", "round2_points"]].sum()
    total = per_game.sum(axis=1)
    per_game = per_game[total > 0]
    share = per_game["round1_points"] / per_game.sum(axis=1)
    rows = []
    for players, values in share.groupby(level="players"):
        n, mean, low, high = mean_ci(values)
        rows.append(
            {
                "players": players,
                "round": 1,
                "n_games": n,
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
        rows.append(
            {
                "players": players,
                "round": 2,
                "n_games": n,
                "mean": 1 - mean,
                "ci_low": 1 - high,
                "ci_high": 1 - low,
            }
        )
    return pd.DataFrame(rows)
