"""Game length: steals, turns and simulated minutes per player count."""

from __future__ import annotations

import pandas as pd

from .intervals import mean_table


def game_length(games: pd.DataFrame) -> pd.DataFrame:
    """Steals per game, turns and simulated minutes per player count (t intervals, one value
    per game)."""
    ok = games[~games["failed"]]
    tables = []
    for metric in ("steals", "turns", "sim_minutes"):
        table = mean_table(ok, ["players"], metric)
        table.insert(1, "metric", metric)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)
