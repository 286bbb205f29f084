"""How much common random numbers narrow a variant effect's interval at equal games.

Runs one small variants study twice, paired (``pairing = "deals"``: variant game i replays
base game i's deal and seating) and unpaired (independent seeds per cell), with the same
number of games per cell, and prints for each variant, player count and metric the 95%
interval width of "variant minus base" each way and their ratio (paired / unpaired).

Run: python benchmarks/pairing.py [--games N] [--workers W]. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from reports.variants import variant_effects  # noqa: E402
from sims.results import load_results  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict  # noqa: E402

METRICS = ("turns", "mean_score", "unreached_per_seat", "first_seat_win_share")


def study(games: int, paired: bool) -> dict:
    """Base against two variants that keep the deck, planner against thief (2 players) and
    planner, thief and hoarder (3 players)."""
    document = {
        "name": "pairing-benchmark",
        "seed": 2026,
        "players": [2, 3],
        "lineups": [["planner", "thief"], ["planner", "thief", "hoarder"]],
        "games_per_cell": games,
        "batch_size": 60,
        "rotation": "permutations",
        "variants": {
            "base": {},
            "three-locomotive-wipe": {"three_locomotive_wipe": True},
            "draw-three-destinations": {"destinations_drawn": 3},
        },
    }
    if paired:
        document["pairing"] = "deals"
    return document


def effects(games: int, paired: bool, workers: int, folder: Path):
    out = folder / ("paired" if paired else "unpaired")
    run(from_dict(study(games, paired), "benchmark"), workers=workers, out=out, progress=False)
    results = load_results(out)
    table = variant_effects(results.games, results.seats)
    return table.assign(width=table["ci_high"] - table["ci_low"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per cell (default 600)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        paired = effects(args.games, True, args.workers, Path(tmp))
        unpaired = effects(args.games, False, args.workers, Path(tmp))
    keys = ["variant", "players", "metric"]
    both = paired.merge(unpaired, on=keys, suffixes=("_paired", "_unpaired"))
    both = both[both["metric"].isin(METRICS)]
    both["ratio"] = both["width_paired"] / both["width_unpaired"]
    print(f"{args.games} games per cell, paired: {set(paired['method'])}, "
          f"unpaired: {set(unpaired['method'])}")  # fmt: skip
    columns = [*keys, "n_deals_paired", "n_games_unpaired", "difference_paired",
               "width_paired", "width_unpaired", "ratio", "detectable_paired",
               "detectable_unpaired"]  # fmt: skip
    print(both[columns].to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    for metric in METRICS:
        ratios = both[both["metric"] == metric]["ratio"]
        print(
            f"{metric}: width ratio paired/unpaired median {np.median(ratios):.2f} "
            f"(range {ratios.min():.2f}-{ratios.max():.2f})"
        )
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
