"""The warm pool a tune plays its steps on: the same columns in the same order on any number
of workers, run after run on the same processes, a dead worker costing a replay of its
batches alone, and a stop ending a run at once."""

from __future__ import annotations

import os

import pytest

import sims.batch
import sims.pool
from sims.batch import plan_batches
from sims.pool import WarmPool
from sims.study import from_dict

STUDY = {
    "name": "warm",
    "seed": 3,
    "players": [2],
    "lineups": [["planner", "thief"], ["random", "thief"]],
    "games_per_cell": 6,
    "batch_size": 3,
}
COLUMNS = {
    "games": ("cell", "game_index", "seed", "failed"),
    "seats": ("cell", "game_index", "seat", "strategy", "score", "win_share"),
}


def batches():
    return list(plan_batches(from_dict(STUDY, "warm.toml").plan))


def played(workers, todo=None, stop=None):
    pool = WarmPool(workers)
    try:
        return pool.play(todo or batches(), COLUMNS, stop)
    finally:
        pool.close()


def same(left, right):
    assert [r.id for r in left] == [r.id for r in right]
    for a, b in zip(left, right, strict=True):
        assert (a.games, a.failures) == (b.games, b.failures)
        for name in COLUMNS:
            assert a.tables[name].equals(b.tables[name]), name


@pytest.fixture(scope="module")
def one_worker():
    return played(1)


def test_the_columns_are_the_same_on_one_worker_and_two_in_the_batches_order(one_worker):
    assert [r.games for r in one_worker] == [3] * len(batches())
    same(one_worker, played(2))


def test_the_workers_stay_for_the_next_run(one_worker):
    pool = WarmPool(2)
    try:
        first = pool.play(batches(), COLUMNS, None)
        workers = set(pool.executor()._processes)  # the processes of the first run
        second = pool.play(batches(), COLUMNS, None)
        assert set(pool.executor()._processes) == workers
    finally:
        pool.close()
    same(first, one_worker)
    same(second, one_worker)


DOOMED: dict[str, object] = {}  # the parent's pid and the batch whose worker dies
REAL_RUN_BATCH = sims.batch.run_batch


def dies(batch):
    """``run_batch``, but a worker playing the doomed batch whole dies; its games played
    alone (a batch of one) are played."""
    if os.getpid() != DOOMED.get("parent") and batch.id == DOOMED.get("batch") and batch.games > 1:
        os._exit(1)
    return REAL_RUN_BATCH(batch)


def test_a_worker_that_dies_costs_its_batches_a_replay_alone_not_the_run(one_worker, monkeypatch):
    todo = batches()
    monkeypatch.setitem(DOOMED, "parent", os.getpid())
    monkeypatch.setitem(DOOMED, "batch", todo[1].id)
    monkeypatch.setattr(sims.batch, "run_batch", dies)
    monkeypatch.setattr(sims.pool, "run_batch", dies)  # what a replay alone submits
    alone, real_alone = [], sims.pool._alone

    def replayed(batch, columns, stop):
        alone.append(batch.id)
        return real_alone(batch, columns, stop)

    monkeypatch.setattr(sims.pool, "_alone", replayed)
    same(played(2, todo), one_worker)
    assert todo[1].id in alone  # with the batches in flight beside it


def test_a_stop_ends_the_run_with_nothing():
    class Stopped:
        signal = 2

        def __bool__(self):
            return True

    assert played(2, stop=Stopped()) is None
