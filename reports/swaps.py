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
    game's line-up (``key``: its names sorted, joined by "|") and its deal (the seed). A
    cell is one line-up: it is read off each cell's first game."""
    first = seats["game_index"] == seats.groupby("cell")["game_index"].transform("min")
    # names never hold "|" (sims.study.LABEL_SEPARATORS): the key splits back into the line-up
    keys = seats[first].groupby("cell")["strategy"].agg(lambda s: "|".join(sorted(s)))
    grouped = seats.groupby(["players", "cell", "game_index", "seed", "strategy"], sort=True)
    frame = grouped.agg(
        win_share=("win_share", "sum"), score=("score", "mean"), seats=("seat", "size")
    )
    frame = frame.reset_index()
    frame["key"] = frame["cell"].map(keys)
    return frame[frame["seats"] == 1]  # a swapped strategy holds one seat of its table


def _swap(one: tuple[str, ...], other: tuple[str, ...]) -> tuple[str, str] | None:
    """(A, B) when line-up ``one`` is ``other`` with B replaced by A, else None."""
    gained = Counter(one) - Counter(other)
    lost = Counter(other) - Counter(one)
    if sum(gained.values()) != 1 or sum(lost.values()) != 1:
        return None
    return next(iter(gained)), next(iter(lost))


def _by_deal(games: pd.DataFrame) -> pd.DataFrame:
    """Each line-up (``key``) and strategy's metrics per deal (a deal played in several seat
    orders, under ``pairing = "seatings"``, counts once, averaged). Each deal's values are
    summed in sorted order: two line-ups list a deal's seat orders differently, and a
    clone's mean must equal its twin's to the last bit."""
    keys = ["key", "strategy", "seed"]
    means = {
        metric: games[[*keys, metric]]
        .sort_values([*keys, metric], kind="stable")
        .groupby(keys, sort=True)[metric]
        .mean()
        for metric in METRICS
    }
    return pd.DataFrame(means).reset_index()


def _swapped_pairs(group: pd.DataFrame) -> pd.DataFrame:
    """Every (line-up ``one`` with A, line-up ``other`` with B) that differ by that swap,
    A before B alphabetically."""
    lineups = {key: tuple(key.split("|")) for key in group["key"].unique()}
    found = []
    for one, mine in sorted(lineups.items()):
        for other, theirs in sorted(lineups.items()):
            swap = _swap(mine, theirs)
            if swap is not None and swap[0] < swap[1]:
                found.append((one, swap[0], other, swap[1]))
    return pd.DataFrame(found, columns=["one", "a", "other", "b"])


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
        table = _by_deal(group)
        swaps = _swapped_pairs(group)
        if swaps.empty:
            continue
        mine = swaps.merge(table.rename(columns={"key": "one", "strategy": "a"}), on=["one", "a"])
        both = mine.merge(
            table.rename(columns={"key": "other", "strategy": "b"}),
            on=["other", "b", "seed"],
            suffixes=("_a", "_b"),
        )
        for metric in METRICS:
            both[metric] = both[f"{metric}_a"] - both[f"{metric}_b"]
        # per swapped pair: its pairs of line-ups, its pairs of games and its means per deal
        # (the deal is the unit), each found by one grouping of every pair's rows
        contexts = both[["a", "b", "one", "other"]].drop_duplicates().groupby(["a", "b"]).size()
        sizes = both.groupby(["a", "b"], sort=True).size()
        means = both.groupby(["a", "b", "seed"], sort=True)[list(METRICS)].mean()
        for (a, b), per_deal in means.groupby(level=["a", "b"], sort=True):
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
                        "n_contexts": int(contexts[(a, b)]),
                        "n_deals": result.pop("n_pairs"),
                        "n_pairs": int(sizes[(a, b)]),
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
