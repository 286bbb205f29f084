"""Instructions per planner game, counted by valgrind's callgrind: a repeatable measure
for before/after comparisons on a noisy machine (wall-clock rates here swing by 1.5x), on
the Python engine and, where it is built, the native core (``CARDGAME_ENGINE``).

Run: python benchmarks/instructions.py [--games 300] [--warm 3] [--no-clock] [--source DIR]
[--engine native] [--random] [--ladder FEW MORE [--records]]
(DIR: a checkout to measure, e.g. a `git worktree` of the commit to compare against.) The
count per game is that of games ``warm`` to ``warm + games - 1`` (two runs subtracted): the
first games' one-time costs (lazy imports, a worker's caches) are left out, as a worker pays
them once for thousands of games.

The games are played as a study plays them: one batch, its rows, its parts.

Measured 2026-11-27 (counts do not depend on the load): native, 2-player planner games with
the clock, 30 counted after 3 warm ones: 1.37 M instructions a game on main at 957dfb4
(``--source`` a tree of it), 0.66 M with the rows written from the C state into columns,
twins copied per game, ``Game()``'s facts kept and the seed hashed in C. Goal: at most 0.8 M.
(2026-11-26, through ``play_game`` alone: 1.73 M and 0.72 M.)
2026-11-27, 300 games (30 swung the count between 0.5 and 1.0 M): 0.58-0.60 M at 002000e,
0.54-0.57 M with the MT19937 and R16 changes and -O3 for the core (4 runs). ``--random``: native
random play, 332 k and 279 k instructions a game (1,000 games after 200 warm); with the
default count, 304 k at 002000e, 265 k at 46547f5 and 223 k with R16's new budgets, the
offers' keeps listed once and MT19937's constants folded.

``--ladder FEW MORE``: the strategy ladder's mix through a worker's path (every cell's batch
played, its rows and parts), then with the parts landed and compacted; per game, the count
at MORE games a cell less that at FEW (each batch's own costs left out; FEW and MORE of a few
games swing the count by several times, take 10 and 30). 2026-11-27, ``10 30``: a worker 744 k
at 22cf9a6 (Parquet parts), 605 k with the parts as LZ4-compressed Arrow IPC streams, each
game's base columns worked out once and its destination rows written in key order; with the
compaction, 952 k and 741 k (one dictionary per text column in the compact files). The same
day, at f4be56b against a batch played whole on the native core (offers packed in C ints,
the row writer's savepoint in C, blocks handed to Arrow column by column): a worker 605 k and
490 k, in all 737 k and 617 k; a 2-player planner game (the default count) 0.46 M and 0.37 M.
``--ladder 10 30 --records``: a worker without and with each game's record (its part encoded,
not landed). 2026-11-29: 616 k and 11,890 k at ce13ca6 (records as dicts, ``json.dumps``
twice), 619 k and 1,694 k with the record written in C from the core's log; about 0.6 M of
those are SHA-256's, which valgrind counts without the CPU's SHA extensions.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PLAY = """
import sys
from dataclasses import replace
sys.path.insert(0, sys.argv[1])
from sims.batch import plan_batches, run_batch
try:
    from sims.parts import batch_tables, encode_parts
except ImportError:  # a checkout measured against may keep them in sims.results
    from sims.results import batch_tables, encode_parts
from sims.study import from_dict
games = int(sys.argv[2])  # games 0 to games - 1: the same games in both runs
study = from_dict({"name": "b", "seed": 1, "players": [2], "lineups": [["planner", "planner"]],
                   "games_per_cell": games, "batch_size": games}, "bench")
for batch in plan_batches(study):  # one batch: its games' rows, then its parts
    if sys.argv[3] == "none":
        batch = replace(batch, clock=None)
    result = run_batch(batch)
    encode_parts(result.id, batch_tables(result.id, result.tables))
"""

LADDER = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from sims.batch import plan_batches, run_batch
try:
    from sims.compaction import compact
    from sims.folder import write_manifest
    from sims.parts import batch_tables, encode_parts, land_files
except ImportError:  # a checkout measured against may keep them in sims.results
    from sims.results import batch_tables, compact, encode_parts, land_files, write_manifest
from sims.study import load_study, quick_study
study = quick_study(load_study("strategy-ladder"), games=int(sys.argv[2]), out="unused")
with tempfile.TemporaryDirectory() as folder:
    plan = getattr(study, "plan", None)  # a tree before plans runs this script too
    extra = {} if plan is None else {"plan": plan.to_dict()}
    write_manifest(Path(folder), study.to_dict(), {}, **extra)
    # a worker's work: play, rows, parts (and the records with "records")
    records = sys.argv[3] == "records"
    for batch in plan_batches(study if plan is None else plan, records=records):
        result = run_batch(batch)
        files = encode_parts(
            result.id, batch_tables(result.id, result.tables), result.records if records else None
        )
        if sys.argv[3] == "compact":
            land_files(Path(folder), files)
    if sys.argv[3] == "compact":  # and the parent's: the parts merged into compact files
        compact(Path(folder))
"""

RANDOM = """
import sys
sys.path.insert(0, sys.argv[1])
from cardgame import Game
from cardgame._native._core import play_random
for seed in range(int(sys.argv[2])):  # native random play, 2 players, Game() counted
    play_random(Game(2, seed))
"""


def instructions(
    source: Path, games: int, clock: bool, engine: str, random: bool = False, ladder: str = ""
) -> int:
    script = LADDER if ladder else RANDOM if random else PLAY
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            script,
            str(source),
            str(games),
            ladder or ("clock" if clock else "none"),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "CARDGAME_ENGINE": engine},
    )
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    # fewer games swing the count by up to 2x (the collector, Arrow's threads under valgrind)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--warm", type=int, default=3, help="games left out of the count")
    parser.add_argument("--engine", choices=["python", "native"], help="only this engine")
    parser.add_argument("--no-clock", action="store_true")
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--random", action="store_true", help="native random play instead")
    parser.add_argument(
        "--ladder",
        type=int,
        nargs=2,
        metavar=("FEW", "MORE"),
        help="the strategy ladder's mix instead, FEW then MORE games a cell: a worker's "
        "instructions per game, then with the parts landed and compacted",
    )
    parser.add_argument(
        "--records",
        action="store_true",
        help="with --ladder: a worker's instructions per game without and with --records "
        "(each game's record written, its part encoded, not landed)",
    )
    parser.add_argument(
        "--parent",
        type=int,
        nargs=2,
        metavar=("FEW", "MORE"),
        help="a real run of the strategy ladder (`cardgame simulate`, 1 worker), FEW then "
        "MORE games a cell: each process's instructions per game (the parent's first)",
    )
    args = parser.parse_args()

    if args.parent:
        few, more = args.parent
        low, high = processes(args.source, few), processes(args.source, more)
        games = (more - few) * CELLS
        for rank, (start, end) in enumerate(zip(low, high, strict=True)):
            role = "the parent" if rank == 0 else f"process {rank} (a worker or the compaction)"
            print(
                f"{args.source} [ladder run]: {role}: {(end - start) / games / 1e3:.0f} k "
                f"instructions per game ({games:,} games)"
            )
        return

    if args.ladder:
        few, more = args.ladder
        games = (more - few) * CELLS
        for step in ("play", "records") if args.records else ("play", "compact"):
            count = instructions(args.source, more, True, "native", ladder=step)
            count -= instructions(args.source, few, True, "native", ladder=step)
            print(
                f"{args.source} [native, ladder, {step}]: {count / games / 1e3:.0f} k "
                f"instructions per game ({games:,} games)"
            )
        return

    def per_game(clock: bool, engine: str, random: bool = False) -> float:
        """Imports, set-up and the warm games; then those and the games counted."""
        start = instructions(args.source, args.warm, clock, engine, random)
        total = instructions(args.source, args.warm + args.games, clock, engine, random)
        return (total - start) / args.games

    if args.random:
        count = per_game(False, "native", random=True)
        print(
            f"{args.source} [native]: {count / 1e3:.0f} k instructions per 2-player "
            "random game, Game() counted"
        )
        return
    engines = ["python", "native"] if _native_built(args.source) else ["python"]
    if args.engine is not None:
        engines = [args.engine]
    counts = {}
    for engine in engines:
        counts[engine] = per_game(not args.no_clock, engine)
        print(
            f"{args.source} [{engine}]: {counts[engine] / 1e6:.2f} M instructions per "
            f"2-player planner game ({'no clock' if args.no_clock else 'with clock'})"
        )
    if len(counts) == 2:
        print(f"python/native: {counts['python'] / counts['native']:.1f}x fewer instructions")


CELLS = 91  # the strategy ladder's cells


def processes(source: Path, games: int) -> list[int]:
    """Each process's instructions in a `cardgame simulate` of the ladder at ``games`` a
    cell on 1 worker, the parent first, then the others in the order they started (valgrind
    follows forked children; each is counted apart)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "cardgame.cli", "simulate", "strategy-ladder",
                   "--games", str(games), "--workers", "1", "--out", f"{out}/run",
                   "--no-progress", "--until", "planned"]  # fmt: skip
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
            capture_output=True, text=True, check=True, cwd=source,
            env={**os.environ, "CARDGAME_ENGINE": "native", "PYTHONPATH": str(source)},
        )  # fmt: skip
    found = re.findall(r"==(\d+)== Collected : (\d+)", result.stderr)
    parent = re.search(r"==(\d+)== Command", result.stderr).group(1)  # type: ignore[union-attr]
    ordered = sorted(found, key=lambda pid_count: (pid_count[0] != parent, int(pid_count[0])))
    return [int(count) for _, count in ordered]


def _native_built(source: Path) -> bool:
    probe = "import sys; sys.path.insert(0, sys.argv[1]); from cardgame import _native; "
    probe += "print(_native.BUILT)"
    out = subprocess.run(
        [sys.executable, "-c", probe, str(source)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip() == "True"


if __name__ == "__main__":
    main()
