"""Players adapted to the design (sims/adapt.py): a seeded, budgeted search of a scripted
strategy's knobs on each design, confirmed on held-out deals; the same on either engine and
any worker count; kept in the manifest and reused on resume; bad settings one line."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr
from dataclasses import replace

import pytest

from cardgame import _native
from cardgame.cli import main
from sims.adapt import adapt_one
from sims.batch import plan_batches
from sims.errors import StudyError
from sims.folder import MANIFEST
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

WEAK = {"card_share": 0.15, "future_cards": 0.0, "min_column": 4}
STUDY = {
    "name": "adapt", "seed": 5, "players": [2], "lineups": [["planner", "weak"]],
    "games_per_cell": 4, "strategies": {"weak": {"base": "planner", "knobs": WEAK}},
    "variants": {"base": {}, "wipe": {"three_locomotive_wipe": True}},
    "adapt": {"budget": 2400, "strategies": ["weak"]},
}  # fmt: skip


def test_a_sabotaged_planner_is_adapted_and_beats_its_start_held_out():
    plan = replace(from_dict(STUDY, "adapt.toml").plan, adapt_budget=8000)
    found = adapt_one(plan, "base", "weak")
    assert found is not None and found.start == {**found.start, **WEAK}
    assert found.used and found.low > 0 and found.adapted_share > found.start_share
    assert found.adapted != found.start
    assert found.games <= 8000


@pytest.mark.skipif(not _native.BUILT, reason="the native core is not built here")
def test_the_adaptation_is_the_same_on_either_engine():
    plan = from_dict(STUDY, "adapt.toml").plan
    small = replace(plan, adapt_budget=1200)
    native = adapt_one(replace(small, engine="native"), "wipe", "weak")
    python = adapt_one(replace(small, engine="python"), "wipe", "weak")
    assert native == python


def test_nothing_to_adapt_against_in_self_play():
    plan = from_dict({**STUDY, "lineups": [["weak", "weak"]]}, "adapt.toml").plan
    assert adapt_one(plan, "base", "weak") is None


def test_the_batches_seat_the_knobs_adapted_to_their_design_only():
    plan = from_dict(STUDY, "adapt.toml").plan
    plan = replace(plan, adapted={"wipe": {"weak": {"card_share": 0.5}}})
    for batch in plan_batches(plan):
        knobs = dict(batch.seats["weak"].knobs)
        assert knobs["card_share"] == (0.5 if batch.cell.variant == "wipe" else 0.15)
        assert knobs["min_column"] == 4  # the study's other knobs stay


def test_the_manifest_keeps_the_adaptation_whatever_the_workers_and_resume_reuses_it(
    tmp_path, monkeypatch
):
    small = {**STUDY, "adapt": {"budget": 600, "strategies": ["weak"]}}
    stored = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        run(from_dict(small, "adapt.toml"), workers=workers, out=folder, progress=False)
        stored.append(json.loads((folder / MANIFEST).read_text())["plan"]["adapt"])
    assert stored[0] == stored[1]
    assert {a["variant"] for a in stored[0]["adaptations"]} == {"base", "wipe"}
    plan = load_results(tmp_path / "w1", destinations=False).plan  # the report reads it back
    assert plan.adapt_budget == 600 and plan.adapted == stored[0]["adapted"]
    from reports.study_kinds import adaptation_sentence

    said = adaptation_sentence(plan.adaptations)
    assert "weak on base" in said and "weak on wipe" in said and "adapted players" in said

    import sims.adapt

    def no_search(*args, **kwargs):
        raise AssertionError("a resumed run searches again")

    monkeypatch.setattr(sims.adapt, "adapt_plan", no_search)
    summary = run(from_dict(small, "adapt.toml"), workers=1, out=tmp_path / "w1",
                  resume=True, progress=False)  # fmt: skip
    assert summary.games_played == 0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"budget": -5}, "adapt.budget: must be from 200 to 100,000,000 games, got -5"),
        ({"budget": 10**12}, "adapt.budget: must be from 200"),
        ({"budget": "many"}, "adapt.budget: must be a whole number of games"),
        ({"budget": 500, "strategies": ["nobody"]}, "'nobody' is not a strategy of the study"),
        ({"budget": 500, "strategies": ["random"]}, "'random' cannot be adapted"),
        ({"budget": 500, "speed": 1}, "adapt.speed: unknown key"),
        ([1], "adapt: must be a table"),
    ],
)
def test_bad_adapt_settings_are_one_line(table, message):
    study = {**STUDY, "lineups": [["planner", "weak", "random"]], "players": [3], "adapt": table}
    with pytest.raises(StudyError, match=message) as info:
        from_dict(study, "adapt.toml")
    assert "\n" not in str(info.value)


def test_a_bad_adapt_flag_is_one_line_and_writes_nothing(tmp_path):
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["simulate", "--strategies", "planner,thief", "--players", "2",
                     "--adapt", "-3", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    assert err.getvalue().count("\n") == 1 and "adapt.budget" in err.getvalue()
    assert not (tmp_path / "r").exists()
