"""Destination offers as sums: the game-clustered moments against statsmodels and a direct
computation, chunks of whole games adding up to the whole, and a report read a chunk at a
time giving the tables of one read whole."""

import itertools

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from reports.offers import SUMS, clustered, offer_sums
from sims.errors import ResultsError
from tests.helpers import card_contribution, card_summary


def _rows(rng, games=300):
    """Offer rows of two variants at 2 and 3 players, some cards offered twice in a game
    (a returned card dealt again), with seats and their win shares."""
    rows, seats = [], []
    for g in range(games):
        variant = "base" if g % 3 else "what-if"
        players = 2 + g % 2
        cell = f"{variant}/{players}p"
        shares = rng.dirichlet(np.ones(players))
        for seat in range(players):
            seats.append({"cell": cell, "game_index": g, "seat": seat, "win_share": shares[seat]})
        for card in rng.choice(np.arange(1, 12), size=rng.integers(3, 9), replace=False):
            for _ in range(1 + int(rng.random() < 0.2)):
                kept = bool(rng.random() < 0.6)
                reached = kept and bool(rng.random() < 0.7)
                points = int(card) + 3
                rows.append({"variant": variant, "cell": cell, "game_index": g,
                             "players": players, "seat": int(rng.integers(players)),
                             "destination_id": int(card), "kept": kept, "reached": reached,
                             "net_points": (points if reached else -points) if kept else 0,
                             "points": points, "cards": 2 + int(card) % 3})  # fmt: skip
    return pd.DataFrame(rows), pd.DataFrame(seats)


def test_clustered_variance_matches_statsmodels_cluster_robust_errors():
    rng = np.random.default_rng(4)
    games = np.repeat(np.arange(60), 3)
    y = rng.normal(size=60)[games] + rng.normal(size=len(games))
    totals = np.bincount(games, weights=y)
    counts = np.bincount(games).astype(float)
    mean, var = clustered(
        counts.sum(),
        60,
        totals.sum(),
        (totals**2).sum(),
        (totals * counts).sum(),
        (counts**2).sum(),
    )
    # statsmodels: sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": games})
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": games})
    assert mean == pytest.approx(fit.params[0])
    assert np.sqrt(var) == pytest.approx(fit.bse[0], rel=1e-9)


def test_the_sums_are_the_per_game_moments_computed_directly():
    rows, seats = _rows(np.random.default_rng(1))
    sums = offer_sums([rows], seats).set_index(["variant", "players", "destination_id"])
    shares = seats.set_index(["cell", "game_index", "seat"])["win_share"]
    won = rows.join(shares, on=["cell", "game_index", "seat"])["win_share"]
    rows = rows.assign(
        k=rows["kept"].astype(float),
        r=(rows["kept"] & rows["reached"]).astype(float),
        t=rows["net_points"].where(rows["kept"], 0).astype(float),
        wr=won.where(rows["kept"] & rows["reached"], 0.0),
        wf=won.where(rows["kept"] & ~rows["reached"], 0.0),
    )
    keys = ["variant", "players", "destination_id"]
    g = rows.groupby([*keys, "game_index"]).agg(
        c=("k", "size"),
        k=("k", "sum"),
        r=("r", "sum"),
        t=("t", "sum"),
        wr=("wr", "sum"),
        wf=("wf", "sum"),
    )
    g = g.assign(
        kk=g.k**2,
        kc=g.k * g.c,
        cc=g.c**2,
        rr=g.r**2,
        rk=g.r * g.k,
        tt=g.t**2,
        tk=g.t * g.k,
        one=1.0,
        kg=(g.k > 0).astype(float),
    )
    expected = g.groupby(keys).sum()
    names = {"offered": "c", "games": "one", "kept": "k", "kept_sq": "kk", "kept_offered": "kc",
             "offered_sq": "cc", "kept_games": "kg", "reached": "r", "reached_sq": "rr",
             "reached_kept": "rk", "net": "t", "net_sq": "tt", "net_kept": "tk",
             "won_reached": "wr", "won_failed": "wf"}  # fmt: skip
    assert set(names) == set(SUMS)
    for ours, theirs in names.items():
        np.testing.assert_allclose(
            sums[ours].to_numpy(float),
            expected.loc[sums.index, theirs].to_numpy(float),
            rtol=1e-12,
            err_msg=ours,
        )
    assert (sums["offered_sq"] > sums["offered"]).any()  # some card was offered twice


def test_chunks_of_whole_games_add_up_to_the_whole():
    rows, seats = _rows(np.random.default_rng(2))
    whole = offer_sums([rows], seats)
    cuts = [0, 1, 2, 40, 41, 150, 299, 300]  # games per chunk: one, none, many
    chunks = [rows[rows["game_index"].between(a, b - 1)] for a, b in itertools.pairwise(cuts)]
    pd.testing.assert_frame_equal(offer_sums(chunks, seats), whole, check_exact=False, rtol=1e-12)
    shuffled = rows.sample(frac=1, random_state=3)  # a game's rows apart: found all the same
    pd.testing.assert_frame_equal(offer_sums([shuffled], seats), whole, rtol=1e-12)


def test_a_row_of_a_seat_the_seats_table_lacks_is_refused():
    rows, seats = _rows(np.random.default_rng(5), games=20)
    kept = rows.index[rows["kept"]][0]
    lacking = seats.drop(
        seats.index[
            (seats["game_index"] == rows.at[kept, "game_index"])
            & (seats["seat"] == rows.at[kept, "seat"])
        ]
    )
    with pytest.raises(ResultsError, match="seats table does not hold"):
        offer_sums([rows], lacking)


def test_the_card_tables_pool_the_variants_of_a_player_count():
    rows, seats = _rows(np.random.default_rng(6), games=600)
    base = rows[rows["variant"] == "base"]
    summary = card_summary(rows)
    # a variant's games are other games: pooling adds their sums
    assert summary["offered"].sum() == len(rows)
    assert summary["games"].sum() == rows.groupby(["game_index", "destination_id"]).ngroups
    contribution = card_contribution(base, seats[seats["cell"].str.startswith("base")], min_each=5)
    assert contribution["n_kept"].sum() == int(base["kept"].sum())
