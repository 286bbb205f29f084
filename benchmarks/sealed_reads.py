"""What reading a sealed folder costs: ``load_results`` (all tables, and without the
destinations, which are then read a chunk at a time), this tree against another source tree,
in alternating rounds (one process each, the folder in the page cache), with peak memory.

    python benchmarks/sealed_reads.py FOLDER --source DIR [--rounds 3]

DIR: a checkout of the code to compare against (``git worktree add DIR COMMIT``); FOLDER: a
sealed results folder, e.g. ``cardgame simulate --strategies planner,rusher --players 2
--games 20000 --out FOLDER``. Prints each round's seconds and their ratio (this tree over
DIR's), best of the rounds' median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

MEASURE = """
import json, resource, sys, time
from sims.results import load_results
folder = sys.argv[1]
start = time.perf_counter()
whole = load_results(folder)
whole_s = time.perf_counter() - start
start = time.perf_counter()
lazy = load_results(folder, destinations=False)
rows = lazy.destination_rows()
lazy_s = time.perf_counter() - start
assert len(rows) == len(whole.destinations)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"whole": whole_s, "lazy": lazy_s, "peak_mib": peak, "rows": len(rows)}))
"""


def _measure(source: Path, folder: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(folder)],
        env=env,
        cwd=source,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--source", type=Path, required=True, help="the tree to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    found: dict[str, list[dict[str, float]]] = {"this": [], "base": []}
    for round_ in range(args.rounds):
        for name, tree in (("base", args.source), ("this", here)):
            result = _measure(tree, args.folder)
            found[name].append(result)
            print(f"round {round_ + 1} {name}: {json.dumps(result)}")
    for key in ("whole", "lazy", "peak_mib"):
        this = statistics.median(r[key] for r in found["this"])
        base = statistics.median(r[key] for r in found["base"])
        print(f"{key}: this {this:.3f}, base {base:.3f}, ratio {this / base:.2f}")


if __name__ == "__main__":
    main()
