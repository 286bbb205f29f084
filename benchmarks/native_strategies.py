"""Built-in strategies in C (sims/_native) beside the Python ones, on one core (CPU time).

Planner tables of 2 and 4 seats: games/s of the native decision loop (``play_native`` on a
``NativeState``, twins made from fresh Python strategies) against ``play_game`` on the
Python engine, each without and with the table clock; and decisions/s of the strategies
alone, given the same recorded views. Not a test: figures depend on the machine.

Run: python benchmarks/native_strategies.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from cardgame import Game, Rules  # noqa: E402
from cardgame import _native as cardgame_native  # noqa: E402
from sims import _native  # noqa: E402
from sims.clock import ThinkTimes  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.strategies.planner import Planner  # noqa: E402
from sims.strategy import spec  # noqa: E402


def native_rate(players: int, games: int, clock: bool) -> float:
    """Games/s of the native loop, making the seats' strategies and twins each game."""
    from cardgame._native._core import NativeState
    from sims._native._match import play_native

    start = time.process_time()
    for seed in range(games):
        twins = [_native.native_twin(Planner(random.Random(seed + i))) for i in range(players)]
        state = NativeState.new(Game(players, seed, Rules()))
        play_native(state, twins, (ThinkTimes(), f"{seed}:clock") if clock else None)
    return games / (time.process_time() - start)


def python_rate(players: int, games: int, clock: bool) -> float:
    """Games/s of ``play_game`` on the Python engine (forced: it may prefer the native)."""
    seats = tuple(spec("planner") for _ in range(players))
    engine, cardgame_native.ENGINE = cardgame_native.ENGINE, "python"
    try:
        start = time.process_time()
        for seed in range(games):
            game = GameSpec("bench", "cell", "base", Rules(), players, seats, seed, seed)
            play_game(game, ThinkTimes() if clock else None, decision_seconds=0)
        return games / (time.process_time() - start)
    finally:
        cardgame_native.ENGINE = engine


def decision_rates(players: int, games: int) -> tuple[int, float, float]:
    """Decisions/s of the Python strategies and of their twins (``decide_view``, which also
    converts each view), over the same views."""
    games_views = []
    for seed in range(games):
        strategies = [Planner(random.Random(seed + i)) for i in range(players)]
        state = Game(players, seed, Rules()).new_state()
        views = []
        while not state.is_over:
            view = state.view(state.seat)
            views.append((state.seat, view))
            state.apply(strategies[state.seat].decide(view))
        games_views.append(views)
    count = sum(map(len, games_views))
    start = time.process_time()
    for seed, views in enumerate(games_views):
        strategies = [Planner(random.Random(seed + i)) for i in range(players)]
        for seat, view in views:
            strategies[seat].decide(view)
    python = count / (time.process_time() - start)
    start = time.process_time()
    for seed, views in enumerate(games_views):
        twins = [_native.native_twin(Planner(random.Random(seed + i))) for i in range(players)]
        for seat, view in views:
            twins[seat].decide_view(view)
    native = count / (time.process_time() - start)
    return count, python, native


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="native games per figure")
    args = parser.parse_args()
    if not _native.BUILT:
        print(f"the native strategies are not built: {_native.NOT_BUILT}")
        return 2
    python_games = max(args.games // 20, 10)
    for players in (2, 4):
        print(f"planner x{players} (games/s, CPU time)")
        for clock in (False, True):
            native = native_rate(players, args.games, clock)
            python = python_rate(players, python_games, clock)
            label = "with clock" if clock else "no clock  "
            print(
                f"  {label}: native loop {native:9,.0f}   Python play_game {python:7,.0f}"
                f"   x{native / python:.0f}"
            )
        count, python, native = decision_rates(players, python_games)
        print(
            f"  decisions alone ({count:,} views): twin {native:,.0f}/s, "
            f"Python {python:,.0f}/s, x{native / python:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
