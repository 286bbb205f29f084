"""Line-ups with their own number of games (``{seats = [...], games = N}``): costly line-ups
(search players) play fewer games than ``games_per_cell`` (the skill study)."""

from __future__ import annotations

import pytest

from sims.errors import StudyError
from sims.study import from_dict

STUDY = {
    "players": [2, 3],
    "games_per_cell": 10,
    "lineups": [
        ["planner", "random"],
        {"seats": ["thief", "planner"], "games": 4},
        {"seats": ["thief", "planner", "random"], "games": 3},
    ],
}


def test_a_lineup_table_sets_its_games():
    study = from_dict(STUDY)
    games = {cell.key: cell.games for cell in study.cells()}
    assert games == {
        "base/2p/planner+random": 10,
        "base/2p/planner+thief": 4,
        "base/3p/planner+random+thief": 6,  # 3 asked, rounded up to the 6 seat orders
    }
    assert study.total_games == 20
    assert study.rounding_note() == (
        "3 games of a line-up rounded up to 6 (3 players) so every seat order appears equally often"
    )


def test_lineup_games_survive_the_manifest():
    study = from_dict(STUDY)
    data = study.to_dict()
    assert data["lineups"][1] == {"seats": ["thief", "planner"], "games": 4}
    assert data["lineups"][0] == ["planner", "random"]
    data.pop("pool")
    again = from_dict(data, "manifest")
    assert [(c.key, c.games) for c in again.cells()] == [(c.key, c.games) for c in study.cells()]
    assert again.to_dict()["lineups"] == study.to_dict()["lineups"]


def test_plain_lineups_keep_their_manifest_form():
    study = from_dict({"players": [2], "lineups": [["planner", "random"]]})
    assert study.to_dict()["lineups"] == [["planner", "random"]]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"seats": ["planner", "thief"], "games": 0}, "games: must be a whole number from 1"),
        ({"seats": ["planner", "thief"], "games": "many"}, "games: must be a whole number"),
        ({"seat": ["planner", "thief"]}, "lineups.seat: unknown key"),
        ({"games": 3}, "has no seats"),
        ({"seats": "planner", "games": 3}, "must be a list of lists of strategy names"),
        ({"seats": ["planner", "thief", "random"], "games": 3}, "has 3 seats"),
    ],
)
def test_bad_lineup_tables_name_the_key(entry, message):
    with pytest.raises(StudyError, match=message) as info:
        from_dict({"players": [2], "lineups": [entry]}, "s.toml")
    assert str(info.value).startswith("s.toml: ")
    assert "\n" not in str(info.value)


def test_the_games_flag_sets_every_cell():
    """``--games N`` means N games in every cell: a quick run of the skill study must not
    keep its search line-ups at full size."""
    from sims.study import quick_study

    quick = quick_study(from_dict(STUDY), games=2)
    assert {c.key: c.games for c in quick.cells()} == {
        "base/2p/planner+random": 2,
        "base/2p/planner+thief": 2,
        "base/3p/planner+random+thief": 6,
    }
