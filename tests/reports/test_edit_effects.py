"""A variant is reported on what its edits touched: an edited ticket (keep rate, completion,
net points, holders' win share), an edited big-city bonus (how often won, by whom, its
holders' win share), a seat lever (each seat's win share), paired by deal with base."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports import answers
from reports.edit_effects import edit_effects, edited
from sims.study import from_dict

STUDY = {
    "name": "touched", "seed": 4, "players": [2], "pool": ["planner", "thief"],
    "games_per_cell": 16, "pairing": "deals",
    "variants": {
        "base": {},
        "ticket4": {"destinations": {"4": {"points": 12}}},
        "chicago": {"big_cities": {"Chicago": 25}},
        "levers": {"seat_extra_cards": [0, 3]},
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    from reports.analysis import analyse
    from sims.results import load_results
    from sims.runner import run

    folder = tmp_path_factory.mktemp("touched") / "r"
    run(from_dict(STUDY, "touched.toml"), workers=1, out=folder, progress=False)
    return analyse(load_results(folder))


def test_the_plan_says_what_each_variant_edited():
    table = edited(from_dict(STUDY, "touched.toml").plan).set_index("variant")
    assert table.loc["ticket4", "kind"] == "ticket" and table.loc["ticket4", "item"] == 4
    assert table.loc["chicago", "edit"] == "Chicago bonus 12 -> 25"
    assert table.loc["levers", "edit"] == "seat_extra_cards 0/0/0/0 -> 0/3/0/0"


def test_each_edit_is_measured_on_what_it_touched(analysis):
    table = analysis.tables["edit_effects"]
    metrics = table.groupby("variant")["metric"].agg(set).to_dict()
    assert metrics["ticket4"] == {"keep_rate", "completion", "points_per_game", "holder_win_share"}
    assert metrics["chicago"] == {"award_rate", "holder_win_share", "won_by"}
    assert metrics["levers"] == {"seat_win_share"}
    assert set(table.loc[table["variant"] == "levers", "who"]) == {"seat 0", "seat 1"}
    assert set(table.loc[table["metric"] == "won_by", "who"]) == {"planner", "thief"}
    assert (table["method"] == "paired t").all()
    ticket = table[table["variant"] == "ticket4"]
    assert set(ticket["edit"]) == {"#4 points 6 -> 12"}  # the base points, from its rows
    assert set(ticket["item"]) == {"#4 New York-Sault Ste. Marie"}


def test_the_paired_difference_and_its_interval_match_scipy(analysis):
    """Reference: the ticket's keep rate averaged per deal by hand, scipy's paired t interval
    at the Bonferroni level of the metric's family."""
    results = analysis.results
    rows = results.destination_rows({4})
    ok = results.games.loc[~results.games["failed"], ["cell", "game_index"]]
    rows = rows.merge(ok, on=["cell", "game_index"])
    per_deal = rows.groupby(["variant", "seed"])["kept"].mean().unstack("variant")
    both = per_deal[["ticket4", "base"]].dropna()
    table = analysis.tables["edit_effects"]
    row = table[(table["variant"] == "ticket4") & (table["metric"] == "keep_rate")].iloc[0]
    test = stats.ttest_rel(both["ticket4"], both["base"])
    low, high = test.confidence_interval(1 - 0.05 / row["family"])
    assert row["deals"] == len(both)
    assert row["difference"] == pytest.approx((both["ticket4"] - both["base"]).mean())
    if np.isfinite(low):
        assert (row["family_low"], row["family_high"]) == pytest.approx((low, high))


def test_unpaired_deals_are_compared_by_welch():
    """Two rule sets on different deals: the Welch interval at the family's level, as
    scipy's ``ttest_ind(equal_var=False)`` gives it."""
    from sims.plan import Plan

    rng = np.random.default_rng(5)
    plan = Plan.from_dict(from_dict(STUDY, "touched.toml").plan.to_dict())
    games, seats = [], []
    for variant, shift, seeds in (("base", 0.0, range(30)), ("levers", 0.1, range(100, 140))):
        for seed in seeds:
            share = float(np.clip(0.5 + shift + rng.normal(0, 0.2), 0, 1))
            key = {"variant": variant, "players": 2, "cell": f"{variant}/x", "seed": seed,
                   "game_index": seed}  # fmt: skip
            games.append({**key, "failed": False})
            for seat, win in ((0, share), (1, 1 - share)):
                seats.append({**key, "seat": seat, "win_share": win, "strategy": "planner",
                              "big_cities": ""})  # fmt: skip
    games, seats = pd.DataFrame(games), pd.DataFrame(seats)
    kept = {k: v for k, v in plan.variants.items() if k in ("base", "levers")}
    plan = dataclasses.replace(plan, variants=kept)
    table = edit_effects(plan, games, seats, pd.DataFrame())
    row = table[table["who"] == "seat 0"].iloc[0]
    a = seats[(seats["variant"] == "levers") & (seats["seat"] == 0)]["win_share"]
    b = seats[(seats["variant"] == "base") & (seats["seat"] == 0)]["win_share"]
    low, high = stats.ttest_ind(a, b, equal_var=False).confidence_interval(1 - 0.05 / 2)
    assert row["method"] == "Welch t" and row["family"] == 2
    assert (row["family_low"], row["family_high"]) == pytest.approx((low, high))


def test_the_summary_says_what_each_edit_touched(analysis):
    rows = {a.label: a for a in answers.variants(analysis)}
    ticket = rows["ticket4"].cells["2 players"].text
    assert ticket.startswith("#4 ") and "; " in ticket and ticket != "no change"
    assert rows["chicago"].cells["2 players"].text.startswith("Chicago ")
    assert rows["levers"].cells["2 players"].text.startswith("seat")
    report = answers.summary(analysis, "q", [])
    assert report.words() <= answers.MAX_WORDS


def test_the_variants_section_shows_the_touched_tables(analysis):
    from reports.markdown import summary
    from reports.sections import build

    text = summary(build(analysis))
    assert "What each edit touched" in text
    assert "Variant ticket4 (#4 points 6 -> 12) against base on the same deals: #4 New " in text
    assert "kept when offered" in text and "holders' win share" in text
    assert "Variant levers (seat_extra_cards 0/0/0/0 -> 0/3/0/0)" in text
    assert "seat 1's win share" in text
    assert "won by planner" in text


def test_the_findings_say_what_each_edit_touched(analysis):
    from reports.findings import headline

    text = "\n".join(headline(analysis))
    assert "Variant chicago (Chicago bonus 12 -> 25) against base on the same deals" in text
