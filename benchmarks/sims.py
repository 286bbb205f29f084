"""Monte Carlo speed: planner-only games per second per core, the SimPy clock's overhead,
peak memory of a run at two sizes, and a strategy-ladder run on all cores; the Python and
native engines side by side (CPU time beside wall time for the planner tables).

Run: python benchmarks/sims.py [--games N] [--ladder GAMES]. Not a test.

``--worker-vs DIR`` measures only a worker's throughput on the strategy-ladder mix (its
batches played by ``run_batch`` and encoded by ``batch_tables`` and ``encode_parts``, one
core, CPU time, no pool) here against DIR, another checkout (``git worktree add``), in
interleaved rounds; ``--profile`` adds a cProfile breakdown of this checkout's worker.
Measured 2026-11-26, 2-core machine shared with two other jobs (load 4.5-5), ``--ladder 48
--rounds 5`` (4,368 games): main at 957dfb4 1,070 games/s, rows from C and cheap set-up
1,838 games/s (1.7x; rounds swing by 1.5x under the load). 2026-11-27, rows written from the
C state into columns (no dict per row, no ``from_pylist``), ``--worker-vs`` a tree of 957dfb4:
3.60x on the 2-core machine (``--ladder 200 --rounds 3``: 1,198 against 4,307 games/s), 2.96x
and 3.66x on a 16-core one (``--ladder 100``, 3 and 5 rounds). What is left of a worker's time:
the native game about 45%, Python per game (specs, twins, ``Game``) about 20%, the Parquet
parts about 20%, the columns to Arrow about 5-10%. With the parts as LZ4-compressed Arrow IPC
streams and each game's base columns worked out once (2026-11-27, against 22cf9a6, ``--ladder
300 --rounds 3``): 1.31x (4,244 against 5,561 games/s); docs/scaling.md has the whole runs.
A batch played whole on the native core, its offers packed in C (against f4be56b, the same
measure): 1.32x (4,746 against 6,282 games/s).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# this file is named like the package it measures: keep its folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from cardgame import Rules, _native, resolution  # noqa: E402
from sims.clock import ThinkTimes  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.rows import NATIVE_TABLES, TableRows  # noqa: E402
from sims.seeding import game_seed  # noqa: E402
from sims.strategy import spec  # noqa: E402

# how a game is played: the Python engine (R16 in Python or in the native kernel), or the
# native decision loop (state, rules and strategies in C) through play_game, or that loop
# alone (no rows: the core's own speed)
MODES = ["python", "python+R16"] + (["native", "native loop"] if _native.BUILT else [])


def _play(mode: str, game: GameSpec) -> None:
    if mode == "native loop":
        _bare_native(game)
        return
    with resolution.engine_in_use("python" if mode == "python" else "native"):
        if mode == "native":  # the rows into a batch's columns, as a study writes them
            tables = {name: TableRows(name) for name in NATIVE_TABLES}
            play_game(game, None, engine="native", tables=tables)
        else:
            play_game(game, None, engine="python")


def _bare_native(game: GameSpec) -> None:
    """The native loop with nothing around it: twins (made as the runner makes them), a
    fresh state, play to the end; no rows."""
    from cardgame import Game
    from sims.match import native_loop

    native = native_loop()
    twins = [native.twin(game, seat) for seat in range(game.players)]
    state = native.NativeState.new(Game(game.players, game.seed, game.rules))
    native.play_native(state, twins)


def planner_engines(players: int, games: int) -> dict[str, tuple[float, float]]:
    """Planner tables' games/s (by CPU time, by wall time) in each mode built here,
    interleaved game by game."""
    seats = tuple(spec("planner") for _ in range(players))
    cpu = dict.fromkeys(MODES, 0.0)
    wall = dict.fromkeys(MODES, 0.0)
    for index in range(games):
        game = GameSpec(
            "bench", "c", "base", Rules(), players, seats, index, game_seed(1, "bench", index)
        )
        for mode in MODES:
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            _play(mode, game)
            cpu[mode] += time.process_time() - start_cpu
            wall[mode] += time.perf_counter() - start_wall
    return {mode: (games / cpu[mode], games / wall[mode]) for mode in MODES}


def planner_rates(players: int, games: int) -> tuple[float, float]:
    """Games/s without and with the clock. The two are interleaved game by game (the same
    game each way), so drifting machine speed cannot pass for clock overhead."""
    seats = tuple(spec("planner") for _ in range(players))
    clock = ThinkTimes()
    bare = timed = 0.0
    for index in range(games):
        game = GameSpec(
            "bench", "c", "base", Rules(), players, seats, index, game_seed(1, "bench", index)
        )
        start = time.perf_counter()
        play_game(game, None, engine="python")
        middle = time.perf_counter()
        play_game(game, clock, engine="python")
        bare += middle - start
        timed += time.perf_counter() - middle
    return games / bare, games / timed


RUN_SNIPPET = """
import json, resource, sys, time
from sims.runner import run
from sims.study import load_study, quick_study
study = quick_study(load_study("strategy-ladder"), games=int(sys.argv[1]), out=sys.argv[2])
start = time.perf_counter()
summary = run(study, workers=int(sys.argv[3]), progress=False)
elapsed = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"games": summary.games_played, "seconds": elapsed, "parent_mb": peak_mb,
                  "worker_mb": children_mb}))
"""


def ladder_run(games_per_cell: int, workers: int, engine: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [sys.executable, "-c", RUN_SNIPPET, str(games_per_cell), f"{folder}/r", str(workers)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "CARDGAME_ENGINE": engine},
        )
    return json.loads(out.stdout)


WORKER_SNIPPET = """
import cProfile, json, pstats, sys, time
sys.path.insert(0, sys.argv[1])
import sims
from sims.batch import plan_batches, run_batch
try:
    from sims.parts import batch_tables, encode_parts
except ImportError:  # a checkout measured against may keep them in sims.results
    from sims.results import batch_tables, encode_parts
from sims.study import load_study, quick_study
assert sims.__file__.startswith(sys.argv[1]), sims.__file__
study = quick_study(load_study("strategy-ladder"), games=int(sys.argv[2]), out="unused")
batches = list(plan_batches(study))
def work():
    games = 0
    for batch in batches:
        result = run_batch(batch)
        encode_parts(result.id, batch_tables(result.id, result.tables), None)
        games += result.games
    return games
work()  # warm: twins, caches, imports of the first game
start = time.process_time()
games = work()
seconds = time.process_time() - start
if sys.argv[3] == "profile":
    cProfile.run("work()", sys.argv[4])
print(json.dumps({"games": games, "seconds": seconds}))
"""


def worker_rate(source: Path, games_per_cell: int, profile: str | None = None) -> float:
    """Games/s (CPU time) of one worker of ``source`` on the strategy-ladder batches."""
    out = subprocess.run(
        [sys.executable, "-c", WORKER_SNIPPET, str(source), str(games_per_cell),
         "profile" if profile else "none", profile or ""],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    result = json.loads(out.stdout)
    return result["games"] / result["seconds"]


def worker_versus(before: Path, games_per_cell: int, rounds: int, profile: bool) -> None:
    """This checkout's worker against ``before``'s, in alternating rounds (a drifting
    machine speed hits both alike): median games/s and the ratio of medians."""
    here = Path(__file__).resolve().parents[1]
    rates: dict[Path, list[float]] = {before: [], here: []}
    for _ in range(rounds):
        for source in rates:
            rates[source].append(worker_rate(source, games_per_cell))
    median = {source: sorted(r)[len(r) // 2] for source, r in rates.items()}
    for source, got in rates.items():
        shown = ", ".join(f"{r:.0f}" for r in got)
        print(f"  {source}: median {median[source]:.0f} games/s (rounds: {shown})")
    print(f"  ratio here/before: {median[here] / median[before]:.2f}x")
    if profile:
        with tempfile.TemporaryDirectory() as folder:
            worker_rate(here, games_per_cell, f"{folder}/worker.prof")
            import pstats

            pstats.Stats(f"{folder}/worker.prof").sort_stats("tottime").print_stats(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="games per planner table")
    parser.add_argument("--ladder", type=int, default=48, help="strategy-ladder games per cell")
    parser.add_argument("--worker-vs", type=Path, help="a checkout to compare a worker with")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --worker-vs")
    parser.add_argument("--profile", action="store_true", help="with --worker-vs: cProfile")
    args = parser.parse_args()
    if args.worker_vs is not None:
        print(f"worker throughput, strategy ladder, {args.ladder} games per cell, one core:")
        worker_versus(args.worker_vs.resolve(), args.ladder, args.rounds, args.profile)
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}")
    print("planner-only tables, one core, Python engine:")
    print(f"{'players':>7} {'no clock':>10} {'clock':>10} {'clock overhead':>15}")
    for players in (2, 3, 4):
        bare, timed = planner_rates(players, args.games)
        print(f"{players:>7} {bare:>8.0f}/s {timed:>8.0f}/s {bare / timed - 1:>14.1%}")
    print(f"planner-only tables by engine ({_native.describe()}), games/s by CPU (wall) time;")
    print("  native: play_game on the native loop (rows built); native loop: the loop alone")
    for players in (2, 3, 4):
        got = planner_engines(players, args.games)
        shown = "  ".join(f"{n} {c:>6.0f} ({w:>6.0f})/s" for n, (c, w) in got.items())
        base = got["python"][0]
        ratios = ", ".join(f"{n} {c / base:.1f}x" for n, (c, _) in got.items() if n != "python")
        print(f"{players:>7}  {shown}  vs python: {ratios}")
    print("strategy-ladder runs (all 7 strategies, 2-4 players, subprocess, Parquet output):")
    runs = ((args.ladder // 4, 1), (args.ladder, 1), (args.ladder, cores))
    engines = ["python", "native"] if _native.BUILT else ["python"]
    for (per_cell, workers), engine in ((r, e) for r in runs for e in engines):
        result = ladder_run(per_cell, workers, engine)
        rate = result["games"] / result["seconds"]
        print(
            f"  {engine:>6}: {result['games']:>7} games, {workers} worker(s): "
            f"{result['seconds']:6.1f} s, "
            f"{rate:6.0f} games/s, peak memory parent {result['parent_mb']:.0f} MB, "
            f"worker {result['worker_mb']:.0f} MB; 100,000 games would take "
            f"{100_000 / rate / 60:.1f} min"
        )


if __name__ == "__main__":
    main()
