"""Reference R16 resolution: the algorithm as it stood before the tail optimisation
(commit 6d9fb9e), kept verbatim so property tests can check that the fast one returns
exactly the same set (same tie-breaking), not merely an optimal one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import mul

from cardgame.cards import LOCO, NUM_COLOURS, Destination

# Lexicographic objective packed into one int: points >> count >> big-city names.
_COUNT_WEIGHT = 128  # > 2 names * 46 destinations
_POINTS_WEIGHT = 128 * 64  # > count weight * 46 + names
_PRICE_STEPS = 60
_CHEAP_NODES = 1000


def _value(dest: Destination, big_cities: frozenset[str]) -> int:
    names = (dest.city_a in big_cities) + (dest.city_b in big_cities)
    return dest.points * _POINTS_WEIGHT + _COUNT_WEIGHT + names


def colour_need(destinations: Iterable[Destination]) -> list[int]:
    """Cards per colour (8 counts) that ``destinations`` require together."""
    need = [0] * NUM_COLOURS
    for dest in destinations:
        for c in dest.colours:
            need[c] += 1
    return need


def covers(circulation: Sequence[int], need: Sequence[int]) -> bool:
    """Whether ``circulation`` (9 counts) covers ``need`` (8 colour counts): what a colour
    lacks, locomotives make up (R16)."""
    deficit = 0
    for n, have in zip(need, circulation, strict=False):  # the 8 colours; locomotives last
        if n > have:
            deficit += n - have
    return deficit <= circulation[LOCO]


def is_feasible(circulation: Sequence[int], destinations: Iterable[Destination]) -> bool:
    """Whether all ``destinations`` can be reached together from ``circulation`` (9 counts)."""
    return covers(circulation, colour_need(destinations))


def _take(rem: tuple[int, ...], need: tuple[int, ...]) -> tuple[int, ...] | None:
    """Cards left after covering ``need`` (own colours first, then locomotives)."""
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


def _lagrangian(
    prices: list[float], have: Sequence[int], needs: list[tuple[int, ...]], values: list[int]
) -> tuple[float, list[float]]:
    """Upper bound for price vector ``prices`` (per colour) and its subgradient."""
    top = max(prices)
    bound = sum(p * h for p, h in zip(prices, have, strict=False)) + top * have[LOCO]
    used = [0] * NUM_COLOURS
    for need, value in zip(needs, values, strict=True):
        reduced = value - sum(p * n for p, n in zip(prices, need, strict=True))
        if reduced > 0:
            bound += reduced
            for c in range(NUM_COLOURS):
                used[c] += need[c]
    star = prices.index(top)
    gradient = [have[c] + (have[LOCO] if c == star else 0) - used[c] for c in range(NUM_COLOURS)]
    return bound, gradient


def _tune_prices(
    have: Sequence[int], needs: list[tuple[int, ...]], values: list[int], floor: int
) -> list[float]:
    """Subgradient descent on the Lagrangian dual; any non-negative prices give a bound."""
    sizes = [sum(n) for n in needs]
    start = sorted(v / s for v, s in zip(values, sizes, strict=True))[len(values) // 2]
    prices = [start] * NUM_COLOURS
    best_bound, _ = _lagrangian(prices, have, needs, values)
    best = list(prices)
    for _ in range(_PRICE_STEPS):
        bound, gradient = _lagrangian(prices, have, needs, values)
        if bound < best_bound:
            best_bound, best = bound, list(prices)
        norm = sum(g * g for g in gradient)
        if norm == 0 or bound <= floor:
            break
        step = (bound - floor) / norm
        prices = [max(0.0, p - step * g) for p, g in zip(prices, gradient, strict=True)]
    return best


def reference_resolve(
    circulation: Sequence[int],
    destinations: Sequence[Destination],
    big_cities: frozenset[str],
) -> tuple[int, ...]:
    """Ids of the best set of destinations reachable from ``circulation`` (R16), sorted."""
    have = tuple(circulation)
    items = [
        (dest, _value(dest, big_cities), len(dest.colours))
        for dest in destinations
        if is_feasible(have, (dest,))
    ]
    if not items:
        return ()
    # highest value per card first: the fractional bound is then a single greedy pass
    items.sort(key=lambda it: (-it[1] / it[2], -it[1], it[0].id))
    needs = [it[0].need for it in items]
    values = [it[1] for it in items]
    sizes = [it[2] for it in items]
    count = len(items)

    # a greedy pass gives a first solution, and a floor for tuning the prices
    rem: tuple[int, ...] | None = have
    greedy_value = 0
    greedy_set: list[int] = []
    for i in range(count):
        after = _take(rem, needs[i])  # type: ignore[arg-type]
        if after is not None:
            rem = after
            greedy_value += values[i]
            greedy_set.append(i)
    best_value = greedy_value
    best_set = greedy_set
    if len(greedy_set) == count:
        return tuple(sorted(it[0].id for it in items))

    # suffix_need[i][c]: what items i.. could ever use of colour c; cards beyond it are dead
    suffix_need = [[0] * NUM_COLOURS for _ in range(count + 1)]
    for i in range(count - 1, -1, -1):
        row, after_row, need = suffix_need[i], suffix_need[i + 1], needs[i]
        for c in range(NUM_COLOURS):
            row[c] = after_row[c] + need[c]
    no_prices = [0.0] * NUM_COLOURS
    no_reduced = [float("inf")] * (count + 1)

    def run(prices: list[float], suffix_reduced: list[float], budget: int | None) -> bool:
        """Branch and bound; False if ``budget`` nodes did not suffice."""
        nonlocal best_value, best_set
        top_price = max(prices)
        chosen: list[int] = []
        seen: dict[tuple[int, tuple[int, ...], int], int] = {}
        nodes = 0

        tuned = top_price > 0

        def bound(i: int, clipped: tuple[int, ...], locos: int) -> float:
            """Fractional knapsack on the useful cards; with tuned prices, the Lagrangian."""
            capacity = locos + sum(clipped)
            if tuned:
                lagrange = suffix_reduced[i] + top_price * locos + sum(map(mul, prices, clipped))
            else:
                lagrange = float("inf")
            total = 0.0
            for j in range(i, count):
                if capacity <= 0 or total >= lagrange:
                    break
                size = sizes[j]
                if size <= capacity:
                    total += values[j]
                    capacity -= size
                else:
                    total += values[j] * capacity / size
                    capacity = 0
            return total if total < lagrange else lagrange

        def search(i: int, rem: tuple[int, ...], current: int) -> None:
            nonlocal best_value, best_set, nodes
            nodes += 1
            if budget is not None and nodes > budget:
                raise _OverBudget
            if current > best_value:
                best_value = current
                best_set = list(chosen)
            if i == count:
                return
            # cards beyond what items i.. could use are dead: clipping them merges states
            clipped = tuple(map(min, rem, suffix_need[i]))
            locos = rem[LOCO]
            if current + bound(i, clipped, locos) <= best_value:
                return
            key = (i, clipped, locos)
            if seen.get(key, -1) >= current:
                return
            seen[key] = current
            after = _take(rem, needs[i])
            if after is not None:
                chosen.append(i)
                search(i + 1, after, current + values[i])
                chosen.pop()
            search(i + 1, rem, current)

        try:
            search(0, have, 0)
        except _OverBudget:
            return False
        return True

    # most holdings are settled by the cheap bound; hard ones get tuned prices
    if not run(no_prices, no_reduced, _CHEAP_NODES):
        prices = _tune_prices(have, needs, values, best_value)
        suffix_reduced = [0.0] * (count + 1)
        for i in range(count - 1, -1, -1):
            reduced = values[i] - sum(p * n for p, n in zip(prices, needs[i], strict=True))
            suffix_reduced[i] = suffix_reduced[i + 1] + max(0.0, reduced)
        run(prices, suffix_reduced, None)
    return tuple(sorted(items[i][0].id for i in best_set))


class _OverBudget(Exception):
    """The cheap search gave up; the tuned one takes over."""
