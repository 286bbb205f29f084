"""Do the simulated players respond to the design they are given? A sweep's paired games
(each value replays the printed value's deals and seatings) are compared game by game: a game
whose keeps, turns or steals differ from the printed value's is one where some player played
differently. A bonus that changes nobody's play only rescores identical games.

Run: python benchmarks/design_response.py [--games N] [--workers W]
     [--parameter big_cities.Chicago] [--values 4,12,30] [--pool planner,big_city,thief]
Not a test: it prints, per value and player count, the share of paired games that changed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from sims.results import load_results  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict  # noqa: E402

KEYS = ["players", "lineup", "game_index"]


def fingerprints(folder: Path) -> pd.DataFrame:
    """Per game: its variant, its keys across variants, and what the players did (the
    destinations kept with when they were offered, turns, steals)."""
    results = load_results(folder)
    games = results.games[~results.games["failed"]].copy()
    games["lineup"] = games["cell"].astype(str).str.split("/").str[2]
    dest = results.destinations
    kept = dest[dest["kept"]].sort_values(["seat", "offered_turn", "destination_id"])
    kept = kept.assign(item=kept["seat"].astype(str) + ":" + kept["destination_id"].astype(str)
                       + "@" + kept["offered_turn"].astype(str))  # fmt: skip
    keeps = kept.groupby(["cell", "game_index"], observed=True)["item"].agg(",".join)
    games = games.merge(keeps.rename("keeps").reset_index(), on=["cell", "game_index"], how="left")
    return games[["variant", *KEYS, "keeps", "turns", "steals"]]


def changed_shares(frame: pd.DataFrame, base: str = "base") -> pd.DataFrame:
    """Per variant and player count: the share of paired games whose play differs."""
    printed = frame[frame["variant"] == base].set_index(KEYS)
    rows = []
    for variant, part in frame[frame["variant"] != base].groupby("variant", observed=True):
        joined = part.set_index(KEYS).join(printed.add_suffix("_base"), how="inner")
        for what in ("keeps", "turns", "steals"):
            joined[f"{what}_changed"] = joined[what].fillna("") != joined[f"{what}_base"].fillna("")
        joined["any_changed"] = joined[[f"{w}_changed" for w in ("keeps", "turns", "steals")]].any(
            axis=1
        )
        for players, group in joined.groupby(level="players"):
            rows.append(
                {"variant": variant, "players": players, "games": len(group)}
                | {c: float(group[c].mean()) for c in group if c.endswith("_changed")}
            )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per cell")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parameter", default="big_cities.Chicago")
    parser.add_argument("--values", default="4,12,30")
    parser.add_argument("--pool", default="planner,big_city,thief")
    args = parser.parse_args()
    document = {
        "name": "design-response",
        "seed": 2026,
        "players": [2, 3],
        "pool": args.pool.split(","),
        "games_per_cell": args.games,
        "sweeps": {"x": {"parameter": args.parameter,
                         "values": [int(v) for v in args.values.split(",")]}},
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        run(from_dict(document, "design-response"), workers=args.workers, out=Path(folder) / "r",
            progress=False)  # fmt: skip
        shares = changed_shares(fingerprints(Path(folder) / "r"))
    print(f"{args.parameter} at {args.values} (printed value = base), pool {args.pool}, "
          f"{args.games} games a cell, {time.perf_counter() - start:.1f} s")  # fmt: skip
    print(shares.to_string(index=False, float_format=lambda x: f"{x:.1%}"))


if __name__ == "__main__":
    main()
