"""Sweeps: a parameter at several values, each a variant on common deals."""

from __future__ import annotations

import pytest

from sims.errors import StudyError
from sims.study import from_dict


def study(sweeps: dict, **extra) -> object:
    data = {"name": "s", "players": [2, 4], "pool": ["planner", "thief"], "games_per_cell": 8}
    return from_dict({**data, "sweeps": sweeps, **extra}, "s.toml")


def test_a_sweep_plays_each_value_and_the_printed_one_is_base():
    s = study({"mb": {"parameter": "destinations.24.points", "start": 8, "stop": 16, "step": 2}})
    sweep = s.sweeps["mb"]
    assert [v for v, _ in sweep.points] == [(8,), (10,), (12,), (14,), (16,)]
    assert sweep.printed == (12,) and dict(sweep.points)[(12,)] == "base"
    assert s.pairing == "deals"  # common deals across values
    for values, variant in sweep.points:
        catalogue = s.catalogue_for(variant)
        points = catalogue.destination(24).points if catalogue is not None else 12
        assert points == values[0]
    assert s.variant_cards["mb=8"].to_dict() == {"destinations": {"24": {"points": 8}}}


def test_a_rule_sweep_and_a_grid():
    s = study(
        {
            "drawn": {"parameter": "destinations_drawn", "values": [2, 3, 4, 5]},
            "grid": {"parameters": ["rounds.4", "big_cities.Chicago"], "values": [[1, 2], [8, 12]]},
        }
    )
    assert [s.variants[v].destinations_drawn for v in s.sweeps["drawn"].variants] == [2, 3, 4, 5]
    grid = dict(s.sweeps["grid"].points)
    assert set(grid) == {(1, 8), (1, 12), (2, 8), (2, 12)}
    printed = s.sweeps["grid"].printed
    assert grid[printed] == "base"
    one_round = grid[(1, printed[1])]
    assert s.players_for(one_round) == (4,)  # rounds.4 changes only the 4-player game


def test_a_study_rebuilds_from_its_manifest_with_the_same_sweeps():
    s = study({"drawn": {"parameter": "destinations_drawn", "values": [3, 5]}})
    again = from_dict(s.to_dict(), "manifest")
    assert again.sweeps == s.sweeps and list(again.variants) == list(s.variants)
    assert [c.key for c in again.cells()] == [c.key for c in s.cells()]


@pytest.mark.parametrize(
    ("sweeps", "extra", "message"),
    [
        ({"x": {"parameter": "colour", "values": [1]}}, {}, "unknown parameter 'colour'"),
        ({"x": {"parameter": "destinations.77.points", "values": [1]}}, {}, "unknown destination"),
        ({"x": {"parameter": "big_cities.Boston", "values": [1]}}, {}, "unknown big city"),
        ({"x": {"parameter": "face_up", "values": [1.5]}}, {}, "1.5 is not a whole number"),
        ({"x": {"parameter": "face_up", "values": [3, 3]}}, {}, "listed twice"),
        ({"x": {"parameter": "face_up", "start": 5, "stop": 2}}, {}, "start <= stop"),
        ({"x": {"parameter": "face_up", "values": [4], "start": 1}}, {}, "not both"),
        ({"x": {"parameter": "face_up", "values": [40]}}, {}, "sweeps.x at 40: rules.face_up"),
        ({"x": {"parameter": "destinations.24.points", "values": [0]}}, {}, "sweeps.x at 0"),
        ({"x": {"parameter": "face_up", "values": [4], "speed": 1}}, {}, "sweeps.x.speed"),
        ({"x": {"parameters": ["face_up"], "values": [[4]]}}, {}, "two parameters"),
        ({"x": {"parameter": "face_up", "values": [4]}}, {"pairing": "none"}, 'pairing = "deals"'),
    ],
)
def test_a_bad_sweep_is_one_line_naming_it(sweeps, extra, message):
    with pytest.raises(StudyError) as info:
        study(sweeps, **extra)
    assert message in str(info.value) and str(info.value).startswith("s.toml: ")


def test_every_value_replays_the_printed_games_deals_and_seat_orders(tmp_path):
    from sims.results import load_results
    from sims.runner import run

    s = from_dict(
        {
            "name": "s",
            "players": [2],
            "lineups": [["planner", "thief"]],
            "games_per_cell": 6,
            "sweeps": {"mb": {"parameter": "destinations.24.points", "values": [8, 12, 16]}},
        },
        "s.toml",
    )
    run(s, workers=1, out=tmp_path / "r", progress=False)
    games = load_results(tmp_path / "r").games
    orders = {
        variant: list(zip(part["seed"], part["seats"], strict=True))
        for variant, part in games.sort_values("game_index").groupby("variant")
    }
    assert set(orders) == {"base", "mb=8", "mb=16"}
    assert orders["mb=8"] == orders["base"] == orders["mb=16"]  # the same deal, the same seats
    seats = load_results(tmp_path / "r").destinations
    points = seats[seats["destination_id"] == 24].groupby("variant")["points"].unique()
    assert {k: list(v) for k, v in points.items()} == {"base": [12], "mb=8": [8], "mb=16": [16]}
