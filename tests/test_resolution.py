"""R16: exact resolution, checked against brute force over every subset, on both engines
(the pure-Python reference and the native kernel, skipped only where it is not built)."""

import random
import time
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import default_catalogue
from cardgame.resolution import is_feasible

from .helpers import counts
from .test_native import ENGINES, resolve_with

CATALOGUE = default_catalogue()
BIG = frozenset(CATALOGUE.big_city_names)


def brute_force(pile, dests):
    def key(subset):
        names = sum((d.city_a in BIG) + (d.city_b in BIG) for d in subset)
        return (sum(d.points for d in subset), len(subset), names)

    best = ()
    best_key = (0, 0, 0)
    for size in range(1, len(dests) + 1):
        for subset in combinations(dests, size):
            if is_feasible(pile, subset) and key(subset) > best_key:
                best, best_key = subset, key(subset)
    return best_key, best


def key_of(ids):
    dests = [CATALOGUE.destination(i) for i in ids]
    names = sum((d.city_a in BIG) + (d.city_b in BIG) for d in dests)
    return (sum(d.points for d in dests), len(dests), names)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=300, deadline=None)
@given(
    ids=st.lists(st.integers(1, 46), min_size=0, max_size=10, unique=True),
    pile=st.lists(st.integers(0, 4), min_size=9, max_size=9),
)
def test_r16_resolution_is_optimal_against_brute_force(engine, ids, pile):
    resolve = resolve_with(engine)
    dests = [CATALOGUE.destination(i) for i in ids]
    got = resolve(pile, dests, BIG)
    expected_key, _ = brute_force(pile, dests)
    assert is_feasible(pile, [CATALOGUE.destination(i) for i in got])
    assert key_of(got) == expected_key


@pytest.mark.parametrize("engine", ENGINES)
def test_r16_prefers_points_then_count_then_big_cities(engine):
    resolve = resolve_with(engine)
    # 1 yellow: #1 Chicago-NY (5 pts, yellow) vs nothing else
    d1, d3 = CATALOGUE.destination(1), CATALOGUE.destination(3)
    assert resolve(counts(yellow=1, green=1), [d1, d3], BIG) == (3,)  # 6 pts beats 5
    # count: #3 (6 pts, yellow-green) vs... use two 5-point tickets vs one 10-point ticket
    d2 = CATALOGUE.destination(2)  # New York-Chicago 5 (blue)
    d13 = CATALOGUE.destination(13)  # New York-Miami 10 (blue-red)
    # pile blue + yellow + red: {#1, #2}=10 pts, 2 tickets; {#13}=10 pts, 1 ticket
    pile = counts(blue=1, yellow=1, red=1)
    got = resolve(pile, [d1, d2, d13], BIG)
    assert set(got) in ({1, 2}, {1, 13})  # 15 pts with two is best
    assert resolve(counts(blue=1, red=1, loco=0), [d2, d13], BIG) == (13,)


@pytest.mark.parametrize("engine", ENGINES)
def test_r16_locomotives_are_shared_out_optimally_not_greedily(engine):
    resolve = resolve_with(engine)
    # a greedy "highest points first" pass would spend the locomotive on #46 and miss others
    pile = counts(yellow=1, loco=1, blue=1)
    dests = [CATALOGUE.destination(i) for i in (1, 2, 5)]  # yellow / blue / yellow-blue
    got = resolve(pile, dests, BIG)
    assert key_of(got)[0] == 12  # #5 (7, yellow-blue) + #1 (5, yellow via loco) or #2


@pytest.mark.parametrize("engine", ENGINES)
def test_r16_is_fast_for_a_seat_holding_many_destinations(engine):
    resolve = resolve_with(engine)
    rng = random.Random(1)
    worst = 0.0
    for _ in range(20):
        ids = rng.sample(range(1, 47), 35)
        pile = [rng.randint(2, 6) for _ in range(8)] + [rng.randint(0, 8)]
        start = time.perf_counter()
        got = resolve(pile, [CATALOGUE.destination(i) for i in ids], BIG)
        worst = max(worst, time.perf_counter() - start)
        assert is_feasible(pile, [CATALOGUE.destination(i) for i in got])
    assert worst < 2.0, f"slowest resolution took {worst:.2f}s"
