"""The checks of a study's verdicts (sims/plan.py ``Plan.check_plans``): the same games with
the study's own knobs where adapted players were used, the search player in every seat where
``[check] search`` asks; each played after the study into checks/NAME, the same on any worker
count, resumed like the study; bad settings one line."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr
from dataclasses import replace

import pytest

import sims.adapt
from cardgame.cli import main
from sims.adapt import Adaptation
from sims.errors import ResultsError, StudyError
from sims.folder import MANIFEST
from sims.plan import CHECKS_FOLDER, Plan
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict, load_study

STUDY = {
    "name": "checked", "seed": 9, "players": [2], "lineups": [["planner", "thief"]],
    "games_per_cell": 4, "pairing": "deals",
    "variants": {"base": {}, "chicago": {"big_cities": {"Chicago": 30}}},
    "check": {"search": 3, "iterations": 4},
}  # fmt: skip


def test_the_search_check_plays_every_design_with_searchers_on_common_deals():
    plan = from_dict(STUDY, "checked.toml").plan
    checks = plan.check_plans()
    assert set(checks) == {"search"}  # no adapted players: no knobs check
    search = checks["search"]
    assert [(c.variant, c.players, c.lineup, c.games) for c in search.cells] == [
        ("base", 2, ("search", "search"), 3),
        ("chicago", 2, ("search", "search"), 3),
    ]
    assert search.pairing == "deals" and dict(search.strategies["search"].knobs) == {
        "iterations": 4
    }
    assert search.check_search == 0 and not search.check_plans()  # a check has no checks
    stored = json.loads(json.dumps(plan.to_dict()))
    again = Plan.from_dict(stored)
    assert again.to_dict() == stored and again.check_plans()["search"].cells == tuple(
        replace(cell, catalogue=None) for cell in search.cells
    )


def test_the_knobs_check_replays_the_same_cells_without_the_adaptation():
    plan = from_dict({**STUDY, "check": {}}, "checked.toml").plan
    assert plan.check_plans() == {}
    adapted = replace(
        plan,
        adapt_budget=600,
        adapted={"chicago": {"planner": {"card_share": 0.3}}},
        adaptations=({"variant": "chicago", "label": "planner", "used": True},),
    )
    knobs = adapted.check_plans()["knobs"]
    assert knobs.cells == plan.cells and knobs.adapted is None and knobs.adapt_budget == 0
    unused = replace(adapted, adapted={}, adaptations=({"used": False},))
    assert unused.check_plans() == {}  # nothing adapted: the games would be the same


def test_checks_land_in_their_folders_alike_on_any_worker_count_and_resume(tmp_path):
    tables = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        summary = run(from_dict(STUDY, "checked.toml"), workers=workers, out=folder,
                      progress=False)  # fmt: skip
        assert summary.checks["search"].games_played == 6
        results = load_results(folder)
        checks = results.checks()
        assert set(checks) == {"search"} and len(results.games) == 8
        assert set(checks["search"].seats["strategy"]) == {"search"}
        tables.append(checks["search"].games.drop(columns=["study"]))
    assert tables[0].equals(tables[1])
    again = run(from_dict(STUDY, "checked.toml"), workers=1, out=tmp_path / "w1", resume=True,
                progress=False)  # fmt: skip
    assert again.games_played == 0 and again.checks["search"].games_played == 0
    more = {**STUDY, "check": {"search": 5, "iterations": 4}}
    with pytest.raises(ResultsError, match="different study"):
        run(from_dict(more, "checked.toml"), workers=1, out=tmp_path / "w1", resume=True,
            progress=False)  # fmt: skip


def test_a_check_is_added_to_finished_results_by_resuming(tmp_path):
    folder = tmp_path / "r"
    run(from_dict({**STUDY, "check": {}}, "checked.toml"), workers=1, out=folder, progress=False)
    assert not (folder / CHECKS_FOLDER).exists()
    summary = run(from_dict(STUDY, "checked.toml"), workers=1, out=folder, resume=True,
                  progress=False)  # fmt: skip
    assert summary.games_played == 0 and summary.checks["search"].games_played == 6


def test_adapted_players_bring_the_knobs_check(tmp_path, monkeypatch):
    def adapt_plan(plan, say=None):
        return [
            Adaptation("chicago", "planner", {}, {"card_share": 0.3}, True, 0.4, 0.6, 0.1, 0.3, 9)
        ]

    monkeypatch.setattr(sims.adapt, "adapt_plan", adapt_plan)
    study = {**STUDY, "check": {}, "adapt": {"budget": 600}}
    summary = run(from_dict(study, "checked.toml"), workers=1, out=tmp_path / "r", progress=False)
    assert summary.checks["knobs"].games_played == 8
    results = load_results(tmp_path / "r")
    knobs = results.checks()["knobs"]
    assert knobs.plan.adapted is None and knobs.plan.cells == results.plan.cells
    base = results.games["variant"] == "base"  # nothing adapted there: the very same games
    mine = results.games[base].drop(columns=["study"]).reset_index(drop=True)
    theirs = knobs.games[knobs.games["variant"] == "base"].drop(columns=["study"])
    assert mine.equals(theirs.reset_index(drop=True))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"search": -3}, "check.search: must be from 1 to 100,000, got -3"),
        ({"search": 10**6}, "check.search: must be from 1 to 100,000"),
        ({"search": True}, "check.search: must be a whole number"),
        ({"search": 5, "iterations": 0}, "check.iterations: must be from 1"),
        ({"search": 5, "players": 2}, "check.players: unknown key"),
        ([1], "check: must be a table"),
    ],
)
def test_bad_check_settings_are_one_line(table, message):
    with pytest.raises(StudyError, match=message) as info:
        from_dict({**STUDY, "check": table}, "checked.toml")
    assert "\n" not in str(info.value)


def test_a_bad_check_flag_is_one_line_and_writes_nothing(tmp_path):
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["simulate", "--strategies", "planner,thief", "--players", "2",
                     "--check-search", "-1", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    assert err.getvalue().count("\n") == 1 and "check.search" in err.getvalue()
    assert not (tmp_path / "r").exists()


def test_the_flag_sets_the_deals_and_keeps_the_files_iterations(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('name = "s"\nplayers = [2]\npool = ["planner", "thief"]\n'
                    "[check]\nsearch = 2\niterations = 7\n")  # fmt: skip
    study = load_study(path, check_search=5)
    assert (study.check_search, study.search_iterations) == (5, 7)


@pytest.mark.parametrize("check", [{"search": 0, "iterations": 4}, {"search": 3}, [3]])
def test_a_stored_check_not_as_a_run_writes_it_is_refused(check):
    data = json.loads(json.dumps(from_dict(STUDY, "checked.toml").plan.to_dict()))
    data["check"] = check
    with pytest.raises(ResultsError, match="check"):
        Plan.from_dict(data)


def test_the_check_manifest_names_the_check(tmp_path):
    run(from_dict(STUDY, "checked.toml"), workers=1, out=tmp_path / "r", progress=False)
    stored = json.loads((tmp_path / "r" / CHECKS_FOLDER / "search" / MANIFEST).read_text())
    assert stored["study"]["checking"]["name"] == "search"
    searcher = {"base": "ismcts", "knobs": {"iterations": 4}}
    assert stored["plan"]["strategies"] == {"search": searcher}


def test_the_seal_covers_the_checks_a_changed_check_is_refused(tmp_path):
    from sims.folder import check_sealed

    folder = tmp_path / "r"
    run(from_dict(STUDY, "checked.toml"), workers=1, out=folder, progress=False)
    check_sealed(folder)  # the study and its check as the run left them
    check_sealed(folder / CHECKS_FOLDER / "search")
    games = next((folder / CHECKS_FOLDER / "search" / "games").glob("*.parquet"))
    games.write_bytes(games.read_bytes() + b"x")
    with pytest.raises(ResultsError, match="games"):
        check_sealed(folder)


def test_a_checks_folder_seals_no_file_another_writer_put_there(tmp_path, monkeypatch):
    """Hostile pass 20's check20.py: a check's folder was sealed on its own over whatever it
    held, so a forged table renamed in there read as sealed in `report F/checks/search`. It
    is sealed with the run's account of what it wrote, as the study's folder is."""
    import sims.runner as runner_module
    from sims.errors import ResultsError
    from sims.folder import check_sealed

    folder = tmp_path / "r"
    seal = runner_module.seal

    def planted_then_sealed(where, *args, **kwargs):
        if where.name == "search":
            (where / "games" / "planted.parquet").write_bytes(b"forged")
        return seal(where, *args, **kwargs)

    monkeypatch.setattr(runner_module, "seal", planted_then_sealed)
    with pytest.raises(ResultsError, match="checks/search/games/planted.parquet was added"):
        run(from_dict(STUDY, "checked.toml"), workers=1, out=folder, progress=False)
    with pytest.raises(ResultsError, match="games/planted.parquet was added since its run"):
        check_sealed(folder / "checks" / "search")
