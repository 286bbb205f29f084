"""Line-up comparisons on common deals: what changes when one seat's strategy is swapped.

In a paired study (``pairing = "deals"`` or ``"seatings"``, docs/data.md) every line-up of a
player count replays the same deals, and a deal is recognised by its game ``seed``. Two
line-ups that differ in one strategy (A in one, B in the other, the same opponents) then
compare A with B on identical deals against identical opponents: the swapped strategy's win
share and score, per deal, paired. Differences from every such pair of line-ups (every set of
common opponents) are averaged per deal, so the deal is the unit: a t interval and paired
t-test over deals, each with its verdict against the margin, Bonferroni over the pairs of a
player count and metric (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
from scipy import stats as sps

from .differences import paired_difference
from .margins import DEFAULT_MARGINS, judge, mde

SWAP_COLUMNS = """
    players strategy opponent metric n_contexts n_deals n_pairs difference ci_low ci_high p_value
    p_adjusted significant detectable method
""".split()
METRICS = {"win_share": "win_share", "score": "score"}  # metric -> its margin (margins.py)
METHOD = "paired t over deals (line-ups swapping one strategy), Bonferroni per player count"


def _per_game(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, strategy): its seats' summed win share and mean score, with the
    game's line-up (as a sorted tuple) and its deal (the seed)."""
    lineups = seats.groupby(["cell", "game_index"])["strategy"].agg(lambda s: tuple(sorted(s)))
    grouped = seats.groupby(["players", "cell", "game_index", "seed", "strategy"], sort=True)
    frame = grouped.agg(
        win_share=("win_share", "sum"), score=("score", "mean"), seats=("seat", "size")
    )
    frame = frame.reset_index()
    frame["lineup"] = [
        lineups[(c, g)] for c, g in zip(frame["cell"], frame["game_index"], strict=True)
    ]
    return frame[frame["seats"] == 1]  # a swapped strategy holds one seat of its table


def _swap(one: tuple[str, ...], other: tuple[str, ...]) -> tuple[str, str] | None:
    """(A, B) when line-up ``one`` is ``other`` with B replaced by A, else None."""
    gained = Counter(one) - Counter(other)
    lost = Counter(other) - Counter(one)
    if sum(gained.values()) != 1 or sum(lost.values()) != 1:
        return None
    return next(iter(gained)), next(iter(lost))


def _by_deal(games: pd.DataFrame, strategy: str) -> pd.DataFrame:
    """A strategy's metrics per deal of a line-up (a deal played in several seat orders,
    under ``pairing = "seatings"``, counts once, averaged). Summed exactly (``math.fsum``): two
    line-ups list a deal's seat orders in different orders, and a clone's mean must equal
    its twin's to the last bit."""
    mine = games[games["strategy"] == strategy]
    return mine.groupby("seed")[list(METRICS)].agg(lambda s: math.fsum(s) / len(s))


def lineup_swaps(
    seats: pd.DataFrame, pairing: str, margins: dict[str, float] | None = None
) -> pd.DataFrame:
    """Per player count and pair of strategies (A, B): A's win share (and score) minus B's in
    the same seat of line-ups that differ only by that swap, on the same deals. Empty unless
    the study is paired."""
    if pairing == "none" or seats.empty:
        return pd.DataFrame(columns=SWAP_COLUMNS)
    games = _per_game(seats)
    rows = []
    for players, group in games.groupby("players", sort=True):
        by_lineup = {lineup: part for lineup, part in group.groupby("lineup", sort=True)}
        diffs: dict[tuple[str, str], list[pd.DataFrame]] = {}
        for one in by_lineup:
            for other in by_lineup:
                swap = _swap(one, other)
                if swap is None or swap[0] > swap[1]:
                    continue  # each unordered pair once, A before B alphabetically
                a, b = swap
                mine = _by_deal(by_lineup[one], a)
                theirs = _by_deal(by_lineup[other], b)
                common = mine.index.intersection(theirs.index)
                if len(common):
                    diff = mine.loc[common] - theirs.loc[common]
                    diffs.setdefault((a, b), []).append(diff)
        for (a, b), parts in sorted(diffs.items()):
            stacked = pd.concat(parts)
            per_deal = stacked.groupby(level=0).mean()  # the deal is the unit
            for metric in METRICS:
                result = paired_difference(per_deal[metric])
                if np.isnan(result["p_value"]) and result["n_pairs"] >= 2:
                    # every deal the same non-zero difference: no t, the exact sign test
                    n = int(result["n_pairs"])
                    result["p_value"] = float(sps.binomtest(n, n).pvalue)
                rows.append(
                    {
                        "players": int(players),
                        "strategy": a,
                        "opponent": b,
                        "metric": metric,
                        "n_contexts": len(parts),
                        "n_deals": result.pop("n_pairs"),
                        "n_pairs": len(stacked),
                        **result,
                    }
                )
    if not rows:
        return pd.DataFrame(columns=SWAP_COLUMNS)
    table = pd.DataFrame(rows)
    margins = margins or DEFAULT_MARGINS
    table = pd.concat(
        judge(
            part,
            margins[metric],
            ["players"],
            df="df",
            n="n_deals",
            family_name=f"{metric}: the swapped pairs at one player count",
        )
        for metric, part in table.groupby("metric", sort=False)
    ).sort_index()
    table["significant"] = table["p_adjusted"] < 0.05
    # the smallest difference found with 80% power at the family's level 0.05/m
    table["detectable"] = [
        mde(se, m) for se, m in zip(table["se"], table["family_size"], strict=True)
    ]
    table["method"] = METHOD
    columns = SWAP_COLUMNS + [c for c in table.columns if c not in SWAP_COLUMNS]
    return table[[c for c in columns if c in table.columns]].reset_index(drop=True)
