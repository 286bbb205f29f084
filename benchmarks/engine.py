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


def rates(players: int, games: int) -> tuple[float, float, float]:
    """Games/s unchecked, checked and recorded. The three are interleaved game by game (the
    same game each way), so drifting machine speed cannot pass for a difference."""
    spent = [0.0, 0.0, 0.0]
    settings = ((False, False), (False, True), (True, False))  # (record, checked)
    for seed in range(games):
        for i, (record, checked) in enumerate(settings):
            start = time.perf_counter()
            play_random(Game(players, seed), record=record, checked=checked)
            spent[i] += time.perf_counter() - start
    return games / spent[0], games / spent[1], games / spent[2]


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
        fast, checked, recorded = rates(players, args.games)
        print(
            f"{players:>7} {fast:>8.0f}/s {checked:>7.0f}/s {recorded:>7.0f}/s "
            f"{fast / recorded:>11.2f}x"
        )


if __name__ == "__main__":
    main()
