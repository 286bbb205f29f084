"""ISMCTS against planner: win rate (Wilson interval) and CPU ms per decision per budget.

Each game seats one ismcts against planners, the ismcts seat rotating over the seats; game
g uses seed ``seed + g`` at every budget, so budgets are compared on the same deals. The
p-value tests the win rate against 1/n, a seat's share among equal players (one-sided). Times
are CPU time of the search's decisions on this process's core (``time.process_time``), so
other load on the machine barely moves them.

    python benchmarks/ismcts.py --players 2 --budgets 25,50,100,200 --games 200

``--speed`` instead plays the same games on both engines (the search's worlds on the Python
engine, then on the native core: the same decisions, bit for bit) and prints play-outs
(iterations) per second of CPU time of the searches on each, side by side, and their ratio:

    python benchmarks/ismcts.py --speed --players 2,4 --budgets 64 --games 4
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

import cardgame._native as core  # noqa: E402
from cardgame import Rules  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.search.player import Ismcts  # noqa: E402
from sims.strategy import StrategySpec, spec  # noqa: E402


@dataclass
class Tally:
    wins: float = 0.0
    games: int = 0
    failed: int = 0
    margin: float = 0.0
    decisions: int = 0
    seconds: float = 0.0
    iterations: int = 0


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
            search = getattr(self, "last_search", None)
            tally.iterations += search.iterations if search is not None else 0
            self.last_search = None  # a forced move searches nothing

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


def speed(players: list[int], budgets: list[int], games: int, seed: int, knobs: dict) -> None:
    """Play-outs per CPU second of the searches on either engine, and the ratio."""
    if not core.BUILT:
        print(f"native core not built ({core.NOT_BUILT}): nothing to compare", file=sys.stderr)
        raise SystemExit(2)
    print("players budget games  decisions  play-outs  python it/s  native it/s  ratio")
    for n in players:
        for budget in budgets:
            tallies = {}
            for engine in ("python", "native"):
                core.ENGINE = engine
                tallies[engine] = run(n, budget, games, seed, knobs)
            py, nat = tallies["python"], tallies["native"]
            if (py.decisions, py.iterations, py.wins) != (nat.decisions, nat.iterations, nat.wins):
                print(f"engines disagree at {n} players, budget {budget}", file=sys.stderr)
                raise SystemExit(1)
            rate_py = py.iterations / py.seconds if py.seconds else math.nan
            rate_nat = nat.iterations / nat.seconds if nat.seconds else math.nan
            print(
                f"{n:>7} {budget:>6} {py.games:>5}  {py.decisions:>9}  {py.iterations:>9}"
                f"  {rate_py:11.0f}  {rate_nat:11.0f}  {rate_nat / rate_py:5.1f}x",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2", help="player counts, e.g. 2,3,4")
    parser.add_argument("--budgets", default="25,50,100,200", help="iterations per decision")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=90_000)
    parser.add_argument("--knob", action="append", default=[], help="extra ismcts knob k=v")
    parser.add_argument(
        "--speed", action="store_true", help="play-outs per CPU second, python vs native"
    )
    args = parser.parse_args()
    knobs = {}
    for item in args.knob:
        key, _, value = item.partition("=")
        knobs[key] = float(value) if "." in value else int(value) if value.isdigit() else value
    Ismcts._original = Ismcts.decide_knowing  # type: ignore[attr-defined]
    if args.speed:
        players = [int(p) for p in args.players.split(",")]
        speed(players, [int(b) for b in args.budgets.split(",")], args.games, args.seed, knobs)
        return
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
