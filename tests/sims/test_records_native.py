"""Game records on the whole-batch native path (sims/batch.py ``_play_natively`` with
``--records``): each finished game's JSONL line written in C from the core's log
(``record_line``), the very records ``play_game`` makes game by game on either engine, and
their part's bytes."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

import sims.batch as batch_module
from cardgame.record import replay
from sims.batch import Batch, BatchResult, plan_batches, run_batch
from sims.parts import batch_tables, encode_parts
from sims.study import from_dict
from tests.sims.test_batch_native import assert_same
from tests.sims.test_native_strategies import needs_native
from tests.sims.test_quality_native import FAILING_SEATS, LADDER, game_by_game

pytestmark = needs_native

STUDIES = {
    "2-4 players, rotated": {"players": [2, 3, 4], "pool": LADDER[:5], "games_per_cell": 6},
    "2-4 players, drawn, quality too": {
        "players": [2, 3, 4],
        "pool": LADDER[2:],
        "rotation": "random",
        "games_per_cell": 6,
        "metrics": {"quality": True},
    },
    "edited card, paired deals": {
        "players": [3],
        "lineups": [["random", "planner", "thief"]],
        "pairing": "deals",
        "games_per_cell": 30,
        "variants": {"levers": {"seat_extra_cards": [0, 1, 1]}},
        "sweeps": {"mb": {"parameter": "destinations.24.points", "start": 8, "stop": 12}},
    },
    "failing seats": FAILING_SEATS,
}


def batches(document: dict[str, Any], size: int = 16) -> list[Batch]:
    study = from_dict({"name": "recorded", "seed": 17, "batch_size": size, **document}, "test")
    return list(plan_batches(study.plan, records=True))


def records(result: BatchResult) -> list[dict[str, Any]]:
    """The batch's records as dicts (the native path holds their JSONL lines)."""
    return [json.loads(r) if isinstance(r, bytes) else r for r in result.records]


def assert_same_records(whole: BatchResult, other: BatchResult, batch: Batch) -> None:
    assert_same(whole, other, batch)
    assert records(whole) == records(other)
    ours = encode_parts(batch.id, batch_tables(batch.id, whole.tables), whole.records)
    theirs = encode_parts(batch.id, batch_tables(batch.id, other.tables), other.records)
    assert ours == theirs


@pytest.mark.parametrize("name", STUDIES)
def test_the_records_of_a_whole_batch_are_the_game_by_game_ones(name):
    recorded = 0
    for batch in batches(STUDIES[name]):
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same_records(whole, game_by_game(batch), batch)
        assert len(whole.records) == whole.games - len(whole.failures)
        recorded += len(whole.records)
    assert recorded >= 48 or name == "failing seats"


def test_the_records_of_a_whole_batch_are_the_python_engines_and_replay():
    for batch in batches({"players": [2, 3, 4], "pool": LADDER[:4], "games_per_cell": 3}, 3):
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same_records(whole, run_batch(replace(batch, engine="python")), batch)
        assert all(replay(record).ok for record in records(whole))


def test_a_game_that_crashes_leaves_no_record_and_the_rest_keep_theirs(monkeypatch):
    from sims.match import native_loop

    loop = native_loop()
    real = loop.add_finished

    def breaks_game_1(*args: Any) -> Any:
        if args[4][4] == 1:  # the base's game index
            raise RuntimeError("rows broke")
        return real(*args)

    monkeypatch.setattr(loop, "add_finished", breaks_game_1)
    batch = batches({"players": [2], "lineups": [["planner", "thief"]], "games_per_cell": 4})[0]
    whole = run_batch(batch)
    assert [record["seed"] for record in records(whole)] == [
        row["seed"] for row in whole.tables["games"].rows() if not row["failed"]
    ]
    assert len(whole.records) == 3
    by_game = game_by_game(batch)  # records its games on the Python path: none crashes there
    assert records(whole) == [by_game.records[i] for i in (0, 2, 3)]
