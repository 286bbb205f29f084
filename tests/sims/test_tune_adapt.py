"""``tune --adapt``: every design the tune plays is played by players adapted to it, searched
once per design (its rules and cards), the same on any worker count, reused on resume; the
tune says so; bad settings are one line."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr

import pandas as pd
import pytest

import sims.tune.adapted
from cardgame.cli import main
from sims.study import from_dict
from sims.tune import BASE, Design, TuneError, Tuner, tune
from sims.tune.evaluation import step_table

TINY = {
    "name": "tiny",
    "seed": 5,
    "players": [2],
    "lineups": [["planner", "thief"]],
    "games_per_cell": 10,
}
EDITS = {"face_up": {"values": [7]}}
QUIET = {"progress": False, "log": lambda line: None}
BUDGET = 1400  # one generation of the planner's search (10 candidates of 100 deals), a hold-out


def run_tiny(out, workers=1, **options):
    settings = {"edits": EDITS, "budget": 800, "holdout": 100, "workers": workers, **QUIET}
    settings.update(options)
    return tune(from_dict(TINY, "tiny.toml"), "seat", out=out, adapt=BUDGET, **settings)


@pytest.fixture(scope="module")
def adapted(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune-adapt") / "t"
    searched: list[str] = []
    original = sims.tune.adapted._adapt_one

    def counting(plan, label):
        searched.append(f"{plan.variants[BASE].rules.face_up}/{label}")
        return original(plan, label)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sims.tune.adapted, "_adapt_one", counting)
        result = run_tiny(out)
    return out, result, searched


def test_each_design_is_adapted_once_and_its_games_seat_the_adapted_knobs(adapted):
    out, result, searched = adapted
    # the start and face_up = 7, each strategy once, whatever the steps and the hold-out
    assert sorted(searched) == ["5/planner", "5/thief", "7/planner", "7/thief"]
    state = json.loads((out / "tune.json").read_text())
    designs = state["adapt"]["designs"]
    assert len(designs) == 2 and state["adapt"]["budget"] == BUDGET
    assert sorted(p.stem for p in (out / "adapted").glob("*.json")) == sorted(designs)
    start = next(iter(d for d in designs.values()))
    assert {a["label"] for a in start} == {"planner", "thief"}
    used = [a for found in designs.values() for a in found if a["used"]]
    assert used, "one generation beats the study's knobs for some strategy"
    # every step's table says its arms' seats played the knobs the cache holds for their design
    by_face_up = {}
    for path in (out / "adapted").glob("*.json"):
        data = json.loads(path.read_text())
        face_up = 7 if data["design"] == "face_up = 7" else 5
        by_face_up[face_up] = {a["label"]: a["adapted"] for a in data["adaptations"] if a["used"]}
    steps = list((out / "evaluations").glob("*.parquet"))
    assert len(steps) >= 3  # the screen, a round, the hold-out
    for step in steps:
        plan = step_table(step)["plan"]
        assert plan["adapt"]["budget"] == BUDGET
        for arm, variant in plan["variants"].items():
            expected = by_face_up[variant["rules"]["face_up"]]
            assert plan["adapt"]["adapted"].get(arm, {}) == expected
    assert any(line.startswith("Players adapted to each design") for line in result.summary)
    # the tuned study file adapts its players too
    assert f"budget = {BUDGET}" in (out / "edits.toml").read_text()


def test_a_design_s_digest_is_its_rules_and_cards(tmp_path):
    tuner = Tuner(from_dict(TINY, "tiny.toml"), "seat", edits=EDITS, out=tmp_path / "t",
                  adapt=BUDGET, **QUIET)  # fmt: skip
    cache = tuner.adapted_players
    assert cache is not None
    start = Design(tuner.base_table)
    printed = tuner.space.current(start, "face_up")
    assert cache.digest(start) == cache.digest(start.with_edit("face_up", printed))
    assert cache.digest(start) != cache.digest(start.with_edit("face_up", 7))
    card = start.with_edit("destinations.7.points", 9)
    assert cache.digest(card) != cache.digest(start)


def test_two_workers_adapt_alike(adapted, tmp_path):
    out, result, _ = adapted
    again = run_tiny(tmp_path / "t2", workers=2)
    assert again.edits == result.edits
    pd.testing.assert_frame_equal(again.evaluations, result.evaluations)
    pd.testing.assert_frame_equal(again.holdout, result.holdout)
    first = json.loads((out / "tune.json").read_text())["adapt"]
    second = json.loads((tmp_path / "t2" / "tune.json").read_text())["adapt"]
    assert first == second


def test_a_rerun_reads_the_adapted_players_and_searches_nothing(adapted, monkeypatch):
    out, result, _ = adapted

    def no_search(*args, **kwargs):
        raise AssertionError("a design already adapted is searched again")

    monkeypatch.setattr(sims.tune.adapted, "_adapt_one", no_search)
    again = run_tiny(out, resume=True)
    assert again.edits == result.edits
    pd.testing.assert_frame_equal(again.evaluations, result.evaluations)


def test_a_tune_without_adapt_says_its_players_kept_the_study_s_knobs(tmp_path):
    from reports.tuning import _players_text

    assert "not adapted" in _players_text({})
    tuner = Tuner(from_dict(TINY, "tiny.toml"), "seat", edits=EDITS, out=tmp_path / "t", **QUIET)
    assert tuner.adapted_players is None


@pytest.mark.parametrize(
    ("adapt", "message"),
    [
        (-5, "tune: adapt: must be at least 200, got -5"),
        (10**12, "tune: adapt: must be at most 100,000,000"),
        (True, "tune: adapt: must be a whole number"),
        ({"budget": 500, "strategies": ["nobody"]}, "'nobody' is not a strategy of the study"),
        ({"budget": 500, "strategies": ["random"]}, "'random' is not a strategy of the study"),
        ({"budget": 50}, "adapt.budget: must be from 200"),
    ],
)
def test_bad_adapt_settings_are_one_line_and_write_nothing(tmp_path, adapt, message):
    with pytest.raises(TuneError, match=message) as info:
        Tuner(from_dict(TINY, "tiny.toml"), "seat", edits=EDITS, out=tmp_path / "t",
              adapt=adapt, **QUIET)  # fmt: skip
    assert "\n" not in str(info.value)
    assert not (tmp_path / "t").exists()


def test_a_bad_adapt_flag_is_one_line_exit_2_and_writes_nothing(tmp_path):
    study = tmp_path / "tiny.toml"
    study.write_text('name = "tiny"\nplayers = [2]\nlineups = [["planner", "thief"]]\n')
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["tune", str(study), "--objective", "seat", "--out", str(tmp_path / "t"),
                     "--adapt", "-3"])  # fmt: skip
    assert code == 2
    assert err.getvalue().count("\n") == 1 and "adapt" in err.getvalue()
    assert not (tmp_path / "t").exists()


def test_the_resume_hint_repeats_adapt():
    import argparse

    from reports.tuning import resume_command

    args = argparse.Namespace(study="s.toml", objective="seat", out="t", edits=None, max_edits=2,
                              budget=None, holdout=None, cards=None, players=None, seed=None,
                              bands=None, suspects=3, workers=None, adapt=2000)  # fmt: skip
    assert resume_command(args) == (
        "cardgame tune s.toml --objective seat --out t --adapt 2000 --resume"
    )
