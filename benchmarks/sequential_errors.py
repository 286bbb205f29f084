"""The error rate of studies played until settled (sims/looks.py), under optional stopping.

Two kinds of study, each played ``--studies`` times with its own seed, 2 players, until
settled (looks of 1, 2, 4, 8 times the first), margins of 10 points of win share so that
most studies stop before their cap:

- **A/A**: a planner against a clone of itself under another name, unpaired (so the two do
  not tie exactly: every game has its own deal and seat streams). The truth is "practically
  equal"; a verdict "different" at the look where the run stopped is a false one. The
  looks' levels promise at most 5% of studies with one.
- **planted**: the planner against a planner with sabotaged knobs (``card_share = 0.15,
  future_cards = 0, min_column = 4``), which loses about 18 points of win share. A verdict
  "different" with the planner ahead is right; with the other ahead, wrong.

For each study: the look it stopped at, the verdict of the strongest strategy there, and
whether the first look alone (read at the nominal 0.05, as a study that peeked without
correction would) had already called a difference. Prints a table; ``--json`` writes rows.

    python benchmarks/sequential_errors.py --studies 100 --games 60
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# this folder holds a sims.py of its own: the package must win
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from reports.analysis import _analyse, analyse  # noqa: E402
from reports.level import at_alpha  # noqa: E402
from sims.results import load_results  # noqa: E402
from sims.runner import run  # noqa: E402
from sims.study import from_dict  # noqa: E402

SABOTAGED = {"card_share": 0.15, "future_cards": 0, "min_column": 4}


def study(kind: str, seed: int, games: int) -> dict:
    other = {"base": "planner"} if kind == "aa" else {"base": "planner", "knobs": SABOTAGED}
    return {
        "name": f"{kind}-{seed}",
        "seed": seed,
        "players": [2],
        "lineups": [["planner", "other"]],
        "strategies": {"other": other},
        "games_per_cell": games,
        "pairing": "none",
        "stop": "settled",
        "max_games": 8 * games,
        "report": {"margins": {"win_share": 0.1, "log_odds": 0.5}},
    }


def leaders_verdict(folder: Path) -> tuple[str, str]:
    results = load_results(folder, destinations=False)
    table = analyse(results, summary_only=True).tables["leaders"]
    row = table[table["players"].astype(str) == "2"].iloc[0]
    return str(row["verdict"]), str(row["leaders"])


def first_look_at_nominal(folder: Path, games: int) -> str:
    """The verdict a peek at the first look would give read at 0.05 (no correction)."""
    results = load_results(folder, destinations=False)
    first = results.games[results.games["game_index"] < games]
    keys = set(zip(first["cell"], first["game_index"], strict=True))
    seats = results.seats[
        [k in keys for k in zip(results.seats["cell"], results.seats["game_index"], strict=True)]
    ]
    cut = replace(results, games=first.reset_index(drop=True), seats=seats.reset_index(drop=True))
    with at_alpha(0.05):
        table = _analyse(cut, None, None, True).tables["leaders"]
    return str(table[table["players"].astype(str) == "2"].iloc[0]["verdict"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--studies", type=int, default=40)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--kinds", default="aa,planted")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            for seed in range(args.studies):
                folder = Path(tmp) / f"{kind}-{seed}"
                summary = run(
                    from_dict(study(kind, seed, args.games), f"{kind}.toml"),
                    workers=1,
                    out=folder,
                    progress=False,
                )
                verdict, leaders = leaders_verdict(folder)
                rows.append(
                    {
                        "kind": kind,
                        "seed": seed,
                        "look": summary.plan.look + 1,
                        "games": summary.games_total,
                        "verdict": verdict,
                        "leader": leaders.split(", ")[0],
                        "peek": first_look_at_nominal(folder, args.games),
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr)
    for kind in args.kinds.split(","):
        mine = [r for r in rows if r["kind"] == kind]
        n = len(mine)
        different = [r for r in mine if r["verdict"] == "different"]
        wrong = (
            len(different)
            if kind == "aa"
            else sum(1 for r in different if r["leader"] != "planner")
        )
        looks = sum(r["look"] for r in mine) / n
        print(
            f"{kind}: {n} studies; stopped at look {looks:.2f} on average; "
            f"'different' {len(different)}/{n}; wrong {wrong}/{n} ({wrong / n:.1%}); "
            f"equal {sum(r['verdict'] == 'practically equal' for r in mine)}/{n}; "
            f"not yet known {sum(r['verdict'] == 'not yet known' for r in mine)}/{n}; "
            f"a first-look peek at 0.05 said 'different' "
            f"{sum(r['peek'] == 'different' for r in mine)}/{n}"
        )
    print(f"{time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
