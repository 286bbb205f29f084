"""A study from its games to its report, at scale: the built-in strategy ladder with its games
per cell scaled, played on local processes (and on Dask) at several worker counts, its parts
and compaction measured (size on disk as parts and compacted, the compaction's time), then
``cardgame report`` on the first small folder and on the biggest, held to a few cores (as on a
small machine: its process pinned to them, Arrow's and BLAS's threads as many).

Each step runs in a fresh interpreter, so start-up and peak memory are its own. ``--before
DIR`` also reports the small folder with another version of the code (a source tree put first
on PYTHONPATH), for a ratio from one run. Prints one JSON line per step.

Run: python benchmarks/scaling.py [--games 1000000] [--workers 16] [--backends local dask]
[--small-games 100000 --small-workers 1 2] [--report-cores 2] [--before DIR] [--keep DIR]
[--keep-parts]. A run compacts its folder while it plays; ``--keep-parts`` times its play
and a compaction afterwards apart instead (and the parts' size). Not a test.
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

CELLS = 91  # the ladder's cells: every line-up of 2, 3 and 4 of its 7 strategies

PLAY = """
import json, sys, time
from pathlib import Path
from sims.runner import run
try:
    from sims.compaction import compact
except ImportError:  # a checkout measured against may keep it in sims.results
    from sims.results import compact
from sims.study import load_study, quick_study
per_cell, out, workers, backend = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
parts = sys.argv[5] == "parts"  # keep the parts, then compact: each step timed on its own
study = quick_study(load_study("strategy-ladder"), games=per_cell, out=out)
import sims.runner
finishing = []  # when the last game had landed: the compaction's tail follows
class Timed(sims.runner.Compaction):
    def finish(self):
        finishing.append(time.perf_counter())
        super().finish()
sims.runner.Compaction = Timed
def size():
    return sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file())
start = time.perf_counter()
summary = run(study, workers=workers, backend=backend, progress=False, keep_parts=parts)
played = time.perf_counter()
found = {"games": summary.games_played}
if parts:
    found["parts_bytes_per_game"] = round(size() / summary.games_played)
    compact(Path(out))
    found["play"], found["compaction"] = played - start, time.perf_counter() - played
end = time.perf_counter()
found["seconds"] = end - start  # a run compacts while it plays, unless it keeps its parts
if finishing:  # the games' time, and the compaction left once the last game had landed
    found["play"], found["tail"] = finishing[0] - start, end - finishing[0]
found["compact_bytes_per_game"] = round(size() / summary.games_played)
print(json.dumps(found))
"""

REPORT = """
import os, sys
cores = int(sys.argv[3])
os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:cores]))
import json, resource, time
import pyarrow
pyarrow.set_cpu_count(cores)
start = time.perf_counter()
import argparse
from reports.cli import main  # the command itself: no installed entry points needed
assert main(argparse.Namespace(results=sys.argv[1], out=sys.argv[2], format="html",
                               workers=None)) == 0
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(code: str, args: list[str], path: str | None = None, cores: int | None = None) -> dict:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH")]))
    if cores:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[name] = str(cores)
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=path or None,
    )
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _say(line: dict) -> None:
    print(json.dumps(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[os.cpu_count() or 1])
    parser.add_argument("--backends", nargs="+", default=["local"])
    parser.add_argument("--small-games", type=int, default=0)
    parser.add_argument("--small-workers", type=int, nargs="*", default=[])
    parser.add_argument("--report-cores", type=int, default=2)
    parser.add_argument("--before", help="another version's source tree, for the report")
    parser.add_argument("--keep", help="keep the results folders here")
    parser.add_argument("--no-report", action="store_true", help="the runs only")
    parser.add_argument(
        "--keep-parts", action="store_true", help="keep parts, then compact: each timed apart"
    )
    args = parser.parse_args()
    _say({"machine": platform.platform(), "cpus": os.cpu_count(), "python": sys.version.split()[0]})
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        _measure(args, Path(args.keep))
    else:  # a million games' folders take about 0.5 GB: gone with the run
        with tempfile.TemporaryDirectory(prefix="scaling-") as scratch:
            _measure(args, Path(scratch))


def _measure(args: argparse.Namespace, root: Path) -> None:
    runs = [(args.small_games, "local", w, f"small-{w}") for w in args.small_workers]
    runs += [(args.games, b, w, f"{b}-{w}") for b in args.backends for w in args.workers]
    biggest: Path | None = None
    small: Path | None = None
    for games, backend, workers, name in runs:
        folder = root / name
        mode = "parts" if args.keep_parts else "whole"
        found = _child(PLAY, [str(round(games / CELLS)), str(folder), str(workers), backend, mode])
        rate = round(found.get("games", 0) / found.get("seconds", 1))
        _say({"step": "play", "backend": backend, "workers": workers, **found, "games_per_s": rate})
        if name.startswith("small"):
            small = small or folder
        else:
            biggest = biggest or folder
    cores = str(args.report_cores)
    for folder in (f for f in (small, biggest) if f is not None):
        if args.no_report:
            continue
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        target = [str(folder), str(folder / "report.html"), cores]
        found = _child(REPORT, target, cores=args.report_cores)
        _say({"step": "report", "folder": folder.name, "bytes": size, "cores": cores, **found})
        if args.before and folder == small:  # an older report may not fit the big folder
            before = str(Path(args.before).resolve())
            target[1] = str(folder / "before.html")
            found = _child(REPORT, target, before, cores=args.report_cores)
            _say({"step": "report before", "folder": folder.name, "cores": cores, **found})


if __name__ == "__main__":
    main()
