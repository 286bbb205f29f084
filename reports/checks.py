"""What a report needs from a results folder, checked before any statistic is computed.

`sims.results.load_results` makes sure the files are there, readable and in the results
schema (every column, even for a table with no rows); this module makes sure they hold what a
report needs (at least one game that did not fail) and says how complete the study is, so
every problem is one line instead of a KeyError deep in pandas.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

from sims.errors import ResultsError
from sims.results import Results


def check_reportable(results: Results) -> None:
    """Raise ResultsError (one line) unless ``results`` holds a game to report on."""
    folder = results.folder
    games = results.games
    if results.seats.empty:
        failed = games[games["failed"].astype(bool)]
        if len(failed) == len(games):
            first = failed.iloc[0]
            raise ResultsError(
                f"{folder}: all {len(games):,} games failed, nothing to report (first: game "
                f"{first['game_index']} of {first['cell']}, {_who(first)}: "
                f"{first['failure_error']})"
            )
        raise ResultsError(f"{folder}: the seats table is empty")


def _who(game: pd.Series) -> str:
    """The failing seat, numbered as everywhere (seat 0 plays first, R6), or that no one seat
    is to blame (seat -1: a broken invariant or the simulator's own error)."""
    seat = int(game["failure_seat"])
    if seat < 0:
        return "no one seat"
    return f"seat {seat} ({game['failure_strategy']})"


def check_out_path(out: Path) -> None:
    """Refuse a report path that cannot be written, before minutes of analysis."""
    problem = out_path_problem(out, "report")
    if problem is not None:
        raise ResultsError(problem)


def out_path_problem(out: Path, what: str) -> str | None:
    """Why the page ``what`` (the report, the viewer's page) cannot be written to ``out``,
    in one line, or None: asked before the work that makes it."""
    try:
        if out.is_dir():
            return f"{out}: is a folder; give a file name for the {what}"
    except OSError as exc:  # a name past the system's limits
        return f"{str(out)[:120]!a}: cannot write the {what}: {exc.strerror or exc}"
    from sims.folder import holds_results

    # through any link: one into a results folder writes there (hostile pass 28r)
    places = [*out.absolute().parents, *Path(os.path.realpath(out)).parents]
    inside = next((a for a in places if holds_results(a)), None)
    if inside is not None:  # a file added to a sealed folder would have it refused after
        return f"{out}: lies in the results folder {inside}; write the {what} elsewhere (--out)"
    parent = out.parent if str(out.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        return f"{out}: {parent} is not a folder"
    why = _cannot_write(out)
    return None if why is None else f"{out}: cannot write the {what}: {why}"


def _cannot_write(out: Path) -> str | None:
    """Why no file can be made where ``out`` goes, or None: a file is made and removed at once
    in its folder, or in the nearest one above that exists (writing makes the rest), since
    only the system knows (a read-only disk, /proc, permissions)."""
    folder = out.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{out.name}.", suffix=".probe"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
