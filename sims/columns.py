"""Where each column of the games, seats and destinations tables sits in the blocks the native
core writes (``sims/_native/_rows.pyx``), by name: generated from the results schema into
``sims/_native/_columns.pxi``, so the C code writes ``row[SEATS_SCORE]``, never a typed
position, and a column added, moved or renamed in the schema reaches C by regenerating.

The schema is built with pyarrow, which the build does not install (``setup.py`` runs before
the package's dependencies), so unlike ``cardgame/_native/_layout.pxi`` this include is
committed: ``python -m sims.columns`` rewrites it after a schema change, ``--check`` only
compares, and ``tests/test_contract.py`` fails while it is stale or the compiled module was
built from another one (docs/architecture.md).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from cardgame.layout import generated_main, write_generated

from .rows import NATIVE_TABLES
from .schema import schema  # the one place the tables' columns are stated

PXI = Path(__file__).resolve().parent / "_native" / "_columns.pxi"


def table_columns() -> dict[str, tuple[str, ...]]:
    """Each native table's column names in the schema's order (the blocks' order)."""
    return {table: tuple(schema(table).names) for table in NATIVE_TABLES}


def base_columns() -> tuple[str, ...]:
    """The columns every native table starts with (study ... seed): the values a game's rows
    share, worked out once per game (``add_finished``'s ``base``, in this order)."""
    tables = list(table_columns().values())
    shared = 0
    while all(len(t) > shared and t[shared] == tables[0][shared] for t in tables):
        shared += 1
    return tables[0][:shared]


def c_constants() -> dict[str, int]:
    """Every position the C side gets, by its C name: ``BASE_<COLUMN>`` and ``BASE_SLOTS``
    (how many), then ``<TABLE>_<COLUMN>`` for every column of each table."""
    bad = [name for names in table_columns().values() for name in names if not name.isidentifier()]
    if bad:
        raise ValueError(f"columns C cannot name: {bad}")
    out = {f"BASE_{name.upper()}": i for i, name in enumerate(base_columns())}
    out["BASE_SLOTS"] = len(base_columns())
    for table, names in table_columns().items():
        out.update({f"{table.upper()}_{name.upper()}": i for i, name in enumerate(names)})
    return out


def pxi_text() -> str:
    """The Cython include ``_rows.pyx`` is compiled with (``_columns.pxi``)."""
    constants = c_constants()
    lines = [
        "# Generated from the results schema by python -m sims.columns; do not edit: change the",
        "# schema, then run python -m sims.columns and rebuild (pip install -e .).",
        "",
        "cdef enum:",
        *(f"    {name} = {value}" for name, value in constants.items()),
        "",
        "# each table's column names in block order (sims.rows reads a block by them)",
        "COLUMNS = {",
        *(line for table, names in table_columns().items() for line in _tuple(table, names)),
        "}",
        "",
        "",
        "cdef inline dict column_values():",
        '    """The positions as this module was compiled with them (tests/test_contract.py)."""',
        "    return {",
        *(f'        "{name}": {name},' for name in constants),
        "    }",
        "",
    ]
    return "\n".join(lines)


def _tuple(table: str, names: tuple[str, ...]) -> list[str]:
    """A table's entry in ``COLUMNS``, its names wrapped at the line length."""
    quoted = ", ".join(f'"{name}"' for name in names) + ","
    return [
        f'    "{table}": (',
        *textwrap.wrap(
            quoted,
            96,
            initial_indent=" " * 8,
            subsequent_indent=" " * 8,
            break_long_words=False,
            break_on_hyphens=False,
        ),
        "    ),",
    ]


def write_pxi(path: Path = PXI) -> bool:
    """Write the include if it is missing or stale; whether it was written."""
    return write_generated(path, pxi_text())


def main(argv: list[str] | None = None) -> int:
    return generated_main(argv, PXI, pxi_text(), "python -m sims.columns")


if __name__ == "__main__":
    raise SystemExit(main())
