"""One seat's ``Knowledge`` (cardgame.knowledge) as a fixed-length float32 vector.

Only the ``Knowledge`` is read, never the game state, so two states the seat cannot tell
apart give the same vector. Seats are relative: slot 0 is the observer, slot ``i`` the seat
``i`` places after it; slots past the player count stay zero, so the length is the same at
2, 3 and 4 players. docs/rl.md lists every slice (the table is generated from ``LAYOUT``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardgame.actions import NO_CARD, NOBODY, Phase
from cardgame.cards import LOCO, NUM_COLOURS
from cardgame.catalogue import Catalogue
from cardgame.knowledge import Knowledge
from cardgame.rules import MAX_PLAYERS, Rules

from .actions import max_offer

SEATS = MAX_PLAYERS
KINDS = NUM_COLOURS + 1
CAP = 1000  # counters that have no bound in principle are capped here
MAX_ROUNDS = 10  # Rules allows 1-10 rounds
_PHASES = len(Phase)


@dataclass(frozen=True)
class Slice:
    """One named block of the vector: where it sits and what it holds."""

    name: str
    start: int
    stop: int
    meaning: str


def _specs(
    faces: int, offer: int, dests: int, points: int, deck: tuple[int, ...]
) -> list[tuple[str, int, object, str]]:
    """(name, width, upper bound(s), meaning) of every block, in vector order: the counts
    first (``encode`` writes them with one assignment), then the one-hot blocks. Card counts
    are bounded by the game's train deck (``deck``: 10 of a colour, 16 locomotives, 96 in
    all when printed)."""
    kind_high = tuple(deck)
    wagons, locos, cards = max(deck[:NUM_COLOURS]), deck[LOCO], sum(deck)
    return [
        ("round", 1, MAX_ROUNDS, "current round (1-based)"),
        ("rounds_total", 1, MAX_ROUNDS, "rounds this game plays"),
        ("final_round", 1, 1, "1 once the final round has begun (R15)"),
        ("final_turns_left", 1, SEATS, "turns left in the final round (0 before it)"),
        ("hand", KINDS, kind_high, "own hand: 8 colour counts, then locomotives"),
        ("yard_wagons", NUM_COLOURS, wagons, "per colour, wagons in its yard"),
        ("yard_locos", NUM_COLOURS, locos, "per colour, locomotives in its yard"),
        ("discard", KINDS, kind_high, "discard pile counts"),
        ("deck_size", 1, cards, "train cards in the deck"),
        ("destination_deck_size", 1, dests, "destination cards in the deck"),
        ("circulation", SEATS * KINDS, kind_high * SEATS, "per slot, circulation pile (R9)"),
        (
            "known_cards",
            SEATS * KINDS,
            kind_high * SEATS,
            "per slot, cards it surely holds (slot 0: zeros)",
        ),
        ("hand_sizes", SEATS, cards, "per slot, train cards in hand"),
        ("held_counts", SEATS, dests, "per slot, destinations held (not yet reached)"),
        ("offer_sizes", SEATS, offer, "per slot, destinations on offer to it now"),
        ("setup_kept", SEATS, offer, "per slot, destinations kept at setup"),
        ("draw_keeps", SEATS, CAP, "per slot, keeps after a destination draw (capped)"),
        ("drawn_kept", SEATS, dests, "per slot, destinations kept from draws, in total"),
        ("steals", SEATS, CAP, "per slot, columns it stole (capped)"),
        ("stolen_from", SEATS, CAP, "per slot, columns it lost to a steal (capped)"),
        ("round_points", SEATS, points, "per slot, points of destinations reached so far (R20)"),
        ("seats", SEATS, 1, "1 for each seat slot in the game (slot 0 = the observer)"),
        ("own_seat", SEATS, 1, "one-hot seat number of the observer (its place in turn order)"),
        ("phase", _PHASES, 1, "one-hot: setup keep, turn, second pick, keep drawn, over"),
        ("to_move", SEATS, 1, "one-hot slot of the seat to move (all 0 once over)"),
        ("face_up", faces * KINDS, 1, "per face-up slot, one-hot card kind (all 0 = empty)"),
        ("yard_owner", NUM_COLOURS * SEATS, 1, "per colour, one-hot slot of the yard owner"),
        ("reached", SEATS * dests, 1, "per slot, multi-hot destinations reached"),
        ("held", dests, 1, "own held destinations, multi-hot"),
        ("offer", offer * dests, 1, "per offer position, one-hot destination"),
        ("bottom", dests, dests, "own returned destinations: 1 + place from the deck bottom"),
    ]


class ObservationEncoder:
    """Builds the vector for one rule set and catalogue; ``layout`` names its slices."""

    def __init__(self, rules: Rules, catalogue: Catalogue) -> None:
        ids = sorted(d.id for d in catalogue.destinations)
        self.dest_index = {d: i for i, d in enumerate(ids)}
        self.faces = rules.face_up
        self.offer = max_offer(rules)
        dests = len(ids)
        points = sum(d.points for d in catalogue.destinations) + sum(
            b.points for b in catalogue.big_cities
        )
        self.layout: dict[str, Slice] = {}
        highs: list[float] = []
        at = 0
        specs = _specs(self.faces, self.offer, dests, points, catalogue.deck)
        for name, width, high, meaning in specs:
            self.layout[name] = Slice(name, at, at + width, meaning)
            highs.extend(high if isinstance(high, tuple) else (high,) * width)  # type: ignore[arg-type]
            at += width
        self.size = at
        self.high = np.asarray(highs, dtype=np.float32)
        self.low = np.zeros(self.size, dtype=np.float32)
        self._dense = self.layout["seats"].start  # the counts end where the one-hots begin
        self._at = {name: s.start for name, s in self.layout.items()}

    def encode(self, k: Knowledge) -> np.ndarray:
        """The vector for ``k`` (a fresh array: callers may keep it)."""
        out = np.zeros(self.size, dtype=np.float32)
        v = k.view
        n = v.players
        order = [(k.seat + i) % n for i in range(n)]  # the seat in each slot
        dense = self._counts(k, order)
        out[: len(dense)] = dense
        out[self._ones(k, order)] = 1
        at = self._at["bottom"]
        index = self.dest_index
        for place, d in k.bottom:
            out[at + index[d]] = place + 1
        return out

    def _counts(self, k: Knowledge, order: list[int]) -> list[int]:
        """The count blocks, in layout order (absent seat slots padded with zeros)."""
        v = k.view
        pad = [0] * (SEATS - len(order))
        dense = [v.round, v.rounds_total, int(v.final_round), k.final_turns_left or 0]
        dense += v.hand + v.yard_wagons + v.yard_locos + v.discard
        dense += (v.deck_size, v.destination_deck_size)
        for piles in (v.circulations, k.known_cards):
            for s in order:
                dense += piles[s]
            dense += pad * KINDS
        batches = [k.dest_batches[s] or (0,) for s in order]
        for column in (
            [v.hand_sizes[s] for s in order],
            [v.held_counts[s] for s in order],
            [k.offer_sizes[s] for s in order],
            [b[0] for b in batches],
            [min(CAP, len(b) - 1) for b in batches],
            [sum(b[1:]) for b in batches],
            [min(CAP, k.steals[s]) for s in order],
            [min(CAP, k.stolen_from[s]) for s in order],
            [sum(v.round_points[s]) for s in order],
        ):
            dense += column
            dense += pad
        return dense

    def _ones(self, k: Knowledge, order: list[int]) -> list[int]:
        """Positions of the 1s of the one-hot and multi-hot blocks."""
        at = self._at
        v = k.view
        index = self.dest_index
        dests = len(index)
        slot_of = {s: i for i, s in enumerate(order)}
        seats = at["seats"]
        ones = list(range(seats, seats + len(order)))
        ones.append(at["own_seat"] + k.seat)
        ones.append(at["phase"] + int(v.phase))
        if v.phase != Phase.OVER:
            ones.append(at["to_move"] + slot_of[k.to_move])
        base = at["face_up"]
        for slot, card in enumerate(v.face_up[: self.faces]):
            if card != NO_CARD:
                ones.append(base + slot * KINDS + card)
        base = at["yard_owner"]
        for colour, owner in enumerate(v.yard_owner):
            if owner != NOBODY:
                ones.append(base + colour * SEATS + slot_of[owner])
        for i, s in enumerate(order):
            base = at["reached"] + i * dests
            ones += [base + index[d] for d in v.reached[s]]
        base = at["held"]
        ones += [base + index[d] for d in v.held_ids]
        base = at["offer"]
        ones += [base + p * dests + index[d] for p, d in enumerate(v.offer_ids)]
        return ones


__all__ = ["CAP", "ObservationEncoder", "Slice"]
