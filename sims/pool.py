"""The local backend: a study's batches on a pool of worker processes.

A worker that dies takes its pool with it; that is a fault of the run, not a game. The
batches that were in flight are then played one game at a time in a worker of their own
(``run_alone``) and written by the parent. A game whose worker dies there is played once more
in a fresh worker; a game that ends its worker twice when alone in it is recorded as failed
(``WORKER_DIED``): that is reproducible, so it is the game's doing (a strategy's
``os._exit`` or a crash), and retrying it further would only loop. Running out of memory is
the machine's fault too, not the game's: a batch that does is played the same way, and only a
game that does so twice alone is recorded as failed (``OUT_OF_MEMORY``).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING, TypeVar

from .batch import (
    Batch,
    BatchColumns,
    BatchResult,
    BatchSummary,
    land,
    land_batch,
    play_columns,
    run_batch,
    sorted_columns,
)
from .errors import ResultsError
from .match import GameOutcome
from .stopping import POLL_SECONDS, Stop, StopFlag

if TYPE_CHECKING:
    from .runner import RunSummary

T = TypeVar("T")
WATCHDOG_SECONDS = 0.5
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def worker_start(parent: int | None) -> None:
    """Initialise a local worker: die with the parent, leave Ctrl-C to the parent.

    A terminal's Ctrl-C reaches the whole process group; the parent decides what to do
    and stops the workers itself. If the parent is killed (SIGKILL cannot be caught), the
    kernel kills the worker (Linux PR_SET_PDEATHSIG); elsewhere a watchdog thread notices
    that the parent is gone within half a second. ``parent`` is None when the worker
    comes from a fork server (which itself ends with the main process).
    """
    if parent is None:
        parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still works
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(1)


def new_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    if context is None and sys.platform.startswith("linux"):
        # fork, as Python's default on Linux was: a script that calls run() needs no
        # `if __name__ == "__main__"` guard, and workers start at once
        context = multiprocessing.get_context("fork")
    forked = (context or multiprocessing.get_context()).get_start_method() == "fork"
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=worker_start,
        initargs=(os.getpid() if forked else None,),
    )


def clean_context() -> BaseContext:
    """Processes not forked from this one: forking while Dask's threads hold locks can
    leave the child waiting for a lock forever."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["sims.pool", "sims.strategies"])
    return context


def close_pool(pool: ProcessPoolExecutor, kill: bool) -> None:
    """Shut a pool down; with ``kill``, without waiting for batches still being played."""
    if kill:
        # the pool's process table is private, but nothing public names its workers
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(timeout=5)
        _release_pipes(pool)
    pool.shutdown(wait=True, cancel_futures=True)


def _release_pipes(pool: ProcessPoolExecutor) -> None:
    """Close this process's copy of the result pipe's writing end, once the workers are dead.

    A worker killed while sending its result (a first batch's parts go back through the pipe)
    leaves half a message there, and the pool's manager thread waits for the rest forever;
    with it ``shutdown`` and the interpreter's exit, so a Ctrl-C did not end the run. With no
    writer left the manager reads end-of-file, finds the pool broken and stops. (The queue is
    private; only ``shutdown``, after the manager has stopped, closes that end otherwise. The
    call queue's reading end, which could block a feeder thread, the manager closes itself.)
    """
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()


WORKER_DIED = "worker died twice playing this game alone (os._exit, a crash or a kill)"
OUT_OF_MEMORY = "out of memory twice playing this game alone"
GAME_TRIES = 2  # a game alone in a worker is played at most this often


def _failed_game(batch: Batch, error: str) -> BatchResult:
    """One game (``batch`` holds only it) recorded as failed by the runner, seat -1."""
    from cardgame import Game

    from .match import StrategyFailure, game_row

    result = BatchResult.empty(batch)
    for spec in batch.specs():
        try:
            state = Game(spec.players, spec.seed, spec.rules).new_state()
        except Exception:  # a game that cannot even be set up is still a row
            state = None
        result.add(
            GameOutcome(game=game_row(spec, state, math.nan, StrategyFailure(-1, "", error)))
        )
    return result


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"escaped the game: {type(exc).__name__}" + (f": {text}" if text else "")


def run_local(
    todo: Iterable[Batch],
    workers: int,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: StopFlag,
) -> None:
    """Processes; at most 2 batches per worker in flight, so memory stays flat.

    A worker that dies takes its pool with it: the batches that were in flight are then
    played game by game (``run_alone``) and the pool is started afresh, so a crashing
    strategy costs its own games, not the study, and the outcome does not depend on the
    number of workers.
    """
    queue = iter(todo)
    while True:
        suspects = _run_pool(queue, workers, finished, summary, stop)
        if suspects is None:
            return
        for batch in suspects:
            if stop or summary.stopped_on_failure:
                return
            result = run_alone(batch, stop)
            if result is None:
                return
            if finished(result):
                summary.stopped_on_failure = True


def _run_pool(
    queue: Iterator[Batch],
    workers: int,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: StopFlag,
) -> list[Batch] | None:
    """Play batches until done or stopped (None), or until a worker dies: then return the
    batches that were in flight, in plan order."""
    pending: dict[Future[BatchSummary], Batch] = {}
    pool = new_pool(workers)
    clean = False
    try:
        while True:
            while len(pending) < 2 * workers:  # never more: memory stays flat
                batch = next(queue, None)
                if batch is None:
                    break
                pending[pool.submit(land_batch, batch)] = batch
            if not pending or stop:
                clean = not pending
                return None
            completed, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in sorted(completed, key=lambda f: pending[f].id):
                batch = pending.pop(future)
                try:
                    result: BatchSummary | None = future.result()
                except BrokenProcessPool:
                    return sorted([batch, *pending.values()], key=lambda b: b.id)
                except ResultsError:  # results that cannot be written stop the run
                    raise
                except BaseException:  # escaped the games' guards (SystemExit and the like)
                    result = run_alone(batch, stop)
                if result is None:
                    return None
                if finished(result):
                    summary.stopped_on_failure = True
                    return None
    finally:
        close_pool(pool, kill=not clean)


def run_alone(
    batch: Batch, stop: StopFlag, context: BaseContext | None = None
) -> BatchSummary | None:
    """Play ``batch`` one game at a time in a worker of its own, and write it here; None
    when stopped.

    For a batch whose worker died or that escaped its games' guards: a game whose worker dies
    or runs out of memory is played again in a fresh worker, and one that does so
    ``GAME_TRIES`` times is a failed game (``WORKER_DIED``, ``OUT_OF_MEMORY``); one that
    raises past its guards in a live worker is a failed game naming the exception. Every other
    game is played as anywhere else, so the batch's parts are the bytes an undisturbed worker
    writes. The batch is suspect: an earlier worker may have died while writing it.
    """
    whole = BatchResult.empty(batch)
    pool: ProcessPoolExecutor | None = None
    busy = False
    try:
        for index in range(batch.start, batch.stop):
            game = replace(batch, start=index, stop=index + 1, folder=None)
            result, died = None, WORKER_DIED
            for _ in range(GAME_TRIES):
                pool = pool or new_pool(1, context)
                future = pool.submit(run_batch, game)
                busy = True
                while not wait([future], timeout=POLL_SECONDS).done:
                    if stop:
                        return None
                busy = False
                try:
                    result = future.result()
                    break
                except (BrokenProcessPool, MemoryError) as exc:  # tried again, in a fresh worker
                    close_pool(pool, kill=True)
                    pool = None
                    died = OUT_OF_MEMORY if isinstance(exc, MemoryError) else WORKER_DIED
                except BaseException as exc:  # raised by the game in a live worker
                    result = _failed_game(game, _describe(exc))
                    break
            whole.extend(result or _failed_game(game, died))
    finally:
        if pool is not None:
            close_pool(pool, kill=busy)
    summary = land(replace(batch, folder=None), whole)
    summary.suspect = True
    return summary


class WarmPool:
    """Worker processes started once and kept for many short runs (a tune's steps and its
    players' adaptations): no pool, folder or compaction per run, so a run of a few hundred
    games costs what its games cost.

    ``play`` plays batches and hands back their columns in the order given, whatever the
    number of workers; a worker that dies takes the pool with it, and the batches in flight are
    then played game by game (``run_alone``) as a study's are, before a fresh pool goes on.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        """The pool, started on first use."""
        if self._pool is None:
            self._pool = new_pool(self.workers)
        return self._pool

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        """``fn(*args)`` on one of the workers (a tune's adaptation search, say)."""
        return self.executor().submit(fn, *args)

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            close_pool(pool, kill)

    def play(
        self, batches: list[Batch], columns: dict[str, tuple[str, ...]], stop: StopFlag | None
    ) -> list[BatchColumns] | None:
        """Each batch's ``columns`` (``batch.play_columns``), in ``batches``' order; None when
        ``stop`` was set (the workers are then stopped without waiting for their games)."""
        results: dict[int, BatchColumns] = {}
        pending: dict[Future[BatchColumns], int] = {}
        queue = iter(range(len(batches)))
        while True:
            while len(pending) < 3 * self.workers:  # enough to keep every worker busy
                index = next(queue, None)
                if index is None:
                    break
                pending[self.submit(play_columns, batches[index], columns)] = index
            if stop:
                self.close(kill=True)
                return None
            if not pending:
                return [results[i] for i in range(len(batches))]
            completed, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            alone: list[int] = []
            for done in completed:
                if done not in pending:  # in flight when the pool broke: played alone
                    continue
                index = pending.pop(done)
                try:
                    results[index] = done.result()
                except BrokenProcessPool:  # every batch in flight is suspect
                    alone += [index, *pending.values()]
                    pending.clear()
                    self.close(kill=True)
                except ResultsError:
                    raise
                except BaseException:  # escaped the games' guards (SystemExit and the like)
                    alone.append(index)
            for index in sorted(set(alone)):
                found = _alone(batches[index], columns, stop)
                if found is None:
                    return None
                results[index] = found


def _alone(
    batch: Batch, columns: dict[str, tuple[str, ...]], stop: StopFlag | None
) -> BatchColumns | None:
    """A batch whose worker died (or that escaped its games' guards), played game by game in
    a worker of its own (``run_alone``), as its columns."""
    import pyarrow as pa

    from .parts import PART_COMPRESSION

    summary = run_alone(batch, stop or Stop())
    if summary is None:
        return None
    tables = {}
    for name in columns:
        data = next(v for k, v in (summary.files or {}).items() if k.startswith(f"{name}/"))
        packed = pa.CompressedInputStream(pa.BufferReader(data), PART_COMPRESSION)
        tables[name] = pa.ipc.open_stream(packed).read_all()
    return BatchColumns(batch.id, summary.games, summary.failures, sorted_columns(tables, columns))
