"""Game length: steals, turns and simulated minutes per player count."""

from __future__ import annotations

import pandas as pd

from .intervals import mean_table


def game_length(games: pd.DataFrame) -> pd.DataFrame:
    """Steals per game, turns (all seats together, and per player: each player's own turns)
    and simulated minutes per player count (t intervals, one value per game)."""
    ok = games[~games["failed"]]
    ok = ok.assign(turns_per_player=ok["turns"] / ok["players"])
    tables = []
    for metric in ("steals", "turns", "turns_per_player", "sim_minutes"):
        table = mean_table(ok, ["players"], metric)
        table.insert(1, "metric", metric)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)
