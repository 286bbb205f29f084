"""`cardgame watch`: narrate one game between scripted strategies, turn by turn.

`cardgame play` (the engine's own command) can only seat random players; this one seats
any registered strategy, or a user's `module:Class`, and can save the record for replay.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cardgame import Rules
from cardgame.narrate import narrate
from cardgame.record import save

from .clock import ThinkTimes
from .deadline import DEFAULT_DECISION_SECONDS
from .errors import StudyError
from .match import GameSpec, play_game
from .strategy import spec, strategy_help


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "watch", help="narrate one game between scripted strategies", epilog=strategy_help()
    )
    parser.add_argument(
        "--strategies",
        default="planner,thief",
        help="one strategy per seat, comma separated (default planner,thief)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    parser.add_argument("--save", metavar="FILE", help="write the game record as JSON")
    parser.add_argument(
        "--decision-seconds",
        type=float,
        default=DEFAULT_DECISION_SECONDS,
        metavar="S",
        help=f"wall-clock limit per decision, 0 for none (default {DEFAULT_DECISION_SECONDS:g})",
    )
    parser.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    names = [s.strip() for s in args.strategies.split(",") if s.strip()]
    if not 2 <= len(names) <= 4:
        raise StudyError(f"--strategies: name 2 to 4 strategies (one per seat), got {len(names)}")
    if not 0 <= args.decision_seconds < 1e6:
        raise StudyError(f"--decision-seconds: must be >= 0, got {args.decision_seconds:g}")
    seats = tuple(spec(name) for name in names)
    for seat in seats:
        seat.check()
    game = GameSpec("watch", "watch", "base", Rules(), len(seats), seats, 0, args.seed)
    outcome = play_game(game, ThinkTimes(), True, args.decision_seconds)
    g = outcome.game
    assert g is not None  # dict rows: no batch's columns to write into
    if g["failed"]:
        raise StudyError(
            f"seat {g['failure_seat']} ({g['failure_strategy']}) failed: {g['failure_error']}"
        )
    for line in narrate(outcome.record):  # type: ignore[arg-type]
        print(line)
    print(f"Simulated table time: {g['sim_minutes']:.0f} minutes.")
    if args.save:
        try:
            save(outcome.record, Path(args.save))  # type: ignore[arg-type]
        except OSError as exc:
            raise StudyError(f"{args.save}: cannot write: {exc.strerror or exc}") from None
        print(f"Saved the game record to {args.save}")
    return 0
