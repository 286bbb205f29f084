"""The results' schema: its version, the tables and their columns, in compact types on disk
(``schema``) and wide ones as ``sims.results.load_results`` hands them over (``wide_schema``),
and the key order of their rows (``SORT_KEYS``). Every file of a table has this one explicit
Arrow schema, so each table folder reads whole with pandas, pyarrow or DuckDB (docs/data.md).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pyarrow as pa

# 2: compact column types, zstd, a finished run's parts compacted; 3: a big run's table
# compacted into several files (``sims.compaction.SHARD_BATCHES``), which an older reader
# would half read; 4: parts in Arrow IPC (``sims.parts.encode_part``), which an older version
# would not see
SCHEMA_VERSION = 5  # 5: the manifest holds the plan (sims/plan.py)
READABLE_VERSIONS = (1, 2, 3, 4, 5)  # load_results reads each; a run resumes only its own version
TABLES = ("seats", "destinations", "games")  # games last: it marks the batch done
# in landing order; "quality" only for a study that asks for it ([metrics] quality = true)
WRITE_ORDER = ("seats", "destinations", "quality", "games")


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


# the rows' order in every table: a compaction writes it, ``load_results`` sorts by it
SORT_KEYS = ("cell", "game_index", "seat", "offered_turn", "destination_id")


def key_order(columns: list[np.ndarray]) -> np.ndarray | None:
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
