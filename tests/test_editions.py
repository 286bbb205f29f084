"""Editions of one's own (issue 36): any number of tickets and big cities within the
contract's bounds, on both engines byte for byte; the edition commands; records that carry
the edition's name, digest and cards."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from cardgame import Game, Rules, RulesError, default_catalogue, load_catalogue
from cardgame.catalogue import EditionError, catalogue_rows
from cardgame.cli import main
from cardgame.edition import differences, shape, synthetic, write_edition
from cardgame.layout import MAX_BIG_CITIES, MAX_DESTINATIONS
from cardgame.narrate import narrate
from cardgame.randomplay import play_random
from cardgame.record import record_catalogue, replay, to_record

from .native_engine import CORE_BUILT, engine_in_use

needs_core = pytest.mark.skipif(not CORE_BUILT, reason="the native core is not built")

# (tickets, big cities): fewer and more than printed, the bounds, the benchmark's shape
SHAPES = [(12, 2), (30, 1), (60, 8), (120, 12), (MAX_DESTINATIONS, MAX_BIG_CITIES)]
DENVER = [
    "47,Denver,Chicago,9,yellow-red",
    "48,Denver,Dallas,7,green-black",
    "49,Denver,Seattle,13,black-white-red",
    "50,Denver,Los Angeles,17,white-purple-orange-blue",
]


def _record(engine: str, game: Game) -> str:
    with engine_in_use(engine):
        state = play_random(game, record=True)
    return json.dumps(to_record(state, ["random"] * game.players), sort_keys=True)


@needs_core
@pytest.mark.parametrize(("tickets", "bigs"), SHAPES)
def test_an_edition_of_any_shape_plays_the_same_on_both_engines(tickets, bigs):
    catalogue = synthetic(tickets, bigs, seed=tickets)
    rules = Rules(rounds={2: 3, 3: 3, 4: 2}) if tickets > 50 else Rules()
    for players in [p for p in (2, 3, 4) if p * rules.destinations_dealt <= tickets]:
        for seed in range(3):
            game = Game(players, seed, rules, catalogue)
            python = _record("python", game)
            assert python == _record("native", game), (tickets, bigs, players, seed)
            record = json.loads(python)
            assert record["edition"] == {"name": catalogue.name, "digest": catalogue.digest}
            assert replay(record).ok


@needs_core
def test_all_tickets_held_resolve_the_same_on_both_engines():
    """Past the native kernel's 62 feasible tickets the Python resolution answers for both:
    a seat holding 200 tickets with a big pile."""
    from cardgame import resolution

    catalogue = synthetic(MAX_DESTINATIONS, MAX_BIG_CITIES, seed=5)
    big = frozenset(catalogue.big_city_names)
    pile = [6] * 8 + [30]
    with engine_in_use("python"):
        python = resolution.resolve(pile, catalogue.destinations, big)
    with engine_in_use("native"):
        native = resolution.resolve(pile, catalogue.destinations, big)
    assert python == native and len(python) > 10


def test_too_few_tickets_for_the_player_count_is_refused_in_one_line():
    catalogue = synthetic(12, 2)
    Game(2, 0, catalogue=catalogue)  # 2 x 6 dealt of 12: fine
    with pytest.raises(RulesError) as info:
        Game(3, 0, catalogue=catalogue)
    message = str(info.value)
    assert message == (
        "destinations: 3 players are dealt 18 tickets (destinations_dealt 6 each), "
        "the edition has 12"
    )


def test_a_deck_too_small_for_the_player_count_is_refused_in_one_line(tmp_path, capsys):
    folder = tmp_path / "small"
    write_edition(folder, default_catalogue(), "printed")
    deck = "kind,count\n" + "".join(
        f"{k},{n}\n" for k, n in zip(
            ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive"),
            (2, 2, 2, 2, 2, 2, 2, 2, 8),
            strict=True,
        )
    )  # fmt: skip
    (folder / "deck.csv").write_text(deck)
    assert main(["play", "--cards", str(folder), "--players", "2", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["play", "--cards", str(folder), "--players", "4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deck: 4 players would need" in err
    assert "leaving none to draw" in err


def test_edition_new_check_and_diff(tmp_path, capsys):
    folder = tmp_path / "denver"
    assert main(["edition", "new", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.md",
        "big_cities.csv",
        "deck.csv",
        "destinations.csv",
    ]
    assert load_catalogue(folder) == default_catalogue()
    with (folder / "destinations.csv").open("a") as out:
        out.write("\n".join(DENVER) + "\n")
    with (folder / "big_cities.csv").open("a") as out:
        out.write("Denver,10,orange\n")
    capsys.readouterr()
    assert main(["edition", "check", str(folder)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("edition denver: sha256:")
    assert "50 tickets (ids 1-50), 7 big cities, 96 train cards" in text
    assert "  Denver 10, orange: 5 tickets, 56 points" in text
    assert "  4 players: ok" in text
    assert main(["edition", "diff", "printed", str(folder)]) == 0
    text = capsys.readouterr().out
    assert "5 differences" in text
    assert "+ ticket #47 Denver - Chicago (9 pts: yellow + red)" in text
    assert "+ big city Denver 10 (orange)" in text
    # a second folder from the first, then a changed bonus
    copy = tmp_path / "copy"
    assert main(["edition", "new", str(copy), "--from", str(folder)]) == 0
    (copy / "big_cities.csv").write_text(
        (copy / "big_cities.csv").read_text().replace("Denver,10", "Denver,12")
    )
    assert differences(load_catalogue(folder), load_catalogue(copy)) == [
        "~ big city Denver 10 (orange) -> 12 (orange)"
    ]
    capsys.readouterr()
    assert main(["edition", "new", str(folder)]) == 2  # never over a folder with files
    assert "exists and is not an empty folder" in capsys.readouterr().err


def test_edition_check_names_every_problem_and_exits_2(tmp_path, capsys):
    folder = tmp_path / "broken"
    write_edition(folder, default_catalogue(), "printed")
    (folder / "destinations.csv").write_text(
        (folder / "destinations.csv").read_text()
        + "47,Denver,Boston,9,yellow-pink\n48,Denver,Chicago,0,red\n2,Chicago,Dallas,5,red\n"
    )
    assert main(["edition", "check", str(folder)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "cardgame edition: error: destinations.csv, line 48: names no big city",
        "cardgame edition: error: destinations.csv, line 48, column colors: unknown colour "
        "'pink' in colors (known: purple, white, blue, yellow, orange, black, red, green)",
        "cardgame edition: error: destinations.csv, line 49, column points: points must be "
        "> 0, got 0",
        "cardgame edition: error: destinations.csv, line 50, column id: duplicate id 2 (line 3)",
    ]


def test_the_printed_facts_bind_the_shipped_copy_only(tmp_path):
    """A folder of 47 tickets and seven big cities loads; the shipped copy's facts (46
    tickets, the six cities, the bands) are checked on the package data alone."""
    folder = tmp_path / "seven"
    shutil.copytree(resources.files("cardgame") / "data", folder)
    with (folder / "destinations.csv").open("a") as out:
        out.write(DENVER[0] + "\n")
    with (folder / "big_cities.csv").open("a") as out:
        out.write("Denver,10,orange\n")
    catalogue = load_catalogue(folder)
    assert len(catalogue.destinations) == 47 and len(catalogue.big_cities) == 7
    assert catalogue.name == "seven"


def test_bounds_are_the_contracts(tmp_path):
    too_many = synthetic(MAX_DESTINATIONS, MAX_BIG_CITIES)
    folder = tmp_path / "big"
    write_edition(folder, too_many, "synthetic")
    with (folder / "destinations.csv").open("a") as out:
        out.write(f"{MAX_DESTINATIONS + 1},Big 1,Big 2,5,red\n")
    with (folder / "big_cities.csv").open("a") as out:
        out.write("Big 17,5,red\n")
    with pytest.raises(EditionError) as info:
        load_catalogue(folder)
    assert info.value.problems == [
        f"big_cities.csv: 17 big cities, the engines hold at most {MAX_BIG_CITIES}",
        f"destinations.csv, line {MAX_DESTINATIONS + 2}, column id: id {MAX_DESTINATIONS + 1} "
        f"is outside 1..{MAX_DESTINATIONS} (the engines' bound)",
    ]


def test_a_record_carries_its_edition_and_replays_and_narrates_without_the_folder(tmp_path):
    catalogue = synthetic(60, 8, seed=1, name="sixty")
    state = play_random(Game(3, 2, catalogue=catalogue), record=True)
    record = json.loads(json.dumps(to_record(state, ["random"] * 3)))
    assert record["edition"] == {"name": "sixty", "digest": catalogue.digest}
    assert record["cards"] == json.loads(json.dumps(catalogue_rows(catalogue)))
    again = record_catalogue(record)
    assert again == catalogue and again.name == "sixty"
    assert replay(record).ok
    lines = list(narrate(record))
    assert any("Big " in line for line in lines)
    record["edition"]["digest"] = "sha256:" + "0" * 64  # a stated digest not its cards'
    assert not replay(record).ok
    printed = to_record(play_random(Game(2, 1), record=True), ["random"] * 2)
    assert "edition" not in printed and "cards" not in printed  # printed: as before


def test_a_record_of_edited_cards_made_before_editions_were_named_still_replays():
    from cardgame.record import digest_of

    state = play_random(Game(2, 4, catalogue=synthetic(50, 7, seed=1)), record=True)
    record = to_record(state, ["random"] * 2)
    del record["edition"], record["digest"]
    record["digest"] = digest_of(record)
    assert replay(record).ok


def test_the_digest_is_the_contents_not_the_names():
    a = synthetic(20, 3, seed=4, name="a")
    b = a.renamed("b")
    assert a == b and a.digest == b.digest and a.name != b.name
    assert synthetic(20, 3, seed=5).digest != a.digest
    assert (
        default_catalogue().digest
        == load_catalogue(Path(str(resources.files("cardgame") / "data"))).digest
    )


def test_edition_check_of_the_printed_cards(capsys):
    assert main(["edition", "check", "printed"]) == 0
    assert capsys.readouterr().out.startswith(f"edition printed: {default_catalogue().digest}")


def test_shape_lists_tickets_by_circles_colours_and_big_cities():
    lines = shape(default_catalogue())
    assert lines[1] == "46 tickets (ids 1-46), 6 big cities, 96 train cards"
    assert "  1 circle :   2 tickets, points 5-5, mean 5.0" in lines
    assert "  blue      18 circles (13.6%)   10 cards (12.5%)" in lines
    assert "  New York 15, blue: 11 tickets, 136 points" in lines
