"""Quality rows on the whole-batch native path (sims/batch.py ``_play_natively`` with
``[metrics] quality = true``): the core notes every position's standing in C for the whole
batch and ``batch_quality_rows`` scores all its games at once, and the quality table is the
one ``play_game`` writes game by game, on either engine, to the last bit of every float."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import sims.batch as batch_module
from sims.batch import Batch, BatchResult, plan_batches, run_batch
from sims.parts import batch_tables, encode_parts
from sims.standing import FEATURES
from sims.study import from_dict
from tests.sims.test_batch_native import BAD, STUCK, assert_same
from tests.sims.test_native_strategies import needs_native

pytestmark = needs_native

LADDER = ["planner", "random", "rusher", "thief", "hoarder", "big_city", "ticket_hunter"]
# seats that fail (stuck, a bad answer) beside ones that do not: games without rows
FAILING_SEATS = {
    "players": [2, 3],
    "games_per_cell": 8,
    "lineups": [["stuck", "planner"], ["random", "bad", "planner"]],
    "strategies": {
        "stuck": {"base": STUCK.base, "knobs": dict(STUCK.knobs)},
        "bad": {"base": BAD.base, "knobs": dict(BAD.knobs)},
    },
}

STUDIES = {
    "2-4 players, rotated": {"players": [2, 3, 4], "pool": LADDER[:5], "games_per_cell": 12},
    "2-4 players, drawn": {
        "players": [2, 3, 4],
        "pool": LADDER[2:],
        "rotation": "random",
        "games_per_cell": 12,
    },
    "knobs, paired deals": {
        "players": [2, 3],
        "lineups": [["fast", "planner"], ["random", "fast", "thief"]],
        "pairing": "deals",
        "games_per_cell": 40,
        "strategies": {
            "fast": {"base": "planner", "knobs": {"card_share": 0.6, "steal_bonus": 2.0}}
        },
    },
    "failing seats": FAILING_SEATS,
}


def batches(document: dict[str, Any], size: int = 16) -> list[Batch]:
    data = {"name": "scored", "seed": 11, "batch_size": size, **document}
    study = from_dict({**data, "metrics": {"quality": True}}, "test")
    return list(plan_batches(study.plan))


def game_by_game(batch: Batch) -> BatchResult:
    """The batch as ``play_game`` plays it one game at a time (the path before)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch_module, "_play_natively", lambda batch, result: False)
        return run_batch(batch)


def assert_same_quality(whole: BatchResult, by_game: BatchResult, batch: Batch) -> None:
    """The same rows of every table, the quality table's floats bit for bit and its part
    the same bytes."""
    assert_same(whole, by_game, batch)
    ours = batch_tables(batch.id, whole.tables)["quality"]
    theirs = batch_tables(batch.id, by_game.tables)["quality"]
    assert ours.schema == theirs.schema
    assert ours.num_rows == by_game.games - len(by_game.failures)
    for name in ours.column_names:
        a, b = ours[name].to_numpy(zero_copy_only=False), theirs[name].to_numpy(False)
        if a.dtype.kind == "f":  # the bits, not only the values
            assert a.view(np.int64).tolist() == b.view(np.int64).tolist(), name
        else:
            assert a.tolist() == b.tolist(), name
    assert whole.tables["quality"].rows() == by_game.tables["quality"].rows()
    assert encode_parts(batch.id, {"quality": ours}) == encode_parts(batch.id, {"quality": theirs})


@pytest.mark.parametrize("name", STUDIES)
def test_the_quality_table_of_a_whole_batch_is_the_game_by_game_one(name):
    scored = 0
    for batch in batches(STUDIES[name]):
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same_quality(whole, game_by_game(batch), batch)
        scored += whole.tables["quality"].arrow(batch.id).num_rows
    assert scored >= 80 or name == "failing seats"


def test_the_quality_table_of_a_whole_batch_is_the_python_engines():
    for batch in batches({"players": [2, 3, 4], "pool": LADDER[:4], "games_per_cell": 4}, 4):
        whole = BatchResult.empty(batch)
        assert batch_module._play_natively(batch, whole)
        assert_same_quality(whole, run_batch(replace(batch, engine="python")), batch)


def test_a_game_that_crashes_leaves_no_quality_row_and_the_rest_keep_theirs(monkeypatch):
    from sims.match import native_loop

    loop = native_loop()
    real = loop.add_finished

    def breaks_game_2(*args: Any) -> Any:
        if args[4][4] == 2:  # the base's game index
            raise RuntimeError("rows broke")
        return real(*args)

    monkeypatch.setattr(loop, "add_finished", breaks_game_2)
    batch = batches({"players": [3], "lineups": [["planner", "thief", "random"]]}, 6)[0]
    whole = run_batch(batch)
    indices = [row["game_index"] for row in whole.tables["quality"].rows()]
    assert indices == [0, 1, 3, 4, 5]
    assert_same_quality(whole, game_by_game(batch), batch)


def test_the_kernel_sums_in_numpys_order():
    """``_quality.numpy_sum`` is ``ndarray.sum`` to the bit at every length a game gives
    (below numpy's 8-wide blocks, across them and past its 128-value leaves)."""
    from sims._native._quality import numpy_sum

    rng = np.random.default_rng(3)
    for n in [*range(0, 40), 127, 128, 129, 255, 256, 257, 1000, 4099]:
        values = rng.random(n) * rng.choice([1e-9, 1.0, 1e6], n) if n else np.zeros(0)
        assert numpy_sum(values) == values.sum()
        assert np.float64(numpy_sum(values)).tobytes() == values.sum().tobytes()


def test_the_noted_standings_are_the_features_in_order():
    from sims._native._standing import FEATURES_NOTED

    assert len(FEATURES) == FEATURES_NOTED


def test_a_batch_whose_quality_scoring_fails_is_played_again_game_by_game(monkeypatch):
    """The scoring of a whole batch raising (here: as the game-by-game path would for game
    2): the batch is played again game by game, where that game alone fails."""
    import sims.match as match_module

    real = match_module._quality_row

    def broken(spec: Any, *args: Any) -> Any:
        if spec.index == 2:
            raise RuntimeError("quality broke")
        return real(spec, *args)

    def whole_breaks(*args: Any) -> Any:
        raise RuntimeError("quality broke")

    monkeypatch.setattr(match_module, "_quality_row", broken)
    monkeypatch.setattr(batch_module, "batch_quality_table", whole_breaks)
    batch = batches({"players": [2], "lineups": [["planner", "rusher"]]}, 4)[0]
    result = run_batch(batch)
    assert [g["failed"] for g in result.tables["games"].rows()] == [False, False, True, False]
    assert [row["game_index"] for row in result.tables["quality"].rows()] == [0, 1, 3]
    assert "quality broke" in result.failures[0]
