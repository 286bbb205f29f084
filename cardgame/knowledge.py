"""What a seat with perfect recall may know (``Knowledge``), and worlds consistent with it.

A ``SeatView`` is a snapshot; a seat that remembers the game also knows part of its rivals'
hands (face-up cards they took and have not visibly played since), when each rival kept how
many destinations, and where its own returned destinations lie in the destination deck. A
``KnowledgeTracker`` watches the actions applied to one game and keeps that public history;
``sample_world`` deals a full ``GameState`` the seat cannot tell from the true one
(determinisation, for information-set search). docs/knowledge.md explains the rules chosen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import actions as A
from .actions import KEEP_DRAWN, NO_CARD, SETUP_KEEP
from .game import Game
from .observation import SeatView
from .shuffling import SeededShuffles
from .state import GameState

Counts = tuple[int, ...]


@dataclass(frozen=True)
class Knowledge:
    """Everything ``seat`` may know now, and nothing more.

    ``known_cards[r]`` is a lower bound on rival ``r``'s hand that is always true (zeros for
    the seat itself: its hand is in the view). ``dest_batches[r]`` lists how many destinations
    ``r`` kept at each keep, in order (the first is the setup keep). ``bottom`` gives
    (position from the bottom, id) of the seat's own returned destinations whose place in the
    destination deck it still knows. ``game`` has seed 0: the real seed would reveal the deck.
    """

    seat: int
    view: SeatView
    to_move: int
    known_cards: tuple[Counts, ...]
    dest_batches: tuple[tuple[int, ...], ...]
    bottom: tuple[tuple[int, int], ...]
    offer_sizes: tuple[int, ...]
    final_turns_left: int | None
    last_seat: int
    steals: tuple[int, ...]
    stolen_from: tuple[int, ...]
    reached_round: tuple[tuple[int, int], ...]
    game: Game


class KnowledgeTracker:
    """Keeps one seat's public history of a game; call ``before`` ahead of every action.

    Start it on a fresh state (``Game.new_state()``, before any keep). It reads from the
    state only what is public or the observer's own, and of a rival's action only what
    everyone sees (the card taken face up, the columns placed, how many destinations kept).
    """

    def __init__(self, state: GameState, seat: int) -> None:
        if state.phase != SETUP_KEEP or state.turn != 0 or any(state.held):
            raise ValueError("a KnowledgeTracker must start on a fresh state")
        n = state.players
        self.seat = seat
        rules = state.rules  # R3: every hand starts with these locomotives, face up
        start, extra = rules.starting_locomotives, rules.seat_extra_locomotives
        catalogue = state.game.catalogue  # its colours, and the locomotive last
        self._kinds = catalogue.kinds
        self._known = [[0] * catalogue.kinds for _ in range(n)]
        for r in range(n):
            if r != seat:
                self._known[r][catalogue.loco] = start + extra[r]
        self._batches: list[list[int]] = [[] for _ in range(n)]
        self._bottom: dict[int, int] = {}  # own returned id -> position from the bottom
        self._game = Game(n, 0, state.rules, state.game.catalogue)

    def before(self, state: GameState, action: A.Action) -> None:
        """Note what ``action`` (about to be applied to ``state``) tells the observer."""
        mover = state.seat
        kind = type(action)
        own = mover == self.seat
        known = self._known[mover]
        if kind is A.DrawFaceUp:
            if not own:
                known[state.face_up[action.slot]] += 1  # type: ignore[union-attr]
        elif kind is A.PlaceColumn:
            if not own:
                known[action.colour] = max(0, known[action.colour] - action.wagons)  # type: ignore[union-attr]
                known[-1] = max(0, known[-1] - action.locos)  # type: ignore[union-attr]
        elif kind is A.PlaceThree:
            if not own:
                for c in action.colours:  # type: ignore[union-attr]
                    known[c] = max(0, known[c] - 1)
        elif kind is A.DrawDestinations:
            size = len(state.dest_deck) - min(state.rules.destinations_drawn, len(state.dest_deck))
            self._bottom = {d: p for d, p in self._bottom.items() if p < size}
        elif kind is A.KeepDestinations:
            kept = len(action.ids)  # type: ignore[union-attr]
            self._batches[mover].append(kept)
            if state.phase == KEEP_DRAWN:
                returned = len(state.offers[mover]) - kept
                self._bottom = {d: p + returned for d, p in self._bottom.items()}
                if own:
                    ids = action.ids  # type: ignore[union-attr]
                    back = [d for d in state.offers[mover] if d not in ids]
                    self._bottom.update({d: i for i, d in enumerate(back)})

    def knowledge(self, state: GameState) -> Knowledge:
        """The observer's knowledge of ``state`` (which this tracker has followed)."""
        seat = self.seat
        return Knowledge(
            seat=seat,
            view=state.view(seat),
            to_move=state.seat,
            known_cards=tuple(
                (0,) * self._kinds if r == seat else tuple(k) for r, k in enumerate(self._known)
            ),
            dest_batches=tuple(map(tuple, self._batches)),
            bottom=tuple(sorted((p, d) for d, p in self._bottom.items())),
            offer_sizes=tuple(map(len, state.offers)),
            final_turns_left=state.final_turns_left,
            last_seat=state.last_seat,
            steals=tuple(state.steals),
            stolen_from=tuple(state.stolen_from),
            reached_round=tuple(sorted(state.reached_round.items())),
            game=self._game,
        )


def unseen_cards(k: Knowledge) -> list[int]:
    """Train cards the seat cannot place: in rivals' unknown hand cards or in the deck."""
    v = k.view
    left = list(k.game.catalogue.deck)  # R1: the game's train deck
    kinds = len(left)  # its colours, then the locomotive
    loco = kinds - 1
    piles = [v.hand, v.discard, *v.circulations, *k.known_cards]
    for pile in piles:
        for c in range(kinds):
            left[c] -= pile[c]
    for c in v.face_up:
        if c != NO_CARD:
            left[c] -= 1
    for c in range(loco):
        left[c] -= v.yard_wagons[c]
        left[loco] -= v.yard_locos[c]
    return [c for c in range(kinds) for _ in range(left[c])]


def sample_world(k: Knowledge, rng: random.Random, own_unknown: int = 0) -> GameState:
    """A full state ``k``'s seat cannot rule out, drawn with ``rng`` only.

    Unseen train cards are shuffled, each rival gets its known cards plus the next ones up to
    its hand size, and the rest form the deck; unseen destinations likewise fill rivals' held
    destinations, their offers and the destination deck around the known bottom positions.

    ``own_unknown``: for a seat that does not remember its own circulation pile (a memory
    model), ``k.view`` holds the cards it recalls and this many more lie in the pile unknown:
    they are drawn from the unseen cards first, like a rival's unknown hand cards.
    """
    v, seat = k.view, k.seat
    n = v.players
    pool = unseen_cards(k)
    rng.shuffle(pool)
    circulation = [list(c) for c in v.circulations]
    for _ in range(own_unknown):
        circulation[seat][pool.pop()] += 1
    hands = [list(v.hand) if r == seat else list(k.known_cards[r]) for r in range(n)]
    for r in range(n):
        if r != seat:
            for _ in range(v.hand_sizes[r] - sum(k.known_cards[r])):
                hands[r][pool.pop()] += 1
    if len(pool) != v.deck_size:
        raise ValueError(f"knowledge leaves {len(pool)} unseen cards for a deck of {v.deck_size}")
    ids = unseen_destinations(k)
    rng.shuffle(ids)
    held: list[list[int]] = []
    offers: list[list[int]] = []
    for r in range(n):
        own = r == seat
        held.append(list(v.held_ids) if own else [ids.pop() for _ in range(v.held_counts[r])])
        offers.append(list(v.offer_ids) if own else [ids.pop() for _ in range(k.offer_sizes[r])])
    dest_deck = _dest_deck(k, ids)
    return _build(k, pool, hands, circulation, held, offers, dest_deck, rng.getrandbits(64))


def unseen_destinations(k: Knowledge) -> list[int]:
    v = k.view
    seen = set(v.held_ids) | set(v.offer_ids) | {d for _, d in k.bottom}
    for ids in v.reached:
        seen.update(ids)
    return [d.id for d in k.game.catalogue.destinations if d.id not in seen]


def _dest_deck(k: Knowledge, rest: list[int]) -> list[int]:
    size = k.view.destination_deck_size
    if len(rest) + len(k.bottom) != size:
        raise ValueError("knowledge does not fit the destination deck's size")
    fixed = dict(k.bottom)
    return [fixed[i] if i in fixed else rest.pop() for i in range(size)]


def _build(
    k: Knowledge,
    deck: list[int],
    hands: list[list[int]],
    circulation: list[list[int]],
    held: list[list[int]],
    offers: list[list[int]],
    dest_deck: list[int],
    seed: int,
) -> GameState:
    v = k.view
    # the world's own shuffles (R19's round-two deck) come from the sampler's rng too
    return GameState.at(
        k.game,
        SeededShuffles(seed),
        deck=deck,
        dest_deck=dest_deck,
        face_up=list(v.face_up),
        discard=list(v.discard),
        hands=hands,
        circulation=circulation,
        yard_owner=list(v.yard_owner),
        yard_wagons=list(v.yard_wagons),
        yard_locos=list(v.yard_locos),
        held=held,
        offers=offers,
        reached=[list(r) for r in v.reached],
        round_points=[list(p) for p in v.round_points],
        phase=v.phase,
        seat=k.to_move,
        round=v.round,
        turn=v.turn,
        final_turns_left=k.final_turns_left,
        last_seat=k.last_seat,
        steals=list(k.steals),
        stolen_from=list(k.stolen_from),
        reached_round=dict(k.reached_round),
    )


__all__ = ["Knowledge", "KnowledgeTracker", "sample_world", "unseen_cards"]
