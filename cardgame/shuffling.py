"""Where shuffles come from: a seeded RNG in play, the recorded orders in replay.

The engine never calls a global RNG; every random event is one of four named shuffles, so
a record that lists their results replays without the RNG (docs/record-format.md).
"""

from __future__ import annotations

import random
from typing import Protocol

from .errors import RecordError

TRAIN_SETUP = "train_setup"
DESTINATION_SETUP = "destination_setup"
DESTINATION_RESHUFFLE = "destination_reshuffle"
TRAIN_ROUND = "train_round"


class ShuffleSource(Protocol):
    def shuffle(self, kind: str, cards: list[int]) -> list[int]:
        """Return ``cards`` in a new order; the last element is the top of the pile."""
        ...


class SeededShuffles:
    """Shuffles from a private ``random.Random`` seeded with the game's seed."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def shuffle(self, kind: str, cards: list[int]) -> list[int]:
        out = list(cards)
        self._rng.shuffle(out)
        return out


class RecordedShuffles:
    """Replays the orders a record lists, checking each holds the same cards."""

    def __init__(self, orders: list[tuple[str, list[int]]]) -> None:
        self._orders = list(orders)
        self._next = 0

    def shuffle(self, kind: str, cards: list[int]) -> list[int]:
        if self._next >= len(self._orders):
            raise RecordError(f"record has no shuffle for {kind} (only {len(self._orders)})")
        recorded_kind, order = self._orders[self._next]
        self._next += 1
        if recorded_kind != kind:
            raise RecordError(f"record lists a {recorded_kind} shuffle where {kind} happens")
        if sorted(order) != sorted(cards):
            raise RecordError(f"recorded {kind} order does not hold the cards being shuffled")
        return list(order)


class SeedCheckedShuffles:
    """Replays recorded orders and notes, beside each, the order the game's seed gives.

    Shuffling the same cards in the same order with ``random.Random(seed)`` reproduces what
    ``SeededShuffles`` did when the game was played, so replay can check the record's seed.
    Where the record lacks a shuffle (or lists another kind), the seed's order is used so
    that the replay goes on and the final comparison names the difference.
    """

    def __init__(self, orders: list[tuple[str, list[int]]], seed: int) -> None:
        self._orders = list(orders)
        self._seeded = SeededShuffles(seed)
        self.seeded: list[tuple[str, list[int]]] = []

    def shuffle(self, kind: str, cards: list[int]) -> list[int]:
        seeded = self._seeded.shuffle(kind, cards)
        index = len(self.seeded)
        self.seeded.append((kind, seeded))
        if index >= len(self._orders) or self._orders[index][0] != kind:
            return list(seeded)
        order = self._orders[index][1]
        if sorted(order) != sorted(cards):
            raise RecordError(
                f"shuffles[{index}]: the recorded {kind} order does not hold the cards "
                f"being shuffled"
            )
        return list(order)
