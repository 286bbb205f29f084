"""The results folder: parts (Arrow IPC) written as batches finish, a few compact Parquet
files per table once the run is done, and reading them back.

Layout (docs/data.md): ``manifest.json`` (the study, schema version and fingerprint, written
atomically when the first batch lands), then one part per batch in ``games/_parts/``,
``seats/_parts/``, ``destinations/_parts/`` (and ``records/`` with --records). Workers write
their batch's parts themselves (``land_files``): each file goes to a hidden temporary name in
its own folder and is renamed; the games part is renamed last, so a batch counts as done
exactly when its games part exists - a killed run loses no finished batch and a resumed one
counts none twice. Temporary files start with a dot (pandas, pyarrow and DuckDB skip them) and
a resume removes those left by killed workers. A run merges each table into ``compact.parquet``
(a big run: files of about ``SHARD_BATCHES`` batches, ``compact-00000.parquet`` and on, before
it) while it plays (``Compaction``) or after (``compact``): the games table's
``compact.parquet`` last, naming the batches they hold. Every file of a table has the same
explicit Arrow schema, in compact types, so each table folder reads whole with pandas, pyarrow
or DuckDB (which skip its ``_parts``); ``load_results`` hands the tables back in wide types.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import tempfile
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ResultsError, ResultsWriteError
from .plan import Plan

if TYPE_CHECKING:
    from .rows import TableRows

# 2: compact column types, zstd, a finished run's parts compacted; 3: a big run's table
# compacted into several files (``SHARD_BATCHES``), which an older reader would half read;
# 4: parts in Arrow IPC (``encode_part``), which an older version would not see
SCHEMA_VERSION = 5  # 5: the manifest holds the plan (sims/plan.py)
READABLE_VERSIONS = (1, 2, 3, 4, 5)  # load_results reads each; a run resumes only its own version
TABLES = ("seats", "destinations", "games")  # games last: it marks the batch done
# in landing order; "quality" only for a study that asks for it ([metrics] quality = true)
WRITE_ORDER = ("seats", "destinations", "quality", "games")
MANIFEST = "manifest.json"
PACKAGE = "ttr-cardgame"
COMPACT = "compact.parquet"  # a finished run's table (``compact``); the last file to land
BATCHES_KEY = b"ttr_cardgame.batches"  # the batches a compaction holds (JSON list of ids)
SHARDS_KEY = b"ttr_cardgame.shards"  # the files a compaction wrote per table, when several
# batches, about, a compact file holds: the files of a big run are written side by side by
# threads of their own (Parquet's encoding takes one core per file), in the cells' order
SHARD_BATCHES = 200
COMPRESSION = "zstd"  # the compact files'
# a batch's part of a table: TABLE/_parts/part-<batch>.arrows.lz4 (``encode_part``), in a
# folder that pandas, pyarrow and DuckDB skip when they read the table's folder
PARTS = "_parts"
PART_SUFFIX = ".arrows.lz4"
PART_COMPRESSION = "lz4"  # Arrow's name for an LZ4 frame (what the ``lz4`` tool reads)
OLD_PART_SUFFIX = ".parquet"  # schema versions 1 to 3: TABLE/part-<batch>.parquet
RUN_MARK_PREFIX = ".dask-run-"  # the mark a Dask run places in its folder (sims/cluster.py)

# On disk each column has the smallest type that holds every value the game can produce, and
# text is dictionary-encoded (pandas reads it as a category); ``load_results`` hands back the
# wide types (int64, str) whatever the file holds.
_TEXT = pa.dictionary(pa.int32(), pa.string())
_BASE = [
    ("study", _TEXT),
    ("cell", _TEXT),
    ("variant", _TEXT),
    ("players", pa.int8()),
    ("game_index", pa.int32()),
    ("seed", pa.int64()),
]
_COLUMNS: dict[str, list[tuple[str, pa.DataType]]] = {
    "games": [
        *_BASE,
        ("seats", _TEXT),
        ("winners", _TEXT),
        ("winner_strategies", _TEXT),
        ("n_winners", pa.int8()),
        ("turns", pa.int16()),
        ("rounds", pa.int8()),
        ("sim_minutes", pa.float64()),
        ("steals", pa.int16()),
        ("failed", pa.bool_()),
        ("failure_seat", pa.int8()),
        ("failure_strategy", _TEXT),
        ("failure_error", _TEXT),
    ],
    "seats": [
        *_BASE,
        ("seat", pa.int8()),
        ("strategy", _TEXT),
        ("score", pa.int16()),
        ("destination_points", pa.int16()),
        ("penalties", pa.int16()),
        ("bonus_points", pa.int16()),
        ("big_cities", _TEXT),
        ("n_big_cities", pa.int8()),
        ("kept", pa.int16()),
        ("reached", pa.int16()),
        ("unreached", pa.int16()),
        ("is_winner", pa.bool_()),
        ("win_share", pa.float64()),
        ("rank", pa.int8()),
        ("hand_left", pa.int16()),
        ("circulation_end", pa.int16()),
        ("steals_made", pa.int16()),
        ("steals_suffered", pa.int16()),
        ("round1_points", pa.int16()),
        ("round2_points", pa.int16()),  # null with one round
    ],
    "destinations": [
        *_BASE,
        ("seat", pa.int8()),
        ("destination_id", pa.int16()),
        ("offered_turn", pa.int16()),
        ("offered_round", pa.int8()),
        ("kept", pa.bool_()),
        ("strategy", _TEXT),
        ("points", pa.int16()),
        ("cards", pa.int16()),
        ("reached", pa.bool_()),
        ("reached_round", pa.int8()),  # null unless reached
        ("net_points", pa.int16()),
    ],
}
_COLUMNS["quality"] = [  # one row per finished game (sims/quality.py defines each metric)
    *_BASE,
    ("positions", pa.int16()),
    ("lead_changes_chance", pa.int16()),
    ("lead_changes_points", pa.int16()),
    ("drama", pa.float64()),
    ("decisive_at", pa.int16()),  # null when the winner's chance never stays above 1/2
    ("decisive_fraction", pa.float64()),
    ("excitement", pa.float64()),
    ("comeback", pa.float64()),
    ("lowest_chance", pa.float64()),
    ("final_margin", pa.int16()),
]
NULLABLE_INTS = {
    "seats": ("round2_points",),
    "destinations": ("reached_round",),
    "quality": ("decisive_at",),
}


@cache
def schema(table: str) -> pa.Schema:
    """The one Arrow schema of ``table`` on disk, for every part (empty ones too).

    Its pandas metadata makes the integer columns that may be missing read back as pandas'
    nullable integers (``Int16``, not float) with ``pd.read_parquet``.
    """
    return _with_pandas_metadata(table, pa.schema(_COLUMNS[table]))


@cache
def wide_schema(table: str) -> pa.Schema:
    """``table`` as ``load_results`` hands it over: whole numbers ``int64``, text plain
    strings, whatever the files hold (the frames reports are written against)."""
    fields = []
    for name, kind in _COLUMNS[table]:
        if pa.types.is_dictionary(kind):
            kind = pa.string()
        elif pa.types.is_integer(kind):
            kind = pa.int64()
        fields.append(pa.field(name, kind))
    return _with_pandas_metadata(table, pa.schema(fields))


def _with_pandas_metadata(table: str, plain: pa.Schema) -> pa.Schema:
    """``plain`` with the pandas metadata that reads its integer columns that may be missing
    as pandas' nullable integers of the same width (``Int16``, ``Int64``), not floats."""
    frame = plain.empty_table().to_pandas()
    for column in NULLABLE_INTS.get(table, ()):
        frame[column] = frame[column].astype(frame[column].dtype.name.capitalize())
    return plain.with_metadata(pa.Schema.from_pandas(frame, preserve_index=False).metadata)


def part_name(batch_id: str) -> str:
    """A batch's part, from its table's folder."""
    return f"{PARTS}/part-{batch_id}{PART_SUFFIX}"


def batch_of(part: Path) -> str:
    """The batch a part holds (``part_name``'s inverse; an older version's name too)."""
    suffix = PART_SUFFIX if part.name.endswith(PART_SUFFIX) else part.suffix
    return part.name.removeprefix("part-").removesuffix(suffix)


def part_files(where: Path) -> dict[str, Path]:
    """A table folder's parts by batch: this version's, or an older version's Parquet ones
    (a folder of schema version 1 to 3 that was never compacted)."""
    found: dict[str, Path] = {}
    for folder, suffix in ((where, OLD_PART_SUFFIX), (where / PARTS, PART_SUFFIX)):
        if folder.is_dir():
            found.update((batch_of(p), p) for p in folder.glob(f"part-*{suffix}"))
    return dict(sorted(found.items()))


def write_batch(folder: Path, batch_id: str, tables: dict[str, list[dict[str, Any]]]) -> None:
    """Write one batch's rows atomically per file, games last."""
    write_parts(folder, batch_id, batch_tables(batch_id, tables))


def batch_tables(
    batch_id: str, tables: Mapping[str, list[dict[str, Any]] | TableRows]
) -> dict[str, pa.Table]:
    """A batch's rows (dicts, or a table's ``sims.rows.TableRows``) as Arrow tables in the
    schemas; a value that does not fit is a ResultsError before anything is written."""
    names = [t for t in WRITE_ORDER if t in TABLES or t in tables]
    arrow = {}
    for table in names:
        rows = tables.get(table, [])
        arrow[table] = (
            arrow_rows(table, batch_id, rows) if isinstance(rows, list) else rows.arrow(batch_id)
        )
    return arrow


def write_parts(folder: Path, batch_id: str, arrow: dict[str, pa.Table]) -> None:
    land_files(folder, encode_parts(batch_id, arrow))


def encode_parts(
    batch_id: str, arrow: dict[str, pa.Table], records: list[dict[str, Any]] | None = None
) -> dict[str, bytes]:
    """A batch's files as bytes by path within the results folder, in landing order: the
    games part last (it marks the batch done), so records land before it too."""
    files = {}
    for table in (t for t in WRITE_ORDER if t in arrow):
        if table == "games" and records is not None:
            files[f"records/part-{batch_id}.jsonl"] = _jsonl(records)
        files[f"{table}/{part_name(batch_id)}"] = encode_part(arrow[table])
    return files


def encode_part(arrow: pa.Table) -> bytes:
    """One table's part: an Arrow IPC stream, compressed whole as one LZ4 frame. A part
    lives only until the compaction reads it back: this costs a tenth of Parquet's time to
    write and read, and is smaller than compressing each column apart (Arrow's IPC
    compression, which pays for a codec per buffer). Parquet is for the files people read."""
    sink = pa.BufferOutputStream()
    packed = pa.CompressedOutputStream(sink, PART_COMPRESSION)
    with packed, pa.ipc.new_stream(packed, arrow.schema) as out:
        out.write_table(arrow)
    return sink.getvalue().to_pybytes()


def _is_part(path: Path) -> bool:
    return path.name.endswith(PART_SUFFIX)


def read_part(path: str | Path) -> pa.Table:
    """A part as its batch wrote it, for a look at a kept or unfinished run's parts
    (``load_results`` reads them all, checked and sorted); an older version's Parquet part
    too."""
    path = Path(path)
    if _is_part(path):
        return _part_stream(path).read_all()
    return pq.ParquetFile(path).read(use_threads=False)


def _part_stream(path: Path) -> pa.ipc.RecordBatchStreamReader:
    return pa.ipc.open_stream(pa.CompressedInputStream(pa.OSFile(str(path)), PART_COMPRESSION))


def _jsonl(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()


def land_files(folder: Path, files: dict[str, bytes]) -> None:
    """Write a batch's files (from ``encode_parts``) atomically, one by one, in order."""
    for name, data in files.items():
        _write_atomic(folder / name, data)


def temp_path(target: Path) -> Path:
    """Where ``target`` is written before its rename: hidden (readers of a table folder skip
    dot files), in the same folder (the rename is atomic), per process (no two writers
    share one)."""
    return target.parent / f".{target.name}.{os.getpid()}.tmp"


def _write_atomic(target: Path, data: bytes) -> None:
    with _atomic(target) as temp:
        _write_file(temp, data)


@contextlib.contextmanager
def _atomic(target: Path) -> Iterator[Path]:
    """A temporary path to write ``target`` to, renamed to it when the block ends: the file
    is whole or absent, and a failed write (a full disk) leaves no temporary file and is one
    ResultsWriteError."""
    temp = temp_path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        yield temp
        os.replace(temp, target)
    except OSError as exc:
        _discard(temp)
        raise ResultsWriteError(f"{target}: cannot write ({exc.strerror or exc})") from None


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (one seam for tests that fill the disk)."""
    with open(path, "wb") as out:
        out.write(data)


def _discard(temp: Path) -> None:
    """Remove a temporary file that failed to be written (a full disk leaves none behind)."""
    with contextlib.suppress(OSError):
        temp.unlink()


def remove_temp_files(folder: Path, batch_id: str = "", compaction: bool = True) -> None:
    """Remove the temporary files of killed writers (all, or one batch's): never results;
    ``compaction=False`` keeps those of a compaction (one still writing)."""
    patterns = [f".part-{batch_id}*.tmp", f"part-{batch_id}*.tmp"]  # and older names
    if not batch_id and compaction:
        patterns.append(".compact*.parquet.*.tmp")  # a compaction's
    subs = [*WRITE_ORDER, *(f"{table}/{PARTS}" for table in WRITE_ORDER), "records"]
    for sub in subs:
        where = folder / sub
        if not where.is_dir():
            continue
        for pattern in patterns:
            with contextlib.suppress(OSError):
                for path in list(where.glob(pattern)):
                    _discard(path)
    if not batch_id:  # and a manifest's half-written copy, the mark a killed Dask client left
        _discard(folder / f".{MANIFEST}.tmp")
        with contextlib.suppress(OSError):
            for path in list(folder.glob(f"{RUN_MARK_PREFIX}*")):
                _discard(path)


def arrow_rows(table: str, batch_id: str, rows: list[dict[str, Any]]) -> pa.Table:
    """Dict rows as an Arrow table in ``table``'s schema; one that does not fit is a
    ResultsError."""
    try:
        return pa.Table.from_pylist(rows, schema=schema(table))
    except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
        raise ResultsError(
            f"batch {batch_id}: a {table} row does not fit the results schema ({exc})"
        ) from None


def done_batches(folder: Path) -> set[str]:
    """The batches that landed: named by the compact games file, or a games part each and a
    part in every other table (one removed by hand is played again, not lost)."""
    done = _part_ids(folder / "games")
    for table in _other_tables(folder):
        done &= _part_ids(folder / table)
    return done | _compact_ids(folder / "games")


def _other_tables(folder: Path) -> list[str]:
    """The tables besides games that every batch of ``folder`` wrote: the seats and
    destinations always, the others where their folder is."""
    return [t for t in WRITE_ORDER if t != "games" and (t in TABLES or (folder / t).is_dir())]


def _part_ids(where: Path) -> set[str]:
    return set(part_files(where))


def compact_name(shard: int, shards: int) -> str:
    """The file of a table's ``shard``-th share of a compaction of ``shards`` files: the last
    is ``COMPACT`` (the games table's marks the compaction done), the others
    ``compact-00000.parquet`` and on, so that the names sort in the rows' order."""
    return COMPACT if shard == shards - 1 else f"compact-{shard:05d}.parquet"


def is_compact(path: Path) -> bool:
    return path.name == COMPACT or (
        path.name.startswith("compact-") and path.name.endswith(".parquet")
    )


def _compact_ids(where: Path) -> set[str]:
    """The batches ``where``'s compaction holds (read from its ``COMPACT`` file's footer);
    none without one."""
    return _footer(where / COMPACT)[0] if (where / COMPACT).exists() else set()


def _footer(path: Path) -> tuple[set[str], int]:
    """The batches of the compaction a compact file belongs to, and its number of files."""
    try:
        metadata = pq.read_schema(path).metadata or {}
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
    written = table == "games" or table in _other_tables(folder)  # by every batch
    if merged and written:  # every table's files land before the games one naming the batches
        files = _compact_files_or_error(folder, table, merged)
    else:
        files = _compact_files(where, merged) or []
    parts = {batch: p for batch, p in part_files(where).items() if batch not in merged}
    if written and table != "games":
        landed = sorted(_part_ids(folder / "games") - merged - set(parts))
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
    merged = _compact_ids(folder / "games")
    if merged:  # every table's compaction whole, or an error: nothing is removed then
        for table in ("games", *_other_tables(folder)):
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
                _discard(path)
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
    if _compact_ids(folder / "games"):
        raise ResultsError(
            f"{folder}: holds a compacted table and parts it does not hold; "
            "load it with load_results, or run the study again into another --out"
        )
    batches = list(found)
    cells: dict[str, list[str]] = {}  # a batch id starts with its cell's number: c0007-g0000048
    for batch in batches:
        cells.setdefault(batch.split("-")[0], []).append(batch)
    first = [_read_part("games", found[ids[0]]) for ids in cells.values()]
    named = [part.column("cell")[0].as_py() for part in first]
    order = [cells[number] for _, number in sorted(zip(named, cells, strict=True))]
    tables = [t for t in WRITE_ORDER if (folder / t).is_dir()]
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


def _remove_parts(where: Path, batches: set[str]) -> None:
    """Remove a table's parts of ``batches``, and its parts folder once it is empty."""
    for batch, path in part_files(where).items():
        if batch in batches:
            _discard(path)
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
        self.temp = temp_path(self.path)
        self.buffer: list[pa.Table] = []
        self.rows = 0
        self.out: pq.ParquetWriter | None = None
        self.closed = self.landed = False

    def _open(self) -> pq.ParquetWriter:
        if self.out is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.out = pq.ParquetWriter(self.temp, self.target, compression=COMPRESSION)
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
        except OSError as exc:
            raise self._failed(exc) from None
        self.out, self.closed = None, True

    def land(self) -> None:
        try:
            os.replace(self.temp, self.path)
        except OSError as exc:
            raise self._failed(exc) from None
        self.landed = True

    def discard(self) -> None:
        if self.out is not None:
            with contextlib.suppress(OSError, pa.ArrowException):
                self.out.close()
            self.out = None
        if not self.landed:
            _discard(self.temp)

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
    arrow = pa.concat_tables([_read_part(table, p) for p in parts])
    keys = [k for k in SORT_KEYS if k in arrow.column_names and k != "cell"]
    order = _key_order([arrow[k].to_numpy() for k in keys])
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

    def batch_landed(self, batch_id: str) -> None:
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


def check_output_folder(folder: Path) -> None:
    """Fail before any game if results cannot go to ``folder`` (a file, unwritable, /proc).

    Nothing is created: a folder that does not exist is probed with a temporary sibling,
    and the names it would make are held to what the file system takes.
    """
    if "\0" in str(folder):
        raise ResultsError(f"{str(folder)!a}: a folder's name cannot hold a NUL character")
    try:
        if folder.exists() and not folder.is_dir():
            raise ResultsError(f"{folder}: is a file, not a results folder")
        parent, missing = folder, []
        while not parent.exists():
            missing.append(parent.name)
            parent = parent.parent
        if not parent.is_dir():
            raise ResultsError(f"{folder}: {parent} is a file, not a folder")
        probe = tempfile.mkdtemp(prefix=".probe-", dir=parent)
        os.rmdir(probe)
        longest = max(missing, key=lambda name: len(os.fsencode(name)), default="")
        limit = _name_limit(parent)
        if len(os.fsencode(longest)) > limit:
            raise ResultsError(
                f"{folder}: a name in it is {len(os.fsencode(longest))} bytes long; "
                f"{parent} takes names of at most {limit}"
            )
    except OSError as exc:
        raise ResultsError(
            f"{folder}: cannot write results there ({exc.strerror or exc})"
        ) from None


def _name_limit(folder: Path) -> int:
    """The longest file name ``folder``'s file system takes, in bytes (255 where unsaid)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def is_empty_folder(folder: Path) -> bool:
    try:
        return not folder.exists() or not any(folder.iterdir())
    except OSError as exc:
        raise ResultsError(f"{folder}: cannot read ({exc.strerror or exc})") from None


def write_manifest(
    folder: Path, study: dict[str, Any], fingerprint: dict[str, str], plan: dict[str, Any]
) -> None:
    """Write the manifest atomically (temp file, then rename): a manifest is whole or absent.
    It keeps the study as given (what a resume must match) and the plan it resolved to
    (what the reports read)."""
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "study": study,
        "plan": plan,
        "fingerprint": fingerprint,
    }
    target = folder / MANIFEST
    temp = folder / f".{MANIFEST}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write_file(temp, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
        os.replace(temp, target)
    except OSError as exc:
        _discard(temp)
        raise ResultsWriteError(f"{target}: cannot write ({exc.strerror or exc})") from None


def manifest_plan(manifest: dict[str, Any], path: Path) -> Plan:
    """The plan a manifest holds; one written before plans (schema 1 to 4) has it resolved
    from its study, as its run resolved it, loading no strategy."""
    if "plan" in manifest:
        return Plan.from_dict(manifest["plan"], f"{path}: plan")
    from .study import legacy_plan  # the study parser: only for such old folders

    return legacy_plan(manifest["study"], str(path))


def read_manifest(folder: Path) -> dict[str, Any] | None:
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("schema_version") not in READABLE_VERSIONS:
        version = manifest.get("schema_version") if isinstance(manifest, dict) else None
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ResultsError(
            f"{path}: results schema version {version!r}; this version reads {readable}"
        )
    if not isinstance(manifest.get("study"), dict):
        raise ResultsError(f"{path}: the manifest names no study")
    return manifest


# ------------------------------------------------------------------ fingerprint
FINGERPRINT_PARTS = {
    "card_data": "the card data (cardgame/data)",
    "rules": "the rules (defaults or the study's variants)",
    "package": "the package version",
    "source": "the source code of cardgame/ or sims/",
}


def fingerprint(variants: dict[str, Any]) -> dict[str, str]:
    """What, besides the study, fixes the results: resume refuses a folder made otherwise."""
    from cardgame import Rules

    rules = {"defaults": Rules().to_dict(), "variants": variants}
    return {
        "card_data": _card_data_hash(),
        "rules": _digest(json.dumps(rules, sort_keys=True).encode()),
        "package": _package_version(),
        "source": _source_hash(),
    }


def fingerprint_change(stored: Any, current: dict[str, str]) -> str | None:
    """What changed between a stored fingerprint and now (a phrase ending in "changed")."""
    if not isinstance(stored, dict):
        return "the simulator changed (these results predate fingerprints)"
    for key, what in FINGERPRINT_PARTS.items():
        if stored.get(key) != current[key]:
            if key == "package":
                return f"{what} changed ({stored.get(key)} -> {current[key]})"
            return f"{what} changed"
    return None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@cache
def _card_data_hash() -> str:
    folder = resources.files("cardgame") / "data"
    files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".csv"))
    return _digest(b"".join(f.encode() + b"\0" + (folder / f).read_bytes() for f in files))


@cache
def _source_hash() -> str:
    import cardgame
    import sims

    parts = []
    for package in (cardgame, sims):
        root = Path(str(package.__file__)).parent
        # the native core's sources too: the results are meant to be the same on it, but a
        # change there is a change of the simulator all the same
        sources = [p for pattern in ("*.py", "*.pyx", "*.pxd") for p in root.rglob(pattern)]
        for path in sorted(sources):
            parts.append(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes())
    return _digest(b"\0".join(parts))


def _package_version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Results:
    """A study's tidy tables (docs/data.md). The destinations table, by far the longest
    (some 46 rows a game), is read only when asked for (``load_results(folder,
    destinations=False)``): ``destination_chunks`` and ``destination_rows`` read the folder a
    bounded chunk at a time, so a report of a million games never holds it whole."""

    games: pd.DataFrame
    seats: pd.DataFrame
    _destinations: pd.DataFrame | None  # None: still in the folder's files
    study: dict[str, Any]  # the study as given (the manifest's)
    plan: Plan  # the study resolved (sims/plan.py)
    folder: Path
    quality: pd.DataFrame | None = None  # a study with [metrics] quality = true

    @property
    def destinations(self) -> pd.DataFrame:
        """Every destination row, in wide types, sorted (read from the folder once)."""
        if self._destinations is None:
            self._destinations = self.destination_rows()
        return self._destinations

    def destination_chunks(self, columns: list[str]) -> Iterator[pd.DataFrame | pa.Table]:
        """The destination rows' ``columns``, whole games at a time: the frame itself when it
        is in memory, else the folder's files as Arrow tables in compact types, a bounded
        chunk at a time (``table_chunks``)."""
        if self._destinations is not None:
            yield self._destinations[columns]
            return
        yield from table_chunks(self.folder, "destinations", columns)

    def destination_rows(self, cards: set[int] | None = None) -> pd.DataFrame:
        """The destination rows (of ``cards`` only, if given) in wide types, sorted, as
        ``load_results`` would give them."""
        if self._destinations is not None:
            frame = self._destinations
            return frame if cards is None else frame[frame["destination_id"].isin(cards)]
        names = wide_schema("destinations").names
        if cards is not None and not cards:
            return _as_wide("destinations", [])
        pieces = []
        for chunk in table_chunks(self.folder, "destinations", names):
            if cards is not None:
                keep = np.isin(chunk.column("destination_id").to_numpy(), list(cards))
                chunk = chunk.filter(pa.array(keep))
            pieces.append(chunk)
        return _as_wide("destinations", pieces)


def load_results(folder: str | Path, destinations: bool = True) -> Results:
    """Read a results folder; one clear ResultsError for anything missing or corrupt.
    ``destinations=False`` leaves that table in its files until it is asked for
    (``Results.destinations``, ``destination_chunks``)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsError(f"{folder}: no such results folder")
    manifest = read_manifest(folder)
    if manifest is None:
        raise ResultsError(f"{folder}: not a results folder (no {MANIFEST})")
    frames = {}
    quality = bool(manifest["study"].get("metrics", {}).get("quality"))
    merged = _compact_ids(folder / "games")
    tables = [t for t in TABLES if destinations or t != "destinations"]
    for table in (*tables, *(("quality",) if quality else ())):
        frames[table] = _read_parts(table, table_files(folder, table, merged))
    games = frames["games"]
    if games.empty:
        raise ResultsError(f"{folder}: holds no finished games")
    _refuse_run_faults(folder, games)
    done = pd.MultiIndex.from_arrays([games["cell"], games["game_index"]])
    for table in ("seats", "destinations", "quality"):  # rows of batches without a games part
        frame = frames.get(table)
        if frame is None:
            continue
        if not frame.empty:
            keep = pd.MultiIndex.from_arrays([frame["cell"], frame["game_index"]]).isin(done)
            if not keep.all():
                frames[table] = frame[keep].reset_index(drop=True)
    if not destinations:
        _check_table_files(folder, "destinations", merged)
    return Results(
        frames["games"],
        frames["seats"],
        frames.get("destinations"),
        manifest["study"],
        manifest_plan(manifest, folder / MANIFEST),
        folder,
        frames.get("quality"),
    )


CHUNK_ROWS = 1 << 20  # rows a chunk of ``table_chunks`` holds, about: memory stays bounded


def table_chunks(folder: Path, table: str, columns: list[str]) -> Iterator[pa.Table]:
    """``table``'s rows of the folder's finished games (those ``load_results`` gives), its
    ``columns`` in compact types, about ``CHUNK_ROWS`` at a time; a game's rows are never
    split between chunks (a compact file is in game order: the rows of the game a chunk
    ends in go on to the next). Chunks come in file order, not sorted across files."""
    merged = _compact_ids(folder / "games")
    done = _part_ids(folder / "games") | merged  # done_batches, the footer read once
    target = schema(table)
    buffer: list[pa.Table] = []
    rows = 0
    for path in table_files(folder, table, merged):
        if is_compact(path):
            yield from _compact_chunks(table, path, target, columns)
            continue
        if batch_of(path) not in done:
            continue  # its games part never landed: not a finished batch
        part = _read_part(table, path).select(columns)
        buffer.append(part)
        rows += part.num_rows
        if rows >= CHUNK_ROWS:
            yield pa.concat_tables(buffer)
            buffer, rows = [], 0
    if buffer:
        yield pa.concat_tables(buffer)


def _compact_chunks(
    table: str, path: Path, target: pa.Schema, columns: list[str]
) -> Iterator[pa.Table]:
    """A compact file's rows in chunks of whole games (its rows are in game order)."""
    try:
        file = pq.ParquetFile(path)
        _check_columns(table, path, file.schema_arrow, target)
        carry: pa.Table | None = None
        wanted = list(dict.fromkeys([*columns, "cell", "game_index"]))
        for batch in file.iter_batches(batch_size=CHUNK_ROWS, columns=wanted, use_threads=True):
            chunk = pa.Table.from_batches([batch])
            if carry is not None:
                chunk = pa.concat_tables([carry, chunk])
            chunk = chunk.unify_dictionaries().combine_chunks()
            cut = _last_game_start(chunk)
            carry = chunk.slice(cut)
            if cut:
                yield chunk.slice(0, cut).select(columns)
        if carry is not None and carry.num_rows:
            yield carry.select(columns)
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: corrupt Parquet file ({exc})") from None


def _last_game_start(chunk: pa.Table) -> int:
    """The index of the first row of the chunk's last game."""
    if not chunk.num_rows:
        return 0
    index = chunk.column("game_index").to_numpy()
    cell = chunk.column("cell").combine_chunks()  # one dictionary: equal texts, equal codes
    codes = cell.indices.to_numpy(zero_copy_only=False)
    same = (codes == codes[-1]) & (index == index[-1])
    return int(np.argmax(same))


def _check_columns(table: str, path: Path, found: pa.Schema, target: pa.Schema) -> None:
    missing, wrong = _schema_problem(found, target)
    if missing:
        raise ResultsError(f"{path}: not a {table} part: no column {missing}")
    if wrong:
        raise ResultsError(f"{path}: columns of the wrong type ({wrong})")


def _schema_problem(found: pa.Schema, target: pa.Schema) -> tuple[str, str]:
    """The first column of ``target`` a file of schema ``found`` lacks, and the first it
    holds in another type ('' for none)."""
    for name in target.names:
        index = found.get_field_index(name)
        if index < 0:
            return name, ""
        if found.field(index).type != target.field(name).type:
            return "", name
    return "", ""


def _check_table_files(folder: Path, table: str, merged: set[str]) -> None:
    """What ``load_results`` would refuse in a table it does not read yet, refused now (a
    missing or corrupt file is one line before any work, not halfway through a report)."""
    target = schema(table)
    for path in table_files(folder, table, merged):
        found = _file_schema(path)
        if is_compact(path):
            _check_columns(table, path, found, target)


def _as_wide(table: str, pieces: list[pa.Table]) -> pd.DataFrame:
    """Compact Arrow pieces of ``table`` as one sorted frame in its wide types."""
    target = wide_schema(table)
    if not pieces:
        return _keys_as_categories(target.empty_table().to_pandas())
    whole = pa.concat_tables([p.cast(schema(table)) for p in pieces]).cast(target)
    return _sorted(_keys_as_categories(whole.to_pandas())).reset_index(drop=True)


# how older versions recorded a batch whose worker could not report (a lost Dask scheduler, a
# cancelled future): as failed games, though none was played
RUN_FAULT_PREFIX = "worker error:"


def _refuse_run_faults(folder: Path, games: pd.DataFrame) -> None:
    """Refuse results holding such rows: their games were never played, and counting them
    as failures would change every rate computed from the folder."""
    errors = games["failure_error"].fillna("")
    faults = (
        games["failed"] & (games["failure_seat"] == -1) & errors.str.startswith(RUN_FAULT_PREFIX)
    )
    if faults.any():
        first = errors[faults].iloc[0]
        first = first if len(first) <= 80 else first[:77] + "..."
        raise ResultsError(
            f"{folder}: {int(faults.sum())} game(s) recorded as failed for a fault of the run, "
            f"not played ({first}), as older versions did: run the study again into another "
            "--out"
        )


def _read_parts(table: str, parts: list[Path]) -> pd.DataFrame:
    """One table's files as one frame in the table's wide schema (columns even with no
    rows), sorted by game (and seat, ticket)."""
    target = wide_schema(table)
    if not parts:
        return _keys_as_categories(target.empty_table().to_pandas())
    frame = _read_arrow(table, schema(table), parts).cast(target).to_pandas()
    return _sorted(_keys_as_categories(frame)).reset_index(drop=True)


KEY_TEXT = ("study", "cell", "variant")  # the text every group-by of a game names


def _keys_as_categories(frame: pd.DataFrame) -> pd.DataFrame:
    """``KEY_TEXT`` as pandas categories in sorted order: a million games' group-bys by game
    read their codes instead of hashing three million strings each time, and sort as the
    texts do."""
    for name in KEY_TEXT:
        if name in frame.columns:
            texts = sorted(frame[name].dropna().unique())
            frame[name] = pd.Categorical(frame[name], categories=texts)
    return frame


def _read_arrow(table: str, target: pa.Schema, parts: list[Path]) -> pa.Table:
    """Files of ``table`` as one Arrow table in ``target``: in one threaded pass when every
    file is plainly of the table, else one by one (older files converted, the first that
    cannot be read named)."""
    if not parts:
        return target.empty_table()
    whole = _read_whole(target, parts)
    return whole if whole is not None else _read_one_by_one(table, target, parts)


def _read_whole(target: pa.Schema, parts: list[Path]) -> pa.Table | None:
    """Every part in one pass (the Parquet ones as a threaded dataset): None when any part is
    not plainly of the table (unreadable, a column missing or of another type), for the
    part-by-part read to name it."""
    import pyarrow.dataset as ds

    parquet = [str(p) for p in parts if not _is_part(p)]
    try:
        pieces = []
        for path in (p for p in parts if _is_part(p)):  # cheap to read: one by one
            piece = read_part(path)
            if any(_schema_problem(piece.schema, target)):
                return None
            pieces.append(piece.select(target.names))
        if parquet:
            dataset = ds.dataset(parquet, format="parquet")
            for fragment in dataset.get_fragments():
                if any(_schema_problem(fragment.physical_schema, target)):
                    return None
            pieces.append(dataset.to_table(columns=target.names))
        return pa.concat_tables([p.cast(target) for p in pieces])
    except (OSError, pa.ArrowException, ValueError):
        return None


def _read_one_by_one(table: str, target: pa.Schema, parts: list[Path]) -> pa.Table:
    """The parts one at a time, converting what can be converted (the wider types of
    schema version 1 too); one ResultsError naming the first part that cannot be read as
    the table."""
    return pa.concat_tables([_read_part(table, part, target=target) for part in parts])


def _read_part(table: str, part: Path, target: pa.Schema | None = None) -> pa.Table:
    """One part in ``table``'s schema (or ``target``); one ResultsError naming a part that
    is not the table's."""
    target = target or schema(table)
    try:
        found = read_part(part)
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{part}: corrupt {_kind(part)} file ({exc})") from None
    columns = set(found.column_names)
    missing = [name for name in target.names if name not in columns]
    if missing:
        raise ResultsError(f"{part}: not a {table} part: no column {', '.join(missing)}")
    if found.schema.equals(target, check_metadata=False):
        return found.replace_schema_metadata(target.metadata)
    try:
        return found.select(target.names).cast(target)
    except (pa.ArrowException, ValueError) as exc:
        raise ResultsError(f"{part}: columns of the wrong type ({exc})") from None


def _kind(path: Path) -> str:
    return "part" if _is_part(path) else "Parquet"


def _file_schema(path: Path) -> pa.Schema:
    """A part's or compact file's schema, read from its footer; one ResultsError if it
    cannot be read."""
    try:
        if _is_part(path):
            return _part_stream(path).schema
        return pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: corrupt {_kind(path)} file ({exc})") from None


SORT_KEYS = ("cell", "game_index", "seat", "offered_turn", "destination_id")


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows in key order, ties in read order: a stable sort on the keys' codes (the cell
    names' in their sorted order, as pandas sorts them), as one integer where they fit."""
    keys = [c for c in SORT_KEYS if c in frame.columns]
    columns = []
    for name in keys:
        column = frame[name]
        if column.dtype.kind in "iub":
            columns.append(column.to_numpy())
        else:
            codes, _ = pd.factorize(column, sort=True, use_na_sentinel=False)
            columns.append(codes)
    order = _key_order(columns)
    return frame if order is None else frame.take(order)


def _key_order(columns: list[np.ndarray]) -> np.ndarray | None:
    """The stable order of rows by integer key ``columns`` (the first the most significant);
    None when they are in order already (as a compact file's rows, and a batch's games and
    seats rows, are), so nothing is copied."""
    # one integer key when the keys' ranges fit in 63 bits (always, for real studies)
    composite = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    room = 1
    for values in columns:
        low, high = (int(values.min()), int(values.max())) if len(values) else (0, 0)
        span = high - low + 1
        room *= span
        if room >= 2**63:
            return np.lexsort(columns[::-1])
        composite = composite * span + (values.astype(np.int64) - low)
    if len(composite) < 2 or bool((composite[1:] >= composite[:-1]).all()):
        return None
    return np.argsort(composite, kind="stable")
