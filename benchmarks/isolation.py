"""What tournament mode costs: decisions per second of a strategy of one's own played in
process and isolated (``isolation = "process"``, sims/guest.py), on the same games, with the
host's start-up (once per worker and strategy) shown apart; and isolated without the
operating-system sandbox (``guest.SANDBOX = False``: the host and its pipes only), which
shows what the sandbox itself costs; and isolated without a decision limit, where a guest's
process is not stopped between its decisions, which shows what stopping it costs.

Run: python benchmarks/isolation.py [--games N]. Not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# benchmarks/sims.py is named like the package: keep this folder off the import path, and the
# project root on it (the guest is tests.sims.guests:Plain)
ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]
sys.path.insert(0, str(ROOT))

from cardgame import Rules  # noqa: E402
from sims import guest, match  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.strategy import StrategySpec  # noqa: E402

GUEST = "tests.sims.guests:Plain"  # the planner, as a strategy of one's own


class Count:
    """Counts the guest seat's calls through the game loop's guard (decisions and builds)."""

    def __init__(self) -> None:
        self.calls = 0
        self.inner = match._guarded

    def __call__(self, spec, seat, limit, call, arg):  # type: ignore[no-untyped-def]
        if seat == 0:
            self.calls += 1
        return self.inner(spec, seat, limit, call, arg)


def measure(
    isolation: str, games: int, players: int, decision_seconds: float = 10.0
) -> tuple[float, int, float]:
    """(seconds, decisions, seconds of the first game) for ``games`` games."""
    seats = (StrategySpec("guest", GUEST),) + (StrategySpec("planner", "planner"),) * (players - 1)
    count = Count()
    match._guarded = count
    start = time.perf_counter()
    first = 0.0
    for i in range(games):
        spec = GameSpec("b", "c", "base", Rules(), players, seats, i, i, isolation)
        outcome = play_game(spec, engine="python", decision_seconds=decision_seconds)
        assert not outcome.game["failed"], outcome.game["failure_error"]
        if i == 0:
            first = time.perf_counter() - start
    seconds = time.perf_counter() - start
    match._guarded = count.inner
    return seconds, count.calls - games, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    os.chdir(ROOT)
    for players in (2, 4):
        measure("process", 2, players)  # warm both paths (imports, the host's start)
        measure("none", 2, players)
        guest.close_hosts()
        inside, n_inside, _ = measure("none", args.games, players)
        isolated, n_isolated, first = measure("process", args.games, players)
        guest.close_hosts()
        unpaused, _, _ = measure("process", args.games, players, decision_seconds=0)
        guest.close_hosts()
        guest.SANDBOX = False
        measure("process", 2, players)
        bare, _, _ = measure("process", args.games, players)
        guest.SANDBOX = True
        guest.close_hosts()
        assert n_inside == n_isolated
        print(
            f"{players} players, {args.games} games, {n_inside} guest decisions: "
            f"in process {n_inside / inside:,.0f} decisions/s "
            f"({args.games / inside:,.1f} games/s), "
            f"isolated {n_isolated / isolated:,.0f} decisions/s "
            f"({args.games / isolated:,.1f} games/s): {isolated / inside:.1f}x the time; "
            f"first isolated game (host start-up) {first * 1000:.0f} ms; "
            f"without the sandbox {args.games / bare:,.1f} games/s "
            f"(the sandbox: {isolated / bare:.2f}x the time); without a decision limit "
            f"(its process not stopped between decisions) {args.games / unpaused:,.1f} games/s "
            f"(stopping it: {isolated / unpaused:.2f}x the time)"
        )
        guest.close_hosts()


if __name__ == "__main__":
    main()
