"""A batch's rows of one table, in game order: dict rows from the Python path and blocks of
columns the native core wrote (sims/_native/_rows.pyx), turned into one Arrow table.

A game finished on the native core writes its rows into ``Columns`` without a Python object
per value; a game played here, a failed game or one with a record adds dict rows. Either way
the table is the one ``pa.Table.from_pylist`` builds from the dict rows of every game:
values, types and each text column's dictionary in order of first appearance (Arrow's
``combine_chunks`` merges the pieces' dictionaries in that order), so the Parquet files are
the same bytes whichever path played a game (tests/sims/test_native_rows.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from .errors import ResultsError
from .parts import arrow_rows
from .schema import schema

NATIVE_TABLES = ("games", "seats", "destinations")  # the tables the native core writes


class TableRows:
    """One table's rows of a batch, in the order its games were played."""

    def __init__(self, table: str) -> None:
        self.table = table
        # dict rows, native Columns, or a pa.Table already in the schema (``add_table``)
        self.pieces: list[list[dict[str, Any]] | Any] = []

    def append(self, row: dict[str, Any]) -> None:
        self.extend([row])

    def extend(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if not self.pieces or not isinstance(self.pieces[-1], list):
            self.pieces.append([])
        self.pieces[-1].extend(rows)

    def add_table(self, table: pa.Table) -> None:
        """Append rows already in the results schema (a batch's quality rows, made column
        by column: ``sims.match.batch_quality_table``)."""
        if table.num_rows:
            self.pieces.append(table)

    def columns(self) -> Any:
        """The native block the next game's rows go to (after every row so far)."""
        if not self.pieces or isinstance(self.pieces[-1], (list, pa.Table)):
            from ._native._rows import COLUMNS, Columns

            self.pieces.append(Columns(COLUMNS[self.table]))
        return self.pieces[-1]

    def add(self, other: TableRows) -> None:
        """Append ``other``'s rows (a later slice of the same batch)."""
        for piece in other.pieces:
            if isinstance(piece, list):
                self.extend(piece)
            else:
                self.pieces.append(piece)

    def arrow(self, batch_id: str, names: tuple[str, ...] | None = None) -> pa.Table:
        """The rows as one table in the results schema (``names``: only these of its
        columns, in the schema's order; a block of native columns converts only those); a
        value that does not fit is a ResultsError."""
        if len(self.pieces) == 1 and isinstance(self.pieces[0], list):
            return _only(arrow_rows(self.table, batch_id, self.pieces[0]), names)
        tables = [
            _only(arrow_rows(self.table, batch_id, piece), names)
            if isinstance(piece, list)
            else _only(piece, names)
            if isinstance(piece, pa.Table)
            else columns_table(self.table, batch_id, piece, names)
            for piece in self.pieces
        ]
        if not tables:
            return _only(arrow_rows(self.table, batch_id, []), names)
        return pa.concat_tables(tables).combine_chunks()

    def rows(self) -> list[dict[str, Any]]:
        """The rows as dicts, as the Python path builds them: keys in the schema's order,
        values of the same Python types (int, bool, float, None, str)."""
        rows: list[dict[str, Any]] = []
        for piece in self.pieces:
            if isinstance(piece, pa.Table):
                rows.extend(piece.to_pylist())
                continue
            rows.extend(piece if isinstance(piece, list) else dict_rows(self.table, piece))
        return rows


@cache
def _plan(table: str, names: tuple[str, ...]) -> tuple[tuple[pa.Field, str, int], ...]:
    """Each schema column of ``table``, how its slots read back (text, float, bool or int)
    and its index in a native block of columns ``names``."""
    missing = [name for name in schema(table).names if name not in names]
    if missing:
        raise ValueError(f"native {table} columns lack {missing}")
    plan = []
    for field in schema(table):
        if pa.types.is_dictionary(field.type):
            kind = "text"
        elif pa.types.is_floating(field.type):
            kind = "float"
        elif pa.types.is_boolean(field.type):
            kind = "bool"
        else:
            kind = "int"
        plan.append((field, kind, names.index(field.name)))
    return tuple(plan)


def _by_column(table: str, columns: Any) -> Iterator[tuple[pa.Field, str, int, np.ndarray]]:
    """Each schema column of ``table`` with its kind, its index in the native block and
    its slots (column after column: the block copied once, in C)."""
    width = len(columns.names)
    slots = np.frombuffer(columns.column_slots(), dtype=np.int64).reshape(width, columns.rows)
    for field, kind, index in _plan(table, columns.names):
        yield field, kind, index, slots[index]


def dict_rows(table: str, columns: Any) -> list[dict[str, Any]]:
    """A native block of ``table`` as dict rows (a game played alone, not into a batch:
    cheaper than through Arrow for a few rows)."""
    from ._native._rows import NULL_SLOT

    names, values = schema(table).names, []
    for _, kind, index, slots in _by_column(table, columns):
        if kind == "text":
            texts = columns.dictionary(index)
            column = [texts[code] for code in slots.tolist()]
        elif kind == "float":
            column = slots.view(np.float64).tolist()
        elif kind == "bool":
            column = (slots != 0).tolist()
        else:
            column = slots.tolist()
            if NULL_SLOT in column:
                column = [None if value == NULL_SLOT else value for value in column]
        values.append(column)
    return [dict(zip(names, row, strict=True)) for row in zip(*values, strict=True)]


def _only(arrow: pa.Table, names: tuple[str, ...] | None) -> pa.Table:
    """``arrow`` with only ``names`` of its columns, in the schema's order (None: all)."""
    if names is None:
        return arrow
    return arrow.select([n for n in arrow.column_names if n in names])


def columns_table(
    table: str, batch_id: str, columns: Any, names: tuple[str, ...] | None = None
) -> pa.Table:
    """A native block of ``table`` (``Columns``) as an Arrow table in the results schema
    (``names``: only these of its columns, in the schema's order)."""
    from ._native._rows import NULL_SLOT

    arrays = []
    fields = []
    for field, kind, index, values in _by_column(table, columns):
        if names is not None and field.name not in names:
            continue
        fields.append(field)
        if kind == "text":
            texts = pa.array(columns.dictionary(index), field.type.value_type)
            codes = pa.array(values.astype(np.int32), field.type.index_type)
            arrays.append(pa.DictionaryArray.from_arrays(codes, texts))
        elif kind == "float":
            arrays.append(pa.array(values.view(np.float64), field.type))
        elif kind == "bool":
            arrays.append(pa.array(values != 0, field.type))
        else:
            missing = values == NULL_SLOT
            mask = missing if missing.any() else None
            present = values[~missing] if mask is not None else values
            dtype = np.dtype(field.type.to_pandas_dtype())
            bounds = np.iinfo(dtype)
            if present.size and (present.min() < bounds.min or present.max() > bounds.max):
                beyond = present[(present < bounds.min) | (present > bounds.max)][0]
                raise ResultsError(
                    f"batch {batch_id}: a {table} row does not fit the results schema "
                    f"({field.name} {beyond} beyond {field.type})"
                )
            arrays.append(pa.array(values.astype(dtype), field.type, mask=mask))
    if names is None:
        return pa.Table.from_arrays(arrays, schema=schema(table))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, schema(table).metadata))
