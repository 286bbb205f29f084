"""Engine speed: games per second of random legal play, one core, recording off and on.

Run: python benchmarks/engine.py [--games N]. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from cardgame import Game
from cardgame.randomplay import play_random


def rate(players: int, games: int, record: bool, checked: bool) -> float:
    start = time.perf_counter()
    for seed in range(games):
        play_random(Game(players, seed), record=record, checked=checked)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; one core; {args.games} games per cell"
    )
    print(f"{'players':>7} {'unchecked':>10} {'checked':>9} {'recorded':>9} {'record cost':>12}")
    for players in (2, 3, 4):
        fast = rate(players, args.games, record=False, checked=False)
        checked = rate(players, args.games, record=False, checked=True)
        recorded = rate(players, args.games, record=True, checked=False)
        print(
            f"{players:>7} {fast:>8.0f}/s {checked:>7.0f}/s {recorded:>7.0f}/s "
            f"{fast / recorded:>11.2f}x"
        )


if __name__ == "__main__":
    main()
