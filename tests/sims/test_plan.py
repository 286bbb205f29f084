"""The plan: a study resolved once, stored in the manifest as plain data and read back by the
reports without parsing the study again or loading a strategy (sims/plan.py)."""

import json

import pytest

from sims.errors import ResultsError
from sims.folder import MANIFEST
from sims.plan import Isolation, Plan
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "planned", "seed": 4, "players": [2, 3], "pool": ["planner", "thief", "steady"],
    "games_per_cell": 6, "pairing": "deals",
    "strategies": {"steady": {"base": "planner", "knobs": {"card_share": 0.4}}},
    "variants": {"base": {}, "wipe": {"three_locomotive_wipe": True,
                                      "destinations": {"4": {"points": 8}}}},
    "sweeps": {"chicago": {"parameter": "big_cities.Chicago", "values": [4, 12]}},
    "report": {"margins": {"win_share": 0.05}}, "metrics": {"quality": True},
    "clock": {"place": 12.0},
}  # fmt: skip


def test_a_plan_is_plain_data_that_reads_back_the_same():
    plan = from_dict(STUDY, "planned.toml").plan
    stored = json.loads(json.dumps(plan.to_dict()))
    again = Plan.from_dict(stored)
    assert again.to_dict() == plan.to_dict()
    assert again.total_games == plan.total_games == sum(c.games for c in plan.cells)
    assert [c.key for c in again.cells] == [c.key for c in plan.cells]
    assert again.variants["wipe"].edits.destinations == ((4, 8),)
    assert again.variants["chicago=4"].sweep == "chicago"
    assert again.sweeps["chicago"].variants == ("chicago=4", "base")
    assert again.strategies["steady"].knobs == (("card_share", 0.4),)
    assert again.margins == {"win_share": 0.05} and again.quality
    assert again.isolation is Isolation.NONE and again.think_times().place == 12.0


def test_a_plan_that_is_not_one_is_a_line():
    stored = from_dict(STUDY, "planned.toml").plan.to_dict()
    del stored["cells"]
    with pytest.raises(ResultsError, match="manifest: plan: not a plan this version reads") as e:
        Plan.from_dict(stored)
    assert "\n" not in str(e.value)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("plan") / "r"
    small = {**STUDY, "players": [2], "games_per_cell": 2, "variants": {"base": {}}}
    run(from_dict(small, "planned.toml"), workers=1, out=out, progress=False)
    return out


def test_the_reports_read_the_plan_the_run_played(folder):
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["schema_version"] == 5
    results = load_results(folder, destinations=False)
    assert results.plan.to_dict() == manifest["plan"]
    assert results.plan.total_games == len(results.games)


def test_a_manifest_from_before_plans_is_read(folder, tmp_path):
    """Schema 4 stored the study only: its plan is resolved from it, loading no strategy (a
    study of a strategy module gone since reads too)."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(folder, old)
    manifest = json.loads((old / MANIFEST).read_text())
    plan = manifest.pop("plan")
    manifest["schema_version"] = 4
    (old / MANIFEST).write_text(json.dumps(manifest))
    assert load_results(old, destinations=False).plan.to_dict() == plan
    manifest["study"]["pool"] = ["planner", "thief", "gone_module:Gone"]
    manifest["study"]["strategies"].pop("steady")
    (old / MANIFEST).write_text(json.dumps(manifest))
    assert "gone_module:Gone" in load_results(old, destinations=False).plan.strategies
