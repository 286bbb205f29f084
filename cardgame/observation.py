"""What one seat may know (R9): its own hand and destinations, everything public, never the
deck order or a rival's hand. Strategies get a ``SeatView``, not the state, so they cannot
cheat: the view is an immutable copy that holds no reference leading back to the state."""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from . import actions as A
from .cards import Destination
from .layout import SEAT_VIEW_FIELDS

if TYPE_CHECKING:
    from .rules import Rules


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
    train_cards: tuple[int, ...] = ()  # the game's train deck: 9 counts (R1)


def observe(state: Any, seat: int) -> Observation:
    """A frozen snapshot of what ``seat`` may know (same as ``state.view(seat).snapshot()``)."""
    return state.view(seat).snapshot()


# The view's fields, in the order GameState.view builds them: the engines' contract.
_FIELDS = SEAT_VIEW_FIELDS


def _field(index: int) -> property:
    return property(itemgetter(index), doc=f"{_FIELDS[index]} (a copy taken with the view)")


class SeatView(tuple):  # a tuple: one C allocation, and truly immutable
    """What one seat may know at one decision (R9), copied when ``GameState.view`` is called.

    The fields are tuples, ints and immutable shared data (rules, big-city names, the printed
    destinations), so nothing reachable from a view leads to the game state, and the view
    cannot be changed or turned into another seat's view: assigning any attribute raises.
    Legality is computed from the view's own fields (``actions.legal_actions``), the same
    function the state uses.
    """

    __slots__ = ()

    seat: int = _field(0)  # type: ignore[assignment]
    to_move: bool = _field(1)  # type: ignore[assignment]
    players: int = _field(2)  # type: ignore[assignment]
    phase: A.Phase = _field(3)  # type: ignore[assignment]
    round: int = _field(4)  # type: ignore[assignment]
    rounds_total: int = _field(5)  # type: ignore[assignment]
    turn: int = _field(6)  # type: ignore[assignment]
    hand: tuple[int, ...] = _field(7)  # type: ignore[assignment]
    held_ids: tuple[int, ...] = _field(8)  # type: ignore[assignment]
    offer_ids: tuple[int, ...] = _field(9)  # type: ignore[assignment]
    reached: tuple[tuple[int, ...], ...] = _field(10)  # type: ignore[assignment]
    face_up: tuple[int, ...] = _field(11)  # type: ignore[assignment]
    yard_owner: tuple[int, ...] = _field(12)  # type: ignore[assignment]
    yard_wagons: tuple[int, ...] = _field(13)  # type: ignore[assignment]
    yard_locos: tuple[int, ...] = _field(14)  # type: ignore[assignment]
    circulations: tuple[tuple[int, ...], ...] = _field(15)  # type: ignore[assignment]
    hand_sizes: tuple[int, ...] = _field(16)  # type: ignore[assignment]
    held_counts: tuple[int, ...] = _field(17)  # type: ignore[assignment]
    discard: tuple[int, ...] = _field(18)  # type: ignore[assignment]
    deck_size: int = _field(19)  # type: ignore[assignment]
    destination_deck_size: int = _field(20)  # type: ignore[assignment]
    final_round: bool = _field(21)  # type: ignore[assignment]
    round_points: tuple[tuple[int, ...], ...] = _field(22)  # type: ignore[assignment]
    rules: Rules = _field(23)  # type: ignore[assignment]
    big_cities: frozenset[str] = _field(24)  # type: ignore[assignment]
    destinations_by_id: tuple[Destination | None, ...] = _field(25)  # type: ignore[assignment]
    # how many train cards of each kind the game has (R1: public; the catalogue's deck)
    train_cards: tuple[int, ...] = _field(26)  # type: ignore[assignment]

    @property
    def held(self) -> tuple[Destination, ...]:
        """The seat's destinations in hand (``held_ids`` is cheaper, for caching)."""
        by_id = self[25]
        return tuple(by_id[d] for d in self[8])

    @property
    def offer(self) -> tuple[Destination, ...]:
        by_id = self[25]
        return tuple(by_id[d] for d in self[9])

    def circulation(self, seat: int | None = None) -> tuple[int, ...]:
        """A seat's circulation pile (own by default): public by R9."""
        return self[15][self[0] if seat is None else seat]

    def legal_actions(self) -> list[A.Action]:
        """The legal actions now (empty unless this seat is to move)."""
        if not self[1]:
            return []
        return A.legal_actions(*self._legality_fields())

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is legal now for this seat; any object may be asked about."""
        return bool(self[1]) and A.problem(action, *self._legality_fields()) is None

    def _legality_fields(self) -> tuple[Any, ...]:
        return (
            self[3],
            self[0],
            self[7],
            self[12],
            self[13],
            self[14],
            self[11],
            self[19],
            self[20],
            self[9],
            self[23].destinations_min_keep,
        )

    def snapshot(self) -> Observation:
        """The same facts as a frozen dataclass (kept for code written against it)."""
        return Observation(
            seat=self.seat,
            players=self.players,
            phase=int(self.phase),
            round=self.round,
            turn=self.turn,
            hand=self.hand,
            held=self.held,
            offer=self.offer,
            reached=self.reached,
            face_up=self.face_up,
            yard_owner=self.yard_owner,
            yard_wagons=self.yard_wagons,
            yard_locos=self.yard_locos,
            circulation=self.circulations,
            hand_sizes=self.hand_sizes,
            held_counts=self.held_counts,
            discard=self.discard,
            deck_size=self.deck_size,
            destination_deck_size=self.destination_deck_size,
            final_round=self.final_round,
            round_points=self.round_points,
            rounds_total=self.rounds_total,
            train_cards=self.train_cards,
        )

    def __repr__(self) -> str:
        return (
            f"SeatView(seat={self.seat}, phase={int(self.phase)}, round={self.round}, "
            f"turn={self.turn}, hand={self.hand}, held_ids={self.held_ids})"
        )
