"""A batch: a slice of one cell's games, the unit a worker plays and writes as a part.

Determinism: a game's seed and seating depend only on (root seed, cell, game index) — or,
in a paired study, on (root seed, player count, deal) — so the tables are identical whatever
the backend or the number of workers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .clock import ThinkTimes
from .deadline import DEFAULT_DECISION_SECONDS
from .guest import is_guest
from .match import (
    GameOutcome,
    GameSpec,
    batch_quality_table,
    crashed_game,
    native_failure,
    native_loop,
    play_game,
    seat_identity,
    table_game,
)
from .parts import batch_tables, encode_parts, land_files, written_digests
from .plan import Cell, Isolation, Plan
from .rows import NATIVE_TABLES, TableRows
from .seeding import deal_key, deal_number, first_draw, game_seed, keyed_game_seed, stream_seed


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
    steady: bool = False  # each isolated decision takes its whole limit ([limits] steady)
    pairing: str = "none"  # "deals", "seatings": the seed depends on (root, players, deal)
    folder: str | None = None  # where the worker writes its parts; None: send them back
    engine: str = "auto"  # the study's engine choice (sims/study.py ENGINES)
    isolation: Isolation = Isolation.NONE
    quality: bool = False  # each game's quality row too ([metrics] quality = true)
    guest_key: str = ""  # the run's secret for isolated guests' streams (manifest guest_key)
    # the same secret where the deals must not follow from the root seed (``--isolate``):
    # each game's seed keyed by it (``keyed_game_seed``); "" for public seeds
    deal_key: str = ""

    def seed(self, index: int, seatings: int) -> int:
        """Game ``index``'s seed: per cell, or per deal of the player count when paired;
        under the run's secret where it has one for deals."""
        if self.pairing != "none":
            deal = deal_number(index, seatings, self.rotation, self.pairing)
            public = game_seed(self.root_seed, deal_key(self.cell.players), deal)
        else:
            public = game_seed(self.root_seed, self.cell.key, index)
        return keyed_game_seed(self.deal_key, public) if self.deal_key else public

    @property
    def games(self) -> int:
        return self.stop - self.start

    def seating(self, index: int, seed: int, seatings: list[tuple[str, ...]]) -> tuple[str, ...]:
        """Game ``index``'s seat order (labels): rotated, or drawn from its seed."""
        if self.rotation == "permutations":
            return seatings[index % len(seatings)]
        return seatings[first_draw(stream_seed(seed, "seating"), len(seatings))]

    def specs(self) -> Iterator[GameSpec]:
        seatings = self.cell.seatings()
        for index in range(self.start, self.stop):
            yield self.spec(index, seatings)

    def spec(self, index: int, seatings: list[tuple[str, ...]]) -> GameSpec:
        """Game ``index``'s spec (``seatings``: the cell's, listed once per batch)."""
        seed = self.seed(index, len(seatings))
        order = self.seating(index, seed, seatings)
        return GameSpec(
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
            guest_key=self.guest_key,
        )


@dataclass
class BatchResult:
    id: str
    tables: dict[str, TableRows]
    records: list[dict[str, Any] | bytes]  # a record, or its JSONL line (the native writer)
    failures: list[str]
    games: int

    @classmethod
    def empty(cls, batch: Batch) -> BatchResult:
        """No game yet, with the rows of every table the batch writes."""
        names = ["games", "seats", "destinations"] + (["quality"] if batch.quality else [])
        return cls(batch.id, {name: TableRows(name) for name in names}, [], [], 0)

    def add(self, outcome: GameOutcome) -> None:
        """Append one game's rows (unless the native core wrote them into ``tables``
        already), record and failure line."""
        if outcome.quality is not None and "quality" in self.tables:
            self.tables["quality"].append(outcome.quality)
        if outcome.record is not None:
            self.records.append(outcome.record)
        self.games += 1
        if outcome.game is None:  # a finished game, in the native columns
            return
        self.tables["games"].append(outcome.game)
        self.tables["seats"].extend(outcome.seats)
        self.tables["destinations"].extend(outcome.destinations)
        if outcome.game["failed"]:
            g = outcome.game
            seat = g["failure_seat"]
            who = f"seat {seat} ({g['failure_strategy']}): " if seat != -1 else ""
            self.failures.append(f"{g['cell']} game {g['game_index']}: {who}{g['failure_error']}")

    def extend(self, other: BatchResult) -> None:
        """Append the games of ``other`` (a later slice of the same batch)."""
        for table, rows in other.tables.items():
            self.tables[table].add(rows)
        self.records.extend(other.records)
        self.failures.extend(other.failures)
        self.games += other.games


def run_batch(batch: Batch) -> BatchResult:
    """Play a batch (in a worker): tidy rows for the three tables."""
    result = BatchResult.empty(batch)
    if _play_natively(batch, result):
        return result
    result = BatchResult.empty(batch)  # rows of a batch whose quality scoring failed: none
    for spec in batch.specs():
        try:
            outcome = play_game(
                spec,
                batch.clock,
                batch.records,
                batch.decision_seconds,
                batch.engine,
                batch.quality,
                result.tables,
                batch.steady,
            )
        except MemoryError:  # the machine's, not the game's: the batch is played again alone
            raise
        except Exception as exc:  # never let one game take the worker down
            outcome = crashed_game(spec, exc)
        result.add(outcome)
    return result


def _play_natively(batch: Batch, result: BatchResult) -> bool:
    """Play every game of a batch of built-in strategies on the native core, from the
    batch's seeds straight into its columns, or return False having played none (or rows
    the caller drops: a batch whose quality scoring raised, played again game by game).

    This is ``play_game``'s native path without a ``GameSpec``, an outcome or a twin
    looked up per game: the same games, the same rows (tests/sims/test_batch_native.py).
    A failed or crashed game takes ``play_game``'s failure rows. False when some game would
    not be played natively: the Python engine asked for, a strategy of one's own in a
    process of its own, a seat without a native twin, or no native core. A game's record
    (``--records``) is its JSONL line, written in C from the core's log of the game
    (``record_line``, cardgame/_native/_record.pyx): the bytes ``to_record`` and the part's
    ``json.dumps`` make, with no dict (tests/sims/test_record_writer.py).

    Quality rows: the core notes every position's standing into one C array for the whole
    batch, and ``batch_quality_table`` scores all the finished games at the end, the rows
    ``play_game`` makes one game at a time (tests/sims/test_quality_native.py)."""
    if batch.engine == "python":
        return False
    if batch.isolation == Isolation.PROCESS and any(map(is_guest, batch.seats.values())):
        return False  # a guest's module is never imported here
    native = native_loop()
    if native is None:
        return False
    made = {label: native.prototype(spec) for label, spec in batch.seats.items()}
    twins = {label: twin for label, twin in made.items() if twin is not None}
    if len(twins) < len(made):
        return False
    cell, clock, tables = batch.cell, batch.clock, result.tables
    names = {label: spec.label for label, spec in batch.seats.items()}
    identities = {label: seat_identity(spec) for label, spec in batch.seats.items()}
    seatings = cell.seatings()
    columns: list[Any] | None = None
    standings = native.Standings(cell.players) if batch.quality else None
    scored: list[tuple[int, int, int, tuple[str, ...], list[int], list[int]]] = []
    for index in range(batch.start, batch.stop):
        seed = batch.seed(index, len(seatings))
        order = batch.seating(index, seed, seatings)
        labels = [names[label] for label in order]
        noted = standings.positions if standings is not None else 0
        try:
            seats = [
                native.fresh(twins[name], seed, k, identities[name]) for k, name in enumerate(order)
            ]
            game = table_game(cell.players, seed, cell.rules, cell.catalogue)
            start, timing = native.start(game, clock, "log" if batch.records else False)
            played, offers, minutes, failed = native.play_native(
                start, seats, timing, standings, offer_rows=False
            )
            if failed is None:
                if columns is None:
                    columns = [tables[name].columns() for name in NATIVE_TABLES]
                base = (batch.study, cell.key, cell.variant, cell.players, index, seed)
                if standings is not None:
                    winners, totals = native.final_scores(played)
                record = native.record_line(played, labels) if batch.records else None
                native.add_finished(*columns, played, base, labels, offers, minutes)
                result.games += 1
                if record is not None:
                    result.records.append(record)
                if standings is not None:
                    scored.append((index, seed, standings.positions, order, winners, totals))
                continue
            outcome = native_failure(batch.spec(index, seatings), played, minutes, failed)
        except MemoryError:
            raise
        except Exception as exc:  # never let one game take the worker down
            outcome = crashed_game(batch.spec(index, seatings), exc)
        if standings is not None:
            standings.truncate(noted)  # a game without a quality row
        result.add(outcome)
        columns = None  # its dict rows came after the block: the next rows go to a new one
    if standings is not None and scored:
        base_of = (batch.study, cell.key, cell.variant, cell.players)
        try:
            quality = batch_quality_table(base_of, standings.features(), scored, batch.seats)
        except MemoryError:
            raise
        except Exception:  # the batch again game by game, where the game it was fails alone
            return False
        result.tables["quality"].add_table(quality)
    return True


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
    # the digest and size of each file the worker wrote itself, by name: the run's own, for
    # its seal
    written: dict[str, tuple[str, int]] | None = None


def land_batch(batch: Batch) -> BatchSummary:
    """Play a batch and write its parts (in a worker); a value that does not fit the schemas
    is a ResultsError before anything is written."""
    return land(batch, run_batch(batch))


def land(batch: Batch, result: BatchResult) -> BatchSummary:
    records = result.records if batch.records else None
    files = encode_parts(result.id, batch_tables(result.id, result.tables), records)
    if batch.folder is None:  # sent back for the parent to write
        return BatchSummary(result.id, result.games, result.failures, files)
    land_files(Path(batch.folder), files)
    return BatchSummary(result.id, result.games, result.failures, written=written_digests(files))


def plan_batches(plan: Plan, records: bool = False, guest_key: str = "") -> Iterator[Batch]:
    """The plan's batches in a fixed order, made as they are needed: memory stays flat
    however many games a cell has; in a study played until settled none straddles a look's
    end. ``guest_key``: the run's secret for isolated guests, which also keys an isolated
    run's deals."""
    clock = plan.think_times()
    for number, cell in enumerate(plan.cells):
        seats = {label: plan.spec_for(cell.variant, label) for label in set(cell.lineup)}
        bounds = plan.look_bounds(cell)
        for start, stop in (
            (start, min(end, start + plan.batch_size))
            for begin, end in zip([0, *bounds[:-1]], bounds, strict=True)
            for start in range(begin, end, plan.batch_size)
        ):
            yield (
                Batch(
                    id=f"c{number:04d}-g{start:07d}",
                    study=plan.name,
                    root_seed=plan.seed,
                    rotation=plan.rotation,
                    cell=cell,
                    seats=seats,
                    start=start,
                    stop=stop,
                    clock=clock,
                    records=records,
                    decision_seconds=plan.decision_seconds,
                    steady=plan.steady,
                    pairing=plan.pairing,
                    engine=plan.engine,
                    isolation=plan.isolation,
                    quality=plan.quality,
                    guest_key=guest_key,
                    deal_key=guest_key if plan.isolation == Isolation.PROCESS else "",
                )
            )


@dataclass
class BatchColumns:
    """What a worker sends back for a caller that keeps no results folder (a tune's step):
    the batch's rows of some tables, some columns of each, in the results schema and the
    order ``load_results`` reads them in."""

    id: str
    games: int
    failures: list[str]
    tables: dict[str, Any]  # table -> pyarrow.Table


def play_columns(batch: Batch, columns: dict[str, tuple[str, ...]]) -> BatchColumns:
    """Play a batch (in a worker) and send back only ``columns`` (table -> column names):
    no part written, no Parquet encoded; a value that does not fit the schemas is a
    ResultsError."""
    return batch_columns(batch, run_batch(batch), columns)


def batch_columns(
    batch: Batch, result: BatchResult, columns: dict[str, tuple[str, ...]]
) -> BatchColumns:
    """``result``'s rows of ``columns``."""
    from .schema import SORT_KEYS

    tables = {
        name: result.tables[name].arrow(result.id, (*wanted, *SORT_KEYS))
        for name, wanted in columns.items()
    }
    return BatchColumns(batch.id, result.games, result.failures, sorted_columns(tables, columns))


def sorted_columns(tables: dict[str, Any], columns: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """Each table's ``columns``, its rows sorted by the results' keys (as a compaction
    writes them)."""
    from .schema import SORT_KEYS, key_order

    out = {}
    for name, wanted in columns.items():
        arrow = tables[name]
        keys = [k for k in SORT_KEYS if k in arrow.column_names and k != "cell"]
        order = key_order([arrow[k].to_numpy() for k in keys])
        out[name] = (arrow if order is None else arrow.take(order)).select(list(wanted))
    return out
