"""Dask on one machine against local processes: the same cheap study (random and planner,
two players, native engine where built) run by both backends at each worker count, each run
in a fresh subprocess, interleaved so a drifting machine load hits both alike. Prints the
seconds of each run and the Dask/local speed ratio; for a Dask run of this version also the
cluster's start-up and close, its tasks, and how busy its workers were in between.

``--before DIR`` adds Dask runs of another version of the code (a source tree with its
compiled modules, put first on PYTHONPATH), each compared with the local run of its round.
``--costs`` measures Dask's own costs instead: starting and closing a local cluster, and the
time per task of tasks that do nothing, kept in flight as the runner keeps them.

Run: python benchmarks/dask_overhead.py [--games N] [--workers 1 2] [--repeat R]
[--before DIR] [--costs]. Not a test.
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
import sims.cluster
from sims.runner import run
from sims.study import from_dict
games, out, workers, backend = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
study = from_dict({"name": "x", "seed": 1, "players": [2], "pool": ["random", "planner"],
                   "games_per_cell": games})
tasks = []  # (when the client heard, games, seconds on the worker) of each Dask task
bundler = getattr(sims.cluster, "Bundler", None)  # an older version has none: not measured
if bundler is not None:
    took, init = bundler.took, bundler.__init__
    def timed_took(self, n, seconds):
        tasks.append((time.perf_counter(), n, seconds))
        took(self, n, seconds)
    def timed_init(self, todo, *rest):
        tasks.append((time.perf_counter(), 0, 0.0))  # the cluster is up
        init(self, todo, *rest)
    bundler.took, bundler.__init__ = timed_took, timed_init
start = time.perf_counter()
summary = run(study, workers=workers, backend=backend, out=out, progress=False)
end = time.perf_counter()
result = {"games": summary.games_played, "seconds": end - start}
if len(tasks) > 1:
    up, last = tasks[0][0], tasks[-1][0]
    result.update(start=up - start, tasks=len(tasks) - 1, close=end - last,
                  busy=sum(t[2] for t in tasks) / (workers * (last - up)))
print(json.dumps(result))
"""

TASKS_SNIPPET = """
import json, sys, time
import sims.cluster
from dask.distributed import Client, LocalCluster, as_completed

def nothing(x):
    return x

def main():
    tasks, workers = int(sys.argv[1]), int(sys.argv[2])
    start = time.perf_counter()
    made = getattr(sims.cluster, "local_cluster", None)  # the run's own, TLS and all
    cluster = made(workers) if made else LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"})
    client = Client(cluster)
    up = time.perf_counter()
    futures, sent = as_completed(), 0
    for _ in range(2 * workers):
        futures.add(client.submit(nothing, sent, pure=False))
        sent += 1
    for future in futures:  # as the runner does: a new task as each one ends
        future.result()
        if sent < tasks:
            futures.add(client.submit(nothing, sent, pure=False))
            sent += 1
    done = time.perf_counter()
    client.close()
    cluster.close()
    print(json.dumps({"start": up - start, "per_task": (done - up) / tasks,
                      "close": time.perf_counter() - done}))

if __name__ == "__main__":
    main()
"""


def timed_run(
    games: int, workers: int, backend: str, source: str | None = None
) -> dict[str, float]:
    """One run's seconds (start-up of its pool or cluster included), and for a Dask run of
    this version its cluster's start-up and close, its tasks and its workers' busy share."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([source, *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-c", RUN_SNIPPET, str(games), f"{folder}/r", str(workers), backend],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,  # not this checkout: `python -c` puts the working folder first
        )
    if out.returncode != 0:
        raise RuntimeError(f"the {backend} run failed: {out.stderr.strip()[-2000:]}")
    result = json.loads(out.stdout)
    assert result["games"] == games, result
    return dict(result)


def dask_costs(workers: int, tasks: int = 2000) -> dict[str, float]:
    """Dask's own costs on one machine: starting and closing a local cluster, and the time
    per task of tasks that do nothing."""
    out = subprocess.run(
        [sys.executable, "-c", TASKS_SNIPPET, str(tasks), str(workers)],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50_000, help="games in the study")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="rounds at each worker count")
    parser.add_argument("--before", help="source tree of the version to compare with")
    parser.add_argument("--costs", action="store_true", help="only Dask's own costs")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f}; {args.games} games"
    )
    if args.costs:
        for workers in args.workers:
            costs = dask_costs(workers)
            print(
                f"{workers} worker(s): local cluster start {costs['start']:.1f} s, close "
                f"{costs['close']:.1f} s; {costs['per_task'] * 1000:.2f} ms a task that does "
                "nothing"
            )
        return
    kinds = {"dask": None, **({"dask before": args.before} if args.before else {})}
    for workers in args.workers:
        for round_ in range(args.repeat):
            local = timed_run(args.games, workers, "local")["seconds"]
            print(
                f"{workers} worker(s), round {round_ + 1}: local {local:6.1f} s "
                f"({args.games / local:5.0f} games/s)",
                flush=True,
            )
            for kind, source in kinds.items():
                try:
                    got = timed_run(args.games, workers, "dask", source)
                except RuntimeError as exc:
                    print(f"  {kind}: {exc}", flush=True)
                    continue
                line = f"  {kind}: {got['seconds']:6.1f} s, {local / got['seconds']:.2f}x local"
                if "tasks" in got:
                    line += (
                        f" (cluster start {got['start']:.1f} s, {got['tasks']:.0f} tasks, "
                        f"workers busy {got['busy']:.1%} from start to last task, close "
                        f"{got['close']:.1f} s)"
                    )
                print(line, flush=True)


if __name__ == "__main__":
    main()
