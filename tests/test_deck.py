"""The train deck as card data (R1, R3): ``deck.csv`` in the catalogue,
edits by kind, sweeps over a kind's count, the deal it must allow, on both engines."""

from __future__ import annotations

import json
import pickle
import random
import shutil
from importlib import resources
from pathlib import Path

import pytest

from cardgame import Catalogue, Game, RulesError, default_catalogue, load_catalogue
from cardgame.catalogue import (
    SHIPPED_DECK,
    catalogue_from_rows,
    catalogue_rows,
    check_shipped_deck,
    parse_deck,
)
from cardgame.cli import main
from cardgame.edits import CardEdits
from cardgame.errors import DataError, RecordError
from cardgame.randomplay import play_random
from cardgame.record import replay, to_record
from cardgame.rules import Rules
from cardgame.shuffling import TRAIN_SETUP
from sims.errors import StudyError
from sims.invariants import invariant_problem
from sims.study import from_dict

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

PRINTED = default_catalogue()
KINDS = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive")
BIG = (12, 10, 8, 10, 14, 10, 10, 6, 24)  # 104 cards: more red, fewer green, more locomotives


def edited(deck: dict[str, int], base: Catalogue = PRINTED) -> Catalogue:
    return CardEdits.from_dict({"deck": deck}, base, "variants.v").apply(base)


def deck_text(counts: tuple[int, ...]) -> str:
    return "kind,count\n" + "".join(f"{k},{n}\n" for k, n in zip(KINDS, counts, strict=True))


# ------------------------------------------------------------------ the data
def test_the_shipped_deck_is_the_printed_deck_and_is_checked():
    assert PRINTED.deck == SHIPPED_DECK == (10,) * 8 + (16,)  # R1: 96 train cards
    text = (resources.files("cardgame") / "data" / "deck.csv").read_text()
    assert parse_deck(text) == SHIPPED_DECK
    with pytest.raises(DataError, match="damaged, reinstall"):
        check_shipped_deck((10,) * 8 + (14,), "deck.csv (package data)")
    assert Catalogue(PRINTED.destinations, PRINTED.big_cities).deck == SHIPPED_DECK


def test_a_card_folder_may_hold_its_own_deck_or_none(tmp_path):
    data = resources.files("cardgame") / "data"
    for name in ("destinations.csv", "big_cities.csv"):
        (tmp_path / name).write_text((data / name).read_text())
    assert load_catalogue(tmp_path) == PRINTED  # no deck.csv: the printed deck
    (tmp_path / "deck.csv").write_text(deck_text(BIG))
    folder = load_catalogue(tmp_path)
    assert folder.deck == BIG and folder.destinations == PRINTED.destinations


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind,count\npurple,10\n", "deck.csv: no count for locomotive"),
        (
            "kind,count\npink-red,10\nlocomotive,5\n",
            "deck.csv, line 2, column kind: colour 'pink-red': letters, digits and _ only",
        ),
        ("kind,count\nlocomotive,5\n", "deck.csv: no colour: a deck needs at least one"),
        ("kind,count\nred,10\nred,9\n", "deck.csv, line 3, column kind: red given twice"),
        ("kind,count\nred,-1\n", "deck.csv, line 2, column count: count -1 is outside 0..20"),
        (
            "kind,count\nlocomotive,41\n",
            "deck.csv, line 2, column count: count 41 is outside 0..40",
        ),
        (
            "kind,count\nred,2.5\n",
            "deck.csv, line 2, column count: count '2.5' is not a whole number",
        ),
        ("colour,count\nred,2\n", "deck.csv, line 1: expected columns kind,count"),
    ],
)
def test_a_bad_deck_file_is_one_line(text, message):
    with pytest.raises(DataError) as info:
        parse_deck(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_catalogue_stays_immutable_pickles_and_rows_round_trip():
    catalogue = Catalogue(PRINTED.destinations, PRINTED.big_cities, BIG)
    assert pickle.loads(pickle.dumps(catalogue)) == catalogue
    with pytest.raises(AttributeError):
        catalogue.deck = SHIPPED_DECK  # type: ignore[misc]
    assert catalogue != PRINTED and hash(catalogue) != hash(PRINTED)
    rows = catalogue_rows(catalogue)
    assert rows["deck"] == [[k, n] for k, n in zip(KINDS, BIG, strict=True)]
    assert catalogue_from_rows(json.loads(json.dumps(rows)), "cards") == catalogue
    assert "deck" not in catalogue_rows(PRINTED)  # as before the deck was data: same digests
    assert catalogue_from_rows(catalogue_rows(PRINTED), "cards") == PRINTED
    for bad in [(10,) * 8, (10,) * 8 + (-1,), (21,) + (10,) * 7 + (16,), (10,) * 8 + (1.5,)]:
        with pytest.raises(DataError, match="^deck: "):
            Catalogue(PRINTED.destinations, PRINTED.big_cities, bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ edits
def test_a_deck_edit_changes_only_the_kinds_it_names():
    edit = CardEdits.from_dict({"deck": {"red": 12, "locomotive": 14}}, PRINTED, "v")
    assert edit.deck == ((6, 12), (8, 14)) and bool(edit)
    assert edit.apply(PRINTED).deck == (10, 10, 10, 10, 10, 10, 12, 10, 14)
    assert edit.apply(PRINTED).destinations == PRINTED.destinations
    assert edit.to_dict() == {"deck": {"red": 12, "locomotive": 14}}
    assert CardEdits.from_dict(edit.to_dict(), PRINTED, "v") == edit
    assert edit.describe() == ["red cards 12", "locomotives 14"]
    assert not CardEdits.from_dict({"deck": {"red": 10}}, PRINTED, "v")  # as printed: no edit


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ({"pink": 3}, "variants.v.deck.pink: unknown card kind (known: purple, white"),
        ({"locomotives": 3}, "variants.v.deck.locomotives: unknown card kind"),
        ({"red": -1}, "variants.v.deck.red: must be between 0 and 20, got -1"),
        ({"locomotive": 41}, "variants.v.deck.locomotive: must be between 0 and 40, got 41"),
        ({"red": 2.5}, "variants.v.deck.red: must be a whole number, got 2.5"),
        ({"red": True}, "variants.v.deck.red: must be a whole number, got True"),
        ({"red": "12"}, "variants.v.deck.red: must be a whole number, got '12'"),
    ],
)
def test_a_bad_deck_edit_is_one_line_naming_its_key(deck, message):
    with pytest.raises(RulesError) as info:
        edited(deck)
    assert message in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(RulesError, match="variants.v.deck: must be a table of card kinds"):
        CardEdits.from_dict({"deck": [12]}, PRINTED, "variants.v")


# ------------------------------------------------------------------ the deal it must allow
@pytest.mark.parametrize(
    ("players", "rules", "deck", "message"),
    [
        (4, Rules(), {"locomotive": 3}, "deck.locomotive: the deck has 3 locomotives, 4 players"),
        (2, Rules(seat_extra_locomotives=[0, 2]), {"locomotive": 3}, "start with 4"),
        (
            4,
            Rules(starting_hand=20, starting_locomotives=3),
            {},
            "deck: 4 players would need 97 of",
        ),
        (2, Rules(), {k: 1 for k in KINDS[:8]} | {"locomotive": 2}, "need 21 of the 10"),
    ],
)
def test_a_deck_too_small_to_deal_is_refused_when_the_game_is_made(players, rules, deck, message):
    with pytest.raises(RulesError) as info:
        Game(players, 1, rules, edited(deck))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_smallest_deck_that_deals_leaves_one_card_to_draw():
    # 2 players: 2 x (7 + 1) dealt, 5 face up: 21 cards; a deck of 22 leaves one
    deck = {"purple": 2, "white": 2, "blue": 2, "yellow": 2, "orange": 2, "black": 2}
    catalogue = edited({**deck, "red": 3, "green": 3, "locomotive": 4})
    assert sum(catalogue.deck) == 22
    state = play_random(Game(2, 5, catalogue=catalogue), record=True)
    assert state.record["rounds"][0]["deck_size"] == 1
    assert replay(to_record(state, ["random"] * 2)).ok
    with pytest.raises(RulesError, match="leaving none to draw"):
        Game(2, 5, catalogue=edited({**deck, "red": 3, "green": 2, "locomotive": 4}))


# ------------------------------------------------------------------ both engines deal it
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_shuffles_the_catalogues_deck_less_the_starting_locomotives(players):
    catalogue = edited(dict(zip(KINDS, BIG, strict=True)))
    state = Game(players, 7, catalogue=catalogue).new_state(record=True)
    setup = state.record["shuffles"][0]
    assert setup["kind"] == TRAIN_SETUP
    expected = {k: n for k, n in zip(KINDS, BIG, strict=True)}
    expected["locomotive"] -= players  # R3: one each, handed out before the shuffle
    assert {k: setup["order"].count(k) for k in KINDS} == expected
    assert state.card_total() == sum(BIG)
    assert all(state.view(s).train_cards == BIG for s in range(players))  # public (R1, R9)


@pytest.mark.parametrize("players", [2, 4])
def test_an_edited_deck_is_conserved_played_and_replayed(players):
    catalogue = edited({"red": 20, "green": 0, "locomotive": 30})
    for seed in range(4):
        state = play_random(Game(players, seed, catalogue=catalogue), record=True)
        assert state.card_total() == sum(catalogue.deck)
        assert invariant_problem(state) is None  # each kind exactly as the deck holds it
        record = to_record(state, ["random"] * players)
        assert record["cards"]["deck"][6] == ["red", 20]
        assert replay(record).ok
        assert replay(json.loads(json.dumps(record))).ok
    record["cards"]["deck"][6][1] = 19  # a record whose deck was edited after the game
    with pytest.raises(RecordError, match="shuffles.0.: the recorded train_setup order"):
        replay(record)
    state.discard[6] += 1  # a card created: the invariants name the kind
    assert invariant_problem(state) == (
        f"{sum(catalogue.deck) + 1} train cards on the table, expected {sum(catalogue.deck)}"
    )


def test_a_game_of_the_printed_deck_records_no_deck():
    record = to_record(play_random(Game(3, 2), record=True), ["random"] * 3)
    assert "cards" not in record
    points = CardEdits.from_dict({"big_cities": {"Chicago": 9}}, PRINTED, "v").apply(PRINTED)
    record = to_record(play_random(Game(2, 2, catalogue=points), record=True), ["random"] * 2)
    assert set(record["cards"]) == {"destinations", "big_cities"}


# ------------------------------------------------------------------ studies and sweeps
def study(variants: dict, players: list[int] | None = None, **extra) -> object:
    data = {"name": "d", "players": players or [2, 3], "pool": ["planner", "thief"]}
    return from_dict({**data, "games_per_cell": 4, "variants": variants, **extra}, "d.toml")


def test_a_variant_edits_the_deck_and_a_sweep_sweeps_a_kind():
    s = study({"base": {}, "more": {"deck": {"red": 14, "locomotive": 20}}})
    assert s.catalogue_for("more").deck == (10, 10, 10, 10, 10, 10, 14, 10, 20)
    assert s.catalogue_for("base") is None and s.players_for("more") == (2, 3)
    again = from_dict(s.to_dict(), "manifest")
    assert again.catalogue_for("more") == s.catalogue_for("more")
    swept = from_dict(
        {
            "name": "d",
            "players": [2],
            "pool": ["planner"],
            "games_per_cell": 2,
            "sweeps": {
                "locos": {"parameter": "deck.locomotive", "values": [8, 16, 24]},
                "reds": {"parameter": "deck.red", "start": 10, "stop": 12},
            },
        },
        "d.toml",
    )
    points = dict(swept.sweeps["locos"].points)
    assert points[(16,)] == "base" and swept.sweeps["locos"].printed == (16,)
    assert swept.catalogue_for(points[(8,)]).deck[8] == 8
    assert swept.catalogue_for("reds=12").deck[6] == 12


@pytest.mark.parametrize(
    ("variants", "sweeps", "players", "message"),
    [
        ({"v": {"deck": {"pink": 3}}}, None, [2], "d.toml: variants.v.deck.pink: unknown card"),
        ({"v": {"deck": {"red": -2}}}, None, [2], "variants.v.deck.red: must be between 0 and"),
        (
            {"v": {"deck": {"locomotive": 3}}},
            None,
            [2, 4],
            "d.toml: variants.v: deck.locomotive: the deck has 3 locomotives, 4 players",
        ),
        ({"v": {"deck": {"locomotive": 3}, "players": [2]}}, None, [2, 4], None),  # fits 2
        (None, {"x": {"parameter": "deck.pink", "values": [3]}}, [2], "deck.pink: unknown card"),
        (
            None,
            {"x": {"parameter": "deck.locomotive", "values": [2, 16]}},
            [2, 3],
            "sweeps.x at 2: deck.locomotive: the deck has 2 locomotives, 3 players",
        ),
    ],
)
def test_a_study_that_cannot_deal_is_refused_in_one_line(variants, sweeps, players, message):
    data = {"name": "d", "players": players, "pool": ["planner", "thief"], "games_per_cell": 2}
    if variants is not None:
        data["variants"] = {"base": {}, **variants}
    if sweeps is not None:
        data["sweeps"] = sweeps
    if message is None:
        assert from_dict(data, "d.toml").players_for("v") == (2,)
        return
    with pytest.raises(StudyError) as info:
        from_dict(data, "d.toml")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_command_line_refuses_a_bad_deck_edit_exit_2_nothing_written(tmp_path, capsys):
    out = tmp_path / "out"
    path = tmp_path / "s.toml"
    for edit in ("deck = { locomotive = 2 }", "deck = { pink = 2 }", "deck = { red = -1 }"):
        path.write_text(
            'name = "s"\nplayers = [3]\npool = ["planner", "random"]\ngames_per_cell = 2\n'
            f'output = "{out}"\n[variants.base]\n[variants.v]\n{edit}\n'
        )
        assert main(["simulate", str(path), "--workers", "1", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "variants.v" in err and "deck" in err, err
        assert not out.exists()


def test_a_card_folder_with_a_deck_plays_it(tmp_path):
    data = resources.files("cardgame") / "data"
    for name in ("destinations.csv", "big_cities.csv"):
        shutil.copy(Path(str(data / name)), tmp_path / name)
    (tmp_path / "deck.csv").write_text(deck_text(BIG))
    s = study({"base": {}}, cards=str(tmp_path))
    assert s.catalogue_for("base").deck == BIG
    s = study({"base": {}, "v": {"deck": {"red": 5}}}, cards=str(tmp_path))
    assert s.catalogue_for("v").deck == (12, 10, 8, 10, 14, 10, 5, 6, 24)
    rng = random.Random(3)
    game = Game(3, rng.randrange(1000), catalogue=s.catalogue_for("v"))
    assert play_random(game).card_total() == sum(s.catalogue_for("v").deck)
