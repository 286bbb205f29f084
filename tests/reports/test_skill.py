"""The skill ladder section (reports/skill.py): its numbers against independent computations
on a small study whose labels mimic the skill study, with stand-ins that exist today."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from reports import markdown, skill
from reports.analysis import analyse
from reports.sections import build
from sims.results import load_results
from sims.runner import run
from sims.strategy import registered
from sims.study import from_dict, load_study

# Stand-ins: planner-human and the search players are planners with other knobs (the real
# memory knob and ismcts arrive with their own branches).
STUDY = {
    "name": "skill-stand-in",
    "seed": 5,
    "players": [2, 3],
    "pairing": "deals",
    "games_per_cell": 12,
    "batch_size": 12,
    "strategies": {
        "planner-human": {"base": "planner", "knobs": {"card_share": 0.3}},
        "ismcts-50": {"base": "planner", "knobs": {"card_share": 0.6}},
    },
    "lineups": [
        ["planner", "thief"],
        ["planner-human", "thief"],
        ["planner", "random"],
        ["planner-human", "random"],
        ["thief", "random"],
        ["planner", "planner-human"],
        {"seats": ["planner", "ismcts-50"], "games": 6},
        {"seats": ["thief", "ismcts-50"], "games": 6},
        {"seats": ["random", "ismcts-50"], "games": 6},
        ["planner", "thief", "random"],
        ["planner-human", "thief", "random"],
        {"seats": ["planner", "thief", "ismcts-50"], "games": 6},
        {"seats": ["hoarder", "thief", "ismcts-50"], "games": 6},
        ["hoarder", "planner", "thief"],
    ],
}


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("skill") / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    return analyse(load_results(folder))


def _ahead(a, b) -> float:
    """R22 order by hand: score, then destinations reached, then big cities; a tie 1/2."""
    for key in ("score", "reached", "n_big_cities"):
        if getattr(a, key) != getattr(b, key):
            return 1.0 if getattr(a, key) > getattr(b, key) else 0.0
    return 0.5


def _hand_shares(seats: pd.DataFrame) -> dict[tuple[int, str, str], list[float]]:
    """Per (players, a, b): one value per game with both a and b, the share of its (a, b)
    seat pairs in which a finished ahead."""
    out: dict[tuple[int, str, str], list[float]] = {}
    for _, game in seats.groupby(["cell", "game_index"]):
        rows = list(game.itertuples())
        for a in {r.strategy for r in rows}:
            for b in {r.strategy for r in rows} - {a}:
                values = [
                    _ahead(x, y) for x in rows if x.strategy == a for y in rows if y.strategy == b
                ]
                out.setdefault((rows[0].players, a, b), []).append(float(np.mean(values)))
    return out


def _share_by_hand(seats: pd.DataFrame, players: int, a: str, b: str) -> tuple[float, int]:
    values = _hand_shares(seats[seats["players"] == players])[(players, a, b)]
    return float(np.mean(values)), len(values)


def test_section_tables_exist_for_a_skill_study(ladder):
    for name in ("skill_pairs", "skill_share", "memory_value", "skill_ranking"):
        assert not ladder.tables[name].empty, name


def test_pair_shares_match_a_hand_count(ladder):
    pairs = ladder.tables["skill_pairs"]
    hand = _hand_shares(ladder.seats)
    assert len(pairs) == len(hand) // 2  # every pair that met, once
    for _, row in pairs.iterrows():
        values = hand[(row["players"], row["strategy"], row["opponent"])]
        rate, n = np.mean(values), len(values)
        assert row["rate"] == pytest.approx(rate)
        assert row["n_games"] == n
        assert row["rate"] >= 0.5  # the stronger side first
    # Holm across the pairs of a player count: adjusted p never below the raw one
    assert (pairs["p_adjusted"] >= pairs["p_value"] - 1e-12).all()


def test_pair_interval_is_wilson_over_games(ladder):
    row = ladder.tables["skill_pairs"].iloc[0]
    z = 1.959963984540054
    n, p = row["n_games"], row["rate"]
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert row["ci_low"] == pytest.approx(max(centre - half, 0), abs=1e-9)
    assert row["ci_high"] == pytest.approx(min(centre + half, 1), abs=1e-9)


def test_skill_share_is_the_r_squared_of_score_on_strategy(ladder):
    import statsmodels.formula.api as smf

    share = ladder.tables["skill_share"]
    assert set(share["scope"]) == {"all strategies", "without random"}
    for _, row in share.iterrows():
        seats = ladder.seats[ladder.seats["players"] == row["players"]]
        if row["scope"] == "without random":
            seats = seats[seats["strategy"] != "random"]
        fit = smf.ols("score ~ C(strategy)", data=seats).fit()
        assert row["share"] == pytest.approx(fit.rsquared)
        assert row["n_games"] == seats[["cell", "game_index"]].drop_duplicates().shape[0]
        assert 0 <= row["ci_low"] <= row["ci_high"] <= 1


def test_skill_share_bootstrap_resamples_games_and_is_seeded(ladder):
    seats = ladder.seats
    first = skill.skill_share(seats, draws=200, seed=3)
    again = skill.skill_share(seats, draws=200, seed=3)
    pd.testing.assert_frame_equal(first, again)
    # the weighted formula with every game once is the plain decomposition
    group = seats[seats["players"] == 2]
    labels = sorted(group["strategy"].unique())
    count, total, squares = skill._game_sums(group, labels)
    y = group["score"].to_numpy(float)
    means = group.groupby("strategy")["score"].transform("mean").to_numpy()
    expected = ((means - y.mean()) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    ones = np.ones((1, len(squares)))
    assert skill._eta_squared(ones, count, total, squares)[0] == pytest.approx(expected)
    # a game drawn twice counts twice: same as duplicating its seat rows
    weights = np.ones((1, len(squares)))
    weights[0, 0] = 2
    first_game = group.groupby(["cell", "game_index"], sort=True).ngroup() == 0
    doubled = pd.concat([group, group[first_game.to_numpy()]])
    y2 = doubled["score"].to_numpy(float)
    m2 = doubled.groupby("strategy")["score"].transform("mean").to_numpy()
    expected2 = ((m2 - y2.mean()) ** 2).sum() / ((y2 - y2.mean()) ** 2).sum()
    assert skill._eta_squared(weights, count, total, squares)[0] == pytest.approx(expected2)


def test_memory_value_is_paired_by_deal(ladder):
    seats = ladder.seats
    memory = ladder.tables["memory_value"]
    for players, opponents in ((2, [("thief",), ("random",)]), (3, [("random", "thief")])):
        per_deal: dict[int, list[float]] = {}
        for others in opponents:
            mine = "+".join(sorted(("planner", *others)))
            theirs = "+".join(sorted(("planner-human", *others)))
            a = seats[(seats["cell"] == f"base/{players}p/{mine}")]
            b = seats[(seats["cell"] == f"base/{players}p/{theirs}")]
            a = a[a["strategy"] == "planner"].set_index("seed")["win_share"]
            b = b[b["strategy"] == "planner-human"].set_index("seed")["win_share"]
            for seed in a.index.intersection(b.index):
                per_deal.setdefault(seed, []).append(a[seed] - b[seed])
        diffs = [np.mean(v) for v in per_deal.values()]
        row = memory[(memory["players"] == players) & (memory["measure"] == "win_share difference")]
        assert len(row) == 1
        row = row.iloc[0]
        assert row["n"] == len(diffs) == 12
        assert row["value"] == pytest.approx(np.mean(diffs))
        if np.std(diffs) > 0:
            test = sps.ttest_1samp(diffs, 0)
            assert row["p_value"] == pytest.approx(test.pvalue)
            low, high = test.confidence_interval()
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    met = memory[(memory["players"] == 2) & (memory["measure"] == "finished ahead")].iloc[0]
    rate, n = _share_by_hand(seats, 2, "planner", "planner-human")
    assert (met["value"], met["n"]) == (pytest.approx(rate), n)


def test_memory_pair_from_knobs():
    specs = {"forgetful": {"base": "thief", "knobs": {"memory": "human", "recall": 0.5}}}
    assert skill.memory_pair({"thief", "forgetful"}, specs) == ("thief", "forgetful")
    assert skill.memory_pair({"planner", "planner-human"}, {}) == ("planner", "planner-human")
    assert skill.memory_pair({"planner", "thief"}, specs) is None


def test_ranking_against_scripted_and_search(ladder):
    seats = ladder.seats
    ranking = ladder.tables["skill_ranking"]
    assert "random" not in set(ranking["strategy"])
    assert not set(ranking["strategy"]) & {"ismcts-50"}
    games = seats.groupby(["cell", "game_index"])["strategy"]
    search_game = games.transform(lambda s: (s == "ismcts-50").any())
    for _, row in ranking.iterrows():
        here = seats[seats["players"] == row["players"]]
        flags = search_game[here.index]
        scripted, search = [], []
        for (_, _), game in here.groupby(["cell", "game_index"]):
            mine = game[game["strategy"] == row["strategy"]]
            if mine.empty:
                continue
            has_search = bool(flags[game.index].iloc[0])
            rivals = game[
                (game["strategy"] == "ismcts-50")
                if has_search
                else (game["strategy"] != row["strategy"])
            ]
            value = np.mean(
                [_ahead(x, y) for _, x in mine.iterrows() for _, y in rivals.iterrows()]
            )
            (search if has_search else scripted).append(value)
        assert row["rate_scripted"] == pytest.approx(np.mean(scripted))
        assert row["n_games_scripted"] == len(scripted)
        assert row["rate_search"] == pytest.approx(np.mean(search))
        assert row["n_games_search"] == len(search)
    agreement = ladder.tables["skill_agreement"]
    for _, row in agreement.iterrows():
        group = ranking[ranking["players"] == row["players"]]
        assert row["n_strategies"] == len(group)
        tau = sps.kendalltau(group["rate_scripted"], group["rate_search"]).statistic
        if np.isfinite(tau):
            assert row["tau"] == pytest.approx(tau)
        else:
            assert not np.isfinite(row["tau"])


def test_section_in_html_and_markdown(ladder):
    sections = [s for s in build(ladder).sections if s.key == "skill"]
    assert len(sections) == 1
    section = sections[0]
    assert section.title == "The skill ladder"
    assert section.charts, "the ladder draws its figures"
    for chart in section.charts:
        assert chart.caption
        traces = chart.figure.data
        assert any(len(trace.x) for trace in traces if trace.x is not None)  # no empty chart
    assert "seated strategy explains" in section.intro
    text = markdown.render(ladder)
    assert "## The skill ladder" in text
    assert "Kendall's tau" in text or "tie on one side" in text


def test_a_skill_study_asks_the_skill_question(ladder):
    from reports.study_kinds import study_info

    info = study_info(ladder.results.study, ladder.seats)
    assert info.kind == "skill" and info.order[0] == "skill"


def test_section_absent_for_other_studies(analysis):
    """The shared report-test study (no search player, not named skill) has no ladder."""
    assert "skill_pairs" not in analysis.tables
    assert all(s.key != "skill" for s in build(analysis).sections)
    assert "The skill ladder" not in markdown.render(analysis)


@pytest.mark.skipif("ismcts" not in registered(), reason="the ismcts player is not merged yet")
def test_builtin_skill_study_loads():
    study = load_study("skill")
    cells = study.cells()
    assert {c.players for c in cells} == {2, 3, 4}
    labels = {s for c in cells for s in c.lineup}
    assert {"random", "planner", "planner-human", "ismcts-16", "ismcts-64"} <= labels
    assert study.pairing == "deals"
    search = sum(c.games for c in cells if any(s.startswith("ismcts") for s in c.lineup))
    assert search < study.total_games / 10  # search games are the costly few


def test_a_builtin_study_that_cannot_load_leaves_the_description_empty(ladder, monkeypatch):
    """Results of the skill study report even where its file names a strategy this install
    lacks (the description is read from the built-in file; the report must not fail on it)."""
    import sims.study
    from reports.study_kinds import study_info
    from sims.errors import UnknownStrategyError

    def refuse(name):
        raise UnknownStrategyError("skill.toml: unknown strategy 'ismcts'")

    monkeypatch.setattr(sims.study, "load_study", refuse)
    study = {**ladder.results.study, "name": "skill"}
    info = study_info(study, ladder.seats)
    assert info.kind == "skill" and info.description == ""


def test_a_skill_study_without_meetings_reports_without_empty_charts(tmp_path):
    """Named skill, but every seat plays planner: the section says there is nothing to
    compare instead of drawing empty charts or failing."""
    study = {
        "name": "skill",
        "players": [2],
        "lineups": [["planner", "planner"]],
        "games_per_cell": 4,
        "batch_size": 4,
        "seed": 1,
    }
    run(from_dict(study, "test"), workers=1, out=tmp_path / "r", progress=False)
    mirror = analyse(load_results(tmp_path / "r"))
    section = next(s for s in build(mirror).sections if s.key == "skill")
    assert section.charts == []
    assert "No two strategies met" in section.intro
    assert "## The skill ladder" in markdown.render(mirror)


def test_the_section_opening_sums_up_shares_and_taus_in_one_sentence_each():
    import pandas as pd

    from reports import skill as skill_module

    share = pd.DataFrame(
        {
            "players": [2, 3, 2],
            "scope": ["all strategies", "all strategies", "without random"],
            "n_games": [10, 12, 10],
            "n_strategies": [3, 3, 2],
            "share": [0.5, 0.25, 0.375],
            "ci_low": [0.4, 0.2, 0.3],
            "ci_high": [0.6, 0.3, 0.45],
        }
    )
    text = skill_module.share_summary(share)
    assert "50% (40%-60%) at 2 players, 25% (20%-30%) at 3 players (all strategies)" in text
    assert "38% (30%-45%) at 2 players (without random)" in text
    agreement = pd.DataFrame(
        {
            "players": [2, 3],
            "n_strategies": [6, 1],
            "tau": [0.6, float("nan")],
            "p_value": [0.01, float("nan")],
            "n_games_search": [168, 0],
            "n_games_scripted": [2016, 0],
        }
    )
    tau = skill_module.tau_summary(agreement)
    assert "0.60 at 2 players (p = 0.01, 168 strategy-games against search)" in tau
    assert "the ranking holds at 2 players" in tau and "3 players" not in tau
    assert skill_module.share_summary(share.iloc[0:0]) == ""
