"""What one seat may know (R9): its own hand and destinations, everything public, never the
deck order or a rival's hand. Strategies get this, not the state, so they cannot cheat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import Destination

if TYPE_CHECKING:
    from .rules import Rules
    from .state import GameState


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    players: int
    phase: int
    round: int
    turn: int
    hand: tuple[int, ...]  # own hand: 9 counts (8 colours, then locomotives)
    held: tuple[Destination, ...]  # own destinations still in hand
    offer: tuple[Destination, ...]  # destinations on offer to this seat (keep phases)
    reached: tuple[tuple[int, ...], ...]  # per seat, ids set aside as reached (public)
    face_up: tuple[int, ...]  # -1 for an empty slot
    yard_owner: tuple[int, ...]  # per colour, seat or -1
    yard_wagons: tuple[int, ...]
    yard_locos: tuple[int, ...]
    circulation: tuple[tuple[int, ...], ...]  # per seat, 9 counts (R9: follows from public moves)
    hand_sizes: tuple[int, ...]
    held_counts: tuple[int, ...]
    discard: tuple[int, ...]
    deck_size: int
    destination_deck_size: int
    final_round: bool
    round_points: tuple[tuple[int, ...], ...]
    rounds_total: int


def observe(state: GameState, seat: int) -> Observation:
    catalogue = state.game.catalogue
    return Observation(
        seat=seat,
        players=state.players,
        phase=int(state.phase),
        round=state.round,
        turn=state.turn,
        hand=tuple(state.hands[seat]),
        held=tuple(catalogue.destination(d) for d in state.held[seat]),
        offer=tuple(catalogue.destination(d) for d in state.offers[seat]),
        reached=tuple(tuple(r) for r in state.reached),
        face_up=tuple(state.face_up),
        yard_owner=tuple(state.yard_owner),
        yard_wagons=tuple(state.yard_wagons),
        yard_locos=tuple(state.yard_locos),
        circulation=tuple(tuple(c) for c in state.circulation),
        hand_sizes=tuple(sum(h) for h in state.hands),
        held_counts=tuple(len(h) for h in state.held),
        discard=tuple(state.discard),
        deck_size=len(state.deck),
        destination_deck_size=len(state.dest_deck),
        final_round=state.is_final_round,
        round_points=tuple(tuple(p) for p in state.round_points),
        rounds_total=state.rules.rounds_for(state.players),
    )


class SeatView:
    """A live read-only window on the state for one seat (R9), computed on demand.

    Strategies read it on every decision; it copies nothing it is not asked for. It offers
    exactly what ``Observation`` holds: never the deck order or a rival's hand.
    """

    __slots__ = ("_state", "seat")

    def __init__(self, state: GameState, seat: int) -> None:
        self._state = state
        self.seat = seat

    @property
    def players(self) -> int:
        return self._state.players

    @property
    def phase(self) -> int:
        return self._state.phase  # a Phase (an int)

    @property
    def round(self) -> int:
        return self._state.round

    @property
    def rounds_total(self) -> int:
        return self._state.rules.rounds_for(self._state.players)

    @property
    def turn(self) -> int:
        return self._state.turn

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self._state.hands[self.seat])

    @property
    def held(self) -> tuple[Destination, ...]:
        by_id = self._state.game.catalogue.destination
        return tuple(by_id(d) for d in self._state.held[self.seat])

    @property
    def held_ids(self) -> tuple[int, ...]:
        """Ids of the seat's destinations in hand (cheaper than ``held``, for caching)."""
        return tuple(self._state.held[self.seat])

    @property
    def offer(self) -> tuple[Destination, ...]:
        by_id = self._state.game.catalogue.destination
        return tuple(by_id(d) for d in self._state.offers[self.seat])

    @property
    def reached(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(r) for r in self._state.reached)

    @property
    def face_up(self) -> tuple[int, ...]:
        return tuple(self._state.face_up)

    @property
    def yard_owner(self) -> tuple[int, ...]:
        return tuple(self._state.yard_owner)

    @property
    def yard_wagons(self) -> tuple[int, ...]:
        return tuple(self._state.yard_wagons)

    @property
    def yard_locos(self) -> tuple[int, ...]:
        return tuple(self._state.yard_locos)

    def circulation(self, seat: int | None = None) -> tuple[int, ...]:
        """A seat's circulation pile (own by default): public by R9."""
        return tuple(self._state.circulation[self.seat if seat is None else seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(sum(h) for h in self._state.hands)

    @property
    def held_counts(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._state.held)

    @property
    def discard(self) -> tuple[int, ...]:
        return tuple(self._state.discard)

    @property
    def deck_size(self) -> int:
        return len(self._state.deck)

    @property
    def destination_deck_size(self) -> int:
        return len(self._state.dest_deck)

    @property
    def final_round(self) -> bool:
        return self._state.is_final_round

    @property
    def rules(self) -> Rules:
        return self._state.rules

    @property
    def big_cities(self) -> frozenset[str]:
        return self._state.game.big_city_set

    def legal_actions(self) -> list:
        """The legal actions now (only meaningful when this seat is to move)."""
        if self._state.seat != self.seat:
            return []
        return self._state.legal_actions()

    def is_legal(self, action: object) -> bool:
        return self._state.seat == self.seat and self._state._problem(action) is None  # type: ignore[arg-type]

    def snapshot(self) -> Observation:
        return observe(self._state, self.seat)
