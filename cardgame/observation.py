"""What one seat may know (R9): its own hand and destinations, everything public, never the
deck order or a rival's hand. Strategies get a ``SeatView``, not the state, so they cannot
cheat: the view is an immutable copy that holds no reference leading back to the state."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from . import actions as A
from .cards import BigCity, Destination
from .layout import SEAT_VIEW_FIELDS

if TYPE_CHECKING:
    from .rules import Rules


# The view's fields, in the order GameState.view builds them: the engines' contract.
_FIELDS = SEAT_VIEW_FIELDS


_AT = {name: index for index, name in enumerate(_FIELDS)}


def _field(name: str) -> property:
    return property(itemgetter(_AT[name]), doc=f"{name} (a copy taken with the view)")


# the positions the methods below read (by name: the layout decides the numbers)
_SEAT, _TO_MOVE, _PHASE, _HAND = _AT["seat"], _AT["to_move"], _AT["phase"], _AT["hand"]
_HELD, _OFFER, _FACE_UP = _AT["held_ids"], _AT["offer_ids"], _AT["face_up"]
_OWNER, _WAGONS, _LOCOS = _AT["yard_owner"], _AT["yard_wagons"], _AT["yard_locos"]
_CIRCULATIONS, _DECK = _AT["circulations"], _AT["deck_size"]
_DESTINATION_DECK, _RULES = _AT["destination_deck_size"], _AT["rules"]
_BY_ID = _AT["destinations_by_id"]


class SeatView(tuple):  # a tuple: one C allocation, and truly immutable
    """What one seat may know at one decision (R9), copied when ``GameState.view`` is called.

    The fields are tuples, ints and immutable shared data (rules, big-city names, the printed
    destinations), so nothing reachable from a view leads to the game state, and the view
    cannot be changed or turned into another seat's view: assigning any attribute raises.
    Legality is computed from the view's own fields (``actions.legal_actions``), the same
    function the state uses.
    """

    __slots__ = ()

    seat: int = _field("seat")  # type: ignore[assignment]
    to_move: bool = _field("to_move")  # type: ignore[assignment]
    players: int = _field("players")  # type: ignore[assignment]
    phase: A.Phase = _field("phase")  # type: ignore[assignment]
    round: int = _field("round")  # type: ignore[assignment]
    rounds_total: int = _field("rounds_total")  # type: ignore[assignment]
    turn: int = _field("turn")  # type: ignore[assignment]
    hand: tuple[int, ...] = _field("hand")  # type: ignore[assignment]
    held_ids: tuple[int, ...] = _field("held_ids")  # type: ignore[assignment]
    offer_ids: tuple[int, ...] = _field("offer_ids")  # type: ignore[assignment]
    reached: tuple[tuple[int, ...], ...] = _field("reached")  # type: ignore[assignment]
    face_up: tuple[int, ...] = _field("face_up")  # type: ignore[assignment]
    yard_owner: tuple[int, ...] = _field("yard_owner")  # type: ignore[assignment]
    yard_wagons: tuple[int, ...] = _field("yard_wagons")  # type: ignore[assignment]
    yard_locos: tuple[int, ...] = _field("yard_locos")  # type: ignore[assignment]
    circulations: tuple[tuple[int, ...], ...] = _field("circulations")  # type: ignore[assignment]
    hand_sizes: tuple[int, ...] = _field("hand_sizes")  # type: ignore[assignment]
    held_counts: tuple[int, ...] = _field("held_counts")  # type: ignore[assignment]
    discard: tuple[int, ...] = _field("discard")  # type: ignore[assignment]
    deck_size: int = _field("deck_size")  # type: ignore[assignment]
    destination_deck_size: int = _field("destination_deck_size")  # type: ignore[assignment]
    final_round: bool = _field("final_round")  # type: ignore[assignment]
    round_points: tuple[tuple[int, ...], ...] = _field("round_points")  # type: ignore[assignment]
    rules: Rules = _field("rules")  # type: ignore[assignment]
    big_cities: frozenset[str] = _field("big_cities")  # type: ignore[assignment]
    destinations_by_id: tuple[Destination | None, ...] = _field("destinations_by_id")  # type: ignore[assignment]
    # how many train cards of each kind the game has (R1: public; the catalogue's deck)
    train_cards: tuple[int, ...] = _field("train_cards")  # type: ignore[assignment]
    # the game's big cities with their bonuses (R21: public; the catalogue's, edits included)
    big_city_cards: tuple[BigCity, ...] = _field("big_city_cards")  # type: ignore[assignment]

    @property
    def held(self) -> tuple[Destination, ...]:
        """The seat's destinations in hand (``held_ids`` is cheaper, for caching)."""
        by_id = self[_BY_ID]
        return tuple(by_id[d] for d in self[_HELD])

    @property
    def offer(self) -> tuple[Destination, ...]:
        by_id = self[_BY_ID]
        return tuple(by_id[d] for d in self[_OFFER])

    def circulation(self, seat: int | None = None) -> tuple[int, ...]:
        """A seat's circulation pile (own by default): public by R9."""
        return self[_CIRCULATIONS][self[_SEAT] if seat is None else seat]

    def legal_actions(self) -> list[A.Action]:
        """The legal actions now (empty unless this seat is to move)."""
        if not self[_TO_MOVE]:
            return []
        return A.legal_actions(*self._legality_fields())

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is legal now for this seat; any object may be asked about."""
        return bool(self[_TO_MOVE]) and A.problem(action, *self._legality_fields()) is None

    def _legality_fields(self) -> tuple[Any, ...]:
        return (
            self[_PHASE],
            self[_SEAT],
            self[_HAND],
            self[_OWNER],
            self[_WAGONS],
            self[_LOCOS],
            self[_FACE_UP],
            self[_DECK],
            self[_DESTINATION_DECK],
            self[_OFFER],
            self[_RULES].destinations_min_keep,
        )

    def __repr__(self) -> str:
        return (
            f"SeatView(seat={self.seat}, phase={int(self.phase)}, round={self.round}, "
            f"turn={self.turn}, hand={self.hand}, held_ids={self.held_ids})"
        )
