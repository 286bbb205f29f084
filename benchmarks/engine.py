"""Engine speed: games per second of random legal play, one core, recording off and on,
and the Python and native engines side by side (CPU time beside wall time).

Run: python benchmarks/engine.py [--games N]. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from cardgame import Game, _native, resolution
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


def engine_rates(players: int, games: int) -> dict[str, tuple[float, float]]:
    """Games/s (by CPU time, by wall time) of unchecked random play on each engine built
    here, interleaved game by game: the same game on each engine in turn."""
    engines = ["python", "native"] if _native.BUILT else ["python"]
    cpu = dict.fromkeys(engines, 0.0)
    wall = dict.fromkeys(engines, 0.0)
    for seed in range(games):
        for name in engines:
            with resolution.engine_in_use(name):
                start_cpu, start_wall = time.process_time(), time.perf_counter()
                play_random(Game(players, seed))
                cpu[name] += time.process_time() - start_cpu
                wall[name] += time.perf_counter() - start_wall
    return {name: (games / cpu[name], games / wall[name]) for name in engines}


def print_engines(games: int) -> None:
    print(f"\nengines side by side ({_native.describe()}); games/s by CPU time (wall time)")
    print(f"{'players':>7} {'python':>18} {'native':>18} {'native/python':>14}")
    for players in (2, 3, 4):
        got = engine_rates(players, games)
        py_cpu, py_wall = got["python"]
        line = f"{players:>7} {py_cpu:>8.0f} ({py_wall:>6.0f})/s"
        if "native" in got:
            nat_cpu, nat_wall = got["native"]
            line += f" {nat_cpu:>8.0f} ({nat_wall:>6.0f})/s {nat_cpu / py_cpu:>13.2f}x"
        else:
            line += f" {'not built':>18}"
        print(line)


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
    print_engines(args.games)


if __name__ == "__main__":
    main()
