"""What a report needs from a results folder, checked before any statistic is computed.

`sims.results.load_results` makes sure the files are there and readable; this module makes
sure they hold what the report reads (columns, at least one finished game) and says how
complete the study is, so every problem is one line instead of a KeyError deep in pandas.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sims.errors import ResultsError
from sims.results import Results

REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": (
        "cell", "variant", "players", "game_index", "seed", "winners", "turns", "rounds",
        "failed", "failure_seat", "failure_strategy", "failure_error",
    ),
    "seats": (
        "cell", "variant", "players", "game_index", "seat", "strategy", "score",
        "destination_points", "penalties", "bonus_points", "big_cities", "is_winner",
        "win_share", "rank", "round1_points", "round2_points",
    ),
    "destinations": (
        "cell", "variant", "players", "game_index", "seat", "destination_id", "kept",
        "points", "cards", "reached", "net_points",
    ),
}  # fmt: skip


def check_reportable(results: Results) -> None:
    """Raise ResultsError (one line) unless ``results`` holds what a report reads."""
    folder = results.folder
    for table, columns in REQUIRED_COLUMNS.items():
        frame: pd.DataFrame = getattr(results, table)
        if frame.empty and table != "games":
            continue  # checked below through the games table
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ResultsError(
                f"{folder}: the {table} table lacks column(s) {', '.join(missing)} "
                "(written by another version?)"
            )
    games = results.games
    if results.seats.empty:
        failed = games[games["failed"].astype(bool)]
        if len(failed) == len(games):
            first = failed.iloc[0]
            raise ResultsError(
                f"{folder}: all {len(games):,} games failed, nothing to report (first: game "
                f"{first['game_index']} of {first['cell']}, seat {int(first['failure_seat']) + 1}"
                f" ({first['failure_strategy']}): {first['failure_error']})"
            )
        raise ResultsError(f"{folder}: the seats table is empty")


def planned_games(study: dict) -> int | None:
    """The study's total game count, or None when the manifest cannot say (e.g. a user
    strategy that no longer imports)."""
    from sims.study import from_dict

    # The manifest stores both line-up keys, one of them empty; a study file gives one.
    given = {k: v for k, v in study.items() if not (k in ("lineups", "pool") and not v)}
    try:
        return from_dict(given, "manifest").total_games
    except Exception:  # any reason not to be able to count means "unknown"
        return None


def check_out_path(out: Path) -> None:
    """Refuse a report path that cannot be written, before minutes of analysis."""
    if out.is_dir():
        raise ResultsError(f"{out}: is a folder; give a file name for the report")
    parent = out.parent if str(out.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise ResultsError(f"{out}: {parent} is not a folder")
