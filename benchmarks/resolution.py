"""R16 resolution speed, previous algorithm (tests/resolution_reference.py) against the
current one, on the same holdings in the same run, by CPU time (time.process_time).

Three sets of holdings: every resolution of random-play games (2, 3, 4 players), the hard
cases kept in tests/test_resolution_equivalence.py (the slowest ever found for the previous
algorithm) and seeded random piles against all 46 destinations held. Each holding is
resolved by both; the sets must agree. Not a test: figures depend on the machine.

Run: python benchmarks/resolution.py [--games 300] [--synthetic 40]   (about 30 s of CPU)
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cardgame.state
from cardgame import Game, default_catalogue
from cardgame.randomplay import play_random
from cardgame.resolution import resolve, resolve_counted
from tests.resolution_reference import reference_resolve
from tests.test_resolution_equivalence import hard_cases

CATALOGUE = default_catalogue()
BIG = frozenset(CATALOGUE.big_city_names)
Holding = tuple[tuple[int, ...], tuple[int, ...]]  # (pile, held ids)


def played_holdings(games: int) -> list[Holding]:
    """Every (circulation, held) the engine resolved in ``games`` random games per size."""
    seen: list[Holding] = []

    def spy(circulation, destinations, big):  # type: ignore[no-untyped-def]
        seen.append((tuple(circulation), tuple(d.id for d in destinations)))
        return resolve(circulation, destinations, big)

    cardgame.state.resolve = spy  # type: ignore[assignment]
    try:
        for players in (2, 3, 4):
            for seed in range(games):
                play_random(Game(players, seed), checked=False)
    finally:
        cardgame.state.resolve = resolve  # type: ignore[assignment]
    return seen


def all_held(count: int, seed: int = 46) -> list[Holding]:
    """Random piles (15 to 60 cards dealt from the 96) against all 46 destinations."""
    rng = random.Random(seed)
    deck = [c for c in range(8) for _ in range(10)] + [8] * 16
    out = []
    for _ in range(count):
        pile = [0] * 9
        for card in rng.sample(deck, rng.randint(15, 60)):
            pile[card] += 1
        out.append((tuple(pile), tuple(range(1, 47))))
    return out


def cpu_ms(fn: Callable[[], object]) -> tuple[float, object]:
    """CPU ms of one call, garbage collection off (as timeit: a collection is not the call's)."""
    gc.disable()
    try:
        start = time.process_time()
        result = fn()
        return (time.process_time() - start) * 1000, result
    finally:
        gc.enable()


def compare(name: str, holdings: Sequence[Holding]) -> None:
    """Resolve each holding both ways (interleaved); print max, median, total and nodes."""
    old_ms, new_ms, nodes = [], [], []
    for pile, ids in holdings:
        dests = [CATALOGUE.destination(i) for i in ids]
        spent_old, expected = cpu_ms(lambda: reference_resolve(pile, dests, BIG))  # noqa: B023
        spent_new, (got, visited) = cpu_ms(lambda: resolve_counted(pile, dests, BIG))  # noqa: B023
        if got != expected:
            sys.exit(f"resolution: different sets for pile {pile}, held {ids}")
        old_ms.append(spent_old)
        new_ms.append(spent_new)
        nodes.append(visited)
    old_max, new_max = max(old_ms), max(new_ms)
    old_med, new_med = statistics.median(old_ms), statistics.median(new_ms)
    print(
        f"{name:<26} {len(holdings):>6} {old_max:>9.1f} {new_max:>8.1f} {old_max / new_max:>6.0f}x"
        f" {old_med:>8.2f} {new_med:>8.2f} {old_med / max(new_med, 1e-9):>6.1f}x"
        f" {sum(old_ms) / sum(new_ms):>6.2f}x {max(nodes):>7}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="random games per size")
    parser.add_argument("--synthetic", type=int, default=40, help="all-46 holdings")
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; CPU ms per resolution, old = previous algorithm"
    )
    print(
        f"{'holdings':<26} {'count':>6} {'old max':>9} {'new max':>8} {'ratio':>7}"
        f" {'old med':>8} {'new med':>8} {'ratio':>7} {'total':>7} {'nodes':>7}"
    )
    played = played_holdings(args.games)
    compare(f"random play ({args.games}x3 games)", played)
    compare("  of which 15+ held", [h for h in played if len(h[1]) >= 15])
    compare("hard cases (tests)", [(tuple(p), i) for p, i, _ in hard_cases()])
    compare("all 46 held, random piles", all_held(args.synthetic))


if __name__ == "__main__":
    main()
