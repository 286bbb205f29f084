"""Card edits: the printed numbers as study parameters, on both engines."""

from __future__ import annotations

import pytest

from cardgame import Game, RulesError, default_catalogue
from cardgame.edits import NO_EDITS, CardEdits
from cardgame.randomplay import play_random
from cardgame.record import replay, to_record

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

PRINTED = default_catalogue()


def edits(data: dict) -> CardEdits:
    return CardEdits.from_dict(data, PRINTED, "variants.what-if")


def test_an_edit_changes_only_the_cards_it_names():
    edited = edits({"destinations": {"24": {"points": 10}}, "big_cities": {"Chicago": 14}})
    catalogue = edited.apply(PRINTED)
    assert catalogue.destination(24).points == 10
    assert [b.points for b in catalogue.big_cities if b.city == "Chicago"] == [14]
    changed = [
        d.id for d, p in zip(catalogue.destinations, PRINTED.destinations, strict=True) if d != p
    ]
    assert changed == [24]
    assert NO_EDITS.apply(PRINTED) is PRINTED and not NO_EDITS
    assert edited.to_dict() == {
        "destinations": {"24": {"points": 10}},
        "big_cities": {"Chicago": 14},
    }
    assert edits(edited.to_dict()) == edited  # the form a study file and a manifest hold
    assert edits({"destinations": {24: 10}}) == edits({"destinations": {"24": {"points": 10}}})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"destinations": {"47": 5}}, "variants.what-if.destinations.47: unknown destination id"),
        ({"destinations": {"x": 5}}, "variants.what-if.destinations.x: unknown destination id"),
        ({"destinations": {"24": -2}}, "destinations.24: must be between 1 and 99, got -2"),
        ({"destinations": {"24": 0}}, "destinations.24: must be between 1 and 99, got 0"),
        ({"destinations": {"24": 2.5}}, "destinations.24: must be a whole number, got 2.5"),
        ({"destinations": {"24": True}}, "destinations.24: must be a whole number, got True"),
        ({"destinations": {"24": {"points": "9"}}}, "destinations.24.points: must be a whole"),
        ({"destinations": {"24": {"colour": 1}}}, "destinations.24.colour: unknown"),
        ({"destinations": [24]}, "destinations: must be a table of ids"),
        ({"big_cities": {"Boston": 5}}, "variants.what-if.big_cities.Boston: unknown big city"),
        ({"big_cities": {"Chicago": 51}}, "big_cities.Chicago: must be between 1 and 50"),
        ({"cities": {}}, "variants.what-if.cities: unknown card edit"),
    ],
)
def test_a_bad_edit_is_one_line_naming_its_key(data, message):
    with pytest.raises(RulesError) as info:
        edits(data)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("players", [2, 4])
def test_an_edited_game_scores_its_own_cards_and_its_record_replays(players):
    catalogue = edits({"destinations": {str(i): 21 for i in range(1, 47)}}).apply(PRINTED)
    state = play_random(Game(players, 11, catalogue=catalogue), record=True)
    for score in state.scores:
        assert score.destination_points == 21 * score.reached
    record = to_record(state, ["random"] * players)
    assert record["cards"]["destinations"][0][3] == 21
    assert replay(record).ok
    plain = to_record(play_random(Game(players, 11), record=True), ["random"] * players)
    assert "cards" not in plain  # the printed cards are not repeated in every record
    record["cards"]["destinations"][5][3] = 20  # a record edited after the game
    assert not replay(record).ok


def test_play_with_a_card_folder_records_and_replays_its_cards(tmp_path, capsys):
    import json
    import shutil
    from importlib import resources

    from cardgame.cli import main

    folder = tmp_path / "edition"
    shutil.copytree(resources.files("cardgame") / "data", folder)
    path = folder / "destinations.csv"
    path.write_text(path.read_text().replace("24,Miami,Boston,12,", "24,Miami,Boston,18,"))
    saved = tmp_path / "g.json"
    assert (
        main(["play", "--players", "2", "--cards", str(folder), "--quiet", "--save", str(saved)])
        == 0
    )
    record = json.loads(saved.read_text())
    assert record["cards"]["destinations"][23][3] == 18 and replay(record).ok
    assert main(["play", "--cards", str(tmp_path / "none"), "--quiet"]) == 2
    assert "none: no such folder of card files" in capsys.readouterr().err
