"""What game-quality metrics cost a study: the same study with and without
``[metrics] quality = true``, interleaved round by round in one process, so a drifting machine
hits both alike. Goal (issue 18): at most 2x the time of the study without.

Each round runs both studies on one worker into fresh folders and times the run (CPU time of
the worker included: wall time on an idle worker is CPU time). The games, seats and
destinations files of both must be identical (checked on every round): quality changes no
game.

Run: python benchmarks/quality.py [--games 200] [--rounds 3] [--study strategy-ladder]. Not a
test.
"""

from __future__ import annotations

import argparse
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


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*.parquet"))
        if not str(p.relative_to(folder)).startswith("quality")
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", default="strategy-ladder")
    parser.add_argument("--games", type=int, default=48, help="games per cell")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    data = dict(load_study(args.study).source)
    data["games_per_cell"] = args.games
    data.pop("output", None)
    plain = from_dict(data, args.study)
    measured = from_dict({**data, "metrics": {"quality": True}}, args.study)
    print(
        f"{args.study}: {plain.total_games:,} games a run, {args.workers} worker(s); "
        f"{_native.describe()}"
    )
    times: dict[str, list[float]] = {"without": [], "with": []}
    with tempfile.TemporaryDirectory() as scratch:
        for number in range(args.rounds):
            outs = {}
            for name, study in (("without", plain), ("with", measured)):
                out = Path(scratch) / f"{name}-{number}"
                start = time.perf_counter()
                run(study, workers=args.workers, out=out, progress=False)
                times[name].append(time.perf_counter() - start)
                outs[name] = out
            assert files(outs["without"]) == files(outs["with"]), "quality changed a game"
            ratio = times["with"][-1] / times["without"][-1]
            print(
                f"round {number + 1}: without {times['without'][-1]:.2f} s, "
                f"with {times['with'][-1]:.2f} s, ratio {ratio:.2f}"
            )
    games = plain.total_games
    without, with_ = statistics.median(times["without"]), statistics.median(times["with"])
    print(
        f"median: without {1e6 * without / games:.0f} us/game, with {1e6 * with_ / games:.0f} "
        f"us/game; ratio {with_ / without:.2f} (goal: at most 2)"
    )


if __name__ == "__main__":
    main()
