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

from .intervals import ALPHA, GAME, adjust, one_sample, wilson
from .margins import DEFAULT_MARGINS, judge

BASELINES = frozenset({"random"})  # reference players: never part of the "field" or the anchor
CORRECTION = "Holm"


def per_game_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per game and strategy: its seats, ``win`` (its seats' win shares summed), the
    ``fair`` share (seats / players) and the ``field`` share: what it would win if every
    non-baseline seat at that table were equally strong (the baseline keeps what it won)."""
    unit = (
        seats.groupby(["players", *GAME, "strategy"], sort=True)
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


def win_rates(seats: pd.DataFrame, margins: dict[str, float] | None = None) -> pd.DataFrame:
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
    """
    unit = per_game_shares(seats)
    rows = []
    for (players, strategy), every in unit.groupby(["players", "strategy"], sort=True):
        alone = every["fair"] >= 1
        group = every if alone.all() else every[~alone]
        n_games, wins = len(group), float(group["win"].sum())
        low, high = wilson(wins, n_games)
        excess, ex_low, ex_high, p = one_sample(group["win"] - group["field"])
        rows.append(
            {
                "players": players,
                "strategy": strategy,
                "n_games": n_games,
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
                "note": _record_note(wins, n_games, float(group["fair"].min())),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["df"] = table["n_games"] - 1.0
    table = judge(
        table, (margins or DEFAULT_MARGINS)["win_share"], ["players"], estimate="vs_field",
        low="vs_field_ci_low", high="vs_field_ci_high", df="df",
        family_name="the strategies at one player count",
    )  # fmt: skip
    table["significant"] = table["p_adjusted"] < ALPHA
    table["correction"] = "Bonferroni over the strategies at each player count"
    return table.sort_values(["players", "rate"], ascending=[True, False]).reset_index(drop=True)


def finished_ahead(pairs: pd.DataFrame) -> np.ndarray:
    """1 where the seat finished ahead of the other (score, then reached, then big cities:
    R22), 0 where behind, 0.5 on a full tie."""
    ahead = np.full(len(pairs), 0.5)
    decided = np.zeros(len(pairs), dtype=bool)
    for key in ("score", "reached", "n_big_cities"):
        mine, theirs = pairs[key].to_numpy(), pairs[f"{key}_other"].to_numpy()
        ahead = np.where(~decided & (mine > theirs), 1.0, ahead)
        ahead = np.where(~decided & (mine < theirs), 0.0, ahead)
        decided |= mine != theirs
    return ahead


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and ordered pair of strategies at the same table: the share of their
    games in which the first finished ahead of the second.

    The game is the unit: within a game the value is the share of its seat pairs won (a tie
    counts one half); ``rate`` averages it over ``n_games``, with a Wilson interval over games
    and the score test of 0.5 (its inversion; conservative when ties or repeated seats make a
    game's value fractional). ``p_adjusted``: Holm over the pairs of each player count.
    """
    left = seats[[*GAME, "players", "strategy", "seat", "score", "reached", "n_big_cities"]]
    pairs = left.merge(left, on=[*GAME, "players"], suffixes=("", "_other"))
    pairs = pairs[pairs["strategy"] != pairs["strategy_other"]]
    pairs = pairs.assign(ahead=finished_ahead(pairs)).rename(columns={"strategy_other": "opponent"})
    per_game = (
        pairs.groupby(["players", "strategy", "opponent", *GAME])["ahead"]
        .agg(["mean", "size"])
        .reset_index()
    )
    table = (
        per_game.groupby(["players", "strategy", "opponent"])
        .agg(n_games=("mean", "size"), n_pairs=("size", "sum"), successes=("mean", "sum"))
        .reset_index()
    )
    table["rate"] = table["successes"] / table["n_games"]
    table["ci_low"], table["ci_high"] = wilson(table["successes"], table["n_games"])
    z = (table["rate"] - 0.5) / np.sqrt(0.25 / table["n_games"])
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
    table["significant"] = table["p_adjusted"] < ALPHA
    return table
