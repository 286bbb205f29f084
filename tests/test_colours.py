"""Decks of any colours (issue 36): an edition names its own colours, up to the contract's
MAX_COLOURS, the locomotive after them; both engines play it byte for byte; the printed
game keeps its layout (kinds 0-7 and the locomotive 8)."""

from __future__ import annotations

import json

import pytest

from cardgame import Game, Rules, default_catalogue, load_catalogue
from cardgame.catalogue import EditionError, catalogue_from_rows, catalogue_rows
from cardgame.cli import main
from cardgame.edition import EXTRA_COLOURS, synthetic, write_edition
from cardgame.layout import COLOURS, LOCO, MAX_COLOURS
from cardgame.randomplay import play_random
from cardgame.record import replay, to_record

from .native_engine import CORE_BUILT, engine_in_use

needs_core = pytest.mark.skipif(not CORE_BUILT, reason="the native core is not built")

RULES = Rules(rounds={2: 3, 3: 3, 4: 2})  # a deck of 60 tickets: the benchmark's rounds


def _record(engine: str, game: Game) -> str:
    with engine_in_use(engine):
        state = play_random(game, record=True)
    return json.dumps(to_record(state, ["random"] * game.players), sort_keys=True)


def test_the_printed_game_keeps_its_layout():
    printed = default_catalogue()
    assert printed.colours == COLOURS and printed.loco == LOCO == 8 and printed.kinds == 9
    assert "deck" not in catalogue_rows(printed)  # its digest is the one it always had
    assert MAX_COLOURS >= 12


@needs_core
@pytest.mark.parametrize("colours", [6, 9, 12])
def test_an_edition_of_any_colours_plays_the_same_on_both_engines(colours):
    catalogue = synthetic(60, 8, seed=colours, colours=colours)
    assert len(catalogue.colours) == colours and catalogue.loco == colours
    for players in (2, 3, 4):
        for seed in range(8):
            game = Game(players, seed, RULES, catalogue)
            python = _record("python", game)
            assert python == _record("native", game), (colours, players, seed)
            record = json.loads(python)
            assert replay(record).ok
            assert record["cards"]["deck"][-1] == ["locomotive", 16]


@pytest.mark.parametrize("colours", [6, 9, 12])
def test_an_edition_of_any_colours_replays_from_its_record_alone(colours):
    catalogue = synthetic(60, 8, seed=colours, colours=colours)
    game = Game(3, 11, RULES, catalogue)
    with engine_in_use("python"):
        state = play_random(game, record=True)
    record = json.loads(json.dumps(to_record(state, ["random"] * 3)))
    cards = catalogue_from_rows(record["cards"], "cards", catalogue.name)
    assert cards == catalogue and cards.digest == catalogue.digest
    assert replay(record).ok


def test_a_folder_names_new_colours_in_its_deck(tmp_path):
    """The printed colours it names keep the printed order, new ones follow in the file's
    order; the tickets' circles and home colours may name them."""
    folder = tmp_path / "nine"
    write_edition(folder, default_catalogue(), "printed")
    deck = folder / "deck.csv"
    deck.write_text("kind,count\npink,10\n" + deck.read_text().split("\n", 1)[1])
    with (folder / "destinations.csv").open("a") as out:
        out.write("47,Seattle,Boston,9,pink-pink-red\n")
    with (folder / "big_cities.csv").open("a") as out:
        out.write("Boston,9,pink\n")
    catalogue = load_catalogue(folder)
    assert catalogue.colours == (*COLOURS, "pink") and catalogue.loco == 9
    assert catalogue.destination(47).colours == (6, 8, 8)
    assert catalogue.deck == (10,) * 9 + (16,)
    copy = tmp_path / "copy"
    write_edition(copy, catalogue, "nine")  # what it writes, it reads back the same
    assert load_catalogue(copy) == catalogue


def test_a_deck_may_leave_colours_out(tmp_path):
    folder = tmp_path / "six"
    write_edition(folder, synthetic(40, 4, seed=2, colours=6), "synthetic")
    catalogue = load_catalogue(folder)
    assert catalogue.colours == COLOURS[:6] and catalogue.kinds == 7
    Game(4, 0, catalogue=catalogue).new_state()


def _colours_folder(tmp_path, count):
    folder = tmp_path / f"c{count}"
    write_edition(folder, default_catalogue(), "printed")
    extra = [*EXTRA_COLOURS, "gold", "silver", "cyan", "lime"][: count - len(COLOURS)]
    with (folder / "deck.csv").open("a") as out:
        out.writelines(f"{name},5\n" for name in extra)
    return folder


def test_a_colour_past_the_bound_is_refused_in_one_line(tmp_path, capsys):
    assert len(load_catalogue(_colours_folder(tmp_path, MAX_COLOURS)).colours) == MAX_COLOURS
    folder = _colours_folder(tmp_path, MAX_COLOURS + 1)
    assert main(["edition", "check", str(folder)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"cardgame edition: error: deck.csv, line {MAX_COLOURS + 3}, column kind: "
        f"{MAX_COLOURS + 1} colours (gold is colour {MAX_COLOURS + 1}), the engines hold at "
        f"most {MAX_COLOURS} (MAX_COLOURS)"
    ]
    assert main(["play", "--cards", str(folder), "--quiet"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_every_problem_of_a_deck_of_new_colours_is_named(tmp_path):
    folder = tmp_path / "broken"
    write_edition(folder, default_catalogue(), "printed")
    (folder / "deck.csv").write_text("kind,count\npurple,10\npink,10\nbad-name,3\nlocomotive,16\n")
    with pytest.raises(EditionError) as info:
        load_catalogue(folder)
    problems = info.value.problems
    # the home colours and circles the deck no longer holds, in file order, then the deck's
    assert problems[0] == (
        "big_cities.csv, line 2, column home_color: unknown colour 'black' (known: purple, pink)"
    )
    assert (
        "destinations.csv, line 2, column colors: unknown colour 'yellow' in colors "
        "(known: purple, pink)" in problems
    )
    assert problems[-1] == (
        "deck.csv, line 4, column kind: colour 'bad-name': letters, digits and _ only"
    )


def test_a_deck_of_many_colours_too_small_for_the_player_count_is_refused(tmp_path, capsys):
    folder = tmp_path / "thin"
    write_edition(folder, default_catalogue(), "printed")
    rows = [f"{c},2" for c in COLOURS] + [f"{c},2" for c in EXTRA_COLOURS] + ["locomotive,8"]
    (folder / "deck.csv").write_text("kind,count\n" + "\n".join(rows) + "\n")
    assert main(["play", "--cards", str(folder), "--players", "2", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["play", "--cards", str(folder), "--players", "4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deck: 4 players would need 37 of the 32 train cards" in err
