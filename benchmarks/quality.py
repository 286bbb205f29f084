"""What game-quality metrics and game records cost a study: the same study plain, with
``[metrics] quality = true`` and with ``--records``, interleaved round by round in one
process, so a drifting machine hits all three alike. Goals (issue 34): quality at most 1.3x
the CPU time of the plain study, records at most 1.5x.

The study is played to its fixed number of games (``stop`` and ``max_games`` dropped: no
looks). Each round runs the three studies on ``--workers`` workers into fresh folders and
measures the run's CPU time: this process's and its workers' (user + system,
``resource.getrusage`` of the process and of its children, which the pool has reaped when
``run`` returns), and the wall time, after a first plain run that is not counted. The
games, seats and destinations files of all three must be identical (checked on every
round): neither quality nor records changes a game.

Run: python benchmarks/quality.py [--games 48] [--rounds 3] [--study strategy-ladder]. Not
a test.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from cardgame import _native  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict, load_study  # noqa: E402

MODES = ("plain", "quality", "records")
GOALS = {"quality": 1.3, "records": 1.5}


def files(folder: Path) -> dict[str, bytes]:
    """The game tables' files (not the quality table, records or manifest)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*.parquet"))
        if not str(p.relative_to(folder)).startswith("quality")
    }


def cpu_seconds() -> float:
    """User + system CPU of this process and of its reaped children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", default="strategy-ladder")
    parser.add_argument("--games", type=int, default=48, help="games per cell")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    data = dict(load_study(args.study).source)
    data["games_per_cell"] = args.games
    for key in ("output", "stop", "max_games"):  # a fixed number of games, no looks
        data.pop(key, None)
    studies = {
        "plain": from_dict(data, args.study),
        "quality": from_dict({**data, "metrics": {"quality": True}}, args.study),
        "records": from_dict(data, args.study),
    }
    games = studies["plain"].total_games
    print(f"{args.study}: {games:,} games a run, {args.workers} worker(s); {_native.describe()}")
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    wall: dict[str, list[float]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as scratch:
        # a first run, not counted: the parent's imports and caches
        run(studies["plain"], workers=args.workers, out=Path(scratch) / "warm", progress=False)
        for number in range(args.rounds):
            outs = {}
            for mode in MODES:
                out = Path(scratch) / f"{mode}-{number}"
                start, started = cpu_seconds(), time.perf_counter()
                run(
                    studies[mode],
                    workers=args.workers,
                    out=out,
                    progress=False,
                    records=mode == "records",
                )
                wall[mode].append(time.perf_counter() - started)
                cpu[mode].append(cpu_seconds() - start)
                outs[mode] = out
            assert files(outs["plain"]) == files(outs["quality"]), "quality changed a game"
            assert files(outs["plain"]) == files(outs["records"]), "records changed a game"
            line = ", ".join(
                f"{mode} {cpu[mode][-1]:.2f} s CPU ({cpu[mode][-1] / cpu['plain'][-1]:.2f}x)"
                for mode in MODES
            )
            print(f"round {number + 1}: {line}")
    for mode in MODES:
        median = statistics.median(cpu[mode])
        ratios = [c / p for c, p in zip(cpu[mode], cpu["plain"], strict=True)]
        goal = f" (goal: at most {GOALS[mode]}x)" if mode in GOALS else ""
        print(
            f"{mode}: median {1e6 * median / games:.0f} us CPU/game, "
            f"{1e6 * statistics.median(wall[mode]) / games:.0f} us wall/game; "
            f"CPU ratio median {statistics.median(ratios):.2f}x{goal}"
        )


if __name__ == "__main__":
    main()
