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


ROWS_FROM_C: list[int] = []  # one entry per call of _rows.finished_rows


@pytest.fixture(autouse=True)
def counted(monkeypatch):
    """Count the native path's calls of ``finished_rows``: a test's rows must come from it."""
    native = native_loop()
    assert native is not None
    real = native.finished_rows

    def finished_rows(*args: Any) -> Any:
        ROWS_FROM_C.append(1)
        return real(*args)

    monkeypatch.setattr(native, "finished_rows", finished_rows)


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
    [("thief", "printed", 266), ("rusher", "printed", 212), ("thief", "big_offers", 167),
     ("big_city", "big_offers", 223), ("random", "big_offers", 180)],
)  # fmt: skip
def test_a_shared_win_splits_the_share_as_the_python_path_does(name, variant, seed):
    """A tie (R22): each winner gets the same float share, each row its rank."""
    seats = (spec(name), spec(name))
    game = GameSpec("s", "c", variant, VARIANTS[variant], 2, seats, seed, seed)
    outcome = assert_rows_exact(game, None, quality=True)
    assert outcome.game["n_winners"] == 2
    assert [row["win_share"] for row in outcome.seats] == [0.5, 0.5]


def test_finished_rows_refuses_a_game_not_over():
    from cardgame._native._core import NativeState
    from sims._native._rows import finished_rows

    state = NativeState.new(Game(2, 1, Rules()))
    with pytest.raises(ValueError, match="not over"):
        finished_rows(state, {}, ["a", "b"], [], float("nan"))
