"""Train colours and card types (R1, R2).

Colours are small ints so that hands and piles can be plain count lists: a game's colours
are indices 0..colours-1 (its edition's, ``Catalogue.colours``; the printed 0-7), and the
wild locomotive comes last (``Catalogue.loco``; the printed ``LOCO``, 8). How many cards of
each kind the train deck holds is card data, like the destinations (``Catalogue.deck``, read
from ``data/deck.csv``).
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
    LOCOMOTIVE,
    MAX_CARD_KINDS,
    MAX_COLOURS,
    MAX_LOCOMOTIVES,
    MAX_TRAIN_CARDS,
    MAX_WAGONS_PER_COLOUR,
    NUM_COLOURS,
)
from .value import Value

COLOUR_INDEX: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(COLOURS)})
# a card kind by name (the colours and "locomotive"): how deck.csv and deck edits name them
KIND_INDEX: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(CARD_NAMES)})


def colour_name(colour: int, colours: tuple[str, ...] = COLOURS) -> str:
    """A colour's name in an edition of ``colours`` (an index past them reads ``colour N``)."""
    return colours[colour] if 0 <= colour < len(colours) else f"colour {colour}"


def card_names(colours: tuple[str, ...]) -> tuple[str, ...]:
    """A game's card kinds by name: its colours, then the locomotive."""
    return CARD_NAMES if colours == COLOURS else (*colours, LOCOMOTIVE)


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
        """Cards needed per printed colour (length NUM_COLOURS, or longer for a ticket
        of an edition's new colour): ``need_of`` sizes it for a game."""
        return self.need_of(max(NUM_COLOURS, self.colours[-1] + 1 if self.colours else 0))

    def need_of(self, colours: int) -> tuple[int, ...]:
        """Cards needed per colour index of a game of ``colours`` colours."""
        counts = [0] * colours
        for c in self.colours:
            counts[c] += 1
        return tuple(counts)

    @property
    def cities(self) -> tuple[str, str]:
        return (self.city_a, self.city_b)

    def label(self, colours: tuple[str, ...] = COLOURS) -> str:
        """``colours``: the edition's colour names (``Catalogue.colours``)."""
        need = " + ".join(colour_name(c, colours) for c in self.colours)
        return f"#{self.id} {self.city_a} - {self.city_b} ({self.points} pts: {need})"


class _BigCityFields(NamedTuple):
    city: str
    points: int
    home_colour: str


class BigCity(Value, _BigCityFields):
    """A big-city bonus card (R21), truly immutable like every shared value."""

    __slots__ = ()
