"""`cardgame simulate`: run a study from a TOML file, a built-in name, or flags."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys

from .errors import StudyError
from .runner import BACKENDS, check_scheduler, run
from .study import DEFAULT_STUDY, builtin_studies, load_study, quick_study

EXIT_FAILURES = 1
# stopped by a signal: 128 + its number, as a shell reports it (Ctrl-C 130, SIGTERM 143)
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 2,3,4, got {text!r}") from None


def _name_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate",
        help="run a Monte Carlo study and write Parquet results",
        description=f"Run a study (TOML file or built-in: {', '.join(builtin_studies())}). "
        f"Without one, the default study {DEFAULT_STUDY!r} runs.",
    )
    parser.add_argument("study", nargs="?", default=DEFAULT_STUDY, help="study file or name")
    parser.add_argument("--games", type=int, help="games per cell")
    parser.add_argument("--players", type=_int_list, help="player counts, e.g. 2,3,4")
    parser.add_argument("--strategies", type=_name_list, help="a pool for a round robin")
    parser.add_argument("--seed", type=int, help="the root seed")
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    parser.add_argument("--out", help="results folder (default: the study's output)")
    parser.add_argument("--resume", action="store_true", help="continue a stopped run")
    parser.add_argument("--backend", choices=BACKENDS, default="local")
    parser.add_argument("--scheduler", help="Dask scheduler address (with --backend dask)")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failure")
    parser.add_argument("--records", action="store_true", help="also write JSON game records")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=main)


def _resume_command(folder: object) -> str:
    """The command that was run, with --resume and its output folder: the same study."""
    argv = [a for a in sys.argv[1:] if a != "--resume"]
    if "--out" not in argv and not any(a.startswith("--out=") for a in argv):
        argv += ["--out", str(folder)]
    return shlex.join(["cardgame", *argv, "--resume"])


def main(args: argparse.Namespace) -> int:
    study = load_study(args.study)
    if any(v is not None for v in (args.games, args.players, args.strategies, args.seed, args.out)):
        study = quick_study(study, args.games, args.players, args.strategies, args.seed, args.out)
    if args.scheduler and args.backend != "dask":
        raise StudyError("--scheduler needs --backend dask")
    if args.scheduler:
        check_scheduler(args.scheduler)  # before any results folder is made
    print(
        f"{study.name}: {len(study.cells())} cells, {study.total_games} games "
        f"-> {args.out or study.output}",
        file=sys.stderr,
    )
    summary = run(
        study,
        workers=args.workers,
        backend=args.backend,
        scheduler=args.scheduler,
        out=args.out,
        resume=args.resume,
        fail_fast=args.fail_fast,
        records=args.records,
        progress=not args.no_progress,
    )
    done = summary.games_skipped + summary.games_played
    print(
        f"{done} of {summary.games_total} games in {summary.folder} "
        f"({summary.games_played} played now, {summary.games_skipped} from before)"
    )
    if summary.failures:
        print(f"{len(summary.failures)} game(s) failed:")
        for line in summary.failures[:10]:
            print(f"  {line}")
        if len(summary.failures) > 10:
            print(f"  ... and {len(summary.failures) - 10} more (see the games table)")
    if summary.interrupted:
        print(f"Interrupted. Continue with: {_resume_command(summary.folder)}", file=sys.stderr)
        return EXIT_TERMINATED if summary.stop_signal == signal.SIGTERM else EXIT_INTERRUPTED
    if summary.stopped_on_failure:
        print("Stopped at the first failure (--fail-fast).", file=sys.stderr)
        return EXIT_FAILURES
    return 0
