"""ISMCTS against planner: win rate (Wilson interval) and CPU ms per decision per budget.

Each game seats one ismcts against planners, the ismcts seat rotating over the seats; game
g uses seed ``seed + g`` at every budget, so budgets are compared on the same deals. The
p-value tests the win rate against 1/n, a seat's share among equal players (one-sided). Times
are CPU time of the search's decisions on this process's core (``time.process_time``), so
other load on the machine barely moves them.

    python benchmarks/ismcts.py --players 2 --budgets 25,50,100,200 --games 200
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from scipy.stats import binomtest  # noqa: E402
from statsmodels.stats.proportion import proportion_confint  # noqa: E402

from cardgame import Rules  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.strategies.ismcts import Ismcts  # noqa: E402
from sims.strategy import StrategySpec, spec  # noqa: E402


@dataclass
class Tally:
    wins: float = 0.0
    games: int = 0
    failed: int = 0
    margin: float = 0.0
    decisions: int = 0
    seconds: float = 0.0


def timed_decisions(tally: Tally) -> None:
    """Wrap Ismcts.decide_knowing to add its CPU time and count to ``tally``."""
    original = Ismcts.__dict__["decide_knowing"]

    def decide_knowing(self, knowledge):  # type: ignore[no-untyped-def]
        start = time.process_time()
        try:
            return original(self, knowledge)
        finally:
            tally.seconds += time.process_time() - start
            tally.decisions += 1

    Ismcts.decide_knowing = decide_knowing  # type: ignore[method-assign]


def run(players: int, budget: int, games: int, seed: int, knobs: dict) -> Tally:
    tally = Tally()
    Ismcts.decide_knowing = Ismcts.__dict__.get("_original", Ismcts.decide_knowing)  # type: ignore[method-assign]
    timed_decisions(tally)
    ismcts = StrategySpec(f"ismcts-{budget}", "ismcts", (("iterations", budget), *knobs.items()))
    for g in range(games):
        seat = g % players
        seats = [spec("planner")] * players
        seats[seat] = ismcts
        game = GameSpec("bench", "bench", "base", Rules(), players, tuple(seats), g, seed + g)
        outcome = play_game(game, decision_seconds=0)
        if outcome.game["failed"]:
            tally.failed += 1
            continue
        tally.games += 1
        row = next(r for r in outcome.seats if r["seat"] == seat)
        tally.wins += row["win_share"]
        best_rival = max(r["score"] for r in outcome.seats if r["seat"] != seat)
        tally.margin += row["score"] - best_rival
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2", help="player counts, e.g. 2,3,4")
    parser.add_argument("--budgets", default="25,50,100,200", help="iterations per decision")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=90_000)
    parser.add_argument("--knob", action="append", default=[], help="extra ismcts knob k=v")
    args = parser.parse_args()
    knobs = {}
    for item in args.knob:
        key, _, value = item.partition("=")
        knobs[key] = float(value) if "." in value else int(value) if value.isdigit() else value
    Ismcts._original = Ismcts.decide_knowing  # type: ignore[attr-defined]
    print(
        "players budget games  win-rate  95% Wilson      p(>1/n)  margin  ms/decision"
        "  decisions/game"
    )
    for players in (int(p) for p in args.players.split(",")):
        previous = None
        for budget in (int(b) for b in args.budgets.split(",")):
            t = run(players, budget, args.games, args.seed, knobs)
            rate = t.wins / t.games if t.games else math.nan
            low, high = proportion_confint(round(t.wins), t.games, method="wilson")
            # one-sided binomial test against the fair share 1/n of a seat among equals
            p_fair = binomtest(round(t.wins), t.games, 1 / players, "greater").pvalue
            ms = 1000 * t.seconds / t.decisions if t.decisions else math.nan
            gain = "" if previous is None else f"  ({rate - previous:+.3f} vs previous budget)"
            margin = t.margin / max(t.games, 1)
            per_game = t.decisions / max(t.games, 1)
            print(
                f"{players:>7} {budget:>6} {t.games:>5}  {rate:8.3f}  [{low:.3f}, {high:.3f}]"
                f"  {p_fair:7.4f}  {margin:+6.1f}  {ms:11.1f}  {per_game:14.1f}"
                f"{gain}" + (f"  failed {t.failed}" if t.failed else ""),
                flush=True,
            )
            previous = rate


if __name__ == "__main__":
    main()
