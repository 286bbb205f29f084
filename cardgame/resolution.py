"""Exact destination resolution (R16).

A seat assigns the cards of its circulation pile to destinations in hand; each card covers
one requirement, a locomotive any colour. Among all feasible sets the engine takes the one
that maximises (1) points, (2) number of destinations, (3) big-city names on them.

A set S is feasible iff  sum_c max(0, need_c(S) - have_c) <= locomotives  (a locomotive is
worth at least any wagon, so each destination uses its own colour first).

Which optimal set is taken when several tie is part of the records, so it is pinned down:
destinations are sorted by value per card; the answer is the greedy pass over that order if
the greedy set is optimal, else the optimal set that comes first in that order
(lexicographically, a destination earlier in the order beats any number of later ones).

Two searches return exactly that set:

* cheap: depth-first branch and bound in that order (the first optimum found is the
  lexicographic first), bounded by a fractional knapsack on the count of useful cards, with
  memoised dominance. Settles nearly every real holding within ``_CHEAP_NODES`` nodes.
* deep, for the holdings the cheap search does not settle (in random play, one end-of-game
  holding in seven, of 11 to 27 destinations; up to all 46): prices per colour are tuned on
  the Lagrangian dual of the per-colour limits (Held-Karp subgradient steps, with a rounding
  heuristic for a good incumbent). With near-optimal prices, any better set differs from
  the Lagrangian solution only in destinations of small reduced cost, so the search decides
  destinations by decreasing |reduced cost| (the preferred side first): a wrong turn costs
  its reduced cost at once and is pruned. Ties are settled by comparing the lexicographic
  key of the sets, so the search order does not change the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from operator import mul
from typing import Protocol

from . import _native
from .cards import NUM_COLOURS, Destination

# Lexicographic objective packed into one int: points >> count >> big-city names. These
# weights serve up to 62 feasible destinations (the native kernel's bound): 128 > 2 names *
# 62, 8192 > 128 * 62 + 124; a larger holding (an edition of many tickets) takes the wide
# ones, which order every set and every value per card the same way (only larger).
_COUNT_WEIGHT = 128
_POINTS_WEIGHT = 128 * 64
_NARROW_ITEMS = 62
_WIDE_COUNT_WEIGHT = 512  # > 2 names * 255 destinations
_WIDE_POINTS_WEIGHT = 512 * 256  # > count weight * 255 + names
_CHEAP_NODES = 150  # past this, tuned prices prune better than the count of useful cards
_PRICE_STEPS_PER_ITEM = 2  # subgradient steps at most, per destination (each ~50 us)
_HEURISTIC_EVERY = 10  # steps between two roundings of the Lagrangian solution
_STALL_STEPS = 5  # steps without a better bound before the step size halves
_SLACK = 0.5  # bounds are floats; values are ints: prune only when clearly below


def _value(dest: Destination, big_cities: frozenset[str], wide: bool = False) -> int:
    names = (dest.city_a in big_cities) + (dest.city_b in big_cities)
    if wide:
        return dest.points * _WIDE_POINTS_WEIGHT + _WIDE_COUNT_WEIGHT + names
    return dest.points * _POINTS_WEIGHT + _COUNT_WEIGHT + names


def colour_need(destinations: Iterable[Destination], colours: int = NUM_COLOURS) -> list[int]:
    """Cards per colour (``colours`` counts: the game's) that ``destinations`` require
    together."""
    need = [0] * colours
    for dest in destinations:
        for c in dest.colours:
            need[c] += 1
    return need


def covers(circulation: Sequence[int], need: Sequence[int]) -> bool:
    """Whether ``circulation`` (a count per colour, then the locomotives) covers ``need``
    (the colours' counts): what a colour lacks, locomotives make up (R16)."""
    deficit = 0
    for n, have in zip(need, circulation, strict=False):  # the colours; locomotives last
        if n > have:
            deficit += n - have
    return deficit <= circulation[-1]


def is_feasible(circulation: Sequence[int], destinations: Iterable[Destination]) -> bool:
    """Whether all ``destinations`` can be reached together from ``circulation`` (a count
    per colour, then the locomotives)."""
    return covers(circulation, colour_need(destinations, len(circulation) - 1))


def _take(rem: tuple[int, ...], need: tuple[int, ...]) -> tuple[int, ...] | None:
    """Cards left after covering ``need`` (own colours first, then locomotives)."""
    out = list(rem)
    locos = rem[-1]
    for c in range(len(need)):
        n = need[c]
        if n:
            if out[c] >= n:
                out[c] -= n
            else:
                locos -= n - out[c]
                out[c] = 0
    if locos < 0:
        return None
    out[-1] = locos
    return tuple(out)


def resolve(
    circulation: Sequence[int],
    destinations: Sequence[Destination],
    big_cities: frozenset[str],
) -> tuple[int, ...]:
    """Ids of the best set of destinations reachable from ``circulation`` (R16), sorted."""
    return resolve_counted(circulation, destinations, big_cities)[0]


def resolve_counted_python(
    circulation: Sequence[int],
    destinations: Sequence[Destination],
    big_cities: frozenset[str],
    cheap_nodes: int = _CHEAP_NODES,
) -> tuple[tuple[int, ...], int]:
    """``resolve`` and the search nodes it visited: a machine-independent work measure.
    The reference (pure Python); ``resolve_counted`` is this or the native kernel.

    ``cheap_nodes`` is the budget of the cheap search (0: straight to the deep one, which
    tests use to check the deep search on holdings small enough for brute force)."""
    have = tuple(circulation)
    feasible = [dest for dest in destinations if is_feasible(have, (dest,))]
    wide = len(feasible) > _NARROW_ITEMS
    items = [(dest, _value(dest, big_cities, wide), len(dest.colours)) for dest in feasible]
    if not items:
        return (), 0
    # highest value per card first: the fractional bound is then a single greedy pass
    items.sort(key=lambda it: (-it[1] / it[2], -it[1], it[0].id))
    needs = [it[0].need_of(len(have) - 1) for it in items]
    values = [it[1] for it in items]
    sizes = [it[2] for it in items]
    count = len(items)

    # a greedy pass gives a first solution; it stands unless something strictly better exists
    rem: tuple[int, ...] | None = have
    greedy_value = 0
    greedy_set: list[int] = []
    for i in range(count):
        after = _take(rem, needs[i])  # type: ignore[arg-type]
        if after is not None:
            rem = after
            greedy_value += values[i]
            greedy_set.append(i)
    if len(greedy_set) == count:
        return tuple(sorted(it[0].id for it in items)), 0
    cheap = _cheap_search(have, needs, values, sizes, greedy_value, greedy_set, cheap_nodes)
    best_value, best_set, nodes = cheap
    if nodes <= cheap_nodes:
        return tuple(sorted(items[i][0].id for i in best_set)), nodes
    lexbit = [1 << (count - 1 - i) for i in range(count)]
    best = _Best(best_value, sum(lexbit[i] for i in best_set), best_set is greedy_set)
    nodes += _deep_search(have, needs, values, sizes, lexbit, best)
    return tuple(sorted(items[i][0].id for i in range(count) if best.key & lexbit[i])), nodes


def _cheap_search(
    have: tuple[int, ...],
    needs: list[tuple[int, ...]],
    values: list[int],
    sizes: list[int],
    best_value: int,
    best_set: list[int],
    budget: int,
) -> tuple[int, list[int], int]:
    """Branch and bound in the lexicographic order, giving up after ``budget`` nodes.

    Returns the best value and set found (the greedy ``best_set`` object itself if nothing
    beat it) and the nodes visited (more than the budget: gave up).
    """
    nc = len(have) - 1  # the game's colours; the locomotives are the last count
    count = len(needs)
    # suffix_need[i][c]: what items i.. could ever use of colour c; cards beyond it are dead
    suffix_need = [[0] * nc for _ in range(count + 1)]
    for i in range(count - 1, -1, -1):
        row, after_row, need = suffix_need[i], suffix_need[i + 1], needs[i]
        for c in range(nc):
            row[c] = after_row[c] + need[c]
    chosen: list[int] = []
    seen: dict[tuple[int, tuple[int, ...], int], int] = {}
    nodes = 0

    def bound(i: int, clipped: tuple[int, ...], locos: int) -> float:
        """Fractional knapsack on the useful cards."""
        capacity = locos + sum(clipped)
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
        nonlocal best_value, best_set, nodes
        nodes += 1
        if nodes > budget:
            raise _OverBudget
        if current > best_value:
            best_value = current
            best_set = list(chosen)
        if i == count:
            return
        # cards beyond what items i.. could use are dead: clipping them merges states
        clipped = tuple(map(min, rem, suffix_need[i]))
        locos = rem[nc]
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

    with suppress(_OverBudget):
        search(0, have, 0)
    return best_value, best_set, nodes


class _OverBudget(Exception):
    """The cheap search gave up; the deep one takes over."""


class _Best:
    """The incumbent: packed value, lexicographic key (a bit per item, the first item
    highest), and whether it is still the greedy set (which wins ties)."""

    __slots__ = ("greedy", "key", "value")

    def __init__(self, value: int, key: int, greedy: bool) -> None:
        self.value, self.key, self.greedy = value, key, greedy

    def offer(self, value: int, key: int) -> None:
        """Take a set if it is better: more value, or as much and lexicographically first."""
        if value > self.value or (value == self.value and not self.greedy and key > self.key):
            self.value, self.key, self.greedy = value, key, False

    def floor(self) -> float:
        """A subtree whose bound is below this holds nothing that could be taken."""
        return self.value + (_SLACK if self.greedy else -_SLACK)


def search_settings() -> dict[str, float]:
    """The search's budgets and steps; the native kernel reports its own, held equal by
    tests/test_contract.py."""
    return {
        "cheap_nodes": _CHEAP_NODES,
        "price_steps_per_item": _PRICE_STEPS_PER_ITEM,
        "heuristic_every": _HEURISTIC_EVERY,
        "stall_steps": _STALL_STEPS,
        "slack": _SLACK,
    }


def _sparse(needs: list[tuple[int, ...]]) -> list[tuple[tuple[int, int], ...]]:
    return [tuple((c, n) for c, n in enumerate(need) if n) for need in needs]


def _tune_prices(
    have: tuple[int, ...],
    needs: list[tuple[int, ...]],
    values: list[int],
    sizes: list[int],
    lexbit: list[int],
    best: _Best,
) -> list[float]:
    """Held-Karp subgradient descent on the Lagrangian dual of the per-colour limits.

    Any non-negative prices give a valid bound; good ones make the deep search small. Every
    few steps the Lagrangian solution is rounded greedily (by reduced cost per card) into a
    feasible set, offered to ``best``: a higher incumbent also aims the steps better.
    """
    nc = len(have) - 1  # the game's colours; the locomotives are the last count
    count = len(needs)
    sparse = _sparse(needs)
    start = sorted(v / s for v, s in zip(values, sizes, strict=True))[count // 2]
    prices = [start] * nc
    best_bound = float("inf")
    best_prices = list(prices)
    step_scale = 2.0
    stall = 0
    for step in range(_PRICE_STEPS_PER_ITEM * count):
        top = max(prices)
        bound = sum(map(mul, prices, have)) + top * have[nc]
        used = [0] * nc
        reduced = [0.0] * count
        for j in range(count):
            r: float = values[j]
            for c, n in sparse[j]:
                r -= prices[c] * n
            reduced[j] = r
            if r > 0:
                bound += r
                for c, n in sparse[j]:
                    used[c] += n
        if bound < best_bound:
            best_bound, best_prices, stall = bound, list(prices), 0
        else:
            stall += 1
            if stall >= _STALL_STEPS:
                step_scale /= 2
                stall = 0
        if step % _HEURISTIC_EVERY == 0:
            _round(have, needs, values, sizes, lexbit, reduced, best)
        if best_bound - best.value < 1:
            break  # nothing strictly better can exist; the search will confirm at once
        star = prices.index(top)
        gradient = [have[c] - used[c] for c in range(nc)]
        gradient[star] += have[nc]
        norm = sum(g * g for g in gradient)
        if norm == 0:
            break
        move = step_scale * (bound - best.value) / norm
        prices = [max(0.0, p - move * g) for p, g in zip(prices, gradient, strict=True)]
    return best_prices


def _round(
    have: tuple[int, ...],
    needs: list[tuple[int, ...]],
    values: list[int],
    sizes: list[int],
    lexbit: list[int],
    reduced: list[float],
    best: _Best,
) -> None:
    """Greedy pass by reduced cost per card; the set found is offered to ``best``."""
    order = sorted(range(len(needs)), key=lambda j: (-reduced[j] / sizes[j], j))
    rem: tuple[int, ...] | None = have
    value = 0
    key = 0
    for j in order:
        after = _take(rem, needs[j])  # type: ignore[arg-type]
        if after is not None:
            rem = after
            value += values[j]
            key |= lexbit[j]
    best.offer(value, key)


def _deep_search(
    have: tuple[int, ...],
    needs: list[tuple[int, ...]],
    values: list[int],
    sizes: list[int],
    lexbit: list[int],
    best: _Best,
) -> int:
    """Exact branch and bound ordered by |reduced cost|; improves ``best`` in place and
    returns the nodes visited."""
    nc = len(have) - 1  # the game's colours; the locomotives are the last count
    prices = _tune_prices(have, needs, values, sizes, lexbit, best)
    top = max(prices)
    count = len(needs)
    reduced = [values[j] - sum(map(mul, prices, needs[j])) for j in range(count)]
    order = sorted(range(count), key=lambda j: (-abs(reduced[j]), j))
    o_needs = [needs[j] for j in order]
    o_values = [values[j] for j in order]
    o_bits = [lexbit[j] for j in order]
    o_take_first = [reduced[j] > 0 for j in order]
    # per depth k, over the items still undecided (order[k:]): the positive reduced costs,
    # the cards of each colour they could use, and their lexicographic bits
    gain = [0.0] * (count + 1)
    usable = [[0] * nc for _ in range(count + 1)]
    open_bits = [0] * (count + 1)
    for k in range(count - 1, -1, -1):
        gain[k] = gain[k + 1] + max(0.0, reduced[order[k]])
        row, after_row, need = usable[k], usable[k + 1], o_needs[k]
        for c in range(nc):
            row[c] = after_row[c] + need[c]
        open_bits[k] = open_bits[k + 1] | o_bits[k]
    usable_total = [sum(row) for row in usable]
    seen: dict[tuple[int, tuple[int, ...], int], tuple[int, int]] = {}
    nodes = 0

    def search(k: int, rem: tuple[int, ...], current: int, key: int) -> None:
        nonlocal nodes
        nodes += 1
        best.offer(current, key)
        if k == count:
            return
        clipped = tuple(map(min, rem, usable[k]))
        # locomotives beyond what the undecided items could lack are dead too
        locos = min(rem[nc], usable_total[k] - sum(clipped))
        # Lagrangian bound: undecided items at their reduced cost, cards at their price
        bound = current + gain[k] + sum(map(mul, prices, clipped)) + top * locos
        floor = best.floor()
        if bound < floor:
            return
        if bound < best.value + _SLACK and (key | open_bits[k]) <= best.key:
            return  # at best a tie, and every set below comes later in the order
        state = (k, clipped, locos)
        # the same cards left for the same undecided items: the completions are the same,
        # so a partial set with less value (or as much, lexicographically later) loses
        if (current, key) <= seen.get(state, (-1, -1)):
            return
        seen[state] = (current, key)
        after = _take(rem, o_needs[k])
        if after is None:
            search(k + 1, rem, current, key)
        elif o_take_first[k]:
            search(k + 1, after, current + o_values[k], key | o_bits[k])
            search(k + 1, rem, current, key)
        else:
            search(k + 1, rem, current, key)
            search(k + 1, after, current + o_values[k], key | o_bits[k])

    search(0, have, 0, 0)
    return nodes


# ---------------------------------------------------------------------------------------
# engine dispatch: the native kernel is a C port of the functions above that
# returns the same set and node count; it declines (None) inputs outside its fixed arrays


class Resolver(Protocol):
    """The signature of ``resolve_counted`` on either engine."""

    def __call__(
        self,
        circulation: Sequence[int],
        destinations: Sequence[Destination],
        big_cities: frozenset[str],
        cheap_nodes: int = ...,
    ) -> tuple[tuple[int, ...], int]: ...


def _native_resolver(kernel: object) -> Resolver:
    native = kernel.resolve_counted  # type: ignore[attr-defined]

    def resolve_counted_native(
        circulation: Sequence[int],
        destinations: Sequence[Destination],
        big_cities: frozenset[str],
        cheap_nodes: int = _CHEAP_NODES,
    ) -> tuple[tuple[int, ...], int]:
        """``resolve_counted_python``'s answer, computed in C where the kernel can."""
        got = native(circulation, destinations, big_cities, cheap_nodes)
        if got is None:
            return resolve_counted_python(circulation, destinations, big_cities, cheap_nodes)
        return got

    return resolve_counted_native


def resolver(engine: str) -> Resolver:
    """``resolve_counted`` of ``engine`` ("python" or "native", which must be built)."""
    if engine == "python":
        return resolve_counted_python
    if engine == "native" and _native.resolution_kernel is not None:
        return _native_resolver(_native.resolution_kernel)
    raise ValueError(f"no {engine!r} resolution engine here ({_native.describe()})")


resolve_counted: Resolver = resolver(_native.ENGINE)


@contextmanager
def engine_in_use(engine: str) -> Iterator[None]:
    """Resolve on ``engine`` inside the block, whatever ``CARDGAME_ENGINE`` chose (for
    benchmarks that interleave the engines game by game); the choice is restored after."""
    global resolve_counted
    chosen = resolve_counted
    resolve_counted = resolver(engine)
    try:
        yield
    finally:
        resolve_counted = chosen
