"""The report's side of a study played until settled: every verdict is read at the look's
level (reports/level.py), the judge reads the summary's amber cells (reports/settled.py), and
the report says where the run stopped and what its cap left open."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from reports.analysis import analyse
from reports.level import ALPHA, at_alpha, current_alpha
from reports.margins import judge, verdict
from reports.sections import build
from reports.settled import growth_needed, looks_note, open_questions
from sims.looks import PLANNED
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "until", "seed": 3, "players": [2], "lineups": [["planner", "random"]],
    "games_per_cell": 10, "pairing": "deals", "stop": "settled", "max_games": 40,
}  # fmt: skip


def test_the_level_is_the_nominal_one_unless_a_look_sets_its_share():
    assert current_alpha() == ALPHA
    with at_alpha(0.004):
        assert current_alpha() == 0.004
        assert verdict(0.01, 1.0) == "not yet known"  # different at 0.05, not at 0.004
    assert verdict(0.01, 1.0) == "different" and current_alpha() == ALPHA
    with pytest.raises(ValueError):
        at_alpha(0.2).__enter__()


def test_family_intervals_widen_at_a_looks_level():
    table = pd.DataFrame(
        {"difference": [0.03], "ci_low": [0.01], "ci_high": [0.05], "p_value": [0.003],
         "n": [400], "df": [np.inf]}
    )  # fmt: skip
    plain = judge(table, 0.02, [], df="df", n="n")
    with at_alpha(0.0016):
        strict = judge(table, 0.02, [], df="df", n="n")
    assert strict["family_low"].iloc[0] < plain["family_low"].iloc[0]
    assert plain["verdict"].iloc[0] == "different" and strict["verdict"].iloc[0] != "different"


def test_growth_needed_scales_the_interval_by_one_over_sqrt_games():
    row = pd.Series({"family_low": -0.01, "family_high": 0.03, "difference": 0.01, "margin": 0.02})
    assert growth_needed(row) == pytest.approx((0.02 / 0.01) ** 2)
    assert np.isnan(growth_needed(row.replace({0.03: np.nan})))


@pytest.fixture(scope="module")
def settled_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("until") / "r"
    run(from_dict(STUDY, "until.toml"), workers=1, out=folder, progress=False)
    return folder


def test_the_judge_and_the_report_agree_at_the_look_the_run_stopped(settled_folder):
    results = load_results(settled_folder)
    plan = results.plan
    assert plan.until_settled and plan.open_questions is not None
    assert open_questions(settled_folder, plan) == list(plan.open_questions)
    analysis = analyse(results)
    assert analysis.alpha == plan.level < ALPHA
    note = looks_note(analysis)
    assert note.startswith("Played until settled") and f"{plan.total_games:,} games" in note
    if plan.open_questions:
        assert "the cap of 40 games" in note
    report = build(analysis)
    assert note in report.partial_note


def test_a_plain_study_has_no_looks_note(settled_folder):
    results = load_results(settled_folder)
    planned = replace(results, plan=replace(results.plan, stop=PLANNED, look_factors=(), look=0))
    analysis = analyse(planned)
    assert analysis.alpha == ALPHA and looks_note(analysis) == ""
