"""Reading a results folder back: ``load_results`` hands over a study's tables as pandas
frames in wide types (int64, str), sorted by game, from the compact files and the parts alike;
``table_chunks`` reads a table a bounded chunk of whole games at a time.

The folder (docs/data.md): its manifest (sims/folder.py), the tables' schemas
(sims/schema.py), the batches' parts (sims/parts.py) and the compact files they are merged
into (sims/compaction.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .compaction import compacted_batches, is_compact, table_files
from .errors import ResultsError
from .folder import (
    ACCEPT_HINT,
    MANIFEST,
    SealCheck,
    check_sealed,
    manifest_plan,
    read_manifest,
)
from .parts import (
    arrow_input,
    batch_of,
    file_schema,
    is_part,
    part_files,
    read_part,
    read_table_part,
)
from .plan import CHECKS_FOLDER, KNOBS_CHECK, SEARCH_CHECK, Plan
from .schema import SORT_KEYS, TABLES, key_order, schema, wide_schema

CHECKS = (KNOBS_CHECK, SEARCH_CHECK)


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
    # what ``check_sealed`` found: the later reads go through it, and it is called after each
    unchanged: SealCheck = field(
        default_factory=lambda: SealCheck(Path()), repr=False, compare=False
    )

    @property
    def destinations(self) -> pd.DataFrame:
        """Every destination row, in wide types, sorted (read from the folder once)."""
        if self._destinations is None:
            self._destinations = self.destination_rows()
        return self._destinations

    def checks(self) -> dict[str, Results]:
        """The study's checks played so far (``Plan.check_plans``), each a results folder of
        its own in ``checks/NAME``, by name."""
        out = {}
        sealed = self.unchanged.sealed
        with self.unchanged.reading():  # the seal of the study's folder covers its checks
            for name in CHECKS:
                folder = self.folder / CHECKS_FOLDER / name
                if sealed is None:
                    held = (folder / MANIFEST).is_file()
                else:  # as sealed, never as the disk says now (hostile pass 27r's checkhide27
                    # renamed a check away while a report read the study, which showed none)
                    held = sealed.name_of(folder / MANIFEST) in sealed.files
                    if held and not (folder / MANIFEST).is_file():
                        raise ResultsError(
                            f"{self.folder}: {CHECKS_FOLDER}/{name}/{MANIFEST} was removed "
                            f"while it was read ({ACCEPT_HINT})"
                        )
                if held:
                    out[name] = load_results(folder, destinations=False, accept_changes=True)
        self.unchanged()  # a check moved away and back meanwhile moved the folder's marks
        for found in out.values():
            found.unchanged = self.unchanged
        return out

    def destination_chunks(self, columns: list[str]) -> Iterator[pd.DataFrame | pa.Table]:
        """The destination rows' ``columns``, whole games at a time: the frame itself when it
        is in memory, else the folder's files as Arrow tables in compact types, a bounded
        chunk at a time (``table_chunks``)."""
        if self._destinations is not None:
            yield self._destinations[columns]
            return
        chunks = table_chunks(self.folder, "destinations", columns)
        while True:
            with self.unchanged.reading():  # only while the generator reads: never across
                chunk = next(chunks, None)
            if chunk is None:
                break
            yield chunk
        self.unchanged()

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
        with self.unchanged.reading():
            for chunk in table_chunks(self.folder, "destinations", names):
                if cards is not None:
                    keep = np.isin(chunk.column("destination_id").to_numpy(), list(cards))
                    chunk = chunk.filter(pa.array(keep))
                pieces.append(chunk)
        self.unchanged()
        return _as_wide("destinations", pieces)


def load_results(
    folder: str | Path, destinations: bool = True, accept_changes: bool = False
) -> Results:
    """Read a results folder; one clear ResultsError for anything missing or corrupt, and
    for a folder changed since its run ended (its seal, sims/folder.py ``check_sealed``),
    unless ``accept_changes``. ``destinations=False`` leaves that table in its files until it
    is asked for (``Results.destinations``, ``destination_chunks``)."""
    folder = Path(folder)
    try:
        found = folder.is_dir()
    except OSError as exc:  # a name past the system's limits
        raise ResultsError(f"{str(folder)[:120]!a}: {exc.strerror or exc}") from None
    if not found:
        raise ResultsError(f"{folder}: no such results folder")
    unchanged = check_sealed(folder, accept_changes)
    with unchanged.reading():  # every file read as the seal's check hashed it
        return _load(folder, destinations, unchanged)


def _load(folder: Path, destinations: bool, unchanged: SealCheck) -> Results:
    """``load_results``'s body, once its folder is checked."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise ResultsError(f"{folder}: not a results folder (no {MANIFEST})")
    frames = {}
    metrics = manifest["study"].get("metrics", {})
    if not isinstance(metrics, dict):  # read with changes accepted (pass 24r's odd24.py)
        raise ResultsError(f"{folder / MANIFEST}: the study's metrics are not a table")
    quality = bool(metrics.get("quality"))
    merged = compacted_batches(folder / "games")
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
    plan = manifest_plan(manifest, folder / MANIFEST)
    if "plan" in manifest:  # one resolved from an older manifest's study is the run's own
        _check_games_of_plan(folder, games, plan)
    unchanged()  # what was read is what the seal covers: nothing swapped meanwhile
    return Results(
        frames["games"],
        frames["seats"],
        frames.get("destinations"),
        manifest["study"],
        plan,
        folder,
        frames.get("quality"),
        unchanged,
    )


def _check_games_of_plan(folder: Path, games: pd.DataFrame, plan: Plan) -> None:
    """Refuse a plan the folder's games were not played by (a manifest edited by hand, or
    another run's): each game's cell is one of the plan's, of its variant and player count,
    and no cell holds more games than the plan gives it."""
    cells = {cell.key: cell for cell in plan.cells}
    found = games.groupby(["cell", "variant", "players"], observed=True).size()
    for (key, variant, players), count in found.items():
        cell = cells.get(str(key))
        if cell is None:
            raise ResultsError(
                f"{folder / MANIFEST}: the folder holds games of cell {key!s:.80}, which is "
                "not a cell of the plan"
            )
        if (cell.variant, cell.players) != (str(variant), int(players)):
            raise ResultsError(
                f"{folder / MANIFEST}: the games of cell {key!s:.80} are of variant "
                f"{variant!s:.40} at {players} players; the plan's cell is of variant "
                f"{cell.variant!s:.40} at {cell.players}"
            )
        if count > cell.games:
            raise ResultsError(
                f"{folder / MANIFEST}: the folder holds {count} games of cell {key!s:.80}; "
                f"the plan has {cell.games}"
            )


CHUNK_ROWS = 1 << 20  # rows a chunk of ``table_chunks`` holds, about: memory stays bounded


def table_chunks(folder: Path, table: str, columns: list[str]) -> Iterator[pa.Table]:
    """``table``'s rows of the folder's finished games (those ``load_results`` gives), its
    ``columns`` in compact types, about ``CHUNK_ROWS`` at a time; a game's rows are never
    split between chunks (a compact file is in game order: the rows of the game a chunk
    ends in go on to the next). Chunks come in file order, not sorted across files."""
    merged = compacted_batches(folder / "games")
    done = set(part_files(folder / "games")) | merged  # done_batches, the footer read once
    target = schema(table)
    buffer: list[pa.Table] = []
    rows = 0
    for path in table_files(folder, table, merged):
        if is_compact(path):
            yield from _compact_chunks(table, path, target, columns)
            continue
        if batch_of(path) not in done:
            continue  # its games part never landed: not a finished batch
        part = read_table_part(table, path).select(columns)
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
        file = pq.ParquetFile(arrow_input(path))
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
        found = file_schema(path)
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
    """Every part (the Parquet ones each read by threads): None when any part is not plainly
    of the table (unreadable, a column missing or of another type), for the part-by-part
    read to name it."""
    try:
        pieces = []
        for path in parts:
            if is_part(path):  # cheap to read
                piece = read_part(path)
                if any(_schema_problem(piece.schema, target)):
                    return None
                pieces.append(piece.select(target.names))
                continue
            file = pq.ParquetFile(arrow_input(path))
            if any(_schema_problem(file.schema_arrow, target)):
                return None
            pieces.append(file.read(columns=target.names, use_threads=True))
        return pa.concat_tables([p.cast(target) for p in pieces])
    except (OSError, pa.ArrowException, ValueError):
        return None


def _read_one_by_one(table: str, target: pa.Schema, parts: list[Path]) -> pa.Table:
    """The parts one at a time, converting what can be converted (the wider types of
    schema version 1 too); one ResultsError naming the first part that cannot be read as
    the table."""
    return pa.concat_tables([read_table_part(table, part, target=target) for part in parts])


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
    order = key_order(columns)
    return frame if order is None else frame.take(order)
