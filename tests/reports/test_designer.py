"""What designers ask (reports/designer.py): each method against an independent computation
(the call or source quoted beside it) and planted effects, found when present and not when
absent. Simulations are seeded, so the tests are deterministic."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from reports import designer, wins
from tests.helpers import card_contribution

NULL_RATE = (0.02, 0.09)  # 5% nominal over 300-400 simulations (binomial sd about 1.2%)


# ------------------------------------------------------------------ synthetic tables
def _seat_rows(cell, game, strategies, scores, reached=None, big=None):
    """The seat rows of one game, winners by R22 (score, reached, big cities)."""
    k = len(strategies)
    reached = reached if reached is not None else [0] * k
    big = big if big is not None else [0] * k
    key = list(zip(scores, reached, big, strict=True))
    best = max(key)
    winners = [i for i in range(k) if key[i] == best]
    return [
        {
            "cell": cell,
            "game_index": game,
            "variant": "base",
            "players": k,
            "seat": i,
            "strategy": strategies[i],
            "score": scores[i],
            "reached": reached[i],
            "n_big_cities": big[i],
            "is_winner": i in winners,
            "win_share": 1 / len(winners) if i in winners else 0.0,
            "rank": 1 + sum(s > scores[i] for s in scores),
        }
        for i in range(k)
    ]


def _mirror_study(rng, players, first_wins, games, strategy="planner", cell=None):
    """Mirror games in which the first seat wins with probability ``first_wins``, the other
    seats equally often otherwise."""
    rows = []
    for g in range(games):
        winner = 0 if rng.random() < first_wins else 1 + int(rng.integers(players - 1))
        scores = [10 if i == winner else 5 for i in range(players)]
        rows += _seat_rows(cell or f"base/{players}p/{strategy}", g, [strategy] * players, scores)
    return rows


def _duel_study(rng, probabilities: dict, games: int) -> pd.DataFrame:
    """2-player games: for a pair (a, b), a finishes ahead with the given probability;
    seats alternate so each strategy sits first half the time."""
    rows = []
    for (a, b), p in probabilities.items():
        for g in range(games):
            a_wins = rng.random() < p
            seating = [a, b] if g % 2 == 0 else [b, a]
            scores = [10 if (s == a) == a_wins else 5 for s in seating]
            rows += _seat_rows(f"base/2p/{a}+{b}", g, seating, scores)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ power
def test_mde_matches_statsmodels_normal_power():
    from statsmodels.stats.power import NormalIndPower

    for p0, n in ((0.5, 400), (0.25, 2000), (1 / 3, 150)):
        # NormalIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=0): Cohen's d of
        # a one-sample z-test; times the null sd sqrt(p0 (1 - p0)) gives the rate difference
        d = NormalIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=0)
        assert designer.mde_rate(p0, n) == pytest.approx(d * np.sqrt(p0 * (1 - p0)), rel=1e-4)
    # hand: (1.959964 + 0.841621) * sqrt(0.25 / 400) = 0.0700396
    assert designer.mde_rate(0.5, 400) == pytest.approx(0.0700396, abs=1e-6)


# ------------------------------------------------------------------ first seat among equals
def test_first_seat_advantage_is_a_t_test_over_mirror_games_only():
    rng = np.random.default_rng(1)
    rows = _mirror_study(rng, 3, 0.45, 120)
    rows += _mirror_study(rng, 3, 0.9, 50, strategy="random")  # a baseline mirror: ignored
    rows += _seat_rows("base/3p/mixed", 0, ["planner", "thief", "planner"], [9, 5, 1])
    seats = pd.DataFrame(rows)
    table = designer.first_seat_advantage(seats)
    assert list(table["strategy"]) == ["planner"]
    row = table.iloc[0]
    share = pd.DataFrame(rows[:360]).query("seat == 0")["win_share"].to_numpy()
    test = sps.ttest_1samp(share - 1 / 3, 0.0)  # scipy, independent of reports.intervals
    ci = test.confidence_interval()
    assert row["n_games"] == 120
    assert row["advantage"] == pytest.approx(share.mean() - 1 / 3)
    assert (row["adv_ci_low"], row["adv_ci_high"]) == pytest.approx((ci.low, ci.high))
    assert row["p_value"] == pytest.approx(test.pvalue)
    # statsmodels.stats.proportion.proportion_confint(x, 120, method="wilson")
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(share.sum(), 120, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert row["mde"] == pytest.approx(designer.mde_rate(1 / 3, 120))


def test_first_seat_finds_a_planted_advantage_and_not_a_fair_one():
    rng = np.random.default_rng(2)
    planted = designer.first_seat_advantage(pd.DataFrame(_mirror_study(rng, 2, 0.56, 2000)))
    row = planted.iloc[0]
    assert row["significant"] and row["adv_ci_low"] < 0.06 < row["adv_ci_high"]
    fair = designer.first_seat_advantage(pd.DataFrame(_mirror_study(rng, 4, 0.25, 2000)))
    assert not fair.iloc[0]["significant"]


def test_first_seat_test_rejects_at_the_nominal_rate_under_no_advantage():
    rng = np.random.default_rng(3)
    rows = []
    for i in range(300):  # 300 mirrored strategies, each a null study of 150 games
        rows += _mirror_study(rng, 3, 1 / 3, 150, strategy=f"s{i:03d}")
    table = designer.first_seat_advantage(pd.DataFrame(rows))
    rate = (table["p_value"] < 0.05).mean()
    assert NULL_RATE[0] <= rate <= NULL_RATE[1], rate


def test_a_study_without_mirror_tables_says_so():
    seats = pd.DataFrame(_seat_rows("base/2p/a+b", 0, ["a", "b"], [3, 1]))
    table = designer.first_seat_advantage(seats)
    assert table.iloc[0]["note"] == designer.NO_MIRROR and table.iloc[0]["n_games"] == 0


# ------------------------------------------------------------------ margins and tie-breaks
def test_game_outcomes_follow_r22():
    rows = _seat_rows("c", 0, ["a", "b", "c"], [20, 12, 5])  # clear win by 8
    rows += _seat_rows("c", 1, ["a", "b", "c"], [15, 15, 3], reached=[4, 3, 1])
    rows += _seat_rows("c", 2, ["a", "b", "c"], [15, 15, 3], reached=[4, 4, 1], big=[0, 1, 2])
    rows += _seat_rows("c", 3, ["a", "b", "c"], [15, 15, 15], reached=[2, 2, 2])
    out = designer.game_outcomes(pd.DataFrame(rows)).set_index("game_index")
    assert list(out["margin"]) == [8, 0, 0, 0]
    assert list(out["n_top"]) == [1, 2, 2, 3]
    assert list(out["decided_by"]) == ["score", "destinations reached", "big cities", "shared"]


def test_score_margins_match_scipy_and_the_order_statistic_table():
    rng = np.random.default_rng(4)
    rows = []
    for g in range(20):
        top = int(rng.integers(10, 40))
        second = top - int(rng.integers(0, 12))
        rows += _seat_rows("c", g, ["a", "b"], [top, second], reached=[1, 0])
    table = designer.score_margins(pd.DataFrame(rows)).iloc[0]
    margins = np.sort(designer.game_outcomes(pd.DataFrame(rows))["margin"].to_numpy(float))
    low, high = sps.t.interval(0.95, 19, loc=margins.mean(), scale=sps.sem(margins))
    assert (table["ci_low"], table["ci_high"]) == pytest.approx((low, high))
    # Conover, Practical Nonparametric Statistics, table A3: n = 20 -> the 6th and 15th
    # order statistics bound the median with 95.9% coverage
    assert (table["median_ci_low"], table["median_ci_high"]) == (margins[5], margins[14])
    tied = int((margins == 0).sum())
    # statsmodels.stats.proportion.proportion_confint(tied, 20, method="wilson")
    from statsmodels.stats.proportion import proportion_confint

    assert table["tied_top"] == tied and table["by_reached"] == tied  # reached breaks them
    low, high = proportion_confint(tied, 20, method="wilson")
    assert (table["tie_ci_low"], table["tie_ci_high"]) == pytest.approx((low, high))


def test_score_margins_recover_a_planted_margin_and_tie_rate():
    rng = np.random.default_rng(5)
    rows = []
    for g in range(1500):
        tie = rng.random() < 0.1
        margin = 0 if tie else int(rng.integers(1, 21))  # mean 0.9 * 10.5 = 9.45
        rows += _seat_rows("c", g, ["a", "b", "c"], [30, 30 - margin, 3], reached=[2, 1, 0])
    table = designer.score_margins(pd.DataFrame(rows)).iloc[0]
    assert table["ci_low"] < 9.45 < table["ci_high"]
    assert table["tie_ci_low"] < 0.1 < table["tie_ci_high"]
    assert table["shared"] == 0
    dist = designer.margin_distribution(pd.DataFrame(rows))
    assert dist["share"].sum() == pytest.approx(1.0) and dist["n_games"].sum() == 1500


# ------------------------------------------------------------------ destination cards
def test_newcombe_and_pooled_z_match_statsmodels():
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

    for x1, n1, x2, n2 in ((537, 887, 0, 10), (30, 80, 12, 50), (5.5, 20, 0.5, 10)):
        # confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff")
        low, high = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff")
        diff, my_low, my_high = designer.newcombe(x1, n1, x2, n2)
        assert diff == pytest.approx(x1 / n1 - x2 / n2)
        assert (my_low, my_high) == pytest.approx((low, high), abs=1e-9)
        # proportions_ztest([x1, x2], [n1, n2]): pooled variance, two-sided
        assert designer.pooled_z(x1, n1, x2, n2) == pytest.approx(
            proportions_ztest([x1, x2], [n1, n2])[1]
        )


def _card_study(rng, games=800):
    """4-player games; card 46 is kept by one seat per game. Completing it wins 60% of the
    time, failing it 10% (a planted contribution); card 1 is kept too, its completion says
    nothing about winning (a null card)."""
    seats, dests = [], []
    for g in range(games):
        done46 = rng.random() < 0.7
        winner = (0 if rng.random() < 0.6 else int(rng.integers(1, 4))) if done46 else None
        if winner is None:
            winner = 0 if rng.random() < 0.1 else int(rng.integers(1, 4))
        scores = [10 if i == winner else 5 for i in range(4)]
        seats += _seat_rows("base/4p/x", g, ["a", "b", "c", "d"], scores)
        null_seat = int(rng.integers(4))
        for card, seat, reached in ((46, 0, done46), (1, null_seat, rng.random() < 0.7)):
            dests.append(
                {
                    "cell": "base/4p/x",
                    "game_index": g,
                    "players": 4,
                    "seat": seat,
                    "destination_id": card,
                    "kept": True,
                    "reached": bool(reached),
                    "points": 10,
                    "cards": 5,
                }
            )
        dests.append(
            {
                "cell": "base/4p/x",
                "game_index": g,
                "players": 4,
                "seat": 1,
                "destination_id": 2,
                "kept": False,
                "reached": False,
                "points": 8,
                "cards": 4,
            }
        )
    return pd.DataFrame(dests), pd.DataFrame(seats)


def test_card_contribution_finds_a_planted_card_and_not_a_null_one():
    dests, seats = _card_study(np.random.default_rng(6))
    table = card_contribution(dests, seats).set_index("destination_id")
    assert 2 not in table.index  # never kept: no row
    planted, null = table.loc[46], table.loc[1]
    assert planted["significant"] and planted["ci_low"] < 0.5 < planted["ci_high"]
    assert not null["significant"] and null["ci_low"] < 0 < null["ci_high"]
    assert planted["n_games"] == planted["n_kept"] == 800  # one copy: kept once per game
    assert planted["label"].startswith("#46 ")
    top = designer.top_and_bottom(table.reset_index(), k=1)
    assert list(top["destination_id"]) == [46, 1]


def test_card_contribution_leaves_thin_cards_untested():
    dests, seats = _card_study(np.random.default_rng(7), games=12)
    table = card_contribution(dests, seats)
    assert not table["tested"].any() and table["p_value"].isna().all()


# ------------------------------------------------------------------ non-transitivity
def test_find_cycles_on_a_planted_cycle():
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("a", "d"), ("b", "d"), ("c", "d")]
    assert designer.find_cycles(edges) == [["a", "b", "c"]]
    assert designer.find_cycles([("a", "b"), ("b", "c"), ("a", "c")]) == []  # transitive
    four = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]
    assert designer.find_cycles(four) == [["a", "b", "c", "d"]]


RPS = {("paper", "rock"): 0.75, ("rock", "scissors"): 0.75, ("paper", "scissors"): 0.25}


def test_non_transitivity_finds_a_planted_cycle_and_no_cycle_among_equals():
    rng = np.random.default_rng(8)
    planted = wins.head_to_head(_duel_study(rng, RPS, 300))
    row = designer.non_transitivity(planted).iloc[0]
    assert row["n_cycles"] == 1 and row["weakest_link_p"] < 0.05
    assert row["cycles"] == "paper > rock > scissors > paper"
    equal = {pair: 0.5 for pair in RPS}
    row = designer.non_transitivity(wins.head_to_head(_duel_study(rng, equal, 300))).iloc[0]
    assert row["cycles"] == "no significant cycle" and row["n_cycles"] == 0


# ------------------------------------------------------------------ 2-player meta-game
def test_nash_mix_on_known_games():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    mix, value = designer.nash_mix(rps)
    assert mix == pytest.approx([1 / 3] * 3, abs=1e-9) and value == pytest.approx(0, abs=1e-9)
    # hand: an antisymmetric cycle 0>1 (a), 1>2 (c), 2>0 (b) has its equilibrium
    # proportional to (c, b, a): every column of x'A is then -a c + ... = 0
    a, b, c = 0.2, 0.1, 0.3
    cycle = np.array([[0, a, -b], [-a, 0, c], [b, -c, 0]])
    mix, _ = designer.nash_mix(cycle)
    assert mix == pytest.approx(np.array([c, b, a]) / (a + b + c), abs=1e-9)
    # a strategy that loses to every other one gets no weight
    dominated = np.zeros((4, 4))
    dominated[:3, :3] = rps
    dominated[3, :3], dominated[:3, 3] = -0.2, 0.2
    mix, _ = designer.nash_mix(dominated)
    assert mix[3] == pytest.approx(0, abs=1e-9) and mix[:3] == pytest.approx([1 / 3] * 3)
    mix, _ = designer.nash_mix(np.array([[0, 0.1], [-0.1, 0]]))  # a pure best strategy
    assert mix == pytest.approx([1, 0])


def test_duels_agree_with_the_head_to_head_table():
    seats = _duel_study(np.random.default_rng(9), RPS, 40)
    h2h = wins.head_to_head(seats).set_index(["strategy", "opponent"])["rate"]
    mine = designer.duels(seats).groupby(["a", "b"])["a_ahead"].mean()
    for (a, b), rate in mine.items():
        assert rate == pytest.approx(h2h[(a, b)])


def test_meta_game_recovers_a_planted_cycle_with_bootstrap_uncertainty():
    seats = _duel_study(np.random.default_rng(10), RPS, 400)
    table = designer.meta_game(seats, draws=100, seed=1).set_index("strategy")
    assert table["weight"].sum() == pytest.approx(1)
    for name in ("paper", "rock", "scissors"):
        row = table.loc[name]
        assert row["ci_low"] < 1 / 3 < row["ci_high"] and row["share_positive"] > 0.9
        assert row["n_games"] == 800
    again = designer.meta_game(seats, draws=100, seed=1)
    pd.testing.assert_frame_equal(again, designer.meta_game(seats, draws=100, seed=1))


def test_meta_game_gives_a_dominant_strategy_all_the_weight():
    best = {pair: 0.7 if "best" in pair[0] else 0.5 for pair in combinations(["best", "x", "y"], 2)}
    table = designer.meta_game(_duel_study(np.random.default_rng(11), best, 300), draws=50)
    table = table.set_index("strategy")
    assert table.loc["best", "weight"] == pytest.approx(1)
    assert table.loc["best", "share_positive"] == 1.0
    assert table.loc["x", "share_positive"] < 0.1 and table.loc["y", "ci_high"] < 0.05


def test_meta_game_leaves_out_strategies_that_never_met_everyone():
    pairs = {("a", "b"): 0.6, ("a", "c"): 0.6, ("b", "c"): 0.5, ("a", "d"): 0.5}
    table = designer.meta_game(_duel_study(np.random.default_rng(12), pairs, 40), draws=10)
    assert set(table["strategy"]) == {"a", "b", "c"} and set(table["left_out"]) == {"d"}


# ------------------------------------------------------------------ the report
def test_the_report_section_says_what_players_know_and_draws_no_empty_chart(analysis):
    from reports.findings import designers_ask
    from reports.markdown import render
    from reports.sections import build

    section = next(s for s in build(analysis).sections if s.key == "designers")
    assert section.title == "What designers ask"
    assert "perfect recall of their own circulation pile (R9" in section.intro
    for chart in section.charts:
        assert any(len(trace.x if trace.x is not None else []) for trace in chart.figure.data)
    # the fixture has no mirror table: no first-seat chart, and the finding says so
    assert not any("First-seat" in c.figure.layout.title.text for c in section.charts)
    lines = designers_ask(analysis)
    assert lines[0].startswith("First-seat advantage among equal players: this study has no")
    assert any("tie-break" in line for line in lines)
    assert any(line.startswith("Equilibrium mix of the 2-player meta-game") for line in lines)
    assert any("no significant cycle" in line or " > " in line for line in lines)
    text = render(analysis)
    assert "## What designers ask" in text and "perfect recall" in text
    part = text[text.index("## What designers ask") :]
    games = analysis.tables["score_margins"]["n_games"]
    assert f"| 2 | {games.iloc[0]} |" in part  # counts print as integers


def test_a_mirror_study_reports_the_first_seat_and_its_chart(tmp_path):
    from reports.analysis import analyse
    from reports.findings import first_seat_equals
    from reports.sections import build
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    study = {
        "name": "mirror",
        "seed": 3,
        "lineups": [["planner", "planner"]],
        "players": [2],
        "games_per_cell": 12,
        "batch_size": 12,
    }
    run(from_dict(study, "test"), workers=1, out=tmp_path / "r", progress=False)
    analysis = analyse(load_results(tmp_path / "r"))
    row = analysis.tables["first_seat"].iloc[0]
    assert row["strategy"] == "planner" and row["n_games"] == 12
    assert "at 2 players (planner at every seat) seat 0 wins" in first_seat_equals(analysis)[0]
    section = next(s for s in build(analysis).sections if s.key == "designers")
    titles = [chart.figure.layout.title.text for chart in section.charts]
    assert "First-seat advantage among equal players" in titles
    assert analysis.tables["meta_game"].empty  # one strategy: no meta-game, no chart
    assert "Equilibrium mix of the 2-player meta-game" not in titles
