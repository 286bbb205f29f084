"""Inference clustered by deal (a paired study's games of one deal are not independent):
the clustered mean, Wilson interval and Plackett-Luce sandwich against independent
references, their null rates where games share deals, and strategies that cannot be told
apart tied exactly (ratings, meta-game)."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from reports import intervals, ratings
from reports.designer import nash_mix, shared_nash_mix

NULL_RATE = (0.02, 0.09)  # 5% nominal; 400 simulations give a binomial sd of about 1.1%


def _deal_sample(rng, deals=30, games=6, icc=0.6, effect=0.0):
    """Per-game values sharing a deal effect (intra-deal correlation ``icc``)."""
    groups = np.repeat(np.arange(deals), games)
    shared = np.repeat(rng.normal(0, np.sqrt(icc), deals), games)
    return shared + rng.normal(0, np.sqrt(1 - icc), deals * games) + effect, groups


def test_deal_one_sample_is_the_plain_t_where_every_deal_is_one_game():
    values = np.random.default_rng(1).normal(0.1, 1, 50)
    mean, low, high, p, df = intervals.deal_one_sample(values, np.arange(50))
    assert (mean, low, high, p) == intervals.one_sample(values) and df == 49


def test_deal_one_sample_matches_statsmodels_cluster_robust_ols():
    values, deals = _deal_sample(np.random.default_rng(2), effect=0.3)
    mean, low, high, p, df = intervals.deal_one_sample(values, deals)
    fit = sm.OLS(values, np.ones(len(values))).fit(
        cov_type="cluster", cov_kwds={"groups": deals}, use_t=True
    )
    assert mean == pytest.approx(fit.params[0], abs=1e-12)
    assert (low, high) == pytest.approx(tuple(fit.conf_int()[0]), abs=1e-10)
    assert p == pytest.approx(fit.pvalues[0], rel=1e-8) and df == 29


def test_deal_clustered_tests_hold_their_null_rate_where_per_game_ones_do_not():
    rng = np.random.default_rng(3)
    clustered = plain = wilson_missed = 0
    for _ in range(400):
        values, deals = _deal_sample(rng)
        clustered += intervals.deal_one_sample(values, deals)[3] < 0.05
        plain += intervals.one_sample(values)[3] < 0.05
        # a win rate whose deals differ in how often the strategy wins
        chance = np.repeat(rng.beta(2, 2, 30), 6)
        wins = (rng.random(180) < chance).astype(float)
        low, high = intervals.deal_wilson(wins, deals)
        wilson_missed += not low <= 0.5 <= high
    assert NULL_RATE[0] <= clustered / 400 <= NULL_RATE[1]
    assert NULL_RATE[0] <= wilson_missed / 400 <= NULL_RATE[1]
    assert plain / 400 > 0.2  # the games of a deal taken as independent: far too eager


def test_values_that_cancel_deal_by_deal_are_exactly_zero():
    # a clone against its twin: each deal's games give +x and -x, in any order
    values = np.array([1 / 3, -1 / 3, 1.0, 0.5, -1.0, -0.5, 0.1, -0.1])
    deals = np.array([0, 0, 1, 2, 1, 2, 3, 3])
    assert intervals.deal_one_sample(values, deals) == (0.0, 0.0, 0.0, 1.0, 3.0)
    assert np.isinf(intervals.effective_games(values, deals))


# ------------------------------------------------------------------ Plackett-Luce by deal
def _duels(rng, strengths, deals, spread):
    """Every ordered pair of strategies once a deal (both seat orders), each deal moving
    every strategy's strength by a normal ``spread``: rankings (winner first) and deals."""
    k = len(strengths)
    ranks, deal_of = [], []
    for deal in range(deals):
        moved = np.asarray(strengths) + rng.normal(0, spread, k)
        for a in range(k):
            for b in range(k):
                if a != b:
                    first = rng.random() < 1 / (1 + np.exp(moved[b] - moved[a]))
                    ranks.append([a, b] if first else [b, a])
                    deal_of.append(deal)
    return np.array(ranks), np.array(deal_of)


def test_the_deal_sandwich_matches_statsmodels_clustered_logit_for_two_seats():
    """Two seats: Plackett-Luce is Bradley-Terry, a logit without intercept on
    e_first - e_second; statsmodels' cluster-robust logit (no small-sample factor) times
    G/(G-1) is the sandwich ``pl_fit`` uses."""
    ranks, deals = _duels(np.random.default_rng(4), [0.4, 0.0, -0.3], 40, 0.5)
    fit = ratings.pl_fit(ranks, list("abc"), deals)
    flip = np.random.default_rng(5).random(len(ranks)) < 0.5  # which of the two is "first"
    first = np.where(flip, ranks[:, 1], ranks[:, 0])
    second = np.where(flip, ranks[:, 0], ranks[:, 1])
    x = np.eye(3)[first] - np.eye(3)[second]
    logit = sm.Logit((~flip).astype(float), x[:, 1:]).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": deals, "use_correction": False}
    )
    g = len(np.unique(deals))
    cov = np.zeros((3, 3))
    cov[1:, 1:] = logit.cov_params() * g / (g - 1)
    theta = np.concatenate([[0.0], logit.params])
    for a, b in ((0, 1), (0, 2), (1, 2)):
        diff = fit["theta"][a] - fit["theta"][b]
        assert diff == pytest.approx(theta[a] - theta[b], abs=1e-6)
        var = fit["cov"][a, a] + fit["cov"][b, b] - 2 * fit["cov"][a, b]
        assert var == pytest.approx(cov[a, a] + cov[b, b] - 2 * cov[a, b], rel=1e-5)
    assert fit["df"] == g - 1


@pytest.mark.slow
def test_rating_differences_clustered_by_deal_hold_their_null_rate():
    rng = np.random.default_rng(6)
    clustered = model = 0
    runs = 200
    for _ in range(runs):
        ranks, deals = _duels(rng, [0.0, 0.0, 0.0], 30, 1.5)
        for fit, counter in ((ratings.pl_fit(ranks, list("abc"), deals), "c"),
                             (ratings.pl_fit(ranks, list("abc")), "m")):  # fmt: skip
            cov, theta = fit["cov"], fit["theta"]
            z = (theta[0] - theta[1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
            if counter == "c":
                clustered += abs(z) > intervals.sps.t.ppf(0.975, fit["df"])
            else:
                model += abs(z) > intervals.Z95
    assert 0.01 <= clustered / runs <= 0.10
    assert model / runs > 0.12  # the model's information takes a deal's games for independent


def test_strategies_whose_deals_mirror_each_other_are_tied_exactly():
    rng = np.random.default_rng(7)
    ranks, deals = _duels(rng, [0.3, 0.0, -0.2], 20, 0.3)
    # a fourth strategy, d, plays every game of a (a clone): the same deals, a and d swapped
    clone = np.where(ranks == 0, 3, ranks)
    both = np.vstack([ranks, clone])
    deal_of = np.concatenate([deals, deals])
    fit = ratings.pl_fit(both, list("abcd"), deal_of)
    assert frozenset((0, 3)) in fit["tied"] and len(fit["tied"]) == 1
    assert fit["theta"][0] == fit["theta"][3]
    rows = {(r["strategy"], r["opponent"]): r for r in ratings._rating_pairs({2: fit})}
    pair = rows.get(("a", "d")) or rows[("d", "a")]
    assert (pair["difference"], pair["ci_low"], pair["ci_high"], pair["p_value"]) == (0, 0, 0, 1)
    # unpaired (each game its own deal) the same rankings tie nobody
    assert not ratings.pl_fit(both, list("abcd"), np.arange(len(both)))["tied"]


# ------------------------------------------------------------------ the meta-game
def test_the_equilibrium_shares_weight_among_strategies_that_cannot_be_told_apart():
    # rock-paper-scissors with scissors twice: the linear program alone gives one of them all
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    twice = rps[np.ix_([0, 1, 2, 2], [0, 1, 2, 2])]
    mix, value = shared_nash_mix(twice)
    assert mix == pytest.approx([1 / 3, 1 / 3, 1 / 6, 1 / 6])
    assert value == pytest.approx(0.0, abs=1e-9)
    assert shared_nash_mix(rps)[0] == pytest.approx(nash_mix(rps)[0])


# ------------------------------------------------------------------ who leads, paired
def test_a_paired_round_robin_judges_the_top_by_line_up_swaps_and_ties_a_clone(tmp_path):
    from reports.analysis import analyse
    from reports.ratings import SWAP_BASIS
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    study = {
        "name": "swap-lead",
        "seed": 9,
        "players": [2],
        "pool": ["planner", "twin", "random"],
        "strategies": {"twin": {"base": "planner"}},
        "games_per_cell": 40,
    }
    run(from_dict(study, "t"), workers=1, out=tmp_path / "r", progress=False)
    tables = analyse(load_results(tmp_path / "r")).tables
    lead = tables["leaders"].iloc[0]
    assert set(lead["leaders"].split(", ")) == {"planner", "twin"}
    assert lead["basis"] == SWAP_BASIS and lead["verdict"] == "practically equal"
    assert lead["difference"] == 0 and lead["family_low"] == lead["family_high"] == 0
    swaps = tables["lineup_swaps"]
    clone = swaps[(swaps["strategy"] == "planner") & (swaps["opponent"] == "twin")]
    assert (clone["difference"] == 0).all() and (clone["n_deals"] == 20).all()
