"""Do the verdicts hold for players adapted to the design? One study of the printed game and
three edited designs is played twice on the same deals: with the strategies' default knobs and
with each scripted strategy adapted to each design (``--adapt``). Printed per design and
player count: each strategy's win share both ways (the strongest marked) and the first seat's
edge; and per strategy and design, how far the adapted knobs beat the defaults held out.

Run: python benchmarks/adapted_verdicts.py [--games N] [--budget GAMES] [--workers W]
Not a test: a finding, not a target.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import pandas as pd  # noqa: E402

from sims.results import load_results  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict  # noqa: E402

DESIGNS = {
    "base": {},
    "chicago-30": {"big_cities": {"Chicago": 30}},
    "red-scarce": {"deck": {"red": 4}},
    "tickets-dear": {"destinations": {str(i): {"points": 20} for i in range(1, 12)}},
}


def study(games: int, budget: int | None) -> dict:
    document = {
        "name": "adapted-verdicts",
        "seed": 2026,
        "players": [2, 3],
        "pool": ["planner", "thief", "big_city", "ticket_hunter"],
        "games_per_cell": games,
        "pairing": "deals",
        "variants": DESIGNS,
    }
    if budget:
        document["adapt"] = {"budget": budget}
    return document


def shares(folder: Path) -> pd.DataFrame:
    seats = load_results(folder, destinations=False).seats
    table = seats.groupby(["variant", "players", "strategy"], observed=True)["win_share"].mean()
    return table.rename("win").reset_index()


def edge(folder: Path) -> pd.Series:
    seats = load_results(folder, destinations=False).seats
    first = seats[seats["seat"] == 0]
    return first.groupby(["variant", "players"], observed=True)["win_share"].mean() - 1 / (
        first.groupby(["variant", "players"], observed=True)["players"].first()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=240, help="games per cell")
    parser.add_argument("--budget", type=int, default=6000, help="games a strategy and design")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        folders = {}
        for name, budget in (("default", None), ("adapted", args.budget)):
            start = time.perf_counter()
            folders[name] = Path(root) / name
            summary = run(from_dict(study(args.games, budget), "adapted-verdicts"),
                          workers=args.workers, out=folders[name], progress=False)  # fmt: skip
            print(f"{name}: {summary.games_played:,} games in {time.perf_counter() - start:.1f} s")
        plan = load_results(folders["adapted"], destinations=False).plan
        for entry in plan.adaptations:
            print(f"  {entry['label']} on {entry['variant']}: held-out win share "
                  f"{entry['start_share']:.1%} -> {entry['adapted_share']:.1%}"
                  f"{'' if entry['used'] else ' (not used)'}")  # fmt: skip
        both = shares(folders["default"]).merge(
            shares(folders["adapted"]), on=["variant", "players", "strategy"],
            suffixes=("_default", "_adapted"),
        )  # fmt: skip
        for (variant, players), part in both.groupby(["variant", "players"]):
            best = {w: part.loc[part[f"win_{w}"].idxmax(), "strategy"]
                    for w in ("default", "adapted")}  # fmt: skip
            edges = {w: edge(f).loc[(variant, players)] for w, f in folders.items()}
            same = "holds" if best["default"] == best["adapted"] else "CHANGES"
            print(f"{variant}, {players} players: strongest {best['default']} -> "
                  f"{best['adapted']} ({same}); first-seat edge {edges['default']:+.3f} -> "
                  f"{edges['adapted']:+.3f}")  # fmt: skip
            print(part.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
