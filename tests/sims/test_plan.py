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
    assert load_results(old, destinations=False, accept_changes=True).plan.to_dict() == plan
    manifest["study"]["pool"] = ["planner", "thief", "gone_module:Gone"]
    manifest["study"]["strategies"].pop("steady")
    (old / MANIFEST).write_text(json.dumps(manifest))
    assert (
        "gone_module:Gone"
        in load_results(old, destinations=False, accept_changes=True).plan.strategies
    )


def _edited(path: tuple, value: object = None, delete: bool = False) -> dict:
    stored = json.loads(json.dumps(from_dict(STUDY, "planned.toml").plan.to_dict()))
    parent = stored
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return stored


NAN, INF = float("nan"), float("inf")
HAND_EDITS = {
    "games infinite": (("cells", 0, "games"), -INF),
    "games huge float": (("cells", 0, "games"), 1e308),
    "games negative": (("cells", 0, "games"), -1),
    "games true": (("cells", 0, "games"), True),
    "games text": (("cells", 0, "games"), "6"),
    "cell players five": (("cells", 0, "players"), 5),
    "cell of a variant it is not played at": (("cells", 0, "variant"), "chicago=4x"),
    "a seat no strategy has": (("cells", 0, "lineup", 0), "nobody"),
    "a lineup of the wrong size": (("cells", 0, "lineup"), ["planner"]),
    "a key twice": (("cells", 1, "key"), "base/2p/planner+steady"),
    "cell key a number": (("cells", 0, "key"), 7),
    "total disagrees": (("total_games",), 1),
    "sweep point names no variant": (("sweeps", "chicago", "points", 0, 1), "nope"),
    "sweep point variant NaN": (("sweeps", "chicago", "points", 0, 1), NAN),
    "sweep values text": (("sweeps", "chicago", "points", 0, 0), ["4"]),
    "sweep of two values for one parameter": (("sweeps", "chicago", "points", 0, 0), [4, 5]),
    "variant names no sweep": (("variants", "wipe", "sweep"), "nope"),
    "variant players text": (("variants", "wipe", "players"), ["3"]),
    "variant players huge": (("variants", "wipe", "players"), [10**30]),
    "edits a string": (("variants", "wipe", "edits", "deck"), "rich"),
    "edits a bad pair": (("variants", "wipe", "edits", "destinations"), [[4]]),
    "edits a bad kind": (("variants", "wipe", "edits", "destinations"), [["4", 8]]),
    "rules out of range": (("variants", "wipe", "rules", "face_up"), -5),
    "clock text": (("clock", "place"), "fast"),
    "clock NaN": (("clock", "place"), NAN),
    "margin NaN": (("margins", "win_share"), NAN),
    "margin text": (("margins", "win_share"), "wide"),
    "decision seconds infinite": (("decision_seconds",), INF),
    "seed a float": (("seed",), 4.5),
    "players text": (("players",), ["2"]),
    "name a number": (("name",), 5),
    "description a list": (("description",), ["x"]),
    "quality text": (("quality",), "no"),
    "cards a string": (("cards",), "folder"),
    "knobs a list": (("strategies", "steady", "knobs"), [1, 2]),
    "strategy base a number": (("strategies", "steady", "base"), -1),
    "an extra key": (("surprise",), 1),
    "an extra key in a cell": (("cells", 0, "surprise"), 1),
    "an extra key in a variant": (("variants", "wipe", "surprise"), 1),
    "a list for a table": (("variants",), [1, 2]),
}


@pytest.mark.parametrize("edit", list(HAND_EDITS))
def test_a_hand_edited_plan_is_one_line_never_a_traceback(edit):
    """Wrong types, NaN, huge numbers, extra keys and names that point nowhere: each is a
    ResultsError in one line naming the manifest, never another exception (the report would
    show a traceback) and never a plan read as if it were whole."""
    path, value = HAND_EDITS[edit]
    with pytest.raises(ResultsError, match="manifest: plan: not a plan this version reads") as e:
        Plan.from_dict(_edited(path, value))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "path", [("cells", 0, "games"), ("cells", 0), ("variants", "wipe", "edits", "deck"),
             ("sweeps", "chicago", "printed"), ("strategies", "steady", "knobs"), ("cards",)]
)  # fmt: skip
def test_a_plan_missing_a_key_is_one_line(path):
    with pytest.raises(ResultsError, match="manifest: plan: not a plan this version reads"):
        Plan.from_dict(_edited(path, delete=True))


def _with_plan(folder, tmp_path, edit) -> object:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    manifest = json.loads((copy / MANIFEST).read_text())
    edit(manifest["plan"])
    (copy / MANIFEST).write_text(json.dumps(manifest))
    return copy


def test_a_plan_whose_cells_disagree_with_the_games_is_one_line(folder, tmp_path):
    """The games in the folder are of the plan's cells: a plan with a cell renamed, or with
    fewer games in a cell than the folder holds, is not the plan those games were played by."""

    def rename(plan):
        plan["cells"][0]["key"] = "base/2p/someone+else"

    with pytest.raises(ResultsError, match="base/2p/planner\\+steady.*not a cell of the plan"):
        load_results(
            _with_plan(folder, tmp_path / "a", rename), destinations=False, accept_changes=True
        )

    def fewer(plan):
        plan["cells"][0]["games"] = 1
        plan["total_games"] -= 1

    with pytest.raises(ResultsError, match="holds 2 games of cell .* plan has 1"):
        load_results(
            _with_plan(folder, tmp_path / "b", fewer), destinations=False, accept_changes=True
        )

    def other_variant(plan):
        plan["variants"]["other"] = plan["variants"]["base"]
        plan["cells"][0]["variant"] = "other"

    with pytest.raises(ResultsError, match="variant"):
        load_results(
            _with_plan(folder, tmp_path / "c", other_variant),
            destinations=False,
            accept_changes=True,
        )
