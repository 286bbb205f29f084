"""The `cardgame` command. Subcommands from the layers above (simulate, report) plug in
through the ``cardgame.commands`` entry point group, so this package imports none of them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from . import record as rec
from .errors import CardgameError
from .game import Game
from .narrate import narrate
from .randomplay import play_random
from .rules import Rules

EXIT_BAD_INPUT = 2


class UsageError(CardgameError):
    """A bad command-line value."""


def _play(args: argparse.Namespace) -> int:
    rules = Rules.from_dict(json.loads(args.rules)) if args.rules else Rules()
    game = Game(args.players, args.seed, rules)
    state = play_random(game, record=True)
    record = rec.to_record(state, ["random"] * game.players)
    if not args.quiet:
        for line in narrate(record, game.catalogue):
            print(line)
    if args.save:
        try:
            rec.save(record, Path(args.save))
        except OSError as exc:
            raise UsageError(f"{args.save}: cannot write: {exc.strerror or exc}") from None
        print(f"Saved the game record to {args.save}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    records = rec.load(Path(args.record))
    failed = 0
    for number, record in enumerate(records, start=1):
        result = rec.replay(record)
        label = f"game {number} (seed {record.get('seed')})" if len(records) > 1 else "game"
        if result.ok:
            print(
                f"{label}: replays to the same result: scores {list(result.scores)}, "
                f"winners {list(result.winners)}, {result.turns} turns"
            )
        else:
            failed += 1
            print(f"{label}: DIVERGES at {result.divergence}")
    return 1 if failed else 0


def _add_core_commands(sub: argparse._SubParsersAction) -> None:
    play = sub.add_parser("play", help="play and narrate one game with random legal players")
    play.add_argument("--players", type=int, default=3, help="2, 3 or 4 (default 3)")
    play.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    play.add_argument("--save", metavar="FILE", help="write the game record as JSON")
    play.add_argument(
        "--rules", metavar="JSON", help='a rule variant, e.g. \'{"rounds": {"4": 1}}\''
    )
    play.add_argument("--quiet", action="store_true", help="no narration")
    play.set_defaults(run=_play)
    replay = sub.add_parser("replay", help="re-execute a saved game and check its result")
    replay.add_argument("record", help="a record (JSON) or many (JSON Lines)")
    replay.set_defaults(run=_replay)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardgame", description="Ticket to Ride: The Card Game - engine, simulator, reports"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_core_commands(sub)
    for entry in sorted(entry_points(group="cardgame.commands"), key=lambda e: e.name):
        register: Callable[[argparse._SubParsersAction], None] = entry.load()
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except CardgameError as exc:
        print(f"cardgame {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except json.JSONDecodeError as exc:
        print(f"cardgame {args.command}: error: bad JSON: {exc.msg}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into `head`: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"cardgame {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
