"""Planning the next study: how many games (unpaired) or deals (paired) detect a change of 1,
2 and 5 points of win share or of score, per player count, under the correction in use.

Two rule sets compared on seat 0's win share per game or on the mean score per seat:

- unpaired (each rule set its own games): n per rule set = 2 (z_{1-a/2m} + z_0.8)^2 sd^2 /
  change^2, sd the game-to-game SD in this study's printed game;
- paired by deal (``pairing = "deals"``: each deal played under both): n deals =
  (z_{1-a/2m} + z_0.8)^2 sd_d^2 / change^2, sd_d the SD of the per-deal differences this
  study's variants showed (none without a paired variant);

with m the size of the family the report corrects over for that metric (its variants and
player counts, Holm; Bonferroni's level a/m is Holm's first step, so the figure is safe), and
80% power (reports/margins.py, ``games_for_change``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .margins import games_for_change

CHANGES = {"win share": (0.01, 0.02, 0.05), "score": (1.0, 2.0, 5.0)}
VARIANT_METRIC = {"win share": "first_seat_win_share", "score": "mean_score"}
COLUMNS = """
    players metric change sd games_unpaired sd_paired deals_paired lineups family level
""".split()


def planning(seats: pd.DataFrame, variants: pd.DataFrame) -> pd.DataFrame:
    """The planning table from the printed game's seat rows (base rules) and the variant
    table (for the paired SD and the family size)."""
    if seats.empty:
        return pd.DataFrame(columns=COLUMNS)
    per_game = {
        "win share": seats[seats["seat"] == 0]
        .groupby(["players", "cell", "game_index"])["win_share"]
        .mean(),
        "score": seats.groupby(["players", "cell", "game_index"])["score"].mean(),
    }
    lineups = seats.groupby("players")["cell"].nunique()
    rows = []
    for metric, values in per_game.items():
        name = VARIANT_METRIC[metric]
        mine = variants[variants["metric"] == name] if len(variants) else variants
        family = max(len(mine), 1)
        for players, group in values.groupby(level="players"):
            sd = float(group.std(ddof=1)) if len(group) > 1 else np.nan
            paired = mine[(mine["players"] == players) & (mine["method"] == "paired t")]
            sd_d = float(paired["sd_difference"].median()) if len(paired) else np.nan
            for change in CHANGES[metric]:
                rows.append(
                    {
                        "players": int(players),
                        "metric": metric,
                        "change": change * (100 if metric == "win share" else 1),
                        "sd": sd,
                        "games_unpaired": games_for_change(sd, change, family, paired=False),
                        "sd_paired": sd_d,
                        "deals_paired": games_for_change(sd_d, change, family),
                        "lineups": int(lineups.get(players, 1)),
                        "family": family,
                        "level": 0.05 / family,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def planning_sentence(table: pd.DataFrame) -> str:
    """What the table says and what its columns count."""
    if table.empty:
        return ""
    family = int(table["family"].max())
    paired = table["deals_paired"].notna().any()
    return (
        "Games needed to detect a change of 1, 2 and 5 points (win share: percentage points "
        "of seat 0's win share; score: points of the mean score per seat) with 80% power, "
        f"two-sided at 0.05/{family} (the family the report corrects over for that metric). "
        "`games_unpaired`: games per rule set when each plays its own deals; "
        + (
            "`deals_paired`: deals when both rule sets replay the same deals (each deal is "
            "played once per line-up, `lineups`), from the spread of the per-deal differences "
            "this study's variants showed."
            if paired
            else 'paired figures need a paired study with a variant (pairing = "deals"), '
            "which measures the spread of per-deal differences."
        )
    )
