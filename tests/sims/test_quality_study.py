"""Game quality in studies: ``[metrics] quality = true`` writes a quality table, one row per
finished game, the same on both engines, and changes nothing else a study writes."""

from __future__ import annotations

import pytest

from sims.errors import StudyError
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict
from tests.sims.faults import result_files

SMALL = {
    "name": "q",
    "seed": 3,
    "players": [2, 4],
    "pool": ["planner", "thief", "rusher", "random"],
    "games_per_cell": 4,
    "batch_size": 4,
    "rotation": "random",
}


def small(**changes):
    return from_dict({**SMALL, **changes}, "q.toml")


@pytest.mark.parametrize(
    ("metrics", "said"),
    [
        ([], "q.toml: metrics: must be a table (quality = true)"),
        ({"drama": True}, "q.toml: metrics.drama: unknown key (known: quality)"),
        ({"quality": "yes"}, "q.toml: metrics.quality: must be true or false, got 'yes'"),
        ({"quality": 1}, "q.toml: metrics.quality: must be true or false, got 1"),
    ],
)
def test_a_bad_metrics_table_is_one_line_naming_its_key(metrics, said):
    with pytest.raises(StudyError) as info:
        small(metrics=metrics)
    assert str(info.value) == said


def test_quality_is_off_by_default_and_part_of_the_study_when_on():
    assert not small().quality and "metrics" not in small().to_dict()
    on = small(metrics={"quality": True})
    assert on.quality and on.to_dict()["metrics"] == {"quality": True}


def test_a_quality_study_writes_one_row_per_finished_game_and_nothing_else_changes(tmp_path):
    plain, measured = tmp_path / "plain", tmp_path / "quality"
    run(small(), workers=1, out=plain, progress=False)
    run(small(metrics={"quality": True}), workers=1, out=measured, progress=False)
    without, with_quality = result_files(plain), result_files(measured)
    assert {k: v for k, v in with_quality.items() if not k.startswith("quality/")} == without
    results = load_results(measured)
    assert load_results(plain).quality is None
    quality, games = results.quality, results.games
    finished = games[~games["failed"]]
    assert len(quality) == len(finished)
    assert list(quality["game_index"]) == list(finished["game_index"])
    assert (quality["positions"] == finished["turns"].to_numpy() + 1).all()
    assert (quality["lead_changes_chance"] >= 0).all()
    assert quality["drama"].between(0, 1).all() and quality["excitement"].ge(0).all()
    assert quality["decisive_fraction"].dropna().between(0, 1).all()
    assert (quality["comeback"] >= 1).all() and quality["lowest_chance"].between(0, 1).all()
    winners = results.seats[results.seats["is_winner"]].groupby(["cell", "game_index"])
    best = results.seats.groupby(["cell", "game_index"])["score"]
    assert (quality["final_margin"] >= 0).all()
    assert len(winners) == len(quality) and best.ngroups == len(quality)


def test_the_quality_table_is_the_same_on_both_engines(tmp_path):
    from cardgame import _native

    if not _native.BUILT:
        pytest.skip(_native.describe())
    run(small(metrics={"quality": True}), workers=1, out=tmp_path / "native", progress=False)
    python = small(metrics={"quality": True}, engine="python")
    run(python, workers=1, out=tmp_path / "python", progress=False)
    assert result_files(tmp_path / "native") == result_files(tmp_path / "python")
