"""A human-like memory of the seat's own circulation pile.

The printed rulebook keeps the circulation pile face down, hidden even from its owner; the
engine exposes every pile in the view (R9: its content follows from public moves), so how
well a seat remembers its own pile is the player's, modelled here. With ``memory = "human"``
each card that moves into the seat's pile is recalled with probability ``recall``; the others
are only counted (the seat knows how many cards its pile holds, not what the forgotten ones
are). With ``capacity > 0`` at most that many cards are recalled, the oldest forgotten first.

The model watches the seat's own pile in the views it is given at the seat's decisions: what
arrived is the difference from the last pile it saw. A pile only grows during a round (R7);
a new round (R19: every pile goes back into the deck) or a pile that shrank starts afresh.

Forgotten cards and planning: ``recall(view)`` gives the view a strategy plans with, whose own
pile is the seat's estimate of its pile, by the ``guess`` knob:

- ``"scaled"`` (the default): the forgotten cards are spread over the kinds in the proportions
  of the recalled ones (largest remainders, ties to the lower kind), so the estimate has the
  pile's true size. Each card is recalled independently of its kind, so the recalled cards are
  a fair sample of the pile's mix: scaling them up is the player's best guess, and uses all it
  knows (the count too); with a capacity the recalled cards are the latest, so the mix leans
  toward the columns that fed the pile last. With nothing recalled there is nothing to scale:
  the estimate is empty. The guess can name cards the pile does not hold (too many reds, too
  few blues), as a player's does, but never more of a kind than the seat can see are left
  (the game's cards of that kind less those in its hand, the row, the yards, the discard and
  the rivals' piles); what cannot be placed so stays unplanned.
- ``"none"``: plan with the recalled cards only, as if the forgotten ones were not there. The
  cautious reading, but it throws away the count the seat knows: a planner then keeps
  re-supplying colours it already has, seldom feels covered and hardly draws destinations
  (docs/strategies.md has the measured cost of each rule).

The forgotten cards still count at the resolution (R16): the engine resolves the true pile.
``belief(view)`` gives what the seat knows before any guess (the recalled cards and the
number forgotten), e.g. for a search player that samples the forgotten kinds itself.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field

from cardgame.layout import CARD_KINDS
from cardgame.observation import SeatView

MODELS = ("perfect", "human")
GUESSES = ("scaled", "none")
RECALL_DEFAULT = 0.7
CIRCULATIONS = 15  # SeatView's field of per-seat piles


@dataclass(frozen=True)
class Belief:
    """What the seat believes its own pile holds: the cards it recalls (9 counts, 8 colours
    then locomotives), how many more it knows are there without knowing what they are, and
    (when known) the most cards of each kind the pile can hold: the game's cards of that kind
    less those the seat sees elsewhere (its hand, the row, the yards, the discard, the rivals'
    piles). Beliefs are equal when they recall and forget the same: the bound is the view's."""

    recalled: tuple[int, ...]
    forgotten: int
    possible: tuple[int, ...] | None = field(default=None, compare=False)

    @property
    def size(self) -> int:
        return sum(self.recalled) + self.forgotten

    def estimate(self, guess: str = "scaled") -> tuple[int, ...]:
        """The pile the seat plans with (9 counts): see the module's note on ``guess``."""
        recalled = self.recalled
        if guess == "none":
            return recalled
        pile = list(recalled)
        possible = self.possible or (UNBOUNDED,) * len(pile)
        room = [most - have for most, have in zip(possible, pile, strict=True)]
        left = self.forgotten
        while left:  # each pass places them all, or fills at least one kind
            weights = {k: r for k, r in enumerate(recalled) if r and room[k] > 0}
            if not weights:
                break  # nothing recalled, or every recalled kind full: the rest stay unplanned
            left -= _spread(left, weights, pile, room)
        return tuple(pile)


UNBOUNDED = 1 << 30


def _spread(cards: int, weights: dict[int, int], pile: list[int], room: list[int]) -> int:
    """Share ``cards`` over the kinds in proportion to ``weights`` (largest remainders, ties
    to the lower kind), each kind taking no more than its room; the number placed."""
    total = sum(weights.values())
    shares = {k: cards * w / total for k, w in weights.items()}
    whole = {k: int(share) for k, share in shares.items()}
    by_remainder = sorted(weights, key=lambda k: (whole[k] - shares[k], k))
    for k in by_remainder[: cards - sum(whole.values())]:
        whole[k] += 1
    placed = 0
    for k, n in whole.items():
        take = n if n < room[k] else room[k]
        pile[k] += take
        room[k] -= take
        placed += take
    return placed


def possible_pile(view: SeatView) -> tuple[int, ...]:
    """The most cards of each kind the seat's pile can hold: the game's cards less those the
    view shows elsewhere (a bound the true pile always respects)."""
    most = list(view.train_cards)  # R1: the game's deck
    seat = view.seat
    shown = [view.hand, view.discard]
    shown.extend(pile for s, pile in enumerate(view.circulations) if s != seat)
    for counts in shown:
        for kind, n in enumerate(counts):
            most[kind] -= n
    for card in view.face_up:
        if card >= 0:
            most[card] -= 1
    loco = len(most) - 1  # the locomotives: the last count, after the game's colours
    for c in range(loco):
        most[c] -= view.yard_wagons[c]
        most[loco] -= view.yard_locos[c]
    return tuple(most)


def knob_problem(
    memory: object, recall: object, capacity: object, guess: object = "scaled"
) -> str | None:
    """Why these memory knobs are refused (one line), or None when they are fine."""
    if memory not in MODELS:
        return f"memory must be one of {', '.join(map(repr, MODELS))}, got {memory!r}"
    if not isinstance(recall, (int, float)) or not (math.isfinite(recall) and 0.0 <= recall <= 1.0):
        return f"recall must be a probability between 0 and 1, got {recall!r}"
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 0:
        return f"capacity must be a whole number >= 0 (0: unlimited), got {capacity!r}"
    if guess not in GUESSES:
        return f"guess must be one of {', '.join(map(repr, GUESSES))}, got {guess!r}"
    if memory == "perfect" and (recall != RECALL_DEFAULT or capacity != 0 or guess != "scaled"):
        return "recall, capacity and guess apply only with memory = 'human'"
    return None


def private_rng(strategy_rng: random.Random) -> random.Random:
    """A memory RNG derived from the strategy's RNG state without drawing from it: the
    strategy's own stream stays what it is with perfect memory (paired comparisons)."""
    return random.Random(b"memory:" + repr(strategy_rng.getstate()).encode())


def with_own_pile(view: SeatView, pile: tuple[int, ...]) -> SeatView:
    """A copy of ``view`` whose own circulation pile is ``pile``; nothing else changes."""
    seat = view.seat
    piles = view[CIRCULATIONS]
    believed = (*piles[:seat], tuple(pile), *piles[seat + 1 :])
    return SeatView((*view[:CIRCULATIONS], believed, *view[CIRCULATIONS + 1 :]))


class Memory:
    """One seat's memory of its own pile for one game (one per strategy instance).

    Feed it the views the seat gets, in order; asking twice about the same pile draws
    nothing, and a view it returned itself is recognised and passed through.
    """

    def __init__(
        self, rng: random.Random, recall: float, capacity: int = 0, guess: str = "scaled"
    ) -> None:
        problem = knob_problem("human", recall, capacity, guess)
        if problem:
            raise ValueError(problem)
        self._rng = rng
        self._recall = recall
        self._capacity = capacity
        self._guess = guess
        self._round = -1
        self._seen: tuple[int, ...] = (0,) * CARD_KINDS
        self._recalled = [0] * CARD_KINDS
        self._order: deque[int] = deque()  # recalled kinds, oldest first (with a capacity)
        self._last: tuple[SeatView, SeatView] | None = None  # (view given, view returned)

    @classmethod
    def for_strategy(
        cls, strategy_rng: random.Random, recall: float, capacity: int = 0, guess: str = "scaled"
    ) -> Memory:
        return cls(private_rng(strategy_rng), recall, capacity, guess)

    def belief(self, view: SeatView) -> Belief:
        """The seat's belief about its own pile at this view."""
        if self._last is not None and view is self._last[1]:
            view = self._last[0]
        self._observe(view)
        recalled = tuple(self._recalled)
        return Belief(recalled, sum(self._seen) - sum(recalled), possible_pile(view))

    def recall(self, view: SeatView) -> SeatView:
        """A copy of ``view`` whose own pile is the seat's estimate (``Belief.estimate`` by
        the ``guess`` knob); every other field, the rivals' piles included, is the view's."""
        last = self._last
        if last is not None and (view is last[0] or view is last[1]):
            return last[1]
        out = with_own_pile(view, self.belief(view).estimate(self._guess))
        self._last = (view, out)
        return out

    # ---------------------------------------------------------------- watching the pile
    def _observe(self, view: SeatView) -> None:
        pile = view.circulation()
        seen = self._seen
        if pile == seen and view.round == self._round:
            return
        if view.round != self._round or any(p < s for p, s in zip(pile, seen, strict=True)):
            self._forget_all(view.round, len(pile))
            seen = self._seen
        rng, recall = self._rng, self._recall
        for kind in range(len(pile)):  # cards that arrived together: in kind order
            for _ in range(pile[kind] - seen[kind]):
                if rng.random() < recall:
                    self._remember(kind)
        self._seen = tuple(pile)

    def _forget_all(self, round_number: int, kinds: int = CARD_KINDS) -> None:
        """A new pile (a new round, R19): nothing of the old one is in it. ``kinds``: the
        game's card kinds (its colours and the locomotive)."""
        self._round = round_number
        self._seen = (0,) * kinds
        self._recalled = [0] * kinds
        self._order.clear()

    def _remember(self, kind: int) -> None:
        self._recalled[kind] += 1
        if not self._capacity:
            return
        order = self._order
        order.append(kind)
        if len(order) > self._capacity:
            self._recalled[order.popleft()] -= 1
