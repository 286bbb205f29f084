"""A batch whose seats all have native twins is played on the native core as a whole
(sims/batch.py ``_play_natively``): the same games, rows, failures and part bytes as
``play_game`` gives game by game, which every other batch takes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sims.batch as batch_module
from sims.batch import Batch, BatchResult, plan_batches, run_batch
from sims.match import native_loop
from sims.parts import batch_tables, encode_parts
from sims.rows import NATIVE_TABLES
from sims.study import from_dict
from tests.sims.test_native_match import BAD, STUCK, knobbed_spec
from tests.sims.test_native_strategies import needs_native

pytestmark = needs_native

LADDER = ["planner", "random", "rusher", "thief", "hoarder", "big_city", "ticket_hunter"]
STUDIES = {
    "pool, rotated seats": {"players": [2, 3, 4], "pool": LADDER[:5], "games_per_cell": 5},
    "pool, seats drawn": {
        "players": [2, 3, 4],
        "pool": LADDER[2:],
        "rotation": "random",
        "games_per_cell": 5,
    },
    # an edited card on common deals, with the seat edge's levers
    "swept card": {
        "players": [3],
        "lineups": [["random", "planner", "thief"]],
        "games_per_cell": 6,
        "variants": {"levers": {"seat_extra_cards": [0, 1, 1]}},
        "sweeps": {
            "mb": {"parameter": "destinations.24.points", "start": 8, "stop": 16, "step": 4}
        },
    },
    "seatings paired": {
        "players": [2],
        "lineups": [["planner", "random"]],
        "pairing": "seatings",
        "games_per_cell": 6,
    },
    # a seat that never lets the game end, one that plays an illegal column
    "failing seats": {
        "players": [2, 3],
        "games_per_cell": 4,
        "lineups": [["stuck", "still"], ["random", "bad", "planner"]],
        "strategies": {
            "stuck": {"base": STUCK.base, "knobs": dict(STUCK.knobs)},
            "still": {"base": STUCK.base, "knobs": dict(STUCK.knobs)},
            "bad": {"base": BAD.base, "knobs": dict(BAD.knobs)},
        },
    },
}


def batches(document: dict[str, Any]) -> list[Batch]:
    study = from_dict({"name": "whole", "seed": 5, "batch_size": 4, **document}, "test")
    return list(plan_batches(study.plan))


def game_by_game(batch: Batch) -> BatchResult:
    """The batch as ``run_batch`` plays one it cannot play whole: ``play_game`` a game at a
    time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch_module, "_play_natively", lambda batch, result: False)
        return run_batch(batch)


def assert_same(whole: BatchResult, by_game: BatchResult, batch: Batch) -> None:
    assert (whole.games, whole.failures) == (by_game.games, by_game.failures)
    ours, theirs = batch_tables(batch.id, whole.tables), batch_tables(batch.id, by_game.tables)
    for name in NATIVE_TABLES:
        assert ours[name].schema == theirs[name].schema
        assert ours[name].to_pandas().equals(theirs[name].to_pandas()), name  # nan == nan
    assert encode_parts(batch.id, ours) == encode_parts(batch.id, theirs)


@pytest.mark.parametrize("clock", [True, False], ids=["clock", "no clock"])
@pytest.mark.parametrize("name", STUDIES)
def test_a_batch_played_whole_is_the_batch_played_game_by_game(name, clock):
    played = 0
    for batch in batches(STUDIES[name]):
        batch = batch if clock else replace(batch, clock=None)
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same(whole, game_by_game(batch), batch)
        played += whole.games
    assert played > 0


def test_failing_seats_fail_their_games_and_the_batch_goes_on():
    planned = batches(STUDIES["failing seats"])
    results = [run_batch(batch) for batch in planned]
    failures = [line for result in results for line in result.failures]
    assert any("no end in sight" in line for line in failures)
    assert any("illegal action" in line for line in failures)
    assert [result.games for result in results] == [batch.games for batch in planned]


def test_a_game_that_crashes_is_a_failed_game_of_its_own(monkeypatch):
    """An error of the simulator itself in one game (here writing its rows): that game's
    failure row, the games around it played and written as game by game."""
    loop = native_loop()
    real = loop.add_finished

    def breaks_game_2(*args: Any) -> Any:
        if args[4][4] == 2:  # the base's game index
            raise RuntimeError("rows broke")
        return real(*args)

    monkeypatch.setattr(loop, "add_finished", breaks_game_2)
    batch = batches({"players": [2], "lineups": [["planner", "thief"]], "games_per_cell": 4})[0]
    whole = run_batch(batch)
    assert [g["failed"] for g in whole.tables["games"].rows()] == [False, False, True, False]
    assert "internal error: RuntimeError: rows broke" in whole.failures[0]
    assert_same(whole, game_by_game(batch), batch)


def test_a_batch_the_native_core_cannot_play_whole_is_played_game_by_game():
    change = {"engine": "python"}
    batch = replace(batches({"players": [2], "lineups": [["planner", "random"]]})[0], **change)
    assert not batch_module._play_natively(batch, BatchResult.empty(batch))
    assert_same(run_batch(batch), game_by_game(batch), batch)


def test_a_line_up_with_a_seat_without_a_twin_is_played_game_by_game():
    quick = {"base": "ismcts", "knobs": {"iterations": 4}}
    document = {
        "players": [2],
        "lineups": [["planner", "quick"]],
        "games_per_cell": 2,
        "strategies": {"quick": quick},
    }
    batch = batches(document)[0]
    assert not batch_module._play_natively(batch, BatchResult.empty(batch))
    assert_same(run_batch(batch), game_by_game(batch), batch)


@settings(max_examples=15, deadline=None)
@given(
    data=st.data(),
    seed=st.integers(0, 2**40),
    players=st.sampled_from([2, 3, 4]),
    rotation=st.sampled_from(["permutations", "random"]),
    pairing=st.sampled_from(["none", "deals", "seatings"]),
    wipe=st.booleans(),
)
def test_any_line_up_of_built_ins_plays_whole_as_game_by_game(
    data, seed, players, rotation, pairing, wipe
):
    seats = [data.draw(knobbed_spec(f"s{i}")) for i in range(players)]
    document = {
        "players": [players],
        "lineups": [[s.label for s in seats]],
        "games_per_cell": 3,
        "strategies": {s.label: {"base": s.base, "knobs": dict(s.knobs)} for s in seats},
        "rotation": rotation,
        "pairing": pairing,
        "seed": seed,
        "variants": {"base": {"three_locomotive_wipe": wipe}},
    }
    for batch in batches(document)[:2]:
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same(whole, game_by_game(batch), batch)
