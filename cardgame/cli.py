"""The `cardgame` command. Subcommands from the layers above (simulate, report) plug in
through the ``cardgame.commands`` entry point group, so this package imports none of them.

Only the entry point of the subcommand named on the command line is loaded: `cardgame play`
and `cardgame --help` never import the heavy layers (pandas, scipy, plotly).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version
from pathlib import Path
from typing import Any, NoReturn

from . import _native, edition, startup
from . import record as rec
from .catalogue import Catalogue, default_catalogue, load_catalogue
from .errors import CardgameError, RecordError, one_line, terminal_rows, terminal_width
from .game import Game
from .narrate import narrate
from .randomplay import play_random
from .rules import Rules

EXIT_DIVERGES = 1
EXIT_BAD_INPUT = 2
PLUGIN_GROUP = "cardgame.commands"
# `cardgame play --human/--strategies` seats strategies from a layer above: its "seats" hook
PLAY_HOOK_GROUP = "cardgame.play"
DEFAULT_PLAYERS = 3


class UsageError(CardgameError):
    """A bad command-line value."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: the usage block is left to ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _summary(record: dict[str, Any]) -> str:
    result = record["result"]
    scores = [s["total"] for s in result["scores"]]
    return f"scores {scores}, winners {result['winners']}, {result['turns']} turns"


def _play(args: argparse.Namespace) -> int:
    if args.human is not None or args.strategies is not None:
        return int(_play_hook()(args) or 0)
    players = DEFAULT_PLAYERS if args.players is None else args.players
    rules = Rules.from_json(args.rules) if args.rules else Rules()
    game = Game(players, 0 if args.seed is None else args.seed, rules, cards_of(args))
    state = play_random(game, record=True)
    record = rec.to_record(state, ["random"] * game.players)
    if args.quiet:
        print(f"seed {game.seed}, {game.players} players: {_summary(record)}")
    else:
        for line in narrate(record, game.catalogue, verbose=args.verbose):
            print(line)
    if args.save:
        try:
            rec.save(record, Path(args.save))
        except OSError as exc:
            raise UsageError(f"{args.save}: cannot write: {exc.strerror or exc}") from None
        print(f"Saved the game record to {args.save}")
    return 0


def cards_of(args: argparse.Namespace) -> Catalogue:
    """The cards ``--cards FOLDER`` names (checked as a card folder), else the printed ones."""
    folder = getattr(args, "cards", None)
    return load_catalogue(Path(folder)) if folder else default_catalogue()


def _play_hook() -> Callable[[argparse.Namespace], int]:
    """The ``seats`` hook of the ``cardgame.play`` group (sims registers it): this package
    cannot seat strategies or a person itself, as it imports no layer above it."""
    found = [e for e in entry_points(group=PLAY_HOOK_GROUP) if e.name == "seats"]
    if not found:
        raise UsageError("--human and --strategies need the sims package (its play hook)")
    try:
        hook: Callable[[argparse.Namespace], int] = found[0].load()
        return hook
    except Exception as exc:  # any error of the other layer's import
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"the play hook ({found[0].value}) cannot load: {first}") from None


def _replay(args: argparse.Namespace) -> int:
    """Check every game of the file; exit 2 if any is not a record, else 1 if any diverges."""
    # a results folder sealed by its run (sims): checked, and each hook's check after reading
    after = [check(args.record, args.accept_changes) for check in _hooks("cardgame.sources")]
    readers = [check.read for check in after if callable(getattr(check, "read", None))]
    entries = rec.read_entries(Path(args.record), *readers[:1])
    for unchanged in after:
        if callable(unchanged):
            unchanged()
        note = getattr(unchanged, "note", None)  # a results folder whose run has not ended
        if isinstance(note, str):
            print(f"warning: {one_line(note)}", file=sys.stderr)
    several = len(entries) > 1
    invalid = diverged = 0
    for entry in entries:
        try:
            if entry.error is not None:
                raise RecordError(entry.error)
            result = rec.replay(entry.value)
        except RecordError as exc:
            if not several:
                raise
            invalid += 1
            print(f"cardgame replay: error: {entry.where}: {one_line(exc)}", file=sys.stderr)
            continue
        label = f"{entry.where} (seed {entry.value['seed']})" if several else "game"
        if not result.ok:
            diverged += 1
            print(f"{label}: DIVERGES at {one_line(result.divergence)}")
            continue
        print(
            f"{label}: replays to the same result: scores {list(result.scores)}, "
            f"winners {list(result.winners)}, {result.turns} turns"
        )
        if args.narrate or args.verbose:
            for line in narrate(entry.value, verbose=args.verbose):
                print(line)
    if invalid:
        return EXIT_BAD_INPUT
    return EXIT_DIVERGES if diverged else 0


def _add_core_commands(sub: argparse._SubParsersAction) -> None:
    play = sub.add_parser(
        "play",
        help="play and narrate one game with random legal players",
        description="Random legal players narrate a game; --human seats you at the terminal, "
        "--strategies seats scripted strategies (as cardgame watch).",
    )
    play.add_argument("--players", type=int, help=f"2, 3 or 4 (default {DEFAULT_PLAYERS})")
    play.add_argument(
        "--seed",
        type=int,
        help="the game's seed (default 0; with --human a fresh one, printed for a replay)",
    )
    play.add_argument("--save", metavar="FILE", help="write the game record as JSON")
    play.add_argument(
        "--rules", metavar="JSON", help='a rule variant, e.g. \'{"rounds": {"4": 1}}\''
    )
    play.add_argument(
        "--cards",
        metavar="FOLDER",
        help="play with the card files in FOLDER (an edition in cardgame/data's format)",
    )
    play.add_argument(
        "--human", type=int, metavar="SEAT", help="you play this seat (0 starts), at the terminal"
    )
    play.add_argument(
        "--strategies",
        metavar="NAMES",
        help="scripted strategies, comma separated: every seat, or with --human the other "
        "seats in order (or one for all; default planner)",
    )
    talk = play.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="no narration: the result only")
    talk.add_argument(
        "--verbose", action="store_true", help="narrate with every seat's hand, yard and piles"
    )
    play.set_defaults(run=_play)
    replay = sub.add_parser(
        "replay",
        help="re-execute a saved game and check its record",
        description="Exit code: 0 every game replays to its record, 1 a game diverges "
        "(a field or the digest differs), 2 the file (or a line of it) is not a record.",
    )
    replay.add_argument("record", help="a record (JSON) or many (JSON Lines)")
    replay.add_argument("--narrate", action="store_true", help="narrate each game once checked")
    replay.add_argument(
        "--verbose", action="store_true", help="narrate with every seat's hand, yard and piles"
    )
    replay.add_argument(
        "--accept-changes",
        action="store_true",
        help="read a record of a results folder even if its files changed since its run ended",
    )
    replay.set_defaults(run=_replay)
    edition.add_command(sub)


CORE_COMMANDS = ("play", "replay", "edition")


def _hooks(group: str) -> list[Callable[..., Any]]:
    """The functions other layers hang on ``group`` (``cardgame.sources``: checks of what a
    command reads; ``cardgame.about``: lines for ``--version``); none where they are not
    installed or cannot load."""
    found = []
    for entry in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            found.append(entry.load())
        except Exception:
            continue
    return found


def _plugins() -> dict[str, EntryPoint]:
    return {e.name: e for e in entry_points(group=PLUGIN_GROUP) if e.name not in CORE_COMMANDS}


def _short_help(entry: EntryPoint) -> str:
    """The first line of the plugin module's docstring, read from source without importing."""
    try:
        top, _, rest = entry.module.partition(".")
        spec = importlib.util.find_spec(top)
        if spec is None or not spec.submodule_search_locations:
            return ""
        path = Path(next(iter(spec.submodule_search_locations)), *rest.split(".")).with_suffix(
            ".py"
        )
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError, ValueError, ImportError, StopIteration):
        return ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return (first.split(": ", 1)[-1] if first.startswith("`") else first).rstrip(".")


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first word that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def _load_plugin(
    parser: argparse.ArgumentParser, entry: EntryPoint
) -> Callable[[argparse._SubParsersAction], None]:
    """The plugin's register function; a plugin that fails to import is one line, exit 2."""
    try:
        return entry.load()
    except Exception as exc:  # any error of a third-party module's import
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        parser.exit(
            EXIT_BAD_INPUT,
            f"cardgame: error: the {entry.name} command ({entry.value}) cannot load: {first}\n",
        )


def version_line() -> str:
    """``cardgame --version``: the distribution's version and the engine in use, then what
    the other layers add (whether the guest sandbox of ``--isolate`` can be built)."""
    try:
        number = version("ttr-cardgame")
    except PackageNotFoundError:  # run from a source tree that was never installed
        number = "unknown"
    lines = [f"cardgame {number}, {_native.describe()}"]
    for about in _hooks("cardgame.about"):
        try:
            lines.append(str(about()))
        except Exception as exc:
            lines.append(f"({one_line(exc)})")
    return "\n".join(lines)


class _Version(argparse.Action):
    """``--version``, worked out only when asked for (the sandbox's probe starts a process)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help=kwargs.get("help"))

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(version_line())
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; loads the plugin entry point of ``command`` only (others get a stub)."""
    parser = Parser(
        prog="cardgame", description="Ticket to Ride: The Card Game - engine, simulator, reports"
    )
    parser.add_argument(
        "--version", action=_Version, help="version, engine in use, and the guest sandbox"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_core_commands(sub)
    for name, entry in sorted(_plugins().items()):
        if name == command:
            _load_plugin(parser, entry)(sub)
        else:
            sub.add_parser(name, help=_short_help(entry) or f"(from {entry.value})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_command_in(argv))  # may import a command's layer: slow
        startup.release()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("cardgame: interrupted", file=sys.stderr)
        return startup.EXIT_INTERRUPTED
    if _native.PROBLEM:  # CARDGAME_ENGINE names no engine, or one that is not built
        print(f"cardgame: error: {_native.PROBLEM}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(args.run(args) or 0)
    except CardgameError as exc:
        # a study file's problems, found in one pass (sims StudyProblems): a line each
        # on a terminal cut at its width, every row after the first marked: an error may
        # quote a strategy's words (a failure's), padded to start a row of their own
        width = terminal_width(sys.stderr)
        for problem in getattr(exc, "problems", None) or [exc]:
            lead = f"cardgame {args.command}: error: "
            print("\n".join(terminal_rows(str(problem), lead, "  | ", width)), file=sys.stderr)
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
