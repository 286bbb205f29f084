"""How often a report tells a strategy from its clone: the A/A error rate of the strategy
comparisons, one study per seed.

Each study is a round robin of planner, twin (planner under another name) and thief at 2 and
3 players, analysed as a report would (``reports.analysis.analyse``). A player-count cell
holds a false "different" when any comparison of planner with twin says so: a pairwise
verdict (rating difference or paired win share), the head-to-head test, or the line-up swap;
a clone is headlined when the strongest-strategy verdict names planner or twin alone. The
default design (``pairing = "seatings"``) ties clones exactly; ``--pairing none`` measures
the unpaired design (every game its own deal), where each test errs at its nominal rate.

Run: python benchmarks/clone_verdicts.py [--studies 40] [--games 48] [--pairing none].
Not a test. The script reads only columns every version of the report has, so it also
measures older checkouts (PYTHONPATH=OLD_CHECKOUT).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from reports.analysis import analyse  # noqa: E402
from sims.results import load_results  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict  # noqa: E402

CLONES = {"planner", "twin"}


def study(seed: int, games: int, pairing: str | None) -> dict:
    document = {
        "name": "clone-verdicts",
        "seed": seed,
        "players": [2, 3],
        "pool": ["planner", "twin", "thief"],
        "strategies": {"twin": {"base": "planner"}},
        "games_per_cell": games,
        "batch_size": games,
    }
    if pairing is not None:
        document["pairing"] = pairing
    return document


def false_different(tables: dict, players: int) -> dict[str, bool]:
    """Which comparisons of planner with twin at ``players`` say *different*."""

    def clone_rows(table):
        if table is None or table.empty:
            return table
        pair = table["strategy"].isin(CLONES) & table["opponent"].isin(CLONES)
        return table[pair & (table["players"] == players)]

    found = {}
    pairs = clone_rows(tables["pairwise"])
    for method, rows in pairs.groupby("method"):
        found[method.split(" (")[0]] = bool((rows["verdict"] == "different").any())
    h2h = clone_rows(tables["head_to_head"])
    found["head-to-head"] = bool(h2h["significant"].any())
    swaps = clone_rows(tables.get("lineup_swaps"))
    if swaps is not None and not swaps.empty:
        found["line-up swap"] = bool((swaps["verdict"] == "different").any())
    lead = tables["leaders"]
    lead = lead[lead["players"] == players]
    found["headlined"] = bool(
        len(lead) and lead.iloc[0]["verdict"] == "different" and lead.iloc[0]["leaders"] in CLONES
    )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=40)
    parser.add_argument("--games", type=int, default=48)
    parser.add_argument("--pairing", choices=("none", "deals", "seatings"))
    args = parser.parse_args()
    cells, any_different, headlined, per_test = 0, 0, 0, {}
    tied_meta = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.studies):
            folder = Path(tmp) / f"s{seed}"
            document = study(1000 + seed, args.games, args.pairing)
            run(from_dict(document, "bench"), workers=1, out=folder, progress=False)
            tables = analyse(load_results(folder)).tables
            meta = tables["meta_game"]
            clones = meta[meta["strategy"].isin(CLONES)]["weight"]
            tied_meta += int(len(clones) == 2 and abs(clones.iloc[0] - clones.iloc[1]) < 1e-9)
            for players in (2, 3):
                found = false_different(tables, players)
                cells += 1
                headlined += found.pop("headlined")
                any_different += any(found.values())
                for test, hit in found.items():
                    per_test[test] = per_test.get(test, 0) + int(hit)
    pairing = args.pairing or "the default"
    print(f"{args.studies} studies ({pairing} pairing, {args.games} games per cell), {cells} cells")
    rate = any_different / cells
    print(f"cells with a false 'different' between clones: {any_different} ({rate:.1%})")
    for test, hits in sorted(per_test.items()):
        print(f"  {test}: {hits}")
    print(f"cells headlining a clone as the strongest: {headlined}")
    print(f"meta-games giving the clones equal weight: {tied_meta} of {args.studies}")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
