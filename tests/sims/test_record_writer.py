"""The native record writer (cardgame/_native/_record.pyx ``record_line``): a finished game's
JSONL line written in C from the core's log (``record="log"``), byte for byte the line that
``to_record`` and ``json.dumps`` make, its digest over the very text ``digest_of`` hashes.

Over many games: 2-4 players, the scripted strategies' native twins, rule variants (wipes of
the face-up row, a one-card first turn, no face-up row, seat levers, several rounds), edited
tickets and bonuses, editions of other colours, and names in any Unicode (escaped as
``json.dumps`` escapes them). On the whole-batch path (sims/batch.py ``_play_natively``) the
records part is compared with the one the same batch writes through ``to_record`` and
``json.dumps`` (the path before), failed and crashed games included."""

from __future__ import annotations

import json
from typing import Any

import pytest

import sims.batch as batch_module
from cardgame import Game, Rules, default_catalogue
from cardgame.catalogue import Catalogue
from cardgame.edition import synthetic, write_edition
from cardgame.edits import CardEdits
from cardgame.record import digest_of, to_record
from sims.batch import Batch, BatchResult, plan_batches
from sims.match import native_loop, seat_identity
from sims.parts import batch_tables, encode_parts
from sims.study import from_dict
from tests.helpers import quick_spec
from tests.sims.test_batch_native import BAD, STUCK
from tests.sims.test_native_strategies import needs_native

pytestmark = needs_native

SCRIPTED = ["planner", "random", "rusher", "thief", "hoarder", "big_city", "ticket_hunter"]
UNICODE = ["plänner", "ランダム", "\U0001f682 train", 'say "hi"\\\n\t\x00\x7f\u2028', "\ud800"]


def _unicode_edition() -> Catalogue:
    """An edition of 9 colours named in Unicode, its cities and its own name too."""
    base = synthetic(40, 6, seed=5, colours=9)
    colours = ("røde", "grün", "синий", "黄", "negro", "blanc", "rosa", "vert", "\u00e9\u0301")
    bigs = tuple(b._replace(city=f"Zürich {i} ☃") for i, b in enumerate(base.big_cities))
    renamed = {b.city: n.city for b, n in zip(base.big_cities, bigs, strict=True)}
    dests = tuple(
        d._replace(city_a=renamed.get(d.city_a, d.city_a), city_b=renamed.get(d.city_b, d.city_b))
        for d in base.destinations
    )
    return Catalogue(dests, bigs, base.deck, "édition \U0001f0cf", colours)


def _edited() -> Catalogue:
    printed = default_catalogue()
    edits = {
        "destinations": {"24": {"points": 9}, "3": {"points": 2}},
        "big_cities": {printed.big_cities[0].city: 20},
        "deck": {"red": 14, "locomotive": 20},
    }
    return CardEdits.from_dict(edits, printed).apply(printed)


RULES = {
    "printed": Rules(),
    "wipe": Rules(three_locomotive_wipe=True, starting_locomotives=0),
    "levers": Rules(
        seat_extra_cards=(0, 1, 2, 1), seat_extra_locomotives=(0, 1, 0, 1), first_turn="one_card"
    ),
    "more_rounds": Rules(rounds={2: 3, 3: 3, 4: 2}),
    "small_table": Rules(face_up=2, starting_hand=2, starting_locomotives=0, round_two_deal=0),
    "no_row": Rules(face_up=0, starting_hand=12, starting_locomotives=4),
    "keep_none": Rules(destinations_min_keep=0, destinations_drawn=6),
}
CARDS = {
    "printed": default_catalogue,
    "edited tickets, bonuses and deck": _edited,
    "7 colours": lambda: synthetic(50, 7, seed=3, name="seven", colours=7),
    "12 colours": lambda: synthetic(60, 8, seed=12, colours=12),
    "unicode": _unicode_edition,
}


def _play(game: Game, lineup: list[str], record: bool | str) -> Any:
    """The game on the native core with the line-up's twins, recorded as ``record`` asks."""
    native = native_loop()
    seats = []
    for k, name in enumerate(lineup):
        spec = quick_spec(name)
        seats.append(native.fresh(native.prototype(spec), game.seed, k, seat_identity(spec)))
    start, timing = native.start(game, None, record)
    played, _, _, failed = native.play_native(start, seats, timing, None, offer_rows=False)
    assert failed is None
    return played


def _assert_written_as_before(game: Game, lineup: list[str], labels: list[str]) -> None:
    from cardgame._native._record import record_line, record_texts

    record = to_record(_play(game, lineup, True), labels)
    logged = _play(game, lineup, "log")
    line, canonical = record_texts(logged, labels)
    expected = json.dumps(record, separators=(",", ":")).encode()
    where = (game.players, game.seed, lineup)
    assert line == expected, where
    content = {k: v for k, v in record.items() if k != "digest"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert canonical == text.encode("ascii"), where
    assert json.loads(line)["digest"] == digest_of(record)
    assert record_line(logged, labels) == line


@pytest.mark.parametrize("rules", RULES)
def test_the_line_is_to_records_bytes_under_every_rule_variant(rules):
    for seed in range(12):
        players = 2 + seed % 3
        lineup = [SCRIPTED[(seed + k) % len(SCRIPTED)] for k in range(players)]
        _assert_written_as_before(Game(players, seed, RULES[rules]), lineup, lineup)


@pytest.mark.parametrize("cards", CARDS)
def test_the_line_is_to_records_bytes_for_every_edition(cards):
    catalogue = CARDS[cards]()
    for seed in range(9):
        players = 2 + seed % 3
        rules = RULES["wipe"] if seed % 2 else RULES["levers"]
        lineup = [SCRIPTED[(2 * seed + k) % len(SCRIPTED)] for k in range(players)]
        _assert_written_as_before(Game(players, 100 + seed, rules, catalogue), lineup, lineup)


def test_strategy_names_in_any_unicode_are_escaped_as_json_escapes_them():
    for seed, players in enumerate((2, 3, 4, 4)):
        labels = [UNICODE[(seed + k) % len(UNICODE)] for k in range(players)]
        lineup = SCRIPTED[:players]
        _assert_written_as_before(Game(players, seed, Rules(), _unicode_edition()), lineup, labels)


@pytest.mark.parametrize("rules", ["printed", "wipe", "levers", "more_rounds", "small_table"])
def test_random_play_is_written_as_to_record_writes_it(rules):
    """Random play reaches actions the scripted strategies seldom take."""
    from cardgame._native._core import play_random
    from cardgame._native._record import record_line

    for seed in range(30):
        cards = CARDS["7 colours" if seed % 5 else "printed"]()
        game = Game(2 + seed % 3, seed, RULES[rules], cards)
        labels = UNICODE[: game.players]
        record = to_record(play_random(game, record=True), labels)
        assert (
            record_line(play_random(game, record="log"), labels)
            == json.dumps(record, separators=(",", ":")).encode()
        ), (rules, seed)


def test_a_copy_of_a_logged_game_writes_the_same_line():
    """``copy`` (a search's) carries the log: the copy's game is the same record."""
    from cardgame._native._core import NativeState
    from cardgame._native._record import record_line

    game = Game(3, 4, RULES["wipe"])
    states = [NativeState.new(game, record="log"), NativeState.new(game, record=True)]
    copies = []
    for step in range(10**4):
        if states[0].is_over:
            break
        for state in states:
            legal = state.legal_actions()
            state.apply(legal[(7 * step) % len(legal)])
        if step == 40:
            copies = [state.copy() for state in states]
    for copy in copies:
        for step in range(41, 10**4):
            if copy.is_over:
                break
            legal = copy.legal_actions()
            copy.apply(legal[(7 * step) % len(legal)])
    labels = ["a", "b", "c"]
    line = json.dumps(to_record(states[1], labels), separators=(",", ":")).encode()
    assert record_line(states[0], labels) == line == record_line(copies[0], labels)
    assert to_record(copies[1], labels) == to_record(states[1], labels)


def test_the_rounds_wipes_steals_and_one_card_turns_are_all_written():
    """The variants above do reach every kind of event the log holds."""
    seen: set[str] = set()
    for rules in ("wipe", "levers", "more_rounds"):
        for seed in range(6):
            game = Game(2 + seed % 3, seed, RULES[rules])
            record = to_record(_play(game, SCRIPTED[: game.players], True))
            for turn in record["turns"]:
                seen.update(k for k in ("wipes", "steal", "destinations", "picks") if k in turn)
                seen.add(turn["action"]["type"])
            seen.add(f"rounds {len(record['rounds'])}")
    assert {"wipes", "steal", "destinations", "picks", "rounds 2", "rounds 3"} <= seen
    assert {"draw_deck", "draw_face_up", "place_column", "place_three", "pass"} & seen


def test_a_game_not_over_or_not_logged_has_no_line():
    from cardgame._native._record import record_line

    from cardgame.errors import RecordError

    native = native_loop()
    game = Game(2, 1, Rules())
    with pytest.raises(RecordError, match="without a record log"):
        record_line(native.start(game, None, True)[0], ["a", "b"])
    with pytest.raises(RecordError, match="not over"):
        record_line(native.start(game, None, "log")[0], ["a", "b"])


# ------------------------------------------------------------------ the whole-batch path
def _studies(folder: str) -> dict[str, dict[str, Any]]:
    return {
        "2-4 players, drawn, levers": {
            "players": [2, 3, 4],
            "pool": SCRIPTED,
            "rotation": "random",
            "games_per_cell": 8,
            "variants": {
                "wipe": {"three_locomotive_wipe": True},
                "levers": {"first_turn": "one_card", "seat_extra_cards": [0, 1, 1, 1]},
            },
        },
        "edited tickets and bonuses, paired": {
            "players": [3],
            "lineups": [["random", "planner", "thief"]],
            "pairing": "deals",
            "games_per_cell": 12,
            "variants": {
                "edits": {
                    "destinations": {"24": {"points": 9}},
                    "big_cities": {default_catalogue().big_cities[1].city: 3},
                }
            },
            "sweeps": {"mb": {"parameter": "destinations.24.points", "start": 8, "stop": 12}},
        },
        "an edition of 9 colours": {
            "cards": folder,
            "players": [2, 4],
            "pool": SCRIPTED[:4],
            "games_per_cell": 6,
        },
        "failing seats": {
            "players": [2, 3],
            "games_per_cell": 8,
            "lineups": [["stuck", "planner"], ["random", "bad", "planner"]],
            "strategies": {
                "stuck": {"base": STUCK.base, "knobs": dict(STUCK.knobs)},
                "bad": {"base": BAD.base, "knobs": dict(BAD.knobs)},
            },
        },
    }


def _batches(document: dict[str, Any]) -> list[Batch]:
    study = from_dict({"name": "written", "seed": 5, "batch_size": 16, **document}, "test")
    return list(plan_batches(study.plan, records=True))


def _the_path_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-batch path as it was: the record's dicts as the core plays, ``to_record``
    and the part's ``json.dumps``."""
    loop = native_loop()
    start = loop.start
    monkeypatch.setattr(loop, "start", lambda game, clock, record: start(game, clock, bool(record)))
    monkeypatch.setattr(loop, "record_line", to_record)


def _records_part(batch: Batch, result: BatchResult) -> bytes:
    files = encode_parts(batch.id, batch_tables(batch.id, result.tables), result.records)
    return files[f"records/part-{batch.id}.jsonl"]


def _both(batch: Batch) -> tuple[BatchResult, BatchResult]:
    whole = BatchResult.empty(batch)
    assert batch_module._play_natively(batch, whole)
    with pytest.MonkeyPatch.context() as patch:
        _the_path_before(patch)
        before = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, before)
    assert all(isinstance(r, bytes) for r in whole.records)
    assert all(isinstance(r, dict) for r in before.records)
    return whole, before


@pytest.mark.parametrize("name", list(_studies("")))
def test_a_batchs_records_part_is_the_bytes_the_path_before_wrote(name, tmp_path):
    folder = tmp_path / "nine"
    write_edition(folder, synthetic(50, 7, seed=9, name="nine", colours=9), "synthetic")
    lines = failed = 0
    for batch in _batches(_studies(str(folder))[name]):
        whole, before = _both(batch)
        assert whole.failures == before.failures
        assert _records_part(batch, whole) == _records_part(batch, before)
        lines += len(whole.records)
        failed += len(whole.failures)
        assert len(whole.records) == whole.games - len(whole.failures)
    assert (lines >= 4 and failed >= 4) if name == "failing seats" else lines >= 24


def test_a_crashed_game_leaves_no_line_and_the_others_are_the_same_bytes(monkeypatch):
    loop = native_loop()
    real = loop.add_finished

    def breaks_game_1(*args: Any) -> Any:
        if args[4][4] == 1:  # the base's game index
            raise RuntimeError("rows broke")
        return real(*args)

    monkeypatch.setattr(loop, "add_finished", breaks_game_1)
    batch = _batches({"players": [2], "lineups": [["planner", "thief"]], "games_per_cell": 4})[0]
    whole, before = _both(batch)
    assert len(whole.records) == 3 and whole.failures == before.failures
    assert _records_part(batch, whole) == _records_part(batch, before)
