"""The Monte Carlo runner: a study's games in batches, on local processes or Dask, streamed
to Parquet as batches finish, resumable, with a progress bar.

Determinism: a game's seed and seating depend only on (root seed, cell, game index), so the
tables are identical whatever the backend or the number of workers.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
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
    fingerprint,
    fingerprint_change,
    is_empty_folder,
    read_manifest,
    write_manifest,
    write_parts,
    write_records,
)
from .seeding import game_seed, stream_seed
from .study import Cell, Study

BACKENDS = ("local", "dask")


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

    @property
    def games(self) -> int:
        return self.stop - self.start

    def specs(self) -> Iterator[GameSpec]:
        seatings = self.cell.seatings()
        for index in range(self.start, self.stop):
            seed = game_seed(self.root_seed, self.cell.key, index)
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
            outcome = play_game(spec, batch.clock, batch.records, batch.decision_seconds)
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


def plan_batches(study: Study, records: bool = False) -> list[Batch]:
    batches = []
    for number, cell in enumerate(study.cells()):
        seats = {label: study.strategies[label] for label in set(cell.lineup)}
        for start in range(0, cell.games, study.batch_size):
            stop = min(cell.games, start + study.batch_size)
            batches.append(
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
                )
            )
    return batches


@dataclass
class RunSummary:
    folder: Path
    games_played: int
    games_total: int
    games_skipped: int
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False
    stopped_on_failure: bool = False


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
) -> RunSummary:
    """Run ``study``; results go to ``out`` (default: the study's output folder)."""
    if backend not in BACKENDS:
        raise StudyError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    folder = Path(out or study.output)
    workers = _workers(workers)
    first_landing = _prepare_folder(folder, study, resume)

    batches = plan_batches(study, records)
    done = done_batches(folder) if resume else set()
    todo = [b for b in batches if b.id not in done]
    total = sum(b.games for b in batches)
    skipped = total - sum(b.games for b in todo)
    summary = RunSummary(folder, 0, total, skipped)
    bar = tqdm(
        total=total, initial=skipped, unit="game", desc=study.name, disable=not progress,
        smoothing=0.1, file=sys.stderr, dynamic_ncols=True,
    )  # fmt: skip

    def finished(result: BatchResult) -> bool:
        parts = batch_tables(result.id, result.tables)  # checked before the first landing
        first_landing()
        write_parts(folder, result.id, parts)
        if records:
            write_records(folder, result.id, result.records)
        summary.games_played += result.games
        summary.failures.extend(result.failures)
        bar.update(result.games)
        return bool(fail_fast and result.failures)

    try:
        if backend == "dask":
            _run_dask(todo, workers, scheduler, finished, summary)
        elif workers == 1:
            for batch in todo:
                if finished(run_batch(batch)):
                    summary.stopped_on_failure = True
                    break
        else:
            _run_local(todo, workers, finished, summary)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        bar.close()
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
    if workers < 1:
        raise StudyError(f"workers: must be at least 1, got {workers}")
    return workers


def _run_local(
    todo: list[Batch], workers: int, finished: Callable[[BatchResult], bool], summary: RunSummary
) -> None:
    """Processes; at most 2 batches per worker in flight, so memory stays flat."""
    pending: set[Future[BatchResult]] = set()
    queue = iter(todo)
    with ProcessPoolExecutor(max_workers=workers) as pool:

        def top_up() -> None:
            for batch in queue:
                pending.add(pool.submit(run_batch, batch))
                if len(pending) >= 2 * workers:
                    break

        try:
            top_up()
            while pending:
                completed, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in completed:
                    if finished(future.result()):
                        summary.stopped_on_failure = True
                if summary.stopped_on_failure:
                    break
                top_up()
        finally:
            for future in pending:
                future.cancel()


def _run_dask(
    todo: list[Batch],
    workers: int,
    scheduler: str | None,
    finished: Callable[[BatchResult], bool],
    summary: RunSummary,
) -> None:
    """The same batches on a Dask distributed cluster (a local one when no address)."""
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        queue = iter(todo)
        first = [
            client.submit(run_batch, b, pure=False)
            for _, b in zip(range(2 * workers), queue, strict=False)
        ]
        futures = as_completed(first)
        for future in futures:
            if finished(future.result()):
                summary.stopped_on_failure = True
                break
            nxt = next(queue, None)
            if nxt is not None:
                futures.add(client.submit(run_batch, nxt, pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
