"""`cardgame simulate`: run a study from a TOML file, a built-in name, or flags.

Only light modules are imported here: `cardgame --help` builds every subcommand's parser,
so the runner (tqdm, pandas, pyarrow, SimPy, Dask) is imported when a study runs.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import NoReturn

from cardgame.errors import terminal_rows, terminal_width

from .errors import RunStopped, StudyError
from .looks import DEFAULT_CAP_FACTOR, STOPS, games_line, looks_line
from .plan import DEFAULT_STUDY
from .stopping import Stop, routed_to
from .strategy import strategy_help

EXIT_FAILURES = 1
EXIT_BAD_INPUT = 2
# stopped by a signal: 128 + its number, as a shell reports it (Ctrl-C 130, SIGTERM 143)
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
BACKENDS = ("local", "dask")  # as sims.runner.BACKENDS, without importing the runner
STOP_GRACE_SECONDS = 10.0  # after a stop signal the process is gone within this, whatever


def _builtin_studies() -> list[str]:
    folder = resources.files("sims") / "studies"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 2,3,4, got {text!r}") from None


def _name_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _one_line_errors(parser: argparse.ArgumentParser) -> None:
    """A bad option is one line (no usage block), exit 2, like every other bad input."""

    def error(message: str) -> NoReturn:
        parser.exit(EXIT_BAD_INPUT, f"{parser.prog}: error: {' '.join(message.split())}\n")

    parser.error = error  # type: ignore[method-assign]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate",
        help="run a Monte Carlo study and write Parquet results",
        description=f"Run a study (TOML file or built-in: {', '.join(_builtin_studies())}). "
        f"Without one, the default study {DEFAULT_STUDY!r} runs; with only flags "
        "(--strategies, --players, --games, --seed), an ad-hoc study named after its "
        "strategies and player counts runs into results/adhoc-<strategies>-<players>p.",
        epilog=f"{strategy_help()} Ctrl-C or SIGTERM stops cleanly (exit {EXIT_INTERRUPTED} or "
        f"{EXIT_TERMINATED}) and prints the command that resumes the run; so does a run stopped "
        "by a full disk, a lost Dask scheduler or a Dask cluster without workers (one line, "
        f"exit {EXIT_BAD_INPUT}).",
    )
    parser.add_argument("study", nargs="?", help="study file or name")
    parser.add_argument("--games", type=int, help="games per cell")
    parser.add_argument("--players", type=_int_list, help="player counts, e.g. 2,3,4")
    parser.add_argument("--strategies", type=_name_list, help="a pool for a round robin")
    parser.add_argument("--seed", type=int, help="the root seed")
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    parser.add_argument(
        "--adapt",
        type=int,
        metavar="GAMES",
        help="adapt each scripted strategy's knobs to each design first, with this many games "
        "a strategy and design (docs/strategies.md)",
    )
    parser.add_argument(
        "--check-search",
        type=int,
        metavar="DEALS",
        help="then replay the headline verdicts with the search player in every seat, on this "
        "many deals a design; the report says whether they hold (docs/strategies.md)",
    )
    parser.add_argument(
        "--until",
        choices=STOPS,
        help="settled: play in looks, each doubling the games, until every question of the "
        "report's summary is settled or --max-games is reached, with verdicts valid under "
        "this stopping (docs/statistics.md); planned (default): the study's games once",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        metavar="N",
        help=f"the cap of --until settled, in games (default: {DEFAULT_CAP_FACTOR} times the "
        "study's)",
    )
    parser.add_argument("--out", help="results folder (default: the study's output)")
    parser.add_argument("--resume", action="store_true", help="continue a stopped run")
    parser.add_argument(
        "--accept-changes",
        action="store_true",
        help="resume a folder whose files changed since its run ended (docs/data.md)",
    )
    parser.add_argument("--backend", choices=BACKENDS, default="local")
    parser.add_argument("--scheduler", help="Dask scheduler address (with --backend dask)")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failure")
    parser.add_argument("--records", action="store_true", help="also write JSON game records")
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="tournament mode: each strategy of one's own (module:Class) plays in an "
        "operating-system sandbox of its own and never sees the run; refused where the "
        "machine cannot build it (cardgame --version says) (docs/strategies.md)",
    )
    parser.add_argument(
        "--cards",
        metavar="FOLDER",
        help="play with the card files in FOLDER (an edition in cardgame/data's format)",
    )
    parser.add_argument(
        "--keep-parts",
        action="store_true",
        help="keep one Arrow IPC part per batch (TABLE/_parts); a finished run otherwise merges "
        "each table into one file (docs/data.md)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    _one_line_errors(parser)
    parser.set_defaults(run=main)


def build_study(args: argparse.Namespace):  # -> sims.study.Study
    """The study the options describe: a named one (tweaked by flags, keeping its name),
    or, with flags only, an ad-hoc one with a name and folder of its own."""
    from .plan import Isolation
    from .study import adhoc_name, load_study, quick_study

    flags = (args.games, args.players, args.strategies, args.seed)
    isolation = Isolation.PROCESS if args.isolate else None
    base = load_study(
        args.study or DEFAULT_STUDY,
        isolation,
        args.cards,
        args.adapt,
        args.check_search,
        *((args.until, args.max_games) if all(v is None for v in flags) else (None, None)),
    )
    if all(v is None for v in flags):
        return base
    name = None
    if args.study is None:  # flags only: not the default study, whatever it shares with it
        name = adhoc_name(args.strategies or base.pool, args.players or base.players)
    return quick_study(
        base,
        args.games,
        args.players,
        args.strategies,
        args.seed,
        name=name,
        isolation=isolation,
        until=args.until,
        max_games=args.max_games,
    )


def resume_command(args: argparse.Namespace, folder: object) -> str:
    """A command that continues this run: the same study and options, its folder, --resume."""
    argv = ["cardgame", "simulate"]
    if args.study is not None:
        argv.append(args.study)
    options = {
        "--games": args.games,
        "--players": ",".join(map(str, args.players)) if args.players else None,
        "--strategies": ",".join(args.strategies) if args.strategies else None,
        "--seed": args.seed,
        "--workers": args.workers,
        "--backend": args.backend if args.backend != "local" else None,
        "--scheduler": args.scheduler,
        "--cards": args.cards,
        "--adapt": args.adapt,
        "--check-search": args.check_search,
        "--until": args.until,
        "--max-games": args.max_games,
        "--out": str(folder),
    }
    for option, value in options.items():
        if value is not None:
            argv += [option, str(value)]
    switches = {
        "--fail-fast": args.fail_fast,
        "--records": args.records,
        "--isolate": args.isolate,
        "--keep-parts": args.keep_parts,
        "--no-progress": args.no_progress,
    }
    argv += [switch for switch, on in switches.items() if on]
    return shlex.join([*argv, "--resume"])


class _Signals(Stop):
    """SIGINT and SIGTERM as a flag for the whole command, which the runner polls.

    Installed before the heavy imports, so a Ctrl-C at any moment of the command is a clean
    stop and never a traceback. Once a signal came, a watchdog thread ends the process if the
    clean-up has not within ``STOP_GRACE_SECONDS`` (printing the resume command first): the
    run stops whatever its pool or cluster does.
    """

    def __init__(self) -> None:
        super().__init__()
        self.since = 0.0
        self.hint = ""  # the line that says how to resume, once the study is known
        self.active = True

    def handler(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.since = time.monotonic()
        super().handler(signum, frame)

    def code(self) -> int:
        return EXIT_TERMINATED if self.signal == signal.SIGTERM else EXIT_INTERRUPTED

    def postpone(self) -> None:
        """The clean-up moves (a seal hashed one more file): the watchdog waits again from
        now, so an honest big folder's seal is never cut short (a seal that stalls is)."""
        if self:
            self.since = time.monotonic()

    def watch(self) -> None:
        while self.active:
            time.sleep(0.1)
            if self.active and self and time.monotonic() - self.since > STOP_GRACE_SECONDS:
                line = f"{self.hint} (its clean-up was cut short)" if self.hint else ""
                os.write(2, f"{line or 'Interrupted.'}\n".encode())
                os._exit(self.code())


@contextmanager
def _stop_signals() -> Iterator[_Signals]:
    """Route SIGINT and SIGTERM to a ``_Signals`` flag until the command returns; after a
    stop, leave them ignored: a second Ctrl-C must not cut the exit short."""
    flag = _Signals()
    if threading.current_thread() is threading.main_thread():
        threading.Thread(target=flag.watch, name="stop-watchdog", daemon=True).start()
    try:
        with routed_to(flag, ignore_after_stop=True):
            yield flag
    finally:
        flag.active = False


def main(args: argparse.Namespace) -> int:
    with _stop_signals() as stop:
        return _simulate(args, stop)


def _simulate(args: argparse.Namespace, stop: _Signals) -> int:
    from .cluster import check_scheduler
    from .runner import run

    study = build_study(args)
    if args.scheduler and args.backend != "dask":
        raise StudyError("--scheduler needs --backend dask")
    if args.scheduler:
        check_scheduler(args.scheduler)  # before any results folder is made
    folder = args.out or study.output
    resume = resume_command(args, folder)
    stop.hint = f"Interrupted. Continue with: {resume}"
    if stop:  # before the run began: nothing to resume
        print("cardgame simulate: interrupted", file=sys.stderr)
        return stop.code()

    def announce() -> None:
        print(
            f"{study.name}: {len(study.plan.cells)} cells, {games_line(study.plan)}"
            f"{'' if study.pairing == 'none' else f', paired by {study.pairing}'} "
            f"-> {folder}",
            file=sys.stderr,
        )
        note = study.rounding_note()
        if note:
            print(note, file=sys.stderr)

    try:
        summary = run(
            study,
            workers=args.workers,
            backend=args.backend,
            scheduler=args.scheduler,
            out=args.out,
            resume=args.resume,
            fail_fast=args.fail_fast,
            records=args.records,
            keep_parts=args.keep_parts,
            progress=not args.no_progress,
            announce=announce,
            stop=stop,
            accept_changes=args.accept_changes,
        )
    except RunStopped as exc:  # a fault outside the games: what landed is kept
        raise type(exc)(f"{exc}; continue with: {resume}") from None
    done = summary.games_skipped + summary.games_played
    print(
        f"{done} of {summary.games_total} games in {summary.folder} "
        f"({summary.games_played} played now, {summary.games_skipped} from before)"
    )
    if summary.plan is not None and summary.plan.until_settled and not summary.interrupted:
        print(looks_line(summary.plan))
    for name, check in summary.checks.items():
        print(
            f"check {name}: {check.games_skipped + check.games_played} of {check.games_total} "
            f"games in {check.folder}"
            + (f", {len(check.failures)} failed" if check.failures else "")
        )
    if summary.failures:
        print(f"{len(summary.failures)} game(s) failed:")
        width = terminal_width(sys.stdout)
        for line in summary.failures[:10]:  # a guest's words: no row of theirs stands alone
            print("\n".join(terminal_rows(line, "  ", "    | ", width)))
        if len(summary.failures) > 10:
            print(f"  ... and {len(summary.failures) - 10} more (see the games table)")
    if summary.interrupted:  # a signal after the last game changes nothing: all are in
        print(stop.hint, file=sys.stderr)
        return stop.code()
    if summary.stopped_on_failure:
        print("Stopped at the first failure (--fail-fast).", file=sys.stderr)
        return EXIT_FAILURES
    print(f"Report it: {shlex.join(['cardgame', 'report', str(summary.folder)])}")
    return 0
