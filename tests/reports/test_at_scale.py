"""The report's array versions of its seat statistics against plain pandas versions of the
same definitions: pairs of strategies at a table (repeated strategies, ties, rows in any
order) and finishing orders."""

import numpy as np
import pandas as pd

from reports import ratings, wins
from reports.intervals import GAME


def _tables(rng, games=400):
    """Seats of 2-4 player games, some with a strategy in two seats, scores that tie."""
    rows = []
    for g in range(games):
        players = 2 + g % 3
        names = rng.choice(["a", "b", "c", "random"], size=players, replace=bool(g % 5 == 0))
        for seat, name in enumerate(names):
            rows.append({"cell": f"c{g % 4}", "game_index": g, "players": players, "seat": seat,
                         "strategy": str(name), "score": int(rng.integers(0, 4)),
                         "reached": int(rng.integers(0, 2)),
                         "n_big_cities": int(rng.integers(0, 2))})  # fmt: skip
    return pd.DataFrame(rows)


def _pair_counts_by_join(seats):
    """The definition as a self-join of every seat of a game with every other."""
    left = seats[[*GAME, "players", "strategy", "score", "reached", "n_big_cities"]]
    pairs = left.merge(left, on=[*GAME, "players"], suffixes=("", "_other"))
    pairs = pairs[pairs["strategy"] != pairs["strategy_other"]]
    pairs = pairs.assign(ahead=wins.finished_ahead(pairs)).rename(
        columns={"strategy_other": "opponent"}
    )
    per_game = pairs.groupby(["players", "strategy", "opponent", *GAME])["ahead"].agg(
        ["mean", "size"]
    )
    return (
        per_game.groupby(["players", "strategy", "opponent"])
        .agg(n_games=("mean", "size"), n_pairs=("size", "sum"), successes=("mean", "sum"))
        .reset_index()
    )


def test_pairs_at_a_table_match_the_self_join_in_any_row_order():
    seats = _tables(np.random.default_rng(1))
    expected = _pair_counts_by_join(seats)
    assert (expected["n_pairs"] > expected["n_games"]).any()  # a strategy seated twice
    for frame in (seats, seats.sample(frac=1, random_state=2)):
        got = wins._pair_counts(frame)[list(expected.columns)]
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)


def test_finishing_orders_match_a_sort_in_any_row_order():
    seats = _tables(np.random.default_rng(3))
    labels = sorted(seats["strategy"].unique())
    ordered = seats.sort_values(
        [*GAME, "score", "reached", "n_big_cities", "seat"],
        ascending=[True, True, False, False, False, True],
    )
    expected = [list(g["strategy"].map(labels.index)) for _, g in ordered.groupby(GAME, sort=True)]
    for frame in (seats, seats.sample(frac=1, random_state=4)):
        got = ratings.rank_matrix(frame, labels)
        assert [[i for i in row if i >= 0] for row in got.tolist()] == expected


def test_identical_rankings_are_counted_in_sorted_order():
    ranks = np.random.default_rng(5).integers(-1, 5, size=(2000, 4))
    unique, counts = np.unique(ranks, axis=0, return_counts=True)
    got, weights = ratings._compact(ranks)
    assert (got == unique).all() and (weights == counts).all()


def _exchangeable_by_sorting(ranks, deals, a, b):
    """The definition: the (deal, ranking) rows, and those with a and b swapped, sorted."""
    swapped = np.where(ranks == a, b, np.where(ranks == b, a, ranks))
    if np.array_equal(swapped, ranks):
        return not (ranks == a).any()
    rows, other = np.column_stack([deals, ranks]), np.column_stack([deals, swapped])
    return np.array_equal(rows[np.lexsort(rows.T[::-1])], other[np.lexsort(other.T[::-1])])


def test_exchangeable_matches_sorting_every_row():
    rng = np.random.default_rng(6)
    for trial in range(60):
        deals = rng.integers(0, 6, size=40)
        ranks = rng.integers(-1, 4, size=(40, 3))
        if trial % 2:  # a and b played each other's games: every deal's rows swapped too
            swap = np.where(ranks == 0, 1, np.where(ranks == 1, 0, ranks))
            ranks, deals = np.vstack([ranks, swap]), np.concatenate([deals, deals])
        if trial % 3 == 0:  # deals too many for one number per row: rows sorted instead
            deals = deals * 2**60 // 6
        for a, b in ((0, 1), (1, 2), (0, 3), (3, 4)):
            got = ratings.exchangeable(ranks, deals, a, b)
            assert got == _exchangeable_by_sorting(ranks, deals, a, b), (trial, a, b)


def test_exchangeable_pairs_are_the_pairs_exchangeable():
    rng = np.random.default_rng(7)
    for trial in range(30):
        deals = rng.integers(0, 5, size=30) * 1_000_003  # any integers name the deals
        ranks = rng.integers(-1, 5, size=(30, 3))
        if trial % 2:
            swap = np.where(ranks == 2, 3, np.where(ranks == 3, 2, ranks))
            ranks, deals = np.vstack([ranks, swap]), np.concatenate([deals, deals])
        expected = [
            (a, b) for a in range(5) for b in range(a + 1, 5)
            if _exchangeable_by_sorting(ranks, deals, a, b)
        ]  # fmt: skip
        assert ratings._exchangeable_pairs(ranks, deals, 5) == expected
        assert trial % 2 == 0 or (2, 3) in expected


def test_pairs_at_tables_of_different_strategies_match_the_self_join():
    seats = _tables(np.random.default_rng(8))
    once = seats.groupby(GAME)["strategy"].transform("nunique") == seats.groupby(GAME)[
        "strategy"
    ].transform("size")
    seats = seats[once]  # no strategy seated twice: each pair's seat pair is its own run
    expected = _pair_counts_by_join(seats)
    assert (expected["n_pairs"] == expected["n_games"]).all()
    for frame in (seats, seats.sample(frac=1, random_state=9)):
        got = wins._pair_counts(frame)[list(expected.columns)]
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=0, atol=0)
