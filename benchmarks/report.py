"""What a big study costs after its games: the folder on disk, the compaction that ends the
run, and `cardgame report` (wall time and peak memory), for strategy ladders of growing size.

Each size is the built-in strategy ladder with its games per cell scaled, run on the native
core with ``--keep-parts`` (so the parts' size is seen), then compacted as a finished run is;
the report runs in a subprocess of its own, so its peak memory is its own.

Run: python benchmarks/report.py [--games 100000 300000] [--workers 2] [--keep DIR].
Not a test.
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

# the benchmarks folder holds a sims.py: keep it off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

RUN = """
import json, sys, time
from sims.runner import run
from sims.study import load_study, quick_study
study = quick_study(load_study("strategy-ladder"), games=int(sys.argv[1]), out=sys.argv[2])
start = time.perf_counter()
summary = run(study, workers=int(sys.argv[3]), progress=False, keep_parts=True)
print(json.dumps({"games": summary.games_played, "seconds": time.perf_counter() - start}))
"""

REPORT = """
import resource, sys
from cardgame.cli import main
assert main(["report", sys.argv[1], "--out", sys.argv[2]]) == 0
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def measure(games: int, workers: int, folder: Path) -> dict[str, float]:
    cells = 91  # the ladder's cells: every line-up of 2, 3 and 4 of its 7 strategies
    per_cell = max(1, round(games / cells))
    run = subprocess.run(
        [sys.executable, "-c", RUN, str(per_cell), str(folder), str(workers)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    played = json.loads(run.stdout)
    from sims.results import compact  # after the path is fixed

    parts = folder_bytes(folder)
    start = time.perf_counter()
    compact(folder)
    compaction = time.perf_counter() - start
    compacted = folder_bytes(folder)
    start = time.perf_counter()
    report_run = subprocess.run(
        [sys.executable, "-c", REPORT, str(folder), str(folder.parent / "report.html")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    report = time.perf_counter() - start
    peak = int(report_run.stdout.split()[-1])
    n = played["games"]
    return {
        "games": n,
        "play_s": played["seconds"],
        "parts_bytes_per_game": parts / n,
        "compaction_s": compaction,
        "compact_bytes_per_game": compacted / n,
        "report_s": report,
        "report_peak_mb": peak / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[100_000])
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--keep", type=Path, help="keep the results folders here")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, {args.workers} worker(s)")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        for games in args.games:
            got = measure(games, args.workers, root / f"ladder-{games}")
            print(
                f"{got['games']:>9,} games: played in {got['play_s']:.1f} s; "
                f"{got['parts_bytes_per_game']:.0f} B/game as parts, compacted in "
                f"{got['compaction_s']:.1f} s to {got['compact_bytes_per_game']:.0f} B/game; "
                f"report {got['report_s']:.1f} s, peak {got['report_peak_mb']:,.0f} MB"
            )


if __name__ == "__main__":
    main()
