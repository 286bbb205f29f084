"""Win rates and head-to-head: how often a strategy wins its games, against the field of
equally strong strategies, and how often it finishes ahead of each other strategy at the same
tables. The game is the unit; the head-to-head tests are Holm-corrected over the pairs of a
player count, each strategy's excess over the field Bonferroni-corrected over the strategies
of a player count with a verdict against the practical margin (docs/statistics.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import (
    GAME,
    adjust,
    deal_codes,
    deal_one_sample,
    deal_wilson,
    effective_games,
    game_table,
    repeated,
    wilson,
)
from .level import current_alpha
from .margins import DEFAULT_MARGINS, judge

BASELINES = frozenset({"random"})  # reference players: never part of the "field" or the anchor
CORRECTION = "Holm"


def per_game_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per game and strategy: its seats, ``win`` (its seats' win shares summed), the
    ``fair`` share (seats / players) and the ``field`` share: what it would win if every
    non-baseline seat at that table were equally strong (the baseline keeps what it won)."""
    deal = ["seed"] if "seed" in seats else []  # one per game: it keeps the game's deal
    unit = (
        seats.groupby(["players", *GAME, *deal, "strategy"], sort=True)
        .agg(seats=("win_share", "size"), win=("win_share", "sum"))
        .reset_index()
    )
    baseline = seats[seats["strategy"].isin(BASELINES)]
    base = baseline.groupby(GAME).agg(
        base_seats=("win_share", "size"), base_win=("win_share", "sum")
    )
    unit = unit.join(base, on=GAME)
    unit[["base_seats", "base_win"]] = unit[["base_seats", "base_win"]].fillna(0.0)
    unit["fair"] = unit["seats"] / unit["players"]
    field_seats = unit["players"] - unit["base_seats"]
    field = unit["seats"] * (1 - unit["base_win"]) / field_seats.where(field_seats > 0)
    unit["field"] = field.where(~unit["strategy"].isin(BASELINES))
    return unit


def _record_note(wins: float, n_games: int, fair: float) -> str:
    if fair >= 1:
        return "the only strategy at its tables: nothing to compare"
    if wins >= n_games:
        return f"won every game, n={n_games}"
    if wins <= 0:
        return f"won no game, n={n_games}"
    return ""


def win_rates(
    seats: pd.DataFrame,
    margins: dict[str, float] | None = None,
    unit: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Win rate per strategy and player count, the game as unit: ``rate`` is the share of its
    games it won (its seats' win shares summed per game; a k-way shared win counts 1/k), with
    a Wilson interval over ``n_games``.

    ``fair`` is its seats / players (a strategy no better than its table); ``field`` is the
    share it would win if all non-random seats were equally strong, and ``vs_field`` its
    excess over that, paired per game (t interval over games), tested against 0 with
    Bonferroni over the strategies of each player count (``p_adjusted``, ``significant``) and
    judged against the win-share margin (``verdict``, reports/margins.py).

    Games in which a strategy held every seat tell nothing about it: they are left out
    (``n_alone`` counts them) unless it never met another strategy.

    In a paired study the games of one deal are not independent: both intervals and the test
    are clustered by deal (``n_deals``; reports/intervals.py ``deal_one_sample``,
    ``deal_wilson``), and ``df`` is deals - 1. ``unit``: ``per_game_shares(seats)`` where
    the caller has it.
    """
    unit = per_game_shares(seats) if unit is None else unit
    rows = []
    for (players, strategy), every in unit.groupby(["players", "strategy"], sort=True):
        alone = every["fair"] >= 1
        group = every if alone.all() else every[~alone]
        n_games, wins = len(group), float(group["win"].sum())
        deals = deal_codes(group)
        low, high = (
            deal_wilson(group["win"].to_numpy(float), deals)
            if repeated(deals)
            else wilson(wins, n_games)
        )
        excess, ex_low, ex_high, p, df = deal_one_sample(group["win"] - group["field"], deals)
        rows.append(
            {
                "players": players,
                "strategy": strategy,
                "n_games": n_games,
                "n_deals": len(pd.unique(deals)),
                "n_seats": int(group["seats"].sum()),
                "n_alone": int(alone.sum()) if not alone.all() else 0,
                "wins": wins,
                "rate": wins / n_games,
                "ci_low": float(low),
                "ci_high": float(high),
                "fair": float(group["fair"].mean()),
                "field": float(group["field"].mean()),
                "vs_field": excess,
                "vs_field_ci_low": ex_low,
                "vs_field_ci_high": ex_high,
                "p_value": p,
                "df": df,
                "note": _record_note(wins, n_games, float(group["fair"].min())),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table = judge(
        table,
        (margins or DEFAULT_MARGINS)["win_share"],
        ["players"],
        estimate="vs_field",
        low="vs_field_ci_low",
        high="vs_field_ci_high",
        df="df",
        family_name="the strategies at one player count",
    )
    table["significant"] = table["p_adjusted"] < current_alpha()
    table["correction"] = "Bonferroni over the strategies at each player count"
    return table.sort_values(["players", "rate"], ascending=[True, False]).reset_index(drop=True)


R22_KEYS = ("score", "reached", "n_big_cities")  # who finished ahead: each in turn


def finished_ahead(pairs: pd.DataFrame) -> np.ndarray:
    """1 where the seat finished ahead of the other (score, then reached, then big cities:
    R22), 0 where behind, 0.5 on a full tie."""
    return ahead_of(
        [pairs[k].to_numpy() for k in R22_KEYS], [pairs[f"{k}_other"].to_numpy() for k in R22_KEYS]
    )


def ahead_of(mine: list[np.ndarray], theirs: list[np.ndarray]) -> np.ndarray:
    """``finished_ahead`` of the ``R22_KEYS`` values of seats and of their rivals."""
    ahead = np.full(len(mine[0]), 0.5)
    decided = np.zeros(len(mine[0]), dtype=bool)
    for mine_key, their_key in zip(mine, theirs, strict=True):
        ahead = np.where(~decided & (mine_key > their_key), 1.0, ahead)
        ahead = np.where(~decided & (mine_key < their_key), 0.0, ahead)
        decided |= mine_key != their_key
    return ahead


def _pair_games(seats: pd.DataFrame) -> dict[str, np.ndarray] | None:
    """Per game and ordered pair of different strategies at its table (in order of game):
    ``combo``, the pair's number ((player count's position * k + strategy) * k + opponent,
    k strategies in sorted order, so numbers sort as (players, strategy, opponent)),
    ``share``, the share of their seat pairs in which the first finished ahead (a tie
    counts one half), ``pairs`` and the game's ``deal`` (reports/intervals.py
    ``deal_codes``); with the ``table_size`` and ``names`` the numbers index. Each game's
    seats as a row of a small matrix, so pairs are columns, not a self-join of every seat.
    None where no two strategies met."""
    if seats.empty:
        return None
    game, place, order = game_table(seats)
    codes, names = pd.factorize(seats["strategy"], sort=True)
    n_games, width, k = int(game[-1]) + 1, int(place.max()) + 1, len(names)

    def matrix(values: np.ndarray, empty: int) -> np.ndarray:
        out = np.full((n_games, width), empty, dtype=np.int64)
        out[game, place] = values[order]
        return out

    strategy = matrix(codes.astype(np.int64), -1)
    standing = matrix(_standing(seats), 0)
    players = np.zeros(n_games, np.int64)
    players[game] = seats["players"].to_numpy(np.int64)[order]
    deal_of_game = np.zeros(n_games, np.int64)
    deal_of_game[game] = deal_codes(seats)[order]
    table_size, counts = np.unique(players, return_inverse=True)
    combos, aheads = [], []
    for a in range(width):
        for b in range(width):
            if a == b:
                continue
            met = (strategy[:, a] >= 0) & (strategy[:, b] >= 0) & (strategy[:, a] != strategy[:, b])
            mine, theirs = standing[:, a], standing[:, b]
            ahead = np.where(mine > theirs, 1.0, np.where(mine < theirs, 0.0, 0.5))
            combo = (counts * k + strategy[:, a]) * k + strategy[:, b]
            combos.append(np.where(met, combo, -1))
            aheads.append(ahead)
    if not combos:
        return None
    combo = np.column_stack(combos)
    ahead = np.column_stack(aheads)
    if not _repeats(strategy):  # each pair once a game: its seat pair is its run
        met = combo >= 0
        if not met.any():
            return None
        return {
            "combo": combo[met],
            "share": ahead[met],
            "pairs": np.ones(int(met.sum()), np.int64),
            "deal": np.broadcast_to(deal_of_game[:, None], combo.shape)[met],
            "table_size": table_size,
            "names": np.asarray(names, dtype=object),
        }
    # one run per (game, pair of strategies): sort each game's pairs by their pair
    by = np.argsort(combo, axis=1, kind="stable")
    combo = np.take_along_axis(combo, by, axis=1).ravel()
    ahead = np.take_along_axis(ahead, by, axis=1).ravel()
    per_game = combo.size // n_games
    run_start = np.ones(len(combo), bool)
    run_start[1:] = combo[1:] != combo[:-1]
    run_start[::per_game] = True  # a new game starts a new run
    run = np.cumsum(run_start) - 1
    run_combo = combo[run_start]
    run_game = np.flatnonzero(run_start) // per_game
    pairs = np.bincount(run, minlength=len(run_combo))
    share = np.bincount(run, weights=ahead, minlength=len(run_combo)) / pairs
    met = run_combo >= 0
    if not met.any():
        return None
    return {
        "combo": run_combo[met],
        "share": share[met],
        "pairs": pairs[met],
        "deal": deal_of_game[run_game[met]],
        "table_size": table_size,
        "names": np.asarray(names, dtype=object),
    }


def _standing(seats: pd.DataFrame) -> np.ndarray:
    """Each seat's ``R22_KEYS`` as one number that orders seats as the keys do in turn
    (score, then reached, then big cities: none of them below 0 but the score)."""
    score, reached, big = (seats[k].to_numpy(np.int64) for k in R22_KEYS)
    standing = score - score.min(initial=0)
    for value in (reached, big):
        standing = standing * (int(value.max(initial=0)) + 1) + value
    return standing


def _repeats(strategy: np.ndarray) -> bool:
    """Whether some game (row; -1 an empty place) seats a strategy twice."""
    width = strategy.shape[1]
    return any(
        bool(((strategy[:, a] == strategy[:, b]) & (strategy[:, a] >= 0)).any())
        for a in range(width)
        for b in range(a + 1, width)
    )


def _pair_counts(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and ordered pair of different strategies at one table: the games
    they met in (``n_games``), their seat pairs (``n_pairs``), ``successes``, the sum over
    games of the share of the game's seat pairs the first finished ahead in, the deals of
    those games (``n_deals``) and the games they are worth as independent ones
    (``n_effective``: ``n_games`` unless games share deals, reports/intervals.py
    ``effective_games``). Each pair's games are taken in order of game by one stable sort
    of their pair numbers, not a group of a frame."""
    columns = [
        "players", "strategy", "opponent", "n_games", "n_pairs", "successes", "n_deals",
        "n_effective",
    ]  # fmt: skip
    games = _pair_games(seats)
    if games is None:
        return pd.DataFrame(columns=columns)
    combo, names, table_size = games["combo"], games["names"], games["table_size"]
    k = len(names)
    # a few hundred pair numbers: as 16-bit integers the stable sort is a radix sort
    small = combo.astype(np.int16) if int(combo.max()) < 2**15 else combo
    order = np.argsort(small, kind="stable")
    starts = np.flatnonzero(np.r_[True, combo[order][1:] != combo[order][:-1]])
    rows = []
    for begin, end in zip(starts, [*starts[1:], len(order)], strict=True):
        where = order[begin:end]
        number = int(combo[where[0]])
        share, deals = games["share"][where], games["deal"][where]
        rows.append(
            {
                "players": table_size[number // (k * k)],
                "strategy": str(names[(number // k) % k]),
                "opponent": str(names[number % k]),
                "n_games": len(where),
                "n_pairs": int(games["pairs"][where].sum()),
                "successes": float(share.sum()),
                "n_deals": len(pd.unique(deals)),
                "n_effective": effective_games(share, deals),
            }
        )
    return pd.DataFrame(rows, columns=columns).reset_index(drop=True)


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and ordered pair of strategies at the same table: the share of their
    games in which the first finished ahead of the second.

    The game is the unit: within a game the value is the share of its seat pairs won (a tie
    counts one half); ``rate`` averages it over ``n_games``, with a Wilson interval over games
    and the score test of 0.5 (its inversion; conservative when ties or repeated seats make a
    game's value fractional). ``p_adjusted``: Holm over the pairs of each player count.
    In a paired study the games of one deal are not independent: interval and test count
    the games' effective number (``n_effective``, clustered by deal), where a clone meets
    its twin at exactly 0.5 with no spread, p = 1.
    """
    table = _pair_counts(seats)
    table["rate"] = table["successes"] / table["n_games"]
    n = table["n_effective"].astype(float).to_numpy()
    plain = n == table["n_games"]
    table["ci_low"], table["ci_high"] = wilson(
        np.where(plain, table["successes"], table["rate"] * n), n
    )
    rate = table["rate"].astype(float).to_numpy()
    exact = np.isinf(n)  # no spread over deals: the rate is known
    table.loc[exact, "ci_low"] = rate[exact]
    table.loc[exact, "ci_high"] = rate[exact]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (rate - 0.5) / np.sqrt(0.25 / n)
    z = np.where(exact & (rate == 0.5), 0.0, z)
    table["p_value"] = 2 * sps.norm.sf(np.abs(z))
    # one test per unordered pair: (a, b) and (b, a) share it
    names = table[["strategy", "opponent"]]
    pair = names.min(axis=1) + "|" + names.max(axis=1)
    once = table.assign(pair=pair).drop_duplicates(["players", "pair"])
    adjusted = once.groupby("players")["p_value"].transform(adjust)
    lookup = pd.Series(
        adjusted.to_numpy(), index=pd.MultiIndex.from_frame(once[["players", "pair"]])
    )
    where = pd.MultiIndex.from_arrays([table["players"], pair])
    table["p_adjusted"] = lookup.reindex(where).to_numpy()
    table["significant"] = table["p_adjusted"] < current_alpha()
    return table
