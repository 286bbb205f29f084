"""The Monte Carlo runner: a study's games in batches, on local processes or Dask, streamed
to Parquet as batches finish, resumable, with a progress bar.

Workers write their batch's Parquet parts themselves and send back a small summary (counts
and failure lines), so the parent only records which batches landed and is no serial cap on
the number of workers. Until the first batch has landed (the manifest is written then, by the
parent), and on a remote Dask scheduler (whose workers may not see this disk), a worker sends
its parts back as finished Parquet bytes for the parent to write instead.

Determinism: a game's seed and seating depend only on (root seed, cell, game index) — or,
in a paired study, on (root seed, player count, deal) — so the tables are identical whatever
the backend or the number of workers.

Faults of the run are not games. A game's own misbehaviour (a strategy that raises, returns a
bad action or runs over time) is a failed game of its seat (sims/match.py). But a worker
process that dies, a pool that breaks, a Dask worker lost (``KilledWorker``) or a batch that
escapes its games' guards costs no game: the batch is played again, one game at a time in a
worker of its own (``_run_alone``), and the parent writes it. A game whose worker dies there is
played once more in a fresh worker; a game that ends its worker twice when alone in it is
recorded as failed ("worker died twice ..."): that is reproducible, so it is the game's doing
(a strategy's ``os._exit`` or a crash), and retrying it further would only loop. A fault that
stops the run (a full disk, a lost Dask scheduler, no Dask workers for
``DASK_NO_WORKERS_SECONDS``) raises ``RunStopped``: the batches in flight are left unwritten,
no temporary file stays behind, and ``--resume`` plays what did not finish, after which the
folder holds the same bytes as an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import logging
import math
import multiprocessing
import os
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    Future,
    ProcessPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from .clock import ThinkTimes
from .deadline import DEFAULT_DECISION_SECONDS
from .errors import ResultsError, RunStopped, StudyError
from .match import GameOutcome, GameSpec, crashed_game, play_game
from .results import (
    batch_tables,
    check_output_folder,
    done_batches,
    encode_parts,
    fingerprint,
    fingerprint_change,
    is_empty_folder,
    land_files,
    read_manifest,
    remove_temp_files,
    write_manifest,
)
from .seeding import deal_key, deal_number, game_seed, stream_seed
from .study import Cell, Study

BACKENDS = ("local", "dask")
MAX_WORKERS = 256  # or 4 per core: more processes than that is a typo


@dataclass(frozen=True)
class Batch:
    """A slice of one cell's games: the unit shipped to a worker and written as a part."""

    id: str
    study: str
    root_seed: int
    rotation: str
    cell: Cell
    seats: dict[str, Any]  # label -> StrategySpec, for this cell's line-up
    start: int
    stop: int
    clock: ThinkTimes
    records: bool
    decision_seconds: float = DEFAULT_DECISION_SECONDS
    pairing: str = "none"  # "deals", "seatings": the seed depends on (root, players, deal)
    folder: str | None = None  # where the worker writes its parts; None: send them back
    engine: str = "auto"  # the study's engine choice (sims/study.py ENGINES)
    isolation: str = "none"  # "process": strategies of one's own in their own processes

    def seed(self, index: int, seatings: int) -> int:
        """Game ``index``'s seed: per cell, or per deal of the player count when paired."""
        if self.pairing != "none":
            deal = deal_number(index, seatings, self.rotation, self.pairing)
            return game_seed(self.root_seed, deal_key(self.cell.players), deal)
        return game_seed(self.root_seed, self.cell.key, index)

    @property
    def games(self) -> int:
        return self.stop - self.start

    def specs(self) -> Iterator[GameSpec]:
        seatings = self.cell.seatings()
        for index in range(self.start, self.stop):
            seed = self.seed(index, len(seatings))
            if self.rotation == "permutations":
                order = seatings[index % len(seatings)]
            else:
                order = random.Random(stream_seed(seed, "seating")).choice(seatings)
            yield GameSpec(
                study=self.study,
                cell=self.cell.key,
                variant=self.cell.variant,
                rules=self.cell.rules,
                players=self.cell.players,
                seats=tuple(self.seats[label] for label in order),
                index=index,
                seed=seed,
                isolation=self.isolation,
                catalogue=self.cell.catalogue,
            )


@dataclass
class BatchResult:
    id: str
    tables: dict[str, list[dict[str, Any]]]
    records: list[dict[str, Any]]
    failures: list[str]
    games: int

    def add(self, outcome: GameOutcome) -> None:
        """Append one game's rows, record and failure line."""
        self.tables["games"].append(outcome.game)
        self.tables["seats"].extend(outcome.seats)
        self.tables["destinations"].extend(outcome.destinations)
        if outcome.record is not None:
            self.records.append(outcome.record)
        if outcome.game["failed"]:
            g = outcome.game
            seat = g["failure_seat"]
            who = f"seat {seat} ({g['failure_strategy']}): " if seat != -1 else ""
            self.failures.append(f"{g['cell']} game {g['game_index']}: {who}{g['failure_error']}")
        self.games += 1

    def extend(self, other: BatchResult) -> None:
        """Append the games of ``other`` (a later slice of the same batch)."""
        for table, rows in other.tables.items():
            self.tables[table].extend(rows)
        self.records.extend(other.records)
        self.failures.extend(other.failures)
        self.games += other.games


def run_batch(batch: Batch) -> BatchResult:
    """Play a batch (in a worker): tidy rows for the three tables."""
    result = BatchResult(batch.id, {"games": [], "seats": [], "destinations": []}, [], [], 0)
    for spec in batch.specs():
        try:
            outcome = play_game(
                spec, batch.clock, batch.records, batch.decision_seconds, batch.engine
            )
        except Exception as exc:  # never let one game take the worker down
            outcome = crashed_game(spec, exc)
        result.add(outcome)
    return result


@dataclass
class BatchSummary:
    """What a worker sends back: no rows. ``files`` holds the batch's encoded parts when the
    worker did not write them (``Batch.folder`` None); ``suspect`` marks a batch whose worker
    may have died mid-write (its temporary files are removed when it lands)."""

    id: str
    games: int
    failures: list[str]
    files: dict[str, bytes] | None = None
    suspect: bool = False


def land_batch(batch: Batch) -> BatchSummary:
    """Play a batch and write its parts (in a worker); a value that does not fit the schemas
    is a ResultsError before anything is written."""
    return _land(batch, run_batch(batch))


def _land(batch: Batch, result: BatchResult) -> BatchSummary:
    records = result.records if batch.records else None
    files = encode_parts(result.id, batch_tables(result.id, result.tables), records)
    if batch.folder is None:  # sent back for the parent to write
        return BatchSummary(result.id, result.games, result.failures, files)
    land_files(Path(batch.folder), files)
    return BatchSummary(result.id, result.games, result.failures)


def plan_batches(study: Study, records: bool = False) -> Iterator[Batch]:
    """The study's batches in a fixed order, made as they are needed: memory stays flat
    however many games a cell has."""
    for number, cell in enumerate(study.cells()):
        seats = {label: study.strategies[label] for label in set(cell.lineup)}
        for start in range(0, cell.games, study.batch_size):
            stop = min(cell.games, start + study.batch_size)
            yield (
                Batch(
                    id=f"c{number:04d}-g{start:07d}",
                    study=study.name,
                    root_seed=study.seed,
                    rotation=study.rotation,
                    cell=cell,
                    seats=seats,
                    start=start,
                    stop=stop,
                    clock=study.clock,
                    records=records,
                    decision_seconds=study.decision_seconds,
                    pairing=study.pairing,
                    engine=study.engine,
                    isolation=study.isolation,
                )
            )


@dataclass
class RunSummary:
    folder: Path
    games_played: int
    games_total: int
    games_skipped: int
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False
    stopped_on_failure: bool = False
    stop_signal: int | None = None  # SIGINT or SIGTERM when interrupted by a signal


def run(
    study: Study,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    fail_fast: bool = False,
    records: bool = False,
    progress: bool = True,
    announce: Callable[[], None] | None = None,
    stop: StopFlag | None = None,
) -> RunSummary:
    """Run ``study``; results go to ``out`` (default: the study's output folder).

    ``announce`` is called once the folder is known to be usable (the CLI prints its header
    there, so a refused folder is one line, not a header and then an error). ``stop`` is a
    flag the caller's own SIGINT/SIGTERM handlers set (the CLI installs them before its heavy
    imports); without it the run routes those signals to a flag of its own while it lasts.
    Raises ``RunStopped`` when a fault outside the games stops it (see the module docstring).
    """
    if backend not in BACKENDS:
        raise StudyError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    folder = Path(out or study.output)
    workers = _workers(workers)
    first_landing = _prepare_folder(folder, study, resume)
    if announce is not None:
        announce()

    done = done_batches(folder) if resume else set()
    if resume:
        remove_temp_files(folder)  # left by workers killed mid-write
    plan = (b for b in plan_batches(study, records) if b.id not in done)
    # workers write into the folder once its manifest exists; a remote scheduler's workers
    # may not share this disk
    shared = backend == "local" or not scheduler
    landed = [read_manifest(folder) is not None]
    target = os.path.abspath(folder)
    todo = (replace(b, folder=target) if shared and landed[0] else b for b in plan)
    total = study.total_games
    skipped = sum(b.games for b in plan_batches(study) if b.id in done) if done else 0
    summary = RunSummary(folder, 0, total, skipped)
    bar = tqdm(
        total=total, initial=skipped, unit="game", desc=study.name, disable=not progress,
        smoothing=0.1, file=sys.stderr, dynamic_ncols=True,
    )  # fmt: skip

    def finished(result: BatchSummary) -> bool:
        first_landing()
        landed[0] = True
        if result.suspect:
            remove_temp_files(folder, result.id)
        if result.files is not None:
            land_files(folder, result.files)
        summary.games_played += result.games
        summary.failures.extend(result.failures)
        bar.update(result.games)
        return bool(fail_fast and result.failures)

    signals = catch_stop_signals() if stop is None else contextlib.nullcontext(stop)
    with signals as flag:
        try:
            if backend == "dask":
                _run_dask(todo, workers, scheduler, finished, summary, flag)
            else:
                _run_local(todo, workers, finished, summary, flag)
        except KeyboardInterrupt:  # a Ctrl-C before the signal handlers took over
            summary.interrupted = True
        finally:
            bar.close()
            # the workers are gone: what they were writing is no part (a resume removes it too)
            remove_temp_files(folder)
        if flag:
            summary.interrupted = True
            summary.stop_signal = flag.signal
    return summary


def _prepare_folder(folder: Path, study: Study, resume: bool) -> Callable[[], None]:
    """Check ``folder`` can take this study's results; return what writes its manifest.

    The manifest is written when the first batch lands (atomically), never before: a run
    that fails to start (a bad scheduler, a strategy that cannot load) leaves no folder that
    would block a plain rerun.
    """
    check_output_folder(folder)
    current = fingerprint(study.to_dict()["variants"])
    manifest = read_manifest(folder)
    if manifest is not None:
        if not resume:
            raise ResultsError(
                f"{folder}: holds results already; continue them with --resume, "
                "or choose another --out"
            )
        if _comparable(manifest["study"]) != _comparable(study.to_dict()):
            raise ResultsError(
                f"{folder}: holds results of a different study or settings; "
                "resume with the same study and options, or choose another --out"
            )
        changed = fingerprint_change(manifest.get("fingerprint"), current)
        if changed is not None:
            raise ResultsError(
                f"{folder}: cannot resume: {changed} since these results were made; "
                "run into another --out"
            )
        return lambda: None
    if not is_empty_folder(folder):
        raise ResultsError(f"{folder}: folder is not empty and holds no results manifest")
    pending = [study.to_dict()]

    def first_landing() -> None:
        if pending:
            write_manifest(folder, pending.pop(), current)

    return first_landing


def _comparable(study: dict[str, Any]) -> dict[str, Any]:
    """The study as the manifest stores it (JSON round trip: tuples become lists), without
    what changes no game (the report's margins)."""
    out: dict[str, Any] = json.loads(json.dumps(study, sort_keys=True))
    out.pop("report", None)
    return out


def _workers(workers: int | None) -> int:
    if workers is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)  # fmt: skip
    limit = max(MAX_WORKERS, 4 * (os.cpu_count() or 1))
    if not 1 <= workers <= limit:
        raise StudyError(f"workers: must be from 1 to {limit}, got {workers}")
    return workers


# signals ----------------------------------------------------------------------------------
# SIGINT (Ctrl-C) and SIGTERM only set a flag that the scheduling loops poll: an exception
# raised at an arbitrary point could leave a pool's locks or queues half-updated, and a
# second quick Ctrl-C must never interrupt the clean-up (that hung runs before).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
POLL_SECONDS = 0.1


class StopFlag(Protocol):
    """What the run polls: true once a stop signal came; ``signal`` is its number."""

    signal: int | None

    def __bool__(self) -> bool: ...


class Stop:
    """The first stop signal received during a run (None while running)."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __bool__(self) -> bool:
        return self.signal is not None

    def handler(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signum


@contextmanager
def catch_stop_signals() -> Iterator[Stop]:
    """Route SIGINT and SIGTERM to a flag for the run's duration (main thread only)."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    # a signal ignored from the start (a `nohup` or background job) stays ignored
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, old in previous.items():
        if old is not signal.SIG_IGN:
            signal.signal(sig, stop.handler)
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


# worker processes -------------------------------------------------------------------------
WATCHDOG_SECONDS = 0.5
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _worker_start(parent: int | None) -> None:
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


def _new_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    if context is None and sys.platform.startswith("linux"):
        # fork, as Python's default on Linux was: a script that calls run() needs no
        # `if __name__ == "__main__"` guard, and workers start at once
        context = multiprocessing.get_context("fork")
    forked = (context or multiprocessing.get_context()).get_start_method() == "fork"
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_start,
        initargs=(os.getpid() if forked else None,),
    )


def _clean_context() -> BaseContext:
    """Processes not forked from this one: forking while Dask's threads hold locks can
    leave the child waiting for a lock forever."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["sims.runner", "sims.strategies"])
    return context


def _close_pool(pool: ProcessPoolExecutor, kill: bool) -> None:
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
GAME_TRIES = 2  # a game alone in a worker is played at most this often


def _failed_game(batch: Batch, error: str) -> BatchResult:
    """One game (``batch`` holds only it) recorded as failed by the runner, seat -1."""
    from cardgame import Game

    from .match import StrategyFailure, game_row

    result = BatchResult(batch.id, {"games": [], "seats": [], "destinations": []}, [], [], 0)
    for spec in batch.specs():
        try:
            state = Game(spec.players, spec.seed, spec.rules).new_state()
        except Exception:  # a game that cannot even be set up is still a row
            state = None
        result.add(GameOutcome(game=game_row(spec, state, math.nan,
                                              StrategyFailure(-1, "", error))))  # fmt: skip
    return result


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"escaped the game: {type(exc).__name__}" + (f": {text}" if text else "")


def _run_local(
    todo: Iterable[Batch],
    workers: int,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: StopFlag,
) -> None:
    """Processes; at most 2 batches per worker in flight, so memory stays flat.

    A worker that dies takes its pool with it: the batches that were in flight are then
    played game by game (``_run_alone``) and the pool is started afresh, so a crashing
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
            result = _run_alone(batch, stop)
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
    pool = _new_pool(workers)
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
                    result = _run_alone(batch, stop)
                if result is None:
                    return None
                if finished(result):
                    summary.stopped_on_failure = True
                    return None
    finally:
        _close_pool(pool, kill=not clean)


def _run_alone(
    batch: Batch, stop: StopFlag, context: BaseContext | None = None
) -> BatchSummary | None:
    """Play ``batch`` one game at a time in a worker of its own, and write it here; None
    when stopped.

    For a batch whose worker died or that escaped its games' guards: a game whose worker dies
    is played again in a fresh worker, and one that ends its worker ``GAME_TRIES`` times is a
    failed game (``WORKER_DIED``); one that raises past its guards in a live worker is a
    failed game naming the exception. Every other game is played as anywhere else, so the
    batch's parts are the bytes an undisturbed worker writes. The batch is suspect: an earlier
    worker may have died while writing it.
    """
    whole = BatchResult(batch.id, {"games": [], "seats": [], "destinations": []}, [], [], 0)
    pool: ProcessPoolExecutor | None = None
    busy = False
    try:
        for index in range(batch.start, batch.stop):
            game = replace(batch, start=index, stop=index + 1, folder=None)
            result = None
            for _ in range(GAME_TRIES):
                pool = pool or _new_pool(1, context)
                future = pool.submit(run_batch, game)
                busy = True
                while not wait([future], timeout=POLL_SECONDS).done:
                    if stop:
                        return None
                busy = False
                try:
                    result = future.result()
                    break
                except BrokenProcessPool:
                    _close_pool(pool, kill=True)
                    pool = None
                except BaseException as exc:  # raised by the game in a live worker
                    result = _failed_game(game, _describe(exc))
                    break
            whole.extend(result or _failed_game(game, WORKER_DIED))
    finally:
        if pool is not None:
            _close_pool(pool, kill=busy)
    summary = _land(replace(batch, folder=None), whole)
    summary.suspect = True
    return summary


DASK_CONNECT_SECONDS = 5
DASK_NO_WORKERS_SECONDS = 60.0  # a cluster with no worker that long stops the run
DASK_CHECK_SECONDS = 1.0  # how often the scheduler is asked how many workers it has


def _run_dask(
    todo: Iterable[Batch],
    workers: int,
    scheduler: str | None,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: StopFlag,
) -> None:
    """The same batches on a Dask distributed cluster (a local one when no address)."""
    from dask.distributed import Client, LocalCluster, as_completed
    from distributed import KilledWorker

    _quiet_dask()
    cluster = None
    if scheduler:
        client = _connect(Client, scheduler)
    else:
        import dask

        # a batch whose worker dies is replayed locally at once (see KilledWorker below):
        # retrying it on Dask would only kill more workers
        with _quiet_workers(), dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # no dashboard, and its HTTP server on a free port: no warning about 8787
                scheduler_kwargs={"dashboard_address": ":0"},
                preload=[__name__],  # runs dask_setup below in each worker
            )
        client = Client(cluster)
    watch = _DaskWatch(client, f"at {scheduler}" if scheduler else "of the local cluster")
    try:
        queue = iter(todo)
        batches = {}
        futures = as_completed()

        def submit(batch: Batch) -> None:
            try:
                future = client.submit(land_batch, batch, pure=False)
            except Exception as exc:  # a client that lost its scheduler
                raise watch.lost(exc) from None
            batches[future.key] = batch
            futures.add(future)

        for batch in itertools.islice(queue, 2 * workers):
            submit(batch)
        while not futures.is_empty():
            if stop:
                return
            ready = futures.next_batch(block=False)
            if not ready:
                watch.check()
                time.sleep(POLL_SECONDS)
                continue
            for future in sorted(ready, key=lambda f: batches[f.key].id):
                batch = batches.pop(future.key)
                try:
                    result = _dask_result(future, stop, watch)
                except ResultsError:
                    raise
                except KilledWorker:
                    # Dask blames every batch queued on a dying worker: replay this one alone
                    # in a local process, so the verdict is the local runner's
                    result = _run_alone(batch, stop, _clean_context())
                except CancelledError as exc:  # only a lost scheduler cancels our futures
                    raise watch.lost(exc) from None
                except Exception as exc:
                    if getattr(future, "status", "error") != "error":
                        raise watch.lost(exc) from None  # the client's failure, not the batch's
                    result = _run_alone(batch, stop, _clean_context())  # escaped its guards
                if result is None:
                    return
                if finished(result):
                    summary.stopped_on_failure = True
                    return
                nxt = next(queue, None)
                if nxt is not None:
                    submit(nxt)
    finally:
        _close_dask(client, cluster)


class _DaskWatch:
    """Notices a lost scheduler and a cluster left without workers, where Dask itself would
    only wait: the run stops with ``RunStopped``, its batches in flight unwritten."""

    def __init__(self, client: Any, where: str) -> None:
        self.client = client
        self.where = where
        self.seen = time.monotonic()  # when the scheduler last had a worker
        self.due = 0.0

    def lost(self, exc: BaseException) -> RunStopped:
        reason = getattr(exc, "reason", None) or " ".join(str(exc).split()) or type(exc).__name__
        return RunStopped(
            f"lost the Dask scheduler {self.where} ({reason}); the batches in flight were not "
            "written"
        )

    def check(self) -> None:
        if self.client.status not in ("running", "newly-created"):
            raise self.lost(ConnectionError(f"client {self.client.status}"))
        now = time.monotonic()
        if now < self.due:
            return
        self.due = now + DASK_CHECK_SECONDS
        try:
            info = self.client.scheduler_info(n_workers=0)
        except TypeError:  # a Dask before n_workers
            info = self.client.scheduler_info()
        except Exception:  # unanswered: the connection check above will tell
            return
        count = info.get("n_workers", len(info.get("workers", {})))
        if count:
            self.seen = now
        elif now - self.seen >= DASK_NO_WORKERS_SECONDS:
            raise RunStopped(
                f"the Dask scheduler {self.where} has had no workers for "
                f"{DASK_NO_WORKERS_SECONDS:g} s; the batches in flight were not written"
            )


def _dask_result(future: Any, stop: StopFlag, watch: _DaskWatch) -> BatchSummary | None:
    """A finished future's result, or None when stopped: a result lost with its worker is
    recomputed, and a Ctrl-C must not wait for that, nor a lost or empty cluster."""
    while not stop:
        try:
            return future.result(timeout=POLL_SECONDS)
        except TimeoutError:
            watch.check()
    return None


def dask_setup(worker: object) -> None:
    """Dask preload hook: a local cluster's workers leave Ctrl-C to the main process (a
    terminal sends it to the whole process group), as the local pool's workers do."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _connect(client_class: Any, scheduler: str) -> Any:
    """A client of a running scheduler, or one line saying it cannot be reached."""
    try:
        return client_class(scheduler, timeout=DASK_CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as exc:
        raise StudyError(
            f"--scheduler {scheduler}: cannot reach the Dask scheduler "
            f"({' '.join(str(exc).split()) or type(exc).__name__})"
        ) from None


def check_scheduler(scheduler: str) -> None:
    """Fail fast (before a results folder exists) when a tcp scheduler does not answer."""
    address = scheduler.removeprefix("tcp://")
    if "://" in address:
        return  # tls, ucx, inproc: left to the client's own connect timeout
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise StudyError(f"--scheduler {scheduler}: expected an address like tcp://host:8786")
    try:
        socket.create_connection((host.strip("[]"), int(port)), DASK_CONNECT_SECONDS).close()
    except (OSError, ValueError) as exc:
        raise StudyError(
            f"--scheduler {scheduler}: cannot reach the Dask scheduler "
            f"({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})"
        ) from None


def _quiet_dask() -> None:
    """Dask logs every worker's and nanny's shutdown (on Ctrl-C that was 77 lines), and a
    lost scheduler as tracebacks: the run says what happened in one line of its own."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in {"distributed", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def _quiet_workers() -> Iterator[None]:
    """The same for a local cluster's processes, which start while this is in force (the
    environment is theirs to read at import, and left as it was for the caller's)."""
    key, old = "DASK_LOGGING__DISTRIBUTED", os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ[key] = old or "error"
    try:
        yield
    finally:
        if old is None:
            del os.environ[key]


def _close_dask(client: Any, cluster: Any) -> None:
    """Close the client and a local cluster quietly, and within a bounded time."""
    with contextlib.suppress(Exception):
        client.close(timeout=5)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)
