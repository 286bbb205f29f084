"""What one seat may know (R9): its own hand and destinations, everything public, never the
deck order or a rival's hand. Strategies get this, not the state, so they cannot cheat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import Destination

if TYPE_CHECKING:
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
