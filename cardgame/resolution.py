"""Exact destination resolution (R16).

A seat assigns the cards of its circulation pile to destinations in hand; each card covers
one requirement, a locomotive any colour. Among all feasible sets the engine takes the one
that maximises (1) points, (2) number of destinations, (3) big-city names on them.

A set S is feasible iff  sum_c max(0, need_c(S) - have_c) <= locomotives  (a locomotive is
worth at least any wagon, so each destination uses its own colour first). The search is a
branch and bound over destinations sorted by value per card, bounded by the fractional
knapsack on the total card count, with memoised dominance on (index, cards left). It is
exact, and fast for the 30+ destinations a random player can hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import LOCO, NUM_COLOURS, Destination

# Lexicographic objective packed into one int: points >> count >> big-city names.
_COUNT_WEIGHT = 128  # > 2 names * 46 destinations
_POINTS_WEIGHT = 128 * 64  # > count weight * 46 + names


def _value(dest: Destination, big_cities: frozenset[str]) -> int:
    names = (dest.city_a in big_cities) + (dest.city_b in big_cities)
    return dest.points * _POINTS_WEIGHT + _COUNT_WEIGHT + names


def is_feasible(circulation: Sequence[int], destinations: Iterable[Destination]) -> bool:
    """Whether all ``destinations`` can be reached together from ``circulation`` (9 counts)."""
    need = [0] * NUM_COLOURS
    for dest in destinations:
        for c in dest.colours:
            need[c] += 1
    deficit = sum(max(0, need[c] - circulation[c]) for c in range(NUM_COLOURS))
    return deficit <= circulation[LOCO]


def resolve(
    circulation: Sequence[int],
    destinations: Sequence[Destination],
    big_cities: frozenset[str],
) -> tuple[int, ...]:
    """Ids of the best set of destinations reachable from ``circulation`` (R16), sorted."""
    have = tuple(circulation)
    items = []
    for dest in destinations:
        if is_feasible(have, (dest,)):
            items.append((dest, _value(dest, big_cities), len(dest.colours)))
    if not items:
        return ()
    # highest value per card first: the fractional bound is then a single greedy pass
    items.sort(key=lambda it: (-it[1] / it[2], -it[1], it[0].id))
    needs = [it[0].need for it in items]
    values = [it[1] for it in items]
    sizes = [it[2] for it in items]
    count = len(items)
    best_value = 0
    best_set: list[int] = []
    chosen: list[int] = []
    seen: dict[tuple[int, tuple[int, ...]], int] = {}

    def take(rem: tuple[int, ...], need: tuple[int, ...]) -> tuple[int, ...] | None:
        out = list(rem)
        locos = rem[LOCO]
        for c in range(NUM_COLOURS):
            n = need[c]
            if n:
                if out[c] >= n:
                    out[c] -= n
                else:
                    locos -= n - out[c]
                    out[c] = 0
        if locos < 0:
            return None
        out[LOCO] = locos
        return tuple(out)

    # suffix_need[i][c]: what items i.. could ever use of colour c; cards beyond it are dead
    suffix_need = [[0] * NUM_COLOURS for _ in range(count + 1)]
    for i in range(count - 1, -1, -1):
        row, after, need = suffix_need[i], suffix_need[i + 1], needs[i]
        for c in range(NUM_COLOURS):
            row[c] = after[c] + need[c]

    def bound(i: int, rem: tuple[int, ...]) -> float:
        useful = suffix_need[i]
        capacity = rem[LOCO]
        for c in range(NUM_COLOURS):
            capacity += rem[c] if rem[c] < useful[c] else useful[c]
        total = 0.0
        for j in range(i, count):
            if capacity <= 0:
                break
            size = sizes[j]
            if size <= capacity:
                total += values[j]
                capacity -= size
            else:
                total += values[j] * capacity / size
                capacity = 0
        return total

    def search(i: int, rem: tuple[int, ...], current: int) -> None:
        nonlocal best_value, best_set
        if current > best_value:
            best_value = current
            best_set = list(chosen)
        if i == count or current + bound(i, rem) <= best_value:
            return
        key = (i, rem)
        if seen.get(key, -1) >= current:
            return
        seen[key] = current
        after = take(rem, needs[i])
        if after is not None:
            chosen.append(i)
            search(i + 1, after, current + values[i])
            chosen.pop()
        search(i + 1, rem, current)

    search(0, have, 0)
    return tuple(sorted(items[i][0].id for i in best_set))
