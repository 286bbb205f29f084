"""The compaction: a run's parts merged into a few compact Parquet files per table.

A run merges each table into ``TABLE/compact.parquet`` (a big run: files of about
``SHARD_BATCHES`` batches, ``compact-00000.parquet`` and on, before it) while it plays
(``Compaction``) or after (``compact``): the games table's ``compact.parquet`` last, naming the
batches they hold, so an interrupted compaction loses nothing (``tidy_compaction``). Compact
files have the tables' schemas (sims/schema.py) and are read whole by pandas, pyarrow or DuckDB
(which skip the table folder's ``_parts``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import queue
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ResultsError, ResultsWriteError
from .files import discard, temp_path
from .parts import (
    PARTS,
    arrow_input,
    part_files,
    part_name,
    read_table_part,
    tables_besides_games,
)
from .reading import ledger, note_ledger, note_removed, note_written
from .schema import SORT_KEYS, WRITE_ORDER, key_order, schema

COMPACT = "compact.parquet"  # a finished run's table (``compact``); the last file to land
BATCHES_KEY = b"ttr_cardgame.batches"  # the batches a compaction holds (JSON list of ids)
SHARDS_KEY = b"ttr_cardgame.shards"  # the files a compaction wrote per table, when several
# batches, about, a compact file holds: the files of a big run are written side by side by
# threads of their own (Parquet's encoding takes one core per file), in the cells' order
SHARD_BATCHES = 200
COMPRESSION = "zstd"  # the compact files'


def compact_name(shard: int, shards: int) -> str:
    """The file of a table's ``shard``-th share of a compaction of ``shards`` files: the last
    is ``COMPACT`` (the games table's marks the compaction done), the others
    ``compact-00000.parquet`` and on, so that the names sort in the rows' order."""
    return COMPACT if shard == shards - 1 else f"compact-{shard:05d}.parquet"


def is_compact(path: Path) -> bool:
    return path.name == COMPACT or (
        path.name.startswith("compact-") and path.name.endswith(".parquet")
    )


def compacted_batches(where: Path) -> set[str]:
    """The batches ``where``'s compaction holds (read from its ``COMPACT`` file's footer);
    none without one."""
    return _footer(where / COMPACT)[0] if (where / COMPACT).exists() else set()


def _footer(path: Path) -> tuple[set[str], int]:
    """The batches of the compaction a compact file belongs to, and its number of files."""
    try:
        metadata = pq.read_schema(arrow_input(path)).metadata or {}
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: corrupt Parquet file ({exc})") from None
    try:
        ids = json.loads(metadata[BATCHES_KEY])
        shards = int(metadata.get(SHARDS_KEY, b"1"))
    except (KeyError, ValueError):
        ids, shards = None, 0
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or shards < 1:
        raise ResultsError(f"{path}: not a compacted table (no list of its batches)")
    return set(ids), shards


def _compact_files(where: Path, merged: set[str]) -> list[Path] | None:
    """A table's compact files in order, when they are whole and hold the batches
    ``merged`` (the games table's compaction); else None (what an interrupted compaction
    left, or nothing)."""
    if not merged or not (where / COMPACT).exists():
        return None
    ids, shards = _footer(where / COMPACT)
    paths = [where / compact_name(shard, shards) for shard in range(shards)]
    others = paths[:-1]  # the last is COMPACT, read above
    if ids != merged or not all(p.exists() and _footer(p) == (ids, shards) for p in others):
        return None
    return paths


def table_files(folder: Path, table: str, merged: set[str]) -> list[Path]:
    """The files holding ``table``'s rows: its compact files when they hold the same batches
    as the games ones (``merged``, else they are what an interrupted compaction left), and
    every part of a batch the games compaction does not hold."""
    where = folder / table
    written = table == "games" or table in tables_besides_games(folder)  # by every batch
    if merged and written:  # every table's files land before the games one naming the batches
        files = _compact_files_or_error(folder, table, merged)
    else:
        files = _compact_files(where, merged) or []
    parts = {batch: p for batch, p in part_files(where).items() if batch not in merged}
    if written and table != "games":
        landed = sorted(set(part_files(folder / "games")) - merged - set(parts))
        if landed:  # removed by hand: its rows would be missing without a word
            raise ResultsError(
                f"{where}: the part of batch {landed[0]} is missing, though its games part "
                "landed (a run continued with --resume plays it again)"
            )
    return files + list(parts.values())


def _compact_files_or_error(folder: Path, table: str, merged: set[str]) -> list[Path]:
    files = _compact_files(folder / table, merged)
    if not files:
        raise ResultsError(
            f"{folder / table}: a compact file of its compaction is missing or corrupt"
        )
    return files


def tidy_compaction(folder: Path) -> None:
    """Settle a compaction that was interrupted: remove the parts the games compaction
    already holds, and compact files that are not part of it (never rows that are nowhere
    else)."""
    merged = compacted_batches(folder / "games")
    if merged:  # every table's compaction whole, or an error: nothing is removed then
        for table in ("games", *tables_besides_games(folder)):
            _compact_files_or_error(folder, table, merged)
    for table in WRITE_ORDER:
        where = folder / table
        if not where.is_dir():
            continue
        try:
            kept = set(_compact_files(where, merged) or [])
        except ResultsError:  # an unreadable file: the games table's is an error above
            kept = set()
        for path in list(where.glob("compact*.parquet")):
            if is_compact(path) and path not in kept:
                discard(path)
                note_removed(path)
        _remove_parts(where, merged)


def shards_of(cells: list[list[str]]) -> list[list[list[str]]]:
    """Cells (each its batches), in order, grouped into the files of a compaction: whole
    cells, each file at least ``SHARD_BATCHES`` batches but the last."""
    shards: list[list[list[str]]] = [[]]
    held = 0
    for ids in cells:
        if held >= SHARD_BATCHES:
            shards.append([])
            held = 0
        shards[-1].append(ids)
        held += len(ids)
    return shards


COMPACT_ROWS = 1 << 20  # rows buffered per row group of a compact file: memory stays bounded


def compact(folder: Path) -> bool:
    """Merge a finished run's parts into a few files per table (``TABLE/compact.parquet``,
    for a big run preceded by ``compact-00000.parquet`` and on: ``shards_of``; rows in the
    order ``load_results`` gives, file after file in the names' order) and remove them: a
    folder of a million games is a few dozen files, not one per batch and table. The games
    table's ``compact.parquet`` lands last and names the batches they all hold, so an
    interrupted compaction loses nothing (``tidy_compaction``). Returns whether there was
    anything to merge."""
    tidy_compaction(folder)
    found = part_files(folder / "games")  # by batch, sorted
    if not found:
        return False
    if compacted_batches(folder / "games"):
        raise ResultsError(
            f"{folder}: holds a compacted table and parts it does not hold; "
            "load it with load_results, or run the study again into another --out"
        )
    batches = list(found)
    cells: dict[str, list[str]] = {}  # a batch id starts with its cell's number: c0007-g0000048
    for batch in batches:
        cells.setdefault(batch.split("-")[0], []).append(batch)
    first = [read_table_part("games", found[ids[0]]) for ids in cells.values()]
    named = [part.column("cell")[0].as_py() for part in first]
    order = [cells[number] for _, number in sorted(zip(named, cells, strict=True))]
    written = {"games", *tables_besides_games(folder)}  # an empty folder is no table
    tables = [t for t in WRITE_ORDER if t in written and (folder / t).is_dir()]
    shards = shards_of(order)
    writers = {
        (t, k): _CompactWriter(folder / t, t, batches, k, len(shards))
        for t in tables
        for k in range(len(shards))
    }

    def write(key: tuple[str, int]) -> None:
        table, shard = key
        readers = 16 // len(writers) + 1  # the files' reading threads: about 16 in all
        for arrow in _cell_tables(folder / table, table, shards[shard], readers):
            writers[key].add(arrow)
        writers[key].close()

    try:  # the files side by side (Parquet's encoding lets go of the interpreter lock)
        with ThreadPoolExecutor(max_workers=min(len(writers), os.cpu_count() or 1)) as pool:
            list(pool.map(write, writers))
        _land_compaction(folder, writers, batches)
    finally:
        for writer in writers.values():
            writer.discard()
    return True


def _land_compaction(
    folder: Path, writers: dict[tuple[str, int], _CompactWriter], batches: list[str]
) -> None:
    """Put the written compact files in place, the games table's ``COMPACT`` last (it marks
    the compaction done), then remove the parts they hold."""
    marks = [key for key, writer in writers.items() if key[0] == "games" and writer.is_mark]
    for key in sorted(writers, key=lambda k: (k[0] == "games", k[1])):
        if key not in marks:
            writers[key].land()
    for key in marks:
        writers[key].land()
    tables = [t for t in WRITE_ORDER if any(key[0] == t for key in writers)]
    for table in tables:
        _remove_parts(folder / table, set(batches))


class _HashingSink(io.RawIOBase):
    """A file the Parquet writer writes to in order, hashing each byte as it is written."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.digest = hashlib.sha256()
        self.written = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:])
        self.digest.update(view)
        self.written += done
        return done

    def tell(self) -> int:
        return self.written

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def _remove_parts(where: Path, batches: set[str]) -> None:
    """Remove a table's parts of ``batches``, and its parts folder once it is empty."""
    for batch, path in part_files(where).items():
        if batch in batches:
            discard(path)
            note_removed(path)
    with contextlib.suppress(OSError):  # not empty: parts of batches not compacted yet
        (where / PARTS).rmdir()


class _CompactWriter:
    """One table's compact file as it is written: cells' rows appended in order, a row group
    per ``COMPACT_ROWS`` rows or so, the footer naming ``batches``; a temporary file (opened
    with the first rows: a big run's files are not all open at once) until ``land`` renames
    it (``discard`` removes what was not landed). The bytes depend only on the rows appended,
    in their order, not on when."""

    def __init__(
        self, where: Path, table: str, batches: list[str], shard: int = 0, shards: int = 1
    ) -> None:
        target = schema(table)
        metadata = {**(target.metadata or {}), BATCHES_KEY: json.dumps(batches).encode()}
        if shards > 1:
            metadata[SHARDS_KEY] = str(shards).encode()
        self.target = target.with_metadata(metadata)
        self.path = where / compact_name(shard, shards)
        self.is_mark = self.path.name == COMPACT
        self.temp = temp_path(self.path, per_process=True)
        self.buffer: list[pa.Table] = []
        self.rows = 0
        self.out: pq.ParquetWriter | None = None
        self.handle = -1  # the temporary file as this writer made it, held to its landing
        self.sink: _HashingSink | None = None  # the writer's own handle of it
        self.digest = ""  # of the bytes written, as they were written
        self.size = 0
        self.closed = self.landed = False

    def _open(self) -> pq.ParquetWriter:
        if self.out is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                discard(self.temp)  # a killed writer's, of this pid
                flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                self.handle = os.open(self.temp, flags, 0o644)
                self.sink = _HashingSink(os.dup(self.handle))
                self.out = pq.ParquetWriter(self.sink, self.target, compression=COMPRESSION)
            except OSError as exc:
                raise self._failed(exc) from None
        return self.out

    def add(self, arrow: pa.Table) -> None:
        self.buffer.append(arrow)
        self.rows += arrow.num_rows
        if self.rows >= COMPACT_ROWS:
            self._flush(self.rows)

    def _flush(self, group: int) -> None:
        out = self._open()
        try:
            # one dictionary per text column, not one per part: the writer then encodes the
            # codes as they are, where parts' differing dictionaries made it re-hash every text
            rows = pa.concat_tables(self.buffer).unify_dictionaries()
            out.write_table(rows, row_group_size=group)
        except OSError as exc:
            raise self._failed(exc) from None
        self.buffer, self.rows = [], 0

    def close(self) -> None:
        """The last rows and the footer: the file is whole (not yet in place)."""
        if self.closed:
            return
        if self.buffer:
            self._flush(max(self.rows, 1))
        out = self._open()
        try:
            out.close()
            assert self.sink is not None  # made with the writer
            self.digest = self.sink.digest.hexdigest()
            self.size = self.sink.written
            self.sink.close()
        except OSError as exc:
            raise self._failed(exc) from None
        self.out, self.closed = None, True

    def land(self) -> None:
        """Put the file in place, and note it as the run's own with the digest of the bytes
        this writer wrote, hashed as they were written (never read back: another writer may
        put a file of its own at that name, or write into this one, pass 22's inplace22.py);
        one put in its place before the rename is refused."""
        try:
            digest = self.digest
            made = os.fstat(self.handle)
            os.replace(self.temp, self.path)
            landed = os.lstat(self.path)
        except OSError as exc:
            raise self._failed(exc) from None
        self.landed = True
        self._let_go()
        if (landed.st_dev, landed.st_ino) != (made.st_dev, made.st_ino):
            raise ResultsError(
                f"{self.path}: changed while this run wrote the folder (not by the run)"
            )
        note_written(self.path, digest=digest, size=self.size)

    def _let_go(self) -> None:
        if self.sink is not None:
            with contextlib.suppress(OSError):
                self.sink.close()
            self.sink = None
        if self.handle >= 0:
            os.close(self.handle)
            self.handle = -1

    def discard(self) -> None:
        if self.out is not None:
            with contextlib.suppress(OSError, pa.ArrowException):
                self.out.close()
            self.out = None
        if not self.landed:
            discard(self.temp)
        self._let_go()

    def _failed(self, exc: OSError) -> ResultsWriteError:
        return ResultsWriteError(f"{self.path}: cannot write ({exc.strerror or exc})")


CELLS_AHEAD = 64  # cells read ahead by the 16 reading threads of a compaction, in all


def _cell_tables(
    where: Path, table: str, cells: list[list[str]], readers: int
) -> Iterator[pa.Table]:
    """Each cell's rows of ``table``, sorted, in order; read by ``readers`` threads (Parquet
    decoding lets go of the GIL), a window of cells at a time (its share of ``CELLS_AHEAD``)
    so memory stays bounded however many files are written at once."""

    def read(ids: list[str]) -> pa.Table:
        return _cell_rows(where, table, ids)

    ahead = max(2, CELLS_AHEAD * readers // 16)
    with ThreadPoolExecutor(max_workers=max(1, min(readers, os.cpu_count() or 1))) as pool:
        for start in range(0, len(cells), ahead):
            yield from pool.map(read, cells[start : start + ahead])


def _cell_rows(where: Path, table: str, ids: list[str]) -> pa.Table:
    """One cell's rows of ``table`` (its batches ``ids``), sorted as ``load_results`` sorts."""
    parts = [where / part_name(i) for i in ids]  # this version's: only its runs compact
    gone = next((p for p in parts if not p.exists()), None)
    if gone is not None:  # its games part landed, so it did too: skipping it loses its rows
        raise ResultsError(f"{gone}: gone while the folder was compacted (another run in it?)")
    arrow = pa.concat_tables([read_table_part(table, p) for p in parts])
    keys = [k for k in SORT_KEYS if k in arrow.column_names and k != "cell"]
    order = key_order([arrow[k].to_numpy() for k in keys])
    return arrow if order is None else arrow.take(order)


class Compaction:
    """A run's compaction done while it plays, in the parent (which otherwise waits on its
    workers): each cell is appended to every table's compact file, in the cells' name order,
    as soon as all its batches have landed, a thread per table and file (``shards_of``),
    started with the file's first cell and done with its last. ``finish`` appends what is
    left and lands the files as ``compact`` does (the games one last, the parts removed
    after); the files are the same bytes as ``compact``'s. ``abandon`` (a stopped run)
    removes what was written and leaves the parts."""

    def __init__(self, folder: Path, cells: list[tuple[str, list[str]]], landed: set[str]):
        self.folder = folder
        self.order = [ids for _, ids in sorted(cells)]  # the cells' name order
        self.shards = shards_of(self.order)
        self.shard_of = [k for k, shard in enumerate(self.shards) for _ in shard]
        self.batches = sorted(b for _, ids in cells for b in ids)
        self.landed = set(landed)
        self.inbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.writers: dict[tuple[str, int], _CompactWriter] = {}
        self.feeds: dict[tuple[str, int], queue.SimpleQueue[list[str] | None]] = {}
        self.threads: list[threading.Thread] = []
        self.tables: list[str] = []  # the folder's tables, found when the first cell is in
        self.error: BaseException | None = None
        self.stopping = threading.Event()
        self.appended = 0
        self.lead = threading.Thread(target=self._lead, name="compaction", daemon=True)
        self.lead.start()

    def batch_landed(
        self, batch_id: str, written: dict[str, tuple[str, int]] | None = None
    ) -> None:
        """``batch_id`` has landed (``written``: its files' digests and sizes, which this
        process's run has noted already)."""
        self.inbox.put(batch_id)

    def _lead(self) -> None:
        """Hands each cell whose batches have all landed, in order, to the tables' threads."""
        try:
            while True:
                batch = self.inbox.get()
                if batch is None:
                    break
                self.landed.add(batch)
                while self.appended < len(self.order) and not self.stopping.is_set():
                    ids = self.order[self.appended]
                    if not self.landed.issuperset(ids):
                        break
                    shard = self.shard_of[self.appended]
                    self._start_shard(shard)
                    for table in self.tables:
                        self.feeds[(table, shard)].put(ids)
                    self.appended += 1
        except BaseException as exc:
            self.error = self.error or exc
        finally:
            for feed in self.feeds.values():
                feed.put(None)

    def _start_shard(self, shard: int) -> None:
        """A writer and a thread for each table's file of ``shard``, once."""
        if not self.tables:
            self.tables = [t for t in WRITE_ORDER if (self.folder / t).is_dir()]
        shards = len(self.shards)
        for table in self.tables:
            key = (table, shard)
            if key in self.writers:
                continue
            where = self.folder / table
            self.writers[key] = _CompactWriter(where, table, self.batches, shard, shards)
            self.feeds[key] = queue.SimpleQueue()
            thread = threading.Thread(
                target=self._append, args=(key,), name=f"compaction-{table}-{shard}",
                daemon=True,
            )  # fmt: skip
            self.threads.append(thread)
            thread.start()

    def _append(self, key: tuple[str, int]) -> None:
        """Append the shard's cells to its file, and write its last rows and footer as soon
        as the last one is in (not after the run's last game)."""
        writer, feed = self.writers[key], self.feeds[key]
        table, left = key[0], len(self.shards[key[1]])
        while (ids := feed.get()) is not None:
            if self.stopping.is_set() or self.error is not None:
                continue  # drain: nothing more is written
            try:
                writer.add(_cell_rows(self.folder / table, table, ids))
                left -= 1
                if left == 0:
                    writer.close()
                    return
            except BaseException as exc:
                self.error = self.error or exc

    def _stop(self) -> None:
        self.inbox.put(None)
        self.lead.join()
        for thread in self.threads:
            thread.join()

    def finish(self) -> None:
        """Every batch has landed: append the rest, land the files, remove the parts."""
        try:
            for batch in self.batches:  # each landed already: said again, harmlessly
                self.inbox.put(batch)
            self._stop()
            if self.error is not None:
                raise self.error
            if self.appended < len(self.order):
                raise ResultsError(f"{self.folder}: a compaction stopped before its end")
            for writer in self.writers.values():
                writer.close()
            _land_compaction(self.folder, self.writers, self.batches)
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Stop; remove the files not landed (the parts hold every row)."""
        self.stopping.set()
        if self.lead.is_alive() or any(t.is_alive() for t in self.threads):
            self._stop()
        for writer in self.writers.values():
            writer.discard()


FORKED_BATCHES = 64  # a run of this many batches compacts in a process of its own
_FINISH, _ABANDON = "finish", "abandon"


def new_compaction(
    folder: Path, cells: list[tuple[str, list[str]]], landed: set[str]
) -> Compaction | ForkedCompaction:
    """The compaction of a run: a big run's in a process forked for it, so that the Parquet
    encoding (most of what a run's parent would do per game) neither holds this process's
    interpreter lock while it hands batches to workers nor counts as its work; a small run's
    in threads here, where a process would cost more than it saves. The files are the same
    bytes either way: the same ``Compaction`` writes them."""
    batches = sum(len(ids) for _, ids in cells) - len(landed)
    if batches >= FORKED_BATCHES and hasattr(os, "fork"):
        return ForkedCompaction(folder, cells, landed)
    return Compaction(folder, cells, landed)


class ForkedCompaction:
    """``Compaction``'s interface, its work done by a child process: batch ids go down a
    pipe; ``finish`` and ``abandon`` wait for the child's answer. The child dies with this
    process and leaves Ctrl-C to it; a child that dies first fails ``finish`` in one line,
    the parts kept for ``--resume``."""

    def __init__(self, folder: Path, cells: list[tuple[str, list[str]]], landed: set[str]):
        import multiprocessing

        self.folder = folder
        context = multiprocessing.get_context("fork")
        self.orders, child_end = context.Pipe()
        self.process = context.Process(
            target=_compact_forked,
            args=(folder, cells, landed, child_end, os.getpid()),
            name="compaction",
            daemon=True,
        )
        self.process.start()
        child_end.close()

    def batch_landed(
        self, batch_id: str, written: dict[str, tuple[str, int]] | None = None
    ) -> None:
        """``batch_id`` has landed; ``written``, its files' digests and sizes by path, which
        the child notes as its run's before it reads them (it was forked before they were
        written)."""
        with contextlib.suppress(OSError):  # a child gone: ``finish`` says so
            self.orders.send((batch_id, written or {}))

    def _ask(self, order: str) -> BaseException | None:
        try:
            self.orders.send(order)
            answer, written = self.orders.recv()
        except (OSError, EOFError):
            answer = None
            lost = True
        else:
            lost = False
            note_ledger(written)
        self.orders.close()
        self.process.join()  # its exit code is known only once it is reaped
        if lost:
            return ResultsError(
                f"{self.folder}: the compaction's process ended before the compaction did "
                f"(exit {self.process.exitcode}); the parts are kept: run again with --resume"
            )
        return answer

    def finish(self) -> None:
        """Every batch has landed: the child appends the rest and lands the files."""
        if self.orders.closed:
            return
        error = self._ask(_FINISH)
        if error is not None:
            raise error

    def abandon(self) -> None:
        """Stop; the child removes the files not landed (the parts hold every row)."""
        if not self.orders.closed:
            self._ask(_ABANDON)


def _compact_forked(
    folder: Path,
    cells: list[tuple[str, list[str]]],
    landed: set[str],
    orders: Any,
    parent: int,
) -> None:
    from .pool import worker_start  # dies with the parent, leaves Ctrl-C to it

    worker_start(parent)
    compaction = Compaction(folder, cells, landed)
    while True:
        try:
            order = orders.recv()
        except (OSError, EOFError):  # the parent is gone
            compaction.abandon()
            return
        if isinstance(order, tuple):
            batch_id, written = order
            for path, (digest, size) in written.items():
                note_written(path, digest=digest, size=size)
            compaction.batch_landed(batch_id)
            continue
        if order in (_FINISH, _ABANDON):
            answer: BaseException | None = None
            try:
                compaction.finish() if order == _FINISH else compaction.abandon()
            except BaseException as exc:
                answer = exc if isinstance(exc, ResultsError) else ResultsError(f"{exc}")
            with contextlib.suppress(OSError):
                orders.send((answer, ledger()))  # what it wrote and removed: the run's
            return
        compaction.batch_landed(order)
