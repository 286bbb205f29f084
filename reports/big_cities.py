"""Big cities (R21): how often each bonus is won or shared, and how much winning it lifts
the win share."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .intervals import cluster_codes, cluster_difference, game_ids, wilson


def big_cities(seats: pd.DataFrame, cities: list[str]) -> pd.DataFrame:
    """Per big city and player count: how often its bonus is won, how often shared, and the
    win-rate lift of winning it: win share of the seats that won it minus the others, with a
    95% interval and p-value clustered by game (OLS on the holder flag, CR1 errors)."""
    rows = []
    for players, group in seats.groupby("players"):
        ids = game_ids(group)
        game = cluster_codes(ids)
        games = int(game.max()) + 1 if len(game) else 0
        # a seat's bonuses are one of a few texts ("Chicago|New York"): split each text once
        combination, texts = pd.factorize(group["big_cities"].fillna(""))
        won = [set(str(text).split("|")) for text in texts]
        for city in cities:
            holders = np.array([city in cities_won for cities_won in won], bool)[combination]
            per_game = np.bincount(game, weights=holders, minlength=games)
            awarded = int((per_game >= 1).sum())
            shared = int((per_game >= 2).sum())
            lift, low, high, p = cluster_difference(group["win_share"], holders, ids)
            award_low, award_high = wilson(awarded, games)
            share_low, share_high = wilson(shared, max(awarded, 1))
            rows.append(
                {
                    "players": players,
                    "city": city,
                    "n_games": games,
                    "awarded": awarded,
                    "award_rate": awarded / games,
                    "award_ci_low": float(award_low),
                    "award_ci_high": float(award_high),
                    "shared": shared,
                    "shared_rate": shared / awarded if awarded else np.nan,
                    "shared_ci_low": float(share_low),
                    "shared_ci_high": float(share_high),
                    "n_seats_with": int(holders.sum()),
                    "n_seats_without": int((~holders).sum()),
                    "win_lift": lift,
                    "lift_ci_low": low,
                    "lift_ci_high": high,
                    "lift_p": p,
                }
            )
    return pd.DataFrame(rows)
