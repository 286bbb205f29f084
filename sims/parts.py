"""A batch's parts: its rows of each table as one Arrow IPC file, written by the worker that
played it as soon as it finishes, and read back checked against the table's schema.

A part lands at ``TABLE/_parts/part-<batch>.arrows.lz4`` (and the batch's game records at
``records/part-<batch>.jsonl`` with --records): each file goes to a hidden temporary name in
its own folder and is renamed (``sims.files``); the games part is renamed last, so a batch
counts as done exactly when its games part exists - a killed run loses no finished batch and a
resumed one counts none twice. Temporary files start with a dot (pandas, pyarrow and DuckDB
skip them) and a resume removes those left by killed workers
(``sims.folder.remove_temp_files``). Parts live until the compaction (sims/compaction.py)
merges them into the table's compact files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ResultsError, ResultsWriteError
from .files import write_atomic
from .reading import checked_bytes, open_unsealed, reopened
from .schema import TABLES, WRITE_ORDER, schema

if TYPE_CHECKING:
    from .rows import TableRows

# a batch's part of a table: TABLE/_parts/part-<batch>.arrows.lz4 (``encode_part``), in a
# folder that pandas, pyarrow and DuckDB skip when they read the table's folder
PARTS = "_parts"
PART_SUFFIX = ".arrows.lz4"
PART_COMPRESSION = "lz4"  # Arrow's name for an LZ4 frame (what the ``lz4`` tool reads)
OLD_PART_SUFFIX = ".parquet"  # schema versions 1 to 3: TABLE/part-<batch>.parquet


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
            # files only: a folder of a part's name is none (hostile pass 23's dirparts23.py)
            found.update((batch_of(p), p) for p in folder.glob(f"part-*{suffix}") if p.is_file())
    return dict(sorted(found.items()))


def record_files(where: Path) -> dict[str, Path]:
    """A ``records/`` folder's record files by batch: files only, as ``part_files``."""
    if not where.is_dir():
        return {}
    return {batch_of(p): p for p in where.glob("part-*.jsonl") if p.is_file()}


def tables_besides_games(folder: Path) -> list[str]:
    """The tables besides games that every batch of ``folder`` wrote: the seats and
    destinations always, the others where their folder holds a file (an empty folder added
    is no table: hostile pass 23's ``dirparts23.py quality`` failed every resume)."""
    return [t for t in WRITE_ORDER if t != "games" and (t in TABLES or _holds_a_file(folder / t))]


def _holds_a_file(where: Path) -> bool:
    """Whether ``where`` is a folder that holds a file, or a parts folder that does: a
    writer's leftover (``.tmp``, a hidden name), which the seal leaves out, is none (hostile
    pass 28r's shadow28.py: a ``quality/x.tmp`` added made every resume fail)."""
    for inside in (where, where / PARTS):
        with contextlib.suppress(OSError):
            if inside.is_dir() and any(_a_table_file(p) for p in inside.iterdir()):
                return True
    return False


def _a_table_file(path: Path) -> bool:
    return not path.name.startswith(".") and not path.name.endswith(".tmp") and path.is_file()


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
    batch_id: str,
    arrow: dict[str, pa.Table],
    records: list[dict[str, Any] | bytes] | None = None,
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


def is_part(path: Path) -> bool:
    """Whether ``path`` is this version's part (Arrow IPC), not an older version's Parquet."""
    return path.name.endswith(PART_SUFFIX)


def read_part(path: str | Path) -> pa.Table:
    """A part as its batch wrote it, for a look at a kept or unfinished run's parts
    (``load_results`` reads them all, checked and sorted); an older version's Parquet part
    too."""
    path = Path(path)
    if is_part(path):
        return _part_stream(path).read_all()
    return pq.ParquetFile(arrow_input(path)).read(use_threads=False)


def arrow_input(path: Path) -> pa.NativeFile:
    """What Arrow reads ``path`` from: the bytes checked against its folder's seal while a
    reading of it is in force (sims/reading.py), else the regular file opened once, without
    waiting (``open_unsealed``: a named pipe in a table's place, read with
    --accept-changes, held its reader for good, hostile passes 29r and 30r)."""
    data = checked_bytes(path)
    if data is not None:
        return pa.BufferReader(data)
    with open_unsealed(path) as file:
        return pa.OSFile(reopened(file))  # Arrow's own handle on the file checked


def _part_stream(path: Path) -> pa.ipc.RecordBatchStreamReader:
    return pa.ipc.open_stream(pa.CompressedInputStream(arrow_input(path), PART_COMPRESSION))


def _jsonl(records: list[dict[str, Any] | bytes]) -> bytes:
    """One line a record: its JSON, or the bytes of its line already written (the native
    writer, ``record_line``: the same bytes)."""
    lines = [
        r if isinstance(r, bytes) else json.dumps(r, separators=(",", ":")).encode()
        for r in records
    ]
    lines.append(b"")  # the last line's newline
    return b"\n".join(lines)


def land_files(folder: Path, files: dict[str, bytes]) -> None:
    """Write a batch's files (from ``encode_parts``) atomically, one by one, in order."""
    for name, data in files.items():
        _land_file(folder / name, data)


def written_digests(files: Mapping[str, bytes]) -> dict[str, tuple[str, int]]:
    """Each of a batch's files by name: the digest and size of its bytes, which the run
    notes as its own for its seal (sims/reading.py)."""
    return {name: (hashlib.sha256(data).hexdigest(), len(data)) for name, data in files.items()}


def _land_file(target: Path, data: bytes) -> None:
    """One file whole or absent, through a temporary file of this process (workers write
    their batches' files side by side); a failed write (a full disk) leaves no temporary file
    and is one ResultsWriteError."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data, per_process=True)
    except OSError as exc:
        raise ResultsWriteError(f"{target}: cannot write ({exc.strerror or exc})") from None


def arrow_rows(table: str, batch_id: str, rows: list[dict[str, Any]]) -> pa.Table:
    """Dict rows as an Arrow table in ``table``'s schema; one that does not fit is a
    ResultsError."""
    try:
        return pa.Table.from_pylist(rows, schema=schema(table))
    except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
        raise ResultsError(
            f"batch {batch_id}: a {table} row does not fit the results schema ({exc})"
        ) from None


def read_table_part(table: str, part: Path, target: pa.Schema | None = None) -> pa.Table:
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
    return "part" if is_part(path) else "Parquet"


def file_schema(path: Path) -> pa.Schema:
    """A part's or compact file's schema, read from its footer; one ResultsError if it
    cannot be read."""
    try:
        if is_part(path):
            return _part_stream(path).schema
        return pq.read_schema(arrow_input(path))
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: corrupt {_kind(path)} file ({exc})") from None
