"""Game quality: are games close, do leads change, when is a game decided; and does a variant
(or a swept value) change that.

The quality table (``[metrics] quality = true``) holds one row per finished game
(sims/quality.py defines each metric, from each seat's chance estimated by the learned model
after every turn, sims/winmodel.py). The game is the unit: per player count a mean with a
Student t interval over games; per variant the paired difference from the base game by
deal, judged against each metric's practical margin (reports/variants.py, the same method
as every other variant metric).
"""

from __future__ import annotations

import pandas as pd

from .intervals import mean_ci
from .variants import variant_effects

# metric -> (its practical margin in reports/margins.py, what it is in words)
QUALITY_METRICS: dict[str, tuple[str, str]] = {
    "lead_changes_chance": ("lead_changes", "lead changes (the favourite changes)"),
    "lead_changes_points": ("lead_changes", "lead changes (the points leader changes)"),
    "drama": ("drama", "drama (how far behind the winner was, in win chance)"),
    "decisive_fraction": ("decisive_fraction", "share of the game played before it was decided"),
    "excitement": ("excitement", "excitement (total change of win chance)"),
    "comeback": ("comeback", "comeback (1 / the winner's lowest chance)"),
    "final_margin": ("score", "winning margin (points)"),
}
SUMMARY_COLUMNS = ["players", "metric", "n_games", "mean", "ci_low", "ci_high", "median"]
_KEYS = ["variant", "players", "cell", "game_index", "seed"]


def finished(games: pd.DataFrame, quality: pd.DataFrame) -> pd.DataFrame:
    """The quality rows of finished games (a failed game has none; the join makes sure)."""
    ok = games.loc[~games["failed"], ["cell", "game_index"]]
    return quality.merge(ok, on=["cell", "game_index"])


def quality_summary(games: pd.DataFrame, quality: pd.DataFrame) -> pd.DataFrame:
    """Per player count and metric: the mean per game with its 95% Student t interval, the
    median and the number of games (the base game only: variants are compared below)."""
    rows = finished(games, quality)
    rows = rows[rows["variant"] == "base"] if (rows["variant"] == "base").any() else rows
    out = []
    for players, here in rows.groupby("players", sort=True):
        for metric in QUALITY_METRICS:
            values = here[metric].dropna().astype(float)
            n, mean, low, high = mean_ci(values)
            out.append(
                {
                    "players": int(players),
                    "metric": metric,
                    "n_games": n,
                    "mean": mean,
                    "ci_low": low,
                    "ci_high": high,
                    "median": float(values.median()) if len(values) else float("nan"),
                }
            )
    return pd.DataFrame(out, columns=SUMMARY_COLUMNS)


def quality_effects(
    games: pd.DataFrame,
    quality: pd.DataFrame,
    rules: dict | None = None,
    margins: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Each variant's (and swept value's) difference from the base game per player count and
    quality metric, paired by deal where the study pairs them, with its verdict."""
    rows = finished(games, quality)
    frames = {}
    for metric in QUALITY_METRICS:
        frame = rows[[*_KEYS, metric]].rename(columns={metric: "value"}).dropna(subset=["value"])
        frame = frame.assign(
            value=frame["value"].astype(float),
            match=frame["cell"].str.split("/", n=1).str[1],
        )
        frames[metric] = frame
    margin_of = {metric: margin for metric, (margin, _) in QUALITY_METRICS.items()}
    return variant_effects(
        games,
        pd.DataFrame(),
        rules=rules,
        margins=margins,
        metrics=frames,
        metric_margins=margin_of,
    )
