"""Statistics against known values (sources quoted) and planted effects."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from reports import intervals, ratings, seat_order, variants, wins
from tests.helpers import card_balance


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # scipy.stats.binomtest(k, n).proportion_ci(method="wilson"), scipy 1.17
        (81, 263, 0.2552885198782742, 0.36620957698280004),
        (0, 10, 0.0, 0.27753279986288926),
        (10, 10, 0.7224672001371109, 1.0),
        (5, 20, 0.11186170140766571, 0.468700877618744),
    ],
)
def test_wilson_interval_matches_reference_values(k, n, low, high):
    got_low, got_high = intervals.wilson(k, n)
    assert got_low == pytest.approx(low, abs=1e-9)
    assert got_high == pytest.approx(high, abs=1e-9)


def test_mean_interval_is_student_t():
    values = pd.Series([3.0, 5.0, 4.0, 6.0, 2.0])
    n, mean, low, high = intervals.mean_ci(values)
    ref = sps.t.interval(0.95, 4, loc=4.0, scale=sps.sem(values))  # scipy's t interval
    assert (n, mean) == (5, 4.0)
    assert (low, high) == pytest.approx(ref)


def _seats_from_rankings(strengths, tables, players, rng):
    """Synthetic seats: each table ranks its strategies by Plackett-Luce with ``strengths``."""
    names = list(strengths)
    rows = []
    for game in range(tables):
        lineup = list(rng.choice(names, size=players, replace=False))
        remaining = list(lineup)
        order = []
        while remaining:
            weights = np.exp([strengths[s] for s in remaining])
            pick = rng.choice(len(remaining), p=weights / weights.sum())
            order.append(remaining.pop(pick))
        for place, strategy in enumerate(order):
            rows.append(
                {
                    "cell": "c",
                    "game_index": game,
                    "players": players,
                    "strategy": strategy,
                    "seat": lineup.index(strategy),
                    "score": 100 - 10 * place,
                    "reached": 0,
                    "n_big_cities": 0,
                    "win_share": 1.0 if place == 0 else 0.0,
                }
            )
    return pd.DataFrame(rows)


def test_rating_recovers_planted_strengths():
    planted = {"a": 1.0, "b": 0.5, "c": 0.0, "d": -0.5, "e": -1.0}
    seats = _seats_from_rankings(planted, 3000, 3, np.random.default_rng(1))
    table = ratings.ratings(seats)
    assert list(table["strategy"]) == ["a", "b", "c", "d", "e"]
    got = dict(zip(table["strategy"], table["strength"], strict=True))
    for name, value in planted.items():
        assert got[name] == pytest.approx(value, abs=0.12)
    assert (table["ci_low"] <= table["strength"]).all()
    assert (table["strength"] <= table["ci_high"]).all()
    # the 95% intervals cover the planted values (all 5 here; a miss would be rare)
    covered = sum(
        low <= planted[s] <= high
        for s, low, high in zip(table["strategy"], table["ci_low"], table["ci_high"], strict=True)
    )
    assert covered >= 4


def test_win_rates_count_shared_wins_as_fractions():
    # was: n counted seats; the game is now the unit (n_games, n_seats)
    seats = pd.DataFrame(
        {
            "cell": "c",
            "game_index": [0, 0, 1, 1],
            "players": [2, 2, 2, 2],
            "strategy": ["a", "b", "a", "b"],
            "win_share": [0.5, 0.5, 1.0, 0.0],
        }
    )
    table = wins.win_rates(seats).set_index("strategy")
    assert table.loc["a", "rate"] == 0.75
    assert table.loc["a", "n_games"] == 2 and table.loc["a", "n_seats"] == 2
    assert table.loc["b", "rate"] == 0.25


def _seat_frame(win_prob_seat0, games, rng):
    rows = []
    for game in range(games):
        first = rng.random() < win_prob_seat0
        for seat in (0, 1):
            won = first if seat == 0 else not first
            rows.append(
                {
                    "cell": "c",
                    "game_index": game,
                    "players": 2,
                    "seat": seat,
                    "win_share": float(won),
                    "score": 50 + 10 * won + rng.normal(),
                }
            )
    return pd.DataFrame(rows)


def test_seat_advantage_finds_a_planted_bias_and_not_a_fair_one():
    rng = np.random.default_rng(3)
    _, biased = seat_order.seat_advantage(_seat_frame(0.65, 2000, rng))
    assert bool(biased["wins_significant"].iloc[0])
    _, fair = seat_order.seat_advantage(_seat_frame(0.5, 2000, rng))
    assert not bool(fair["wins_significant"].iloc[0])


def test_destination_balance_flags_a_planted_outlier():
    rng = np.random.default_rng(5)
    rows = []
    for dest in range(1, 21):
        cards = 1 + dest % 4
        points = 4 * cards
        completion = 0.8 if dest != 7 else 0.2  # card 7 is much harder than its length says
        for _ in range(300):
            reached = rng.random() < completion
            rows.append(
                {
                    "destination_id": dest,
                    "points": points,
                    "cards": cards,
                    "kept": True,
                    "reached": reached,
                    "net_points": points if reached else -points,
                }
            )
    table = card_balance(pd.DataFrame(rows)).set_index("destination_id")
    assert table.loc[7, "flag"].startswith("under-rewarded")
    assert (table.drop(index=7)["flag"] == "").all()
    assert table.loc[7, "completion"] == pytest.approx(0.2, abs=0.06)


def test_variant_effects_detect_a_planted_difference():
    rng = np.random.default_rng(2)
    games = pd.DataFrame(
        {
            "variant": ["base"] * 300 + ["long"] * 300,
            "players": 2,
            "failed": False,
            "turns": np.r_[rng.normal(80, 5, 300), rng.normal(90, 5, 300)],
            "sim_minutes": rng.normal(15, 1, 600),
            "steals": rng.poisson(2, 600),
        }
    )
    seats = pd.DataFrame(
        {
            "cell": np.repeat(["base/2p", "long/2p"], 600),
            "game_index": np.tile(np.repeat(np.arange(300), 2), 2),
            "variant": ["base"] * 600 + ["long"] * 600,
            "players": 2,
            "seat": [0, 1] * 600,
            "score": rng.normal(100, 10, 1200),
            "win_share": rng.integers(0, 2, 1200).astype(float),
            "unreached": rng.poisson(1, 1200),
        }
    )
    table = variants.variant_effects(games, seats).set_index("metric")
    assert table.loc["turns", "significant"]
    assert table.loc["turns", "ci_low"] < 10 < table.loc["turns", "ci_high"]
    assert not table.loc["sim_minutes", "significant"]
