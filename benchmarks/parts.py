"""Who writes the Parquet parts: the parent (before) or the workers (after), side by side.

A study of cheap random-vs-random 2-player games, where the parent's serial work (unpickling
rows, building Arrow tables, writing Parquet) weighed most, is run with 1 and 2 local workers
by the runner of an earlier commit (``--before``, extracted with ``git archive``) and by the
current one, interleaved round by round so that drifting machine speed hits both alike. Each
run is its own subprocess; it reports wall time, the parent's CPU time and the workers' CPU
time. The tables of the two runners must be identical (checked on every run).

Run: python benchmarks/parts.py [--games 2000] [--rounds 2] [--before REV]. Not a test.

Measured 2026-11-26 (2 cores shared with another job, load about 2; 6000 games, 2 rounds):
parent CPU per game 0.197 -> 0.014 ms with 1 worker and 0.216 -> 0.018 ms with 2 (12-14x
less); parent + workers CPU 11.1 -> 10.7 s (rows are no longer pickled); games/s after/before
1.03x with 1 worker and 1.05x with 2. On those busy cores 2 workers ran at 0.89-0.91x of one,
so the wall-time gain there is small; the parent's freed CPU is what idle cores turn into games.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "6e53784"  # the last commit whose parent process wrote every part

RUN_SNIPPET = """
import json, resource, sys, time
from sims.runner import run
from sims.study import from_dict
study = from_dict({"name": "parts", "seed": 1, "players": [2], "pool": ["random"],
                   "games_per_cell": int(sys.argv[1]), "batch_size": int(sys.argv[4])}, "bench")
wall, cpu = time.perf_counter(), time.process_time()
summary = run(study, workers=int(sys.argv[3]), out=sys.argv[2], progress=False)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"games": summary.games_played, "wall": wall, "parent_cpu": cpu,
                  "worker_cpu": children.ru_utime + children.ru_stime}))
"""


def extract(rev: str, into: Path) -> Path:
    """The ``sims`` package as it was at ``rev`` (cardgame stays the installed one)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "sims"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def one_run(path: Path | None, games: int, workers: int, batch: int, out: Path) -> dict:
    """One study in a fresh process, run outside the repository so ``sims`` comes from
    ``path`` (the earlier commit) or, with None, from the installed (current) package."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", RUN_SNIPPET, str(games), str(out), str(workers), str(batch)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=out.parent,
    )
    return json.loads(done.stdout)


def same_tables(a: Path, b: Path) -> bool:
    import pandas as pd

    return all(
        pd.read_parquet(a / t).equals(pd.read_parquet(b / t))
        for t in ("games", "seats", "destinations")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--batch", type=int, default=50, help="batch size (the default)")
    parser.add_argument("--before", default=BEFORE, help="commit of the earlier runner")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}")
    print(
        f"{args.games} random-vs-random 2-player games per run, batches of {args.batch}, "
        f"{args.rounds} interleaved rounds; before = {args.before}"
    )
    rows: dict[tuple[str, int], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        old = extract(args.before, Path(tmp) / "before")
        for round_ in range(args.rounds):
            for workers in (1, 2):
                folders = {}
                for label, path in (("before", old), ("after", None)):
                    out = Path(tmp) / f"{label}-{workers}-{round_}"
                    rows.setdefault((label, workers), []).append(
                        one_run(path, args.games, workers, args.batch, out)
                    )
                    folders[label] = out
                assert same_tables(folders["before"], folders["after"]), "tables differ"
    print(
        f"{'runner':>7} {'workers':>7} {'games/s':>8} {'wall s':>7} {'parent CPU s':>13} "
        f"{'parent CPU/game':>16} {'worker CPU s':>13}"
    )
    rates = {}
    for (label, workers), runs in rows.items():
        wall = statistics.median(r["wall"] for r in runs)
        parent = statistics.median(r["parent_cpu"] for r in runs)
        worker = statistics.median(r["worker_cpu"] for r in runs)
        rates[label, workers] = args.games / wall
        print(
            f"{label:>7} {workers:>7} {args.games / wall:>8.0f} {wall:>7.2f} {parent:>13.2f} "
            f"{parent / args.games * 1000:>13.3f} ms {worker:>13.2f}"
        )
    for workers in (1, 2):
        print(
            f"after/before, {workers} worker(s): "
            f"{rates['after', workers] / rates['before', workers]:.2f}x games/s"
        )
    for label in ("before", "after"):
        print(f"{label}: 2 workers / 1 worker: {rates[label, 2] / rates[label, 1]:.2f}x")


if __name__ == "__main__":
    main()
