"""The rows of a game finished on the native core without a record come straight from the C
state (sims/_native/_rows.pyx): they must be exactly the rows the old path built from the
rebuilt ``GameState`` and the rows of the Python engine, value for value and type for type
(int, bool, float, None, str), in the same order, so the Parquet files stay the same bytes.
"""

from __future__ import annotations

import math
import random
from itertools import combinations_with_replacement
from typing import Any

import pytest

from cardgame import Catalogue, Game, Rules, default_catalogue
from cardgame.edits import CardEdits
from sims.clock import ThinkTimes
from sims.match import GameOutcome, GameSpec, _finished, native_loop, play_game
from sims.rows import NATIVE_TABLES, TableRows
from sims.seeding import stream_seed
from sims.strategy import spec
from tests.sims.test_native_strategies import NAMES, VARIANTS, needs_native

pytestmark = needs_native


def typed(rows: list[dict[str, Any]] | dict[str, Any] | None) -> Any:
    """Rows as (key, type, value) triples, a nan as the word (nan != nan): equal exactly
    when the rows are, types and key order included."""
    if rows is None:
        return None
    if isinstance(rows, dict):
        return [
            (k, type(v).__name__, "nan" if isinstance(v, float) and math.isnan(v) else v)
            for k, v in rows.items()
        ]
    return [typed(row) for row in rows]


def outcome_rows(outcome: GameOutcome) -> tuple[Any, ...]:
    return (
        typed(outcome.game),
        typed(outcome.seats),
        typed(outcome.destinations),
        typed(outcome.quality),
    )


def old_path(spec_: GameSpec, times: ThinkTimes | None, quality: bool) -> GameOutcome:
    """The rows as the native path built them before: the final state rebuilt as a
    ``GameState`` (``to_state``), then the Python path's row functions."""
    native = native_loop()
    assert native is not None
    twins = [native.twin(spec_, seat) for seat in range(spec_.players)]
    start = native.NativeState.new(spec_.game())
    clock = (times, stream_seed(spec_.seed, "clock")) if times is not None else None
    positions: list[Any] | None = [] if quality else None
    played, offers, minutes, failed = native.play_native(start, twins, clock, positions)
    assert failed is None, failed
    return _finished(spec_, played.to_state(), minutes, offers, False, positions)


ROWS_FROM_C: list[int] = []  # one entry per call of _rows.add_finished


@pytest.fixture(autouse=True)
def counted(monkeypatch):
    """Count the native path's calls of ``add_finished``: a test's rows must come from it."""
    native = native_loop()
    assert native is not None
    real = native.add_finished

    def add_finished(*args: Any) -> Any:
        ROWS_FROM_C.append(1)
        return real(*args)

    monkeypatch.setattr(native, "add_finished", add_finished)


def assert_rows_exact(spec_: GameSpec, times: ThinkTimes | None, quality: bool) -> GameOutcome:
    """The native path's rows equal the old path's and the Python engine's exactly."""
    calls = len(ROWS_FROM_C)
    new = play_game(spec_, times, decision_seconds=0, quality=quality)
    assert len(ROWS_FROM_C) == calls + 1, "the rows did not come from the C state"
    old = old_path(spec_, times, quality)
    python = play_game(spec_, times, decision_seconds=0, engine="python", quality=quality)
    assert outcome_rows(new) == outcome_rows(old)
    assert outcome_rows(new) == outcome_rows(python)
    assert new.record is None
    assert not new.game["failed"], new.game["failure_error"]
    return new


def lineups(players: int) -> list[tuple[str, ...]]:
    """Every built-in line-up at ``players`` seats (each multiset of strategies once)."""
    return list(combinations_with_replacement(NAMES, players))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_lineup_gives_the_same_rows(players):
    rng = random.Random(players)
    for index, lineup in enumerate(lineups(players)):
        order = list(lineup)
        rng.shuffle(order)
        seats = tuple(spec(name) for name in order)
        game = GameSpec("s", "c", "base", Rules(), players, seats, index, 900 + index)
        times = ThinkTimes() if index % 3 == 0 else None
        assert_rows_exact(game, times, quality=index % 5 == 0)


def test_many_seeds_give_the_same_rows():
    seats = (spec("planner"), spec("random"))
    for index in range(60):
        game = GameSpec("s", "c", "base", Rules(), 2, seats, index, 10**9 + 7 * index)
        assert_rows_exact(game, ThinkTimes(sigma=0.1) if index % 2 else None, quality=False)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_rule_variants_give_the_same_rows(variant):
    rng = random.Random(variant)
    for index in range(9):
        players = 2 + index % 3
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", "c", variant, VARIANTS[variant], players, seats, index, 40 + index)
        assert_rows_exact(game, ThinkTimes() if index % 2 else None, quality=index % 3 == 0)


EDITS = {
    "points": {"destinations": {str(i): 1 + (7 * i) % 30 for i in range(1, 47)}},
    "bonuses": {"big_cities": {"Chicago": 30, "New York": 1}, "destinations": {"24": 2}},
    "deck": {"deck": {"red": 14, "blue": 6, "locomotive": 20}},
}


def edited(edit: str) -> Catalogue:
    """The printed cards with ``EDITS[edit]``, or for "fewer_cities" without the first
    three big cities (the others move up: a stale list of names would misname them)."""
    printed = default_catalogue()
    if edit == "fewer_cities":
        return Catalogue(printed.destinations, printed.big_cities[3:], printed.deck)
    return CardEdits.from_dict(EDITS[edit], printed, "variants.what-if").apply(printed)


@pytest.mark.parametrize("edit", [*EDITS, "fewer_cities"])
def test_an_edited_catalogue_gives_the_same_rows(edit):
    catalogue = edited(edit)
    assert catalogue is not default_catalogue()
    rng = random.Random(edit)
    for index in range(9):
        players = 2 + index % 3
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec(
            "s", "c", edit, Rules(), players, seats, index, 70 + index, catalogue=catalogue
        )
        outcome = assert_rows_exact(game, ThinkTimes() if index % 2 else None, index % 4 == 0)
        names = {name for row in outcome.seats for name in row["big_cities"].split("|") if name}
        assert names <= set(catalogue.big_city_names)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_quality_rows_are_the_same(players):
    rng = random.Random(players * 11)
    for index in range(6):
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", "c", "base", Rules(), players, seats, index, 300 + index)
        outcome = assert_rows_exact(game, ThinkTimes() if index % 2 else None, quality=True)
        assert outcome.quality is not None


@pytest.mark.parametrize(
    ("name", "variant", "seed"),
    [
        ("thief", "printed", 266),
        ("rusher", "printed", 212),
        ("thief", "big_offers", 28),
        ("big_city", "big_offers", 757),
        ("random", "big_offers", 180),
    ],
)
def test_a_shared_win_splits_the_share_as_the_python_path_does(name, variant, seed):
    """A tie (R22): each winner gets the same float share, each row its rank."""
    seats = (spec(name), spec(name))
    game = GameSpec("s", "c", variant, VARIANTS[variant], 2, seats, seed, seed)
    outcome = assert_rows_exact(game, None, quality=True)
    assert outcome.game["n_winners"] == 2
    assert [row["win_share"] for row in outcome.seats] == [0.5, 0.5]


def test_add_finished_refuses_a_game_not_over():
    from cardgame._native._core import NativeState
    from sims._native._rows import add_finished

    state = NativeState.new(Game(2, 1, Rules()))
    blocks = [TableRows(name).columns() for name in NATIVE_TABLES]
    with pytest.raises(ValueError, match="not over"):
        add_finished(*blocks, state, ("s", "c", "v", 2, 0, 1), ["a", "b"], b"", math.nan)
    assert [block.rows for block in blocks] == [0, 0, 0]


def test_add_finished_refuses_offers_that_are_not_whole_or_not_this_games():
    """The offers come packed from ``play_native``: bytes that are not whole offers, or an
    offer to a seat the game has not (C would write beyond its arrays), are refused, and
    the blocks stay as they were."""
    import numpy as np
    from cardgame._native._core import NativeState
    from sims._native._match import play_native
    from sims._native._rows import add_finished

    native = native_loop()
    game = GameSpec("s", "c", "base", Rules(), 2, (spec("planner"), spec("thief")), 0, 5)
    twins = [native.twin(game, seat) for seat in range(2)]
    played, offers, _, _ = play_native(NativeState.new(game.game()), twins, offer_rows=False)
    assert isinstance(offers, bytes) and len(offers) > 0
    blocks = [TableRows(name).columns() for name in NATIVE_TABLES]
    with pytest.raises(ValueError, match="not whole offers"):
        add_finished(*blocks, played, ("s", "c", "v", 2, 0, 5), ["a", "b"], offers[:-1], 0.0)
    assert [block.rows for block in blocks] == [0, 0, 0]
    for field, value in ((0, 2), (0, -1), (1, 0), (1, 10**6)):  # seat, destination id
        bad = np.frombuffer(offers, dtype=np.intc).copy().reshape(-1, 5)
        bad[-1, field] = value
        with pytest.raises(ValueError, match="not this game's"):
            add_finished(*blocks, played, ("s", "c", "v", 2, 0, 5), ["a", "b"], bad.tobytes(), 0.0)
        assert [block.rows for block in blocks] == [0, 0, 0]
        assert blocks[0].dictionary(0) == []
    add_finished(*blocks, played, ("s", "c", "v", 2, 0, 5), ["a", "b"], offers, 0.0)
    assert blocks[2].rows == len(offers) // (5 * np.dtype(np.intc).itemsize)


def test_the_columns_c_writes_are_the_schema_columns():
    from sims._native import _rows
    from sims.schema import schema

    assert list(_rows.COLUMNS) == list(NATIVE_TABLES)
    for table in NATIVE_TABLES:
        assert _rows.COLUMNS[table] == tuple(schema(table).names), table


def assert_same_table(ours: Any, theirs: Any) -> None:
    """Equal Arrow tables, a nan equal to a nan (``Table.equals`` says not): the schema
    with its metadata, each text column's dictionary in order and codes, every value."""
    assert ours.schema.equals(theirs.schema, check_metadata=True)
    for name in ours.column_names:
        mine, other = ours.column(name).combine_chunks(), theirs.column(name).combine_chunks()
        if hasattr(mine, "dictionary"):
            assert mine.dictionary.equals(other.dictionary), name
            assert mine.indices.equals(other.indices), name
        else:
            assert [typed({"v": v}) for v in mine.to_pylist()] == [
                typed({"v": v}) for v in other.to_pylist()
            ], name


def batch_of_both_paths(players: int, games: int) -> tuple[dict[str, TableRows], list[Any]]:
    """A batch's rows where games on the native core (rows in columns) alternate with games
    on the Python engine (dict rows) in runs of one to three, seats and labels drawn so the
    text dictionaries grow in every piece; and every game's rows from the Python engine."""
    rng = random.Random(players)
    tables = {name: TableRows(name) for name in NATIVE_TABLES}
    python_rows: dict[str, list[dict[str, Any]]] = {name: [] for name in NATIVE_TABLES}
    native = True
    left = 0
    for index in range(games):
        if left == 0:
            native, left = not native, rng.randint(1, 3)
        left -= 1
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", f"c{index % 2}", "base", Rules(), players, seats, index, 7 * index)
        times = ThinkTimes() if index % 3 else None
        python = play_game(game, times, decision_seconds=0, engine="python")
        python_rows["games"].append(python.game)
        python_rows["seats"].extend(python.seats)
        python_rows["destinations"].extend(python.destinations)
        if native:
            assert play_game(game, times, decision_seconds=0, tables=tables).game is None
        else:
            tables["games"].append(python.game)
            tables["seats"].extend(python.seats)
            tables["destinations"].extend(python.destinations)
    return tables, python_rows


@pytest.mark.parametrize("players", [2, 3, 4])
def test_native_columns_and_dict_rows_in_one_batch_give_the_python_engines_bytes(players):
    """Pieces of either kind in one batch: the table, and its Parquet file, are those of
    every game's dict rows (each text column's dictionary in order of first appearance)."""
    from sims.parts import arrow_rows, encode_parts

    tables, python_rows = batch_of_both_paths(players, 14)
    assert all(len(tables[name].pieces) > 2 for name in NATIVE_TABLES)
    ours = {name: tables[name].arrow("b") for name in NATIVE_TABLES}
    theirs = {name: arrow_rows(name, "b", python_rows[name]) for name in NATIVE_TABLES}
    for name in NATIVE_TABLES:
        assert_same_table(ours[name], theirs[name])
    assert encode_parts("b", ours) == encode_parts("b", theirs)
    assert typed(tables["seats"].rows()) == typed(python_rows["seats"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_batchs_destination_rows_come_in_the_tables_key_order_on_both_engines(players):
    """Each game's destination rows in key order (seat, turn offered, ticket) on either
    engine: a compaction finds a batch's rows sorted and copies nothing."""
    from sims.parts import arrow_rows
    from sims.schema import SORT_KEYS, key_order

    tables, python_rows = batch_of_both_paths(players, 14)
    native = tables["destinations"].arrow("b")
    python = arrow_rows("destinations", "b", python_rows["destinations"])
    for rows in (native, python):
        keys = [rows[k].to_numpy() for k in SORT_KEYS if k != "cell"]
        assert rows.num_rows > 14 * players * 3 and key_order(keys) is None


def test_a_blocks_column_slots_are_its_row_slots_transposed():
    import numpy as np

    tables, _ = batch_of_both_paths(3, 6)
    for name in NATIVE_TABLES:
        for block in tables[name].pieces:
            if isinstance(block, list):
                continue
            width = len(block.names)
            rows = np.frombuffer(block.slots(), dtype=np.int64).reshape(block.rows, width)
            columns = np.frombuffer(block.column_slots(), dtype=np.int64)
            assert block.rows > 0 and np.array_equal(columns.reshape(width, block.rows), rows.T)
    empty = TableRows("seats").columns()
    assert empty.column_slots() == b""


def test_a_batch_result_with_native_columns_survives_pickling():
    """A batch replayed game by game in other processes sends its rows back pickled."""
    import pickle

    tables, _ = batch_of_both_paths(3, 8)
    copied = pickle.loads(pickle.dumps(tables))
    for name in NATIVE_TABLES:
        assert_same_table(copied[name].arrow("b"), tables[name].arrow("b"))


def test_a_block_refuses_no_columns_and_a_pickle_whose_sizes_do_not_agree():
    """C copies a pickle's bytes into the block it sizes from the row count: bytes of
    another size, or dictionaries of another width, are refused before any copy."""
    from sims._native._rows import Columns, _restored

    with pytest.raises(ValueError, match="at least one column"):
        Columns(())
    block = TableRows("seats").columns()
    names, rows, slots, dictionaries = block.__reduce__()[1]
    assert rows == 0 and slots == b""
    with pytest.raises(ValueError, match="are not 2 rows"):
        _restored(names, 2, b"\0" * 8, dictionaries)
    with pytest.raises(ValueError, match="are not -1 rows"):
        _restored(names, -1, b"", dictionaries)
    with pytest.raises(ValueError, match="dictionaries for"):
        _restored(names, 0, b"", dictionaries[1:])
    tables, _ = batch_of_both_paths(2, 2)
    for name in NATIVE_TABLES:
        for piece in tables[name].pieces:
            if not isinstance(piece, list):
                names, rows, slots, dictionaries = piece.__reduce__()[1]
                assert _restored(names, rows, slots, dictionaries).slots() == slots
                with pytest.raises(ValueError, match="are not"):
                    _restored(names, rows + 1, slots, dictionaries)


def test_a_game_that_fails_at_its_end_leaves_no_rows_behind(monkeypatch):
    """A finished game whose quality row fails: the batch holds the crashed game's failure
    row alone, and the table is still the one Arrow builds from the dict rows."""
    import sims.batch as batch_module
    import sims.match as match_module
    from sims.batch import run_batch
    from sims.parts import arrow_rows
    from sims.runner import plan_batches
    from sims.study import from_dict

    study = from_dict(
        {
            "name": "q",
            "seed": 3,
            "players": [2],
            "lineups": [["planner", "rusher"]],
            "games_per_cell": 4,
            "batch_size": 4,
            "metrics": {"quality": True},
        },
        "test",
    )
    real = match_module._quality_row

    def broken(spec_: GameSpec, *args: Any) -> Any:
        if spec_.index == 2:
            raise RuntimeError("quality broke")
        return real(spec_, *args)

    monkeypatch.setattr(match_module, "_quality_row", broken)
    # play_game's native path, game by game (a whole batch's quality: test_quality_native.py)
    monkeypatch.setattr(batch_module, "_play_natively", lambda batch, result: False)
    result = run_batch(next(iter(plan_batches(study.plan))))
    games = result.tables["games"].rows()
    assert [g["failed"] for g in games] == [False, False, True, False]
    assert "quality broke" in games[2]["failure_error"]
    seats = result.tables["seats"].rows()
    assert [row["game_index"] for row in seats] == [0, 0, 1, 1, 3, 3]
    for name in NATIVE_TABLES:
        rows = result.tables[name].rows()
        assert_same_table(result.tables[name].arrow("b"), arrow_rows(name, "b", rows))


def test_rows_that_fail_halfway_leave_the_blocks_as_they_were():
    """``add_finished`` writes all of a game's rows or none: a failure after the first
    slots and texts went in (a label that is no text) takes them out again."""
    from cardgame._native._core import NativeState
    from sims._native._match import play_native
    from sims._native._rows import add_finished

    native = native_loop()
    assert native is not None
    seats = (spec("planner"), spec("random"))
    game = GameSpec("s", "c", "base", Rules(), 2, seats, 0, 5)
    tables = {name: TableRows(name) for name in NATIVE_TABLES}
    play_game(game, decision_seconds=0, tables=tables)  # one whole game in the blocks
    blocks = [tables[name].columns() for name in NATIVE_TABLES]
    before = [(block.rows, block.slots(), block.mark()) for block in blocks]
    twins = [native.twin(game, seat) for seat in range(2)]
    played, offers, minutes, _ = play_native(
        NativeState.new(game.game()), twins, None, None, offer_rows=False
    )
    base = ("another study", "c", "base", 2, 1, 6)  # a new text enters the dictionaries first
    with pytest.raises(TypeError):
        add_finished(*blocks, played, base, ["planner", 7], offers, minutes)
    assert [(block.rows, block.slots(), block.mark()) for block in blocks] == before
    add_finished(*blocks, played, base, ["planner", "random"], offers, minutes)
    assert blocks[0].dictionary(0) == ["s", "another study"]


class FakeBlock:
    """A native block of seats rows whose score is ``score`` (C writes 64-bit slots)."""

    def __init__(self, score: int) -> None:
        from sims._native._rows import COLUMNS

        self.names, self.rows = COLUMNS["seats"], 1
        self.values = [0] * len(self.names)
        self.values[self.names.index("score")] = score

    def slots(self) -> bytes:
        import numpy as np

        return np.asarray(self.values, dtype=np.int64).tobytes()

    column_slots = slots  # one row: the same bytes row after row or column after column

    def dictionary(self, column: int) -> list[str]:
        return ["x"]


def test_a_native_value_beyond_its_column_type_is_a_results_error():
    from sims.errors import ResultsError
    from sims.rows import columns_table

    assert columns_table("seats", "b", FakeBlock(32767)).column("score")[0].as_py() == 32767
    with pytest.raises(ResultsError, match="batch b: a seats row does not fit"):
        columns_table("seats", "b", FakeBlock(40_000))
