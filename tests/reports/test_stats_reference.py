"""Each statistical method of the reports package against an independent computation (the call or
source is quoted beside each value), and planted effects: found when present, rejected at
about the nominal 5% rate over repeated null simulations (seeded, so deterministic)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from reports import big_cities, differences, intervals, points, ratings, seat_order, wins

NULL_RATE = (0.02, 0.09)  # 5% nominal; 400 simulations give a binomial sd of about 1.1%


# ------------------------------------------------------------------ cluster-robust errors
def _cr1_by_hand(y, x, groups):
    """Liang-Zeger sandwich with the CR1 small-sample factor G/(G-1) * (N-1)/(N-K), Cameron
    and Miller (2015), 'A Practitioner's Guide to Cluster-Robust Inference', eq. 11 + sec.
    VI.B; t with G-1 degrees of freedom (their sec. VI.C). Written from the paper, not from
    statsmodels."""
    n, k = x.shape
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    resid = y - x @ beta
    bread = np.linalg.inv(x.T @ x)
    meat = np.zeros((k, k))
    labels = np.unique(groups)
    for g in labels:
        score = x[groups == g].T @ resid[groups == g]
        meat += np.outer(score, score)
    g_count = len(labels)
    factor = g_count / (g_count - 1) * (n - 1) / (n - k)
    cov = factor * bread @ meat @ bread
    half = sps.t.ppf(0.975, g_count - 1) * np.sqrt(np.diag(cov))
    return beta, beta - half, beta + half


def _clustered_sample(rng, games=60, seats=3, icc=0.5, flag_rate=0.3, effect=0.0):
    """Seat rows sharing a game effect (intra-class correlation ``icc``) and a random flag."""
    groups = np.repeat(np.arange(games), seats)
    game_effect = np.repeat(rng.normal(0, np.sqrt(icc), games), seats)
    flag = rng.random(games * seats) < flag_rate
    y = game_effect + rng.normal(0, np.sqrt(1 - icc), games * seats) + effect * flag
    return y, flag, groups


def test_cluster_mean_and_difference_match_the_cr1_sandwich_by_hand():
    y, flag, groups = _clustered_sample(np.random.default_rng(7))
    mean, low, high = intervals.cluster_mean(y, groups)
    beta, ref_low, ref_high = _cr1_by_hand(y, np.ones((len(y), 1)), groups)
    assert (mean, low, high) == pytest.approx((beta[0], ref_low[0], ref_high[0]), rel=1e-9)
    diff, low, high, _ = intervals.cluster_difference(y, flag, groups)
    x = np.column_stack([np.ones(len(y)), flag.astype(float)])
    beta, ref_low, ref_high = _cr1_by_hand(y, x, groups)
    assert (diff, low, high) == pytest.approx((beta[1], ref_low[1], ref_high[1]), rel=1e-9)


def test_cluster_mean_rejects_at_the_nominal_rate_where_the_seat_t_interval_does_not():
    rng = np.random.default_rng(11)
    clustered = naive = 0
    for _ in range(400):
        y, _, groups = _clustered_sample(rng, games=40, icc=0.5)
        _, low, high = intervals.cluster_mean(y, groups)
        clustered += not (low <= 0 <= high)
        _, _, low, high = intervals.mean_ci(pd.Series(y))  # seats taken as independent
        naive += not (low <= 0 <= high)
    assert NULL_RATE[0] <= clustered / 400 <= NULL_RATE[1]
    assert naive / 400 > 0.12  # why the game must be the unit: about 3 times too many


def test_cluster_difference_null_rate_and_planted_lift():
    rng = np.random.default_rng(12)
    rejected = sum(
        intervals.cluster_difference(*_clustered_sample(rng, games=40))[3] < 0.05
        for _ in range(400)
    )
    assert NULL_RATE[0] <= rejected / 400 <= NULL_RATE[1]
    y, flag, groups = _clustered_sample(rng, games=200, effect=0.4)
    _, low, high, p = intervals.cluster_difference(y, flag, groups)
    assert p < 0.001 and low < 0.4 < high


# ------------------------------------------------------------------ seat rows from rankings
def _table_rows(rankings, players, labels, rng=None, cell="c"):
    """Seat rows whose final order is each ranking (first = winner); seats shuffled."""
    rows = []
    for game, order in enumerate(rankings):
        seats = rng.permutation(len(order)) if rng is not None else np.arange(len(order))
        for place, strategy in enumerate(order):
            rows.append(
                {
                    "cell": cell,
                    "game_index": game,
                    "players": players,
                    "strategy": labels[strategy],
                    "seat": int(seats[place]),
                    "score": 100 - 10 * place,
                    "reached": 0,
                    "n_big_cities": 0,
                    "win_share": 1.0 if place == 0 else 0.0,
                }
            )
    return pd.DataFrame(rows)


def _pl_draws(rng, strengths, tables, players, repeat):
    """Rankings drawn from Plackett-Luce by the Gumbel trick (sorting strength + Gumbel noise
    gives a Plackett-Luce ranking, Yellott 1977); line-ups with or without repeats."""
    strengths = np.asarray(strengths, dtype=float)
    if repeat:
        lineups = rng.integers(len(strengths), size=(tables, players))
    else:
        lineups = np.argsort(rng.random((tables, len(strengths))), axis=1)[:, :players]
    keys = strengths[lineups] + rng.gumbel(size=lineups.shape)
    return np.take_along_axis(lineups, np.argsort(-keys, axis=1), axis=1)


# ------------------------------------------------------------------ win rates
def test_win_rate_counts_games_and_judges_against_the_non_random_field():
    labels = ["a", "b", "random"]
    # a sits twice at every 4-player table; random never wins
    rankings = [[0, 1, 0, 2], [1, 0, 0, 2], [0, 0, 1, 2], [1, 0, 2, 0], [0, 1, 2, 0]] * 20
    seats = _table_rows(rankings, 4, labels)
    table = wins.win_rates(seats).set_index("strategy")
    assert table.loc["a", "n_games"] == 100 and table.loc["a", "n_seats"] == 200
    assert table.loc["a", "rate"] == pytest.approx(0.6)  # its two seats' win shares summed
    assert table.loc["a", "fair"] == pytest.approx(0.5)  # 2 of 4 seats
    # field: random won nothing, so a's two seats expect 2/3 of the wins, not 2/4
    assert table.loc["a", "field"] == pytest.approx(2 / 3)
    per_game = np.array([1.0, 0.0, 1.0, 0.0, 1.0] * 20) - 2 / 3
    reference = sps.ttest_1samp(per_game, 0.0)  # scipy.stats.ttest_1samp on the game values
    assert table.loc["a", "p_value"] == pytest.approx(reference.pvalue)
    assert np.isnan(table.loc["random", "field"])  # the baseline is never its own field


def test_win_rate_says_won_every_game_instead_of_an_interval_test():
    seats = _table_rows([[0, 1]] * 50, 2, ["a", "b"])
    table = wins.win_rates(seats).set_index("strategy")
    assert table.loc["a", "note"] == "won every game, n=50"
    assert np.isnan(table.loc["a", "p_value"]) and not table.loc["a", "significant"]
    alone = wins.win_rates(_table_rows([[0, 0]] * 10, 2, ["planner"]))
    assert alone["note"].iloc[0].startswith("the only strategy")


def test_win_rate_leaves_out_games_where_a_strategy_held_every_seat():
    rankings = [[0, 0, 0, 0]] * 30 + [[0, 1, 0, 1]] * 10 + [[1, 0, 0, 1]] * 10
    table = wins.win_rates(_table_rows(rankings, 4, ["a", "b"])).set_index("strategy")
    assert table.loc["a", "n_games"] == 20 and table.loc["a", "n_alone"] == 30
    assert table.loc["a", "rate"] == pytest.approx(0.5) and table.loc["a", "fair"] == 0.5


def test_one_sample_t_null_rate_and_planted_excess():
    rng = np.random.default_rng(13)
    rejected = 0
    for _ in range(400):  # per-game win indicator minus the field share, equal strategies
        rejected += intervals.one_sample(pd.Series((rng.random(80) < 1 / 3) - 1 / 3))[3] < 0.05
    assert NULL_RATE[0] <= rejected / 400 <= NULL_RATE[1]
    assert intervals.one_sample(pd.Series((rng.random(400) < 0.45) - 1 / 3))[3] < 0.001


# ------------------------------------------------------------------ head to head
def test_head_to_head_counts_games_and_uses_the_score_test():
    from statsmodels.stats.proportion import proportions_ztest

    labels = ["a", "b"]
    # a sits twice: per game a's share of seat pairs ahead of b is 1, 0.5 or 0
    rankings = [[0, 0, 1]] * 30 + [[0, 1, 0]] * 10 + [[1, 0, 0]] * 20
    table = wins.head_to_head(_table_rows(rankings, 3, labels)).set_index("strategy")
    assert table.loc["a", "n_games"] == 60 and table.loc["a", "n_pairs"] == 120
    assert table.loc["a", "rate"] == pytest.approx((30 + 5) / 60)
    # score test of 0.5: statsmodels.stats.proportion.proportions_ztest(35, 60, value=0.5,
    # prop_var=0.5) -> z uses the null variance, the test the Wilson interval inverts
    _, p = proportions_ztest(35, 60, value=0.5, prop_var=0.5)
    assert table.loc["a", "p_value"] == pytest.approx(p)
    low, high = sps.binomtest(35, 60).proportion_ci(method="wilson")  # scipy's Wilson
    assert (table.loc["a", "ci_low"], table.loc["a", "ci_high"]) == pytest.approx((low, high))


# ------------------------------------------------------------------ Plackett-Luce
def test_rating_matches_choix_maximum_likelihood_without_repeats():
    import choix

    rng = np.random.default_rng(21)
    ranks = _pl_draws(rng, [0.6, 0.0, -0.2, -0.8], 400, 3, repeat=False)
    labels = ["a", "b", "c", "random"]
    fit = ratings.pl_fit(ranks, labels)
    # choix.ilsr_rankings(4, rankings, alpha=0.0, tol=1e-12): Maystre & Grossglauser's
    # spectral ML algorithm, re-centred on the non-random strategies like ours
    ref = choix.ilsr_rankings(4, [tuple(r) for r in ranks], alpha=0.0, tol=1e-12)
    ref = ref - ref[:3].mean()
    assert fit["theta"] == pytest.approx(ref, abs=1e-6)


def _exploded_logit(ranks, columns):
    """statsmodels ConditionalLogit on the rank-ordered ('exploded') logit: each place is a
    choice among the seats still in the race, one dummy per strategy in ``columns``."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    y, x, groups, stage = [], [], [], 0
    for ranking in ranks:
        for place in range(len(ranking) - 1):
            for pos, strategy in enumerate(ranking[place:]):
                y.append(1.0 if pos == 0 else 0.0)
                x.append([1.0 if strategy == c else 0.0 for c in columns])
                groups.append(stage)
            stage += 1
    model = ConditionalLogit(np.array(y), np.array(x), groups=np.array(groups))
    return model.fit(method="newton", disp=0, tol=1e-12)


def test_rating_with_a_strategy_twice_at_a_table_matches_the_exploded_logit():
    rng = np.random.default_rng(22)
    ranks = _pl_draws(rng, [0.6, 0.0, -0.2, -0.8], 400, 4, repeat=True)
    fit = ratings.pl_fit(ranks, ["a", "b", "c", "random"])
    # reference category b (index 1): coefficients are theta_s - theta_b and their standard
    # errors are those of the rating differences from our covariance
    ref = _exploded_logit(ranks, [0, 2, 3])
    theta, cov = fit["theta"], fit["cov"]
    assert theta[[0, 2, 3]] - theta[1] == pytest.approx(ref.params, abs=1e-6)
    se = [np.sqrt(cov[i, i] + cov[1, 1] - 2 * cov[i, 1]) for i in (0, 2, 3)]
    assert se == pytest.approx(ref.bse, rel=1e-5)
    assert theta[:3].mean() == pytest.approx(0.0, abs=1e-12)  # the anchor


def test_rating_table_states_anchor_and_counts_tables_and_seats():
    rng = np.random.default_rng(23)
    ranks = _pl_draws(rng, [0.5, 0.0, -0.5], 120, 4, repeat=True)
    seats = _table_rows(ranks, 4, ["a", "b", "random"], rng)
    table = ratings.ratings(seats).set_index("strategy")
    assert (table["anchor"] == ratings.SCALE).all()
    assert table["n_seats"].sum() == 480
    assert table.loc["a", "n_tables"] == int((ranks == 0).any(axis=1).sum())


def test_a_strategy_that_won_every_comparison_gets_no_number():
    rng = np.random.default_rng(24)
    ranks = _pl_draws(rng, [0.0, -0.3, -0.6], 200, 3, repeat=False)
    ranks = np.column_stack([np.full(200, 3), ranks])  # d always first
    seats = _table_rows(ranks, 4, ["a", "b", "c", "d"], rng)
    table = ratings.ratings(seats).set_index("strategy")
    assert np.isnan(table.loc["d", ["strength", "ci_low", "ci_high"]].astype(float)).all()
    assert table.loc["d", "note"].startswith("finished ahead of every other strategy at all 200")
    assert table[["strength"]].drop(index="d").notna().all().all()  # the rest still rated
    pairs = ratings.pairwise(seats)
    assert "d" not in set(pairs[pairs["method"].str.startswith("rating")]["strategy"])


@pytest.mark.slow
def test_rating_difference_test_rejects_at_the_nominal_rate_under_equal_strengths():
    rng = np.random.default_rng(25)
    rejected = 0
    for _ in range(300):
        fit = ratings.pl_fit(_pl_draws(rng, [0.0, 0.0, 0.0], 60, 3, repeat=False), list("abc"))
        cov = fit["cov"]
        z = (fit["theta"][0] - fit["theta"][1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
        rejected += abs(z) > intervals.Z95
    assert NULL_RATE[0] <= rejected / 300 <= NULL_RATE[1]


def test_pairwise_rating_difference_finds_a_planted_lead_and_not_a_tie():
    rng = np.random.default_rng(26)
    seats = _table_rows(_pl_draws(rng, [0.5, 0.0, 0.0], 600, 3, repeat=False), 3, list("abc"))
    pairs = ratings.pairwise(seats)
    rating = pairs[pairs["method"].str.startswith("rating")].set_index(["strategy", "opponent"])
    assert rating.loc[("a", "b"), "significant"] and rating.loc[("a", "c"), "significant"]
    equal = rating.loc[[("b", "c")] if ("b", "c") in rating.index else [("c", "b")]]
    assert not equal["significant"].iloc[0]


# ------------------------------------------------------------------ pooling test
def _two_counts(rng, strengths3, strengths4, tables):
    three = _table_rows(_pl_draws(rng, strengths3, tables, 3, False), 3, list("abcd"), rng, "3p")
    four = _table_rows(_pl_draws(rng, strengths4, tables, 4, False), 4, list("abcd"), rng, "4p")
    return pd.concat([three, four], ignore_index=True)


def test_pooling_lr_matches_the_exploded_logit_with_an_interaction():
    rng = np.random.default_rng(31)
    seats = _two_counts(rng, [0.5, 0.0, -0.2, -0.3], [0.0, 0.4, -0.2, -0.3], 200)
    test = ratings.pooling_test(seats).iloc[0]
    labels = list("abcd")
    ranks = {p: ratings.rank_matrix(g, labels) for p, g in seats.groupby("players")}
    # separate: one set of dummies per player count (strategy x count); pooled: one set
    separate = sum(_exploded_logit(r, [0, 1, 2]).llf for r in ranks.values())
    joined = [list(r) for r in ranks[3]] + [list(r) for r in ranks[4]]
    pooled_llf = _exploded_logit(joined, [0, 1, 2]).llf
    assert test["lr"] == pytest.approx(2 * (separate - pooled_llf), rel=1e-6)
    assert test["df"] == 3  # (k - 1)(P - 1) = 3 x 1
    assert test["p_value"] < 0.01 and not test["pooling_justified"]


@pytest.mark.slow
def test_pooling_lr_rejects_at_the_nominal_rate_under_no_interaction():
    rng = np.random.default_rng(32)
    strengths = [0.4, 0.0, -0.4]
    rejected = 0
    for _ in range(250):
        blocks = [_pl_draws(rng, strengths, 50, players, False) for players in (2, 3)]
        rejected += ratings.pooling_lr(blocks, 3)[2] < 0.05
    assert NULL_RATE[0] <= rejected / 250 <= NULL_RATE[1]


# ------------------------------------------------------------------ seat order
# R: example(friedman.test), Hollander & Wolfe (1973) p. 140: 22 runners, 3 methods each
_ROUNDING = """
    5.40 5.50 5.55   5.85 5.70 5.75   5.20 5.60 5.50   5.55 5.50 5.40
    5.90 5.85 5.70   5.45 5.55 5.60   5.40 5.40 5.35   5.45 5.50 5.35
    5.25 5.15 5.00   5.85 5.80 5.70   5.25 5.20 5.10   5.65 5.55 5.45
    5.60 5.35 5.45   5.05 5.00 4.95   5.50 5.50 5.40   5.45 5.55 5.50
    5.55 5.55 5.35   5.45 5.50 5.55   5.50 5.45 5.25   5.65 5.60 5.40
    5.70 5.65 5.55   6.30 6.30 6.25
"""
ROUNDING_TIMES = np.array(_ROUNDING.split(), dtype=float).reshape(-1, 3).tolist()


def _seat_rows(scores, winners):
    rows = []
    for game, (row, winner) in enumerate(zip(scores, winners, strict=True)):
        for seat, score in enumerate(row):
            rows.append(
                {
                    "cell": "c",
                    "game_index": game,
                    "players": len(row),
                    "seat": seat,
                    "score": score,
                    "win_share": float(seat == winner),
                }
            )
    return pd.DataFrame(rows)


def test_seat_score_test_is_friedman_as_in_r():
    winners = [int(np.argmax(r)) for r in ROUNDING_TIMES]
    _, tests = seat_order.seat_advantage(_seat_rows(ROUNDING_TIMES, winners))
    # R: friedman.test(RoundingTimes) -> Friedman chi-squared = 11.143, df = 2,
    # p-value = 0.003805
    assert tests["score_test"].iloc[0] == "Friedman"
    assert tests["score_statistic"].iloc[0] == pytest.approx(11.143, abs=5e-4)
    assert tests["score_p"].iloc[0] == pytest.approx(0.003805, abs=5e-7)


def test_seat_wins_chi_square_is_cochrans_q_over_games():
    from statsmodels.stats.contingency_tables import cochrans_q

    rng = np.random.default_rng(41)
    winners = rng.choice(3, size=150, p=[0.4, 0.3, 0.3])
    scores = rng.normal(50, 5, (150, 3))
    _, tests = seat_order.seat_advantage(_seat_rows(scores, winners))
    indicators = np.eye(3)[winners]  # one row per game, one column per seat
    reference = cochrans_q(indicators)  # statsmodels.stats.contingency_tables.cochrans_q
    assert tests["wins_chi2"].iloc[0] == pytest.approx(reference.statistic)
    assert tests["wins_p"].iloc[0] == pytest.approx(reference.pvalue)


def test_seat_score_test_blocked_by_game_null_rate_and_planted_effect():
    rng = np.random.default_rng(42)
    rejected = 0
    for _ in range(300):
        table = rng.normal(0, 10, (40, 1)) + rng.normal(0, 3, (40, 3))  # game effect only
        rejected += sps.friedmanchisquare(*table.T).pvalue < 0.05
    assert NULL_RATE[0] <= rejected / 300 <= NULL_RATE[1]
    table = rng.normal(0, 10, (200, 1)) + rng.normal(0, 3, (200, 3)) + np.array([1.5, 0, 0])
    _, tests = seat_order.seat_advantage(_seat_rows(table, np.argmax(table, axis=1)))
    assert tests["score_significant"].iloc[0]


def test_two_seat_score_test_is_the_exact_sign_test():
    rng = np.random.default_rng(43)
    table = rng.normal(0, 5, (60, 2)) + np.array([1.0, 0.0])
    _, tests = seat_order.seat_advantage(_seat_rows(table, np.argmax(table, axis=1)))
    ahead = int((table[:, 0] > table[:, 1]).sum())
    assert tests["score_test"].iloc[0] == "sign test"
    assert tests["score_p"].iloc[0] == pytest.approx(sps.binomtest(ahead, 60).pvalue)


# ------------------------------------------------------------------ multiple comparisons
def test_holm_adjustment_matches_the_step_down_by_hand():
    # Holm (1979): sort p ascending, multiply the i-th smallest by (m - i + 1), keep the
    # running maximum, cap at 1. [0.01, 0.04, 0.03, 0.005] -> [0.03, 0.06, 0.06, 0.02]
    got = intervals.adjust(pd.Series([0.01, 0.04, 0.03, 0.005, np.nan]))
    assert got[:4].tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert np.isnan(got[4])


def test_paired_win_share_difference_is_a_paired_t_over_games():
    rng = np.random.default_rng(51)
    ranks = _pl_draws(rng, [0.3, 0.0, -0.3], 300, 3, repeat=False)
    seats = _table_rows(ranks, 3, list("abc"), rng)
    pairs = ratings.pairwise(seats)
    paired = pairs[pairs["method"].str.startswith("win share")].set_index(["strategy", "opponent"])
    row = paired.loc[("a", "c")]
    wins_a = (ranks[:, 0] == 0).astype(float)
    wins_c = (ranks[:, 0] == 2).astype(float)
    reference = sps.ttest_rel(wins_a, wins_c)  # scipy.stats.ttest_rel over the games
    assert row["difference"] == pytest.approx(wins_a.mean() - wins_c.mean())
    assert row["p_value"] == pytest.approx(reference.pvalue)
    assert row["n_games"] == 300
    assert (pairs["p_adjusted"] >= pairs["p_value"] - 1e-12).all()


# ------------------------------------------------------------------ big cities, score parts
def test_big_city_lift_is_clustered_by_game():
    rng = np.random.default_rng(61)
    rows = []
    for game in range(80):
        holder = rng.integers(3)
        winner = holder if rng.random() < 0.5 else rng.integers(3)
        for seat in range(3):
            rows.append(
                {
                    "cell": "c",
                    "game_index": game,
                    "players": 3,
                    "seat": seat,
                    "strategy": "abc"[seat],
                    "win_share": float(seat == winner),
                    "big_cities": "Chicago" if seat == holder else "",
                    "score": 0.0,
                }
            )
    seats = pd.DataFrame(rows)
    row = big_cities.big_cities(seats, ["Chicago"]).iloc[0]
    holders = (seats["big_cities"] == "Chicago").to_numpy(dtype=float)
    x = np.column_stack([np.ones(len(seats)), holders])
    beta, low, high = _cr1_by_hand(seats["win_share"].to_numpy(), x, seats["game_index"].to_numpy())
    assert row["n_games"] == 80 and row["n_seats_with"] == 80
    assert (row["win_lift"], row["lift_ci_low"], row["lift_ci_high"]) == pytest.approx(
        (beta[1], low[1], high[1])
    )
    parts = points.score_parts(seats.assign(destination_points=0, penalties=0, bonus_points=0))
    assert set(parts["n_games"]) == {80} and set(parts["n_seats"]) == {80}


def test_a_study_of_one_strategy_rates_nothing_and_says_why():
    seats = pd.concat(
        [_table_rows([[0] * p] * 20, p, ["planner"], cell=f"{p}p") for p in (2, 3)],
        ignore_index=True,
    )
    rated = ratings.ratings(seats)
    assert rated["strength"].isna().all()
    assert (rated["note"] == "the only strategy at its tables: nothing to compare").all()
    assert ratings.pairwise(seats).empty and ratings.pooling_test(seats).empty
    assert wins.head_to_head(seats).empty
    assert ratings.pooled_ratings(seats)["strength"].isna().all()


def _many_duels(rng, duels, games, p_first):
    """``duels`` independent pairs of strategies (s0/t0, s1/t1, ...) at 2-player tables, each
    pair in its own cell: one call of a table function then runs ``duels`` studies."""
    first_wins = np.repeat(rng.random((duels, games)) < p_first, 2).ravel()
    seat = np.tile([0, 1], duels * games)
    won = first_wins == (seat == 0)
    duel = np.repeat(np.arange(duels), 2 * games)
    return pd.DataFrame(
        {
            "cell": [f"d{d}" for d in duel],
            "game_index": np.tile(np.repeat(np.arange(games), 2), duels),
            "players": 2,
            "seat": seat,
            "strategy": [f"{'st'[s]}{d}" for s, d in zip(seat, duel, strict=True)],
            "score": 10.0 * won,
            "reached": 0,
            "n_big_cities": 0,
            "win_share": won.astype(float),
        }
    )


@pytest.mark.slow
def test_head_to_head_and_field_tests_reject_at_the_nominal_rate_and_find_a_planted_edge():
    rng = np.random.default_rng(71)
    null = _many_duels(rng, 400, 40, 0.5)
    duel = wins.head_to_head(null)
    first = duel[duel["strategy"].str.startswith("s")]
    assert NULL_RATE[0] <= (first["p_value"] < 0.05).mean() <= NULL_RATE[1]
    rates = wins.win_rates(null)
    rates = rates[rates["strategy"].str.startswith("s")]
    assert NULL_RATE[0] <= (rates["p_value"] < 0.05).mean() <= NULL_RATE[1]
    planted = _many_duels(rng, 20, 200, 0.65)
    duel = wins.head_to_head(planted)
    assert (duel[duel["strategy"].str.startswith("s")]["p_value"] < 0.05).mean() > 0.8


def test_variant_difference_is_welch_as_in_scipy():
    rng = np.random.default_rng(72)
    a, b = pd.Series(rng.normal(10, 2, 40)), pd.Series(rng.normal(9, 4, 60))
    diff, low, high = differences.welch_interval(a, b)
    # scipy.stats.ttest_ind(a, b, equal_var=False).confidence_interval()
    ref = sps.ttest_ind(a, b, equal_var=False).confidence_interval()
    assert (low, high) == pytest.approx((ref.low, ref.high))
    assert diff == pytest.approx(a.mean() - b.mean())
