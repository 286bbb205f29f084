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
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .clock import ThinkTimes
from .deadline import DEFAULT_DECISION_SECONDS
from .errors import ResultsError, StudyError
from .match import GameSpec, crashed_game, play_game
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
            )


@dataclass
class BatchResult:
    id: str
    tables: dict[str, list[dict[str, Any]]]
    records: list[dict[str, Any]]
    failures: list[str]
    games: int


def run_batch(batch: Batch) -> BatchResult:
    """Play a batch (in a worker): tidy rows for the three tables."""
    tables: dict[str, list[dict[str, Any]]] = {"games": [], "seats": [], "destinations": []}
    records = []
    failures = []
    for spec in batch.specs():
        try:
            outcome = play_game(
                spec, batch.clock, batch.records, batch.decision_seconds, batch.engine
            )
        except Exception as exc:  # never let one game take the worker down
            outcome = crashed_game(spec, exc)
        tables["games"].append(outcome.game)
        tables["seats"].extend(outcome.seats)
        tables["destinations"].extend(outcome.destinations)
        if outcome.record is not None:
            records.append(outcome.record)
        if outcome.game["failed"]:
            g = outcome.game
            failures.append(
                f"{g['cell']} game {g['game_index']}: seat {g['failure_seat']} "
                f"({g['failure_strategy']}): {g['failure_error']}"
            )
    return BatchResult(batch.id, tables, records, failures, batch.games)


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
    if batch.folder is not None:
        land_files(Path(batch.folder), files)
        files = None
    return BatchSummary(result.id, result.games, result.failures, files)


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
) -> RunSummary:
    """Run ``study``; results go to ``out`` (default: the study's output folder).

    ``announce`` is called once the folder is known to be usable (the CLI prints its header
    there, so a refused folder is one line, not a header and then an error).
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

    with _catch_stop_signals() as stop:
        try:
            if backend == "dask":
                _run_dask(todo, workers, scheduler, finished, summary, stop)
            else:
                _run_local(todo, workers, finished, summary, stop)
        except KeyboardInterrupt:  # a Ctrl-C before the signal handlers took over
            summary.interrupted = True
        finally:
            bar.close()
        if stop:
            summary.interrupted = True
            summary.stop_signal = stop.signal
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
        if manifest["study"] != _comparable(study.to_dict()):
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
    """The study as the manifest stores it (JSON round trip: tuples become lists)."""
    return json.loads(json.dumps(study, sort_keys=True))


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


class _Stop:
    """The first stop signal received during a run (None while running)."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def __bool__(self) -> bool:
        return self.signal is not None

    def handler(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signum


@contextmanager
def _catch_stop_signals() -> Iterator[_Stop]:
    """Route SIGINT and SIGTERM to a flag for the run's duration (main thread only)."""
    stop = _Stop()
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
    pool.shutdown(wait=True, cancel_futures=True)


WORKER_DIED = "worker died (the process ended abruptly: os._exit, a crash or a kill)"


def _failed_result(batch: Batch, error: str) -> BatchSummary:
    """A batch whose worker could not report: each of its games is a failed game, written
    by the parent (its parts are encoded here, before anything lands)."""
    from cardgame import Game

    from .match import StrategyFailure, _game_row

    games, failures = [], []
    for spec in batch.specs():
        state = Game(spec.players, spec.seed, spec.rules).new_state()
        games.append(_game_row(spec, state, math.nan, StrategyFailure(-1, "", error)))
        failures.append(f"{spec.cell} game {spec.index}: {error}")
    result = BatchResult(batch.id, {"games": games, "seats": [], "destinations": []}, [],
                         failures, batch.games)  # fmt: skip
    summary = _land(replace(batch, folder=None), result)
    summary.suspect = True
    return summary


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"worker error: {type(exc).__name__}" + (f": {text}" if text else "")


def _run_local(
    todo: Iterable[Batch],
    workers: int,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: _Stop,
) -> None:
    """Processes; at most 2 batches per worker in flight, so memory stays flat.

    A worker that dies takes its pool with it: the batches in flight are then replayed one
    at a time in fresh pools, and a batch that kills its worker again is recorded as failed
    games, so a crashing strategy costs its games, not the study (and the outcome does not
    depend on the number of workers).
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
    stop: _Stop,
) -> list[Batch] | None:
    """Play batches until done or stopped (None), or until a worker dies: then return the
    batches that were in flight, in plan order."""
    pending: dict[Future[BatchSummary], Batch] = {}
    pool = _new_pool(workers)
    clean = False
    try:
        while True:
            for batch in queue:
                pending[pool.submit(land_batch, batch)] = batch
                if len(pending) >= 2 * workers:
                    break
            if not pending or stop:
                clean = not pending
                return None
            completed, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in sorted(completed, key=lambda f: pending[f].id):
                batch = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    return sorted([batch, *pending.values()], key=lambda b: b.id)
                except ResultsError:  # results that cannot be written stop the run
                    raise
                except BaseException as exc:  # SystemExit and the like, sent back
                    result = _failed_result(batch, _describe(exc))
                if finished(result):
                    summary.stopped_on_failure = True
                    return None
    finally:
        _close_pool(pool, kill=not clean)


def _run_alone(
    batch: Batch, stop: _Stop, context: BaseContext | None = None
) -> BatchSummary | None:
    """One batch in a pool of its own: its summary, failed games if it kills the worker,
    or None when stopped. It is suspect either way: an earlier worker may have died while
    writing it."""
    pool = _new_pool(1, context)
    future = pool.submit(land_batch, batch)
    try:
        while not stop:
            if wait([future], timeout=POLL_SECONDS).done:
                try:
                    summary = future.result()
                    summary.suspect = True
                    return summary
                except BrokenProcessPool:
                    return _failed_result(batch, WORKER_DIED)
                except ResultsError:
                    raise
                except BaseException as exc:
                    return _failed_result(batch, _describe(exc))
        return None
    finally:
        _close_pool(pool, kill=not future.done())


DASK_CONNECT_SECONDS = 5


def _run_dask(
    todo: Iterable[Batch],
    workers: int,
    scheduler: str | None,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: _Stop,
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
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
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
    try:
        queue = iter(todo)
        batches = {}
        futures = as_completed()
        for batch in itertools.islice(queue, 2 * workers):
            future = client.submit(land_batch, batch, pure=False)
            batches[future.key] = batch
            futures.add(future)
        while not futures.is_empty():
            if stop:
                return
            ready = futures.next_batch(block=False)
            if not ready:
                time.sleep(POLL_SECONDS)
                continue
            for future in sorted(ready, key=lambda f: batches[f.key].id):
                batch = batches.pop(future.key)
                try:
                    result = _dask_result(future, stop)
                    if result is None:
                        return
                except ResultsError:
                    raise
                except KilledWorker:
                    # Dask blames every batch queued on a dying worker: replay this one alone
                    # in a local process, so the verdict is the local runner's
                    result = _run_alone(batch, stop, _clean_context())
                    if result is None:
                        return
                except Exception as exc:
                    result = _failed_result(batch, _describe(exc))
                if finished(result):
                    summary.stopped_on_failure = True
                    return
                nxt = next(queue, None)
                if nxt is not None:
                    new = client.submit(land_batch, nxt, pure=False)
                    batches[new.key] = nxt
                    futures.add(new)
    finally:
        _close_dask(client, cluster)


def _dask_result(future: Any, stop: _Stop) -> BatchSummary | None:
    """A finished future's result, or None when stopped: a result lost with its worker is
    recomputed, and a Ctrl-C must not wait for that."""
    while not stop:
        try:
            return future.result(timeout=POLL_SECONDS)  # type: ignore[no-any-return]
        except TimeoutError:
            continue
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
    """Dask logs every worker's and nanny's shutdown: on Ctrl-C that was 77 lines."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")  # local worker processes
    for name in ("distributed", "distributed.nanny", "distributed.worker", "distributed.core"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _close_dask(client: Any, cluster: Any) -> None:
    """Close the client and a local cluster quietly, and within a bounded time."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with contextlib.suppress(Exception):
        client.close(timeout=5)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)
