"""Dask on one machine against local processes: the same cheap study (random and planner,
two players, native engine where built) run by both backends at each worker count, each run
in a fresh subprocess, the two backends interleaved so a drifting machine load hits both
alike. Prints games/s of each and the Dask/local ratio.

``--before DIR`` adds Dask runs of another version of the code (a source tree with its
compiled modules, put first on PYTHONPATH), interleaved with the others, each compared with the
local run of the same round.

Run: python benchmarks/dask_overhead.py [--games N] [--workers 1 2] [--repeat R]
[--before DIR]. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

# this folder holds a file named like the package it measures: keep it off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

RUN_SNIPPET = """
import json, sys, time
from sims.runner import run
from sims.study import from_dict
games, out, workers, backend = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
study = from_dict({"name": "x", "seed": 1, "players": [2], "pool": ["random", "planner"],
                   "games_per_cell": games})
start = time.perf_counter()
summary = run(study, workers=workers, backend=backend, out=out, progress=False)
print(json.dumps({"games": summary.games_played, "seconds": time.perf_counter() - start}))
"""


def timed_run(games: int, workers: int, backend: str, source: str | None = None) -> float:
    """Seconds of one run, start-up of its pool or cluster included."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([source, *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-c", RUN_SNIPPET, str(games), f"{folder}/r", str(workers), backend],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
    result = json.loads(out.stdout)
    assert result["games"] == games, result
    return float(result["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50_000, help="games in the study")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="rounds at each worker count")
    parser.add_argument("--before", help="source tree of the version to compare with")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}; {args.games} games")  # fmt: skip
    kinds = {"dask": None, **({"dask before": args.before} if args.before else {})}
    for workers in args.workers:
        for round_ in range(args.repeat):
            local = timed_run(args.games, workers, "local")
            shown = [f"local {local:6.1f} s ({args.games / local:5.0f} games/s)"]
            for kind, source in kinds.items():
                seconds = timed_run(args.games, workers, "dask", source)
                shown.append(f"{kind} {seconds:6.1f} s, {local / seconds:.2f}x local")
            print(f"{workers} worker(s), round {round_ + 1}: " + "; ".join(shown), flush=True)


if __name__ == "__main__":
    main()
