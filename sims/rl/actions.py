"""A fixed numbering of every action the game can ask for, for a discrete action space.

The numbering depends only on the rules (how many face-up slots, how many destinations an
offer can hold), never on the state: index ``i`` means the same action in every state, and
the state only decides (through the mask) whether it is legal now. A destination keep is
numbered by which positions of the current offer it keeps (bit ``p`` set: keep ``offer[p]``),
because destination ids on offer change from state to state.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from cardgame.actions import (
    COLUMNS,
    DRAW_DECK,
    DRAW_DESTINATIONS,
    DRAW_FACE_UP,
    PASS,
    THREES,
    Action,
    KeepDestinations,
    PlaceColumn,
)
from cardgame.cards import LOCO, NUM_COLOURS
from cardgame.catalogue import SHIPPED_DECK
from cardgame.rules import Rules


def max_offer(rules: Rules) -> int:
    """The most destinations one offer can hold: the setup deal or a mid-game draw."""
    return max(rules.destinations_dealt, rules.destinations_drawn)


class ActionTable:
    """Index <-> engine action for one rule set and train deck (see docs/rl.md for the
    blocks; ``deck``: the catalogue's, by default the printed one).

    Blocks, in order: draw from the deck; take face-up slot 0..F-1; draw destinations; pass;
    every column (colour, wagons 1-10, locomotives 0-16 with the printed deck: up to the
    deck's most wagons of a colour and its locomotives, at least 2 cards); every three-colour
    play; every keep mask 0..2^O-1 over the offer positions.
    """

    def __init__(self, rules: Rules, deck: tuple[int, ...] = SHIPPED_DECK) -> None:
        if len(deck) != NUM_COLOURS + 1:  # the spaces are the printed game's colours
            raise ValueError(
                f"the RL environment plays decks of the {NUM_COLOURS} printed colours, "
                f"not {len(deck) - 1}"
            )
        wagons, locos = max(deck[:NUM_COLOURS]), deck[LOCO]
        self.face_up_slots = rules.face_up
        self.offer_positions = max_offer(rules)
        fixed: list[Action] = [DRAW_DECK, *DRAW_FACE_UP[: self.face_up_slots]]
        fixed += [DRAW_DESTINATIONS, PASS]
        fixed += [
            COLUMNS[c][w][lo]
            for c in range(NUM_COLOURS)
            for w in range(1, wagons + 1)
            for lo in range(locos + 1)
            if w + lo >= 2
        ]
        fixed += [THREES[combo] for combo in combinations(range(NUM_COLOURS), 3)]
        self._fixed: tuple[Action, ...] = tuple(fixed)
        self._index: dict[Action, int] = {a: i for i, a in enumerate(fixed)}
        # The engine hands out its shared action objects: looking them up by identity skips
        # the dataclass hash (the mask is built at every decision). Equal objects that are
        # not the shared ones still resolve through ``_index``.
        self._by_id: dict[int, int] = {id(a): i for i, a in enumerate(fixed)}
        self.keep_base = len(fixed)
        self.size = self.keep_base + 2**self.offer_positions
        self.blocks: dict[str, tuple[int, int]] = self._blocks()

    def _blocks(self) -> dict[str, tuple[int, int]]:
        """(start, stop) of each block, for the docs and for agents that want structure."""
        f = self.face_up_slots
        columns = sum(1 for a in self._fixed if type(a) is PlaceColumn)
        starts = [
            ("draw_deck", 1),
            ("draw_face_up", f),
            ("draw_destinations", 1),
            ("pass", 1),
            ("place_column", columns),
            ("place_three", self.keep_base - (3 + f + columns)),
            ("keep_destinations", 2**self.offer_positions),
        ]
        out: dict[str, tuple[int, int]] = {}
        at = 0
        for name, width in starts:
            out[name] = (at, at + width)
            at += width
        return out

    def index(self, action: Action, offer: Sequence[int]) -> int:
        """The index of ``action``; a keep is numbered against ``offer`` (the seat's offer)."""
        if type(action) is KeepDestinations:
            mask = 0
            for dest in action.ids:
                mask |= 1 << offer.index(dest)
            return self.keep_base + mask
        return self._index[action]

    def indexes(self, actions: Sequence[Action], offer: Sequence[int]) -> list[int]:
        """The indexes of ``actions`` (the legal list of one decision), in order."""
        out = list(map(self._by_id.get, map(id, actions)))
        if None in out:  # not the engine's shared objects: look them up by value
            return [self.index(a, offer) for a in actions]
        return out  # type: ignore[return-value]

    def action(self, index: int, offer: Sequence[int]) -> Action:
        """The engine action numbered ``index`` (a keep reads positions of ``offer``).

        Raises ValueError for an index outside the table or a keep naming a position the
        offer does not have.
        """
        if not 0 <= index < self.size:
            raise ValueError(f"action {index} is outside the action space 0..{self.size - 1}")
        if index < self.keep_base:
            return self._fixed[index]
        mask = index - self.keep_base
        if mask >> len(offer):
            raise ValueError(
                f"action {index} keeps offer positions {positions(mask)} "
                f"but the offer has {len(offer)}"
            )
        return KeepDestinations(tuple(d for p, d in enumerate(offer) if mask >> p & 1))

    def describe(self, index: int) -> str:
        """A short name for an index, independent of any state (for messages)."""
        if not 0 <= index < self.size:
            return f"action {index} (out of range)"
        if index < self.keep_base:
            return str(self._fixed[index])
        return f"keep offer positions {positions(index - self.keep_base)}"


def positions(mask: int) -> list[int]:
    """The bit positions set in ``mask``, lowest first."""
    return [p for p in range(mask.bit_length()) if mask >> p & 1]
