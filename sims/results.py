"""The results folder: Parquet parts written as batches finish, and reading them back.

Layout (docs/data.md): ``manifest.json`` (the study and schema version), then one part per
batch in ``games/``, ``seats/``, ``destinations/`` (and ``records/`` with --records). A part
is written to a temporary name and renamed; the games part is renamed last, so a batch
counts as done exactly when its games part exists - a killed run loses no finished batch
and a resumed one counts none twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ResultsError

SCHEMA_VERSION = 1
TABLES = ("seats", "destinations", "games")  # games last: it marks the batch done
MANIFEST = "manifest.json"


def part_name(batch_id: str) -> str:
    return f"part-{batch_id}.parquet"


def write_batch(folder: Path, batch_id: str, tables: dict[str, list[dict[str, Any]]]) -> None:
    """Write one batch's rows atomically per file, games last."""
    for table in TABLES:
        rows = tables.get(table, [])
        target = folder / table / part_name(batch_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_suffix(".tmp")
        pq.write_table(pa.Table.from_pylist(rows) if rows else _empty(table), temp)
        os.replace(temp, target)


def write_records(folder: Path, batch_id: str, records: list[dict[str, Any]]) -> None:
    target = folder / "records" / f"part-{batch_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_suffix(".tmp")
    temp.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    os.replace(temp, target)


def _empty(table: str) -> pa.Table:
    return pa.table({"study": pa.array([], pa.string())})


def done_batches(folder: Path) -> set[str]:
    games = folder / "games"
    if not games.is_dir():
        return set()
    return {
        p.name.removeprefix("part-").removesuffix(".parquet") for p in games.glob("part-*.parquet")
    }


def write_manifest(folder: Path, study: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"schema_version": SCHEMA_VERSION, "study": study}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def read_manifest(folder: Path) -> dict[str, Any] | None:
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("schema_version") != SCHEMA_VERSION:
        version = manifest.get("schema_version") if isinstance(manifest, dict) else None
        raise ResultsError(
            f"{path}: results schema version {version!r}; this version reads {SCHEMA_VERSION}"
        )
    return manifest


@dataclass
class Results:
    """A study's tidy tables (docs/data.md)."""

    games: pd.DataFrame
    seats: pd.DataFrame
    destinations: pd.DataFrame
    study: dict[str, Any]
    folder: Path


def load_results(folder: str | Path) -> Results:
    """Read a results folder; one clear ResultsError for anything missing or corrupt."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsError(f"{folder}: no such results folder")
    manifest = read_manifest(folder)
    if manifest is None:
        raise ResultsError(f"{folder}: not a results folder (no {MANIFEST})")
    frames = {}
    for table in TABLES:
        parts = sorted((folder / table).glob("part-*.parquet"))
        frames[table] = _read_parts(parts, folder / table)
    games = frames["games"]
    if games.empty:
        raise ResultsError(f"{folder}: holds no finished games")
    done = set(zip(games["cell"], games["game_index"], strict=True))
    for table in ("seats", "destinations"):  # drop rows of batches whose games part is missing
        frame = frames[table]
        if not frame.empty:
            keys = pd.Series(list(zip(frame["cell"], frame["game_index"], strict=True)))
            frames[table] = frame[keys.isin(done).to_numpy()].reset_index(drop=True)
    return Results(
        frames["games"], frames["seats"], frames["destinations"], manifest["study"], folder
    )


def _read_parts(parts: list[Path], where: Path) -> pd.DataFrame:
    frames = []
    for part in parts:
        try:
            table = pq.read_table(part)
        except (OSError, pa.ArrowException) as exc:
            raise ResultsError(f"{part}: corrupt Parquet file ({exc})") from None
        if table.num_rows:
            frames.append(table.to_pandas())
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True)
    sort = [c for c in ("cell", "game_index", "seat", "offered_turn", "destination_id")
            if c in frame.columns]  # fmt: skip
    return frame.sort_values(sort, kind="stable").reset_index(drop=True)
