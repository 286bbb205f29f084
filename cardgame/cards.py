"""Train colours and card types (R1, R2).

Colours are small ints so that hands and piles can be plain count lists: index 0-7 are
the eight wagon colours, index 8 (``LOCO``) the wild locomotive. How many cards of each kind
the train deck holds is card data, like the destinations (``Catalogue.deck``, read from
``data/deck.csv``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from .layout import (  # noqa: F401  (the card constants live in the engines' contract)
    CARD_KINDS,
    CARD_NAMES,
    COLOURS,
    LOCO,
    MAX_LOCOMOTIVES,
    MAX_TRAIN_CARDS,
    MAX_WAGONS_PER_COLOUR,
    NUM_COLOURS,
)
from .value import Value

COLOUR_INDEX: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(COLOURS)})
# a card kind by name (the colours and "locomotive"): how deck.csv and deck edits name them
KIND_INDEX: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(CARD_NAMES)})


class _DestinationFields(NamedTuple):
    id: int
    city_a: str
    city_b: str
    points: int
    colours: tuple[int, ...]  # one entry per circle, sorted; a colour may repeat


class Destination(Value, _DestinationFields):
    """A destination ticket: two cities, points, and the colour multiset it needs (R2).

    Truly immutable (cardgame.value): the printed cards are shared by every game."""

    __slots__ = ()

    @property
    def need(self) -> tuple[int, ...]:
        """Cards needed per colour index (length NUM_COLOURS)."""
        counts = [0] * NUM_COLOURS
        for c in self.colours:
            counts[c] += 1
        return tuple(counts)

    @property
    def cities(self) -> tuple[str, str]:
        return (self.city_a, self.city_b)

    def label(self) -> str:
        need = " + ".join(COLOURS[c] for c in self.colours)
        return f"#{self.id} {self.city_a} - {self.city_b} ({self.points} pts: {need})"


class _BigCityFields(NamedTuple):
    city: str
    points: int
    home_colour: str


class BigCity(Value, _BigCityFields):
    """A big-city bonus card (R21), truly immutable like every shared value."""

    __slots__ = ()
