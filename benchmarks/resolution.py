"""R16 resolution speed, by CPU time (time.process_time), on the same holdings in one run:

1. the previous algorithm (tests/resolution_reference.py) against the current one (Python);
2. the current one on both engines, pure Python against the native kernel, with
   resolutions per second; then whole random-play games per second with each engine, which
   shows how much a native R16 alone buys the engine.

Three sets of holdings: every resolution of random-play games (2, 3, 4 players), the hard
cases kept in tests/test_resolution_equivalence.py (the slowest ever found for the previous
algorithm) and seeded random piles against all 46 destinations held. Each holding is
resolved by all; the sets (and the two engines' node counts) must agree. Not a test: figures
depend on the machine.

Run: python benchmarks/resolution.py [--games 300] [--synthetic 40] [--play 200]
(about 40 s of CPU; the native columns need the extension built: pip install -e .)
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
from cardgame import Game, _native, default_catalogue
from cardgame.randomplay import play_random
from cardgame.resolution import resolve, resolve_counted_python, resolver
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
        spent_new, (got, visited) = cpu_ms(
            lambda: resolve_counted_python(pile, dests, BIG)  # noqa: B023
        )
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


def engines_side_by_side(name: str, holdings: Sequence[Holding]) -> None:
    """Resolve each holding on both engines (interleaved); print rates, max and median."""
    native = resolver("native")
    py_ms, nat_ms = [], []
    for pile, ids in holdings:
        dests = [CATALOGUE.destination(i) for i in ids]
        spent_py, expected = cpu_ms(lambda: resolve_counted_python(pile, dests, BIG))  # noqa: B023
        spent_nat, got = cpu_ms(lambda: native(pile, dests, BIG))  # noqa: B023
        if got != expected:
            sys.exit(f"resolution: the engines differ for pile {pile}, held {ids}")
        py_ms.append(spent_py)
        nat_ms.append(spent_nat)
    py_rate, nat_rate = len(py_ms) / (sum(py_ms) / 1000), len(nat_ms) / (sum(nat_ms) / 1000)
    py_max, nat_max = max(py_ms), max(nat_ms)
    print(
        f"{name:<26} {len(holdings):>6} {py_rate:>9,.0f} {nat_rate:>9,.0f}"
        f" {nat_rate / py_rate:>6.1f}x {py_max:>8.2f} {nat_max:>8.3f} {py_max / nat_max:>6.0f}x"
        f" {statistics.median(py_ms):>8.3f} {statistics.median(nat_ms):>8.4f}"
    )


def games_per_second(games: int) -> None:
    """Random-play games (unchecked) per CPU second with each engine's R16, interleaved."""
    engines = {name: resolver(name) for name in ("python", "native")}
    spent = dict.fromkeys(engines, 0.0)
    print(f"{'random play':<14} {'games':>6} {'python/s':>9} {'native/s':>9} {'ratio':>7}")
    try:
        for players in (2, 3, 4):
            spent = dict.fromkeys(engines, 0.0)
            for seed in range(games):
                for name, counted in engines.items():
                    cardgame.state.resolve = lambda c, d, b, f=counted: f(c, d, b)[0]  # type: ignore[assignment]
                    ms, _ = cpu_ms(lambda: play_random(Game(players, seed), checked=False))  # noqa: B023
                    spent[name] += ms
            py, nat = games / spent["python"] * 1000, games / spent["native"] * 1000
            print(f"{players} players{'':<6} {games:>6} {py:>9,.0f} {nat:>9,.0f} {nat / py:>6.2f}x")
    finally:
        cardgame.state.resolve = resolve  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="random games per size")
    parser.add_argument("--synthetic", type=int, default=40, help="all-46 holdings")
    parser.add_argument("--play", type=int, default=200, help="games per size, whole engine")
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
    hard = [(tuple(p), i) for p, i, _ in hard_cases()]
    synthetic = all_held(args.synthetic)
    compare(f"random play ({args.games}x3 games)", played)
    compare("  of which 15+ held", [h for h in played if len(h[1]) >= 15])
    compare("hard cases (tests)", hard)
    compare("all 46 held, random piles", synthetic)
    print()
    if not _native.BUILT:
        print(f"python vs native: skipped, {_native.describe()}")
        return
    print(f"python vs native engine ({_native.describe()}); rates: resolutions per CPU second")
    print(
        f"{'holdings':<26} {'count':>6} {'python/s':>9} {'native/s':>9} {'ratio':>7}"
        f" {'py max':>8} {'nat max':>8} {'ratio':>7} {'py med':>8} {'nat med':>8}"
    )
    engines_side_by_side(f"random play ({args.games}x3 games)", played)
    engines_side_by_side("  of which 15+ held", [h for h in played if len(h[1]) >= 15])
    engines_side_by_side("hard cases (tests)", hard)
    engines_side_by_side("all 46 held, random piles", synthetic)
    print()
    games_per_second(args.play)


if __name__ == "__main__":
    main()
