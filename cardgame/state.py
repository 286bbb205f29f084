"""The mutable game state and every rule that changes it (R3-R19).

Cards are ints (0-7 wagon colours, 8 locomotive); a hand, a circulation pile or the discard
pile is a list of 9 counts. Each colour stands in at most one rail yard (R12), so the yards
are stored once for the table: owner, wagons and locomotives per colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import actions as A
from .actions import (  # noqa: F401  (Phase and the constants are re-exported)
    KEEP_DRAWN,
    NO_CARD,
    NOBODY,
    OVER,
    SECOND_PICK,
    SETUP_KEEP,
    TURN,
    Phase,
)
from .errors import IllegalActionError
from .layout import CARD_KINDS  # noqa: F401  (the printed game's kinds, re-exported)
from .observation import SeatView
from .resolution import resolve
from .scoring import SeatScore, final_scores, winners
from .shuffling import (
    DESTINATION_RESHUFFLE,
    DESTINATION_SETUP,
    TRAIN_ROUND,
    TRAIN_SETUP,
    ShuffleSource,
)

if TYPE_CHECKING:
    from .game import Game


_new_view = tuple.__new__  # builds a SeatView from its fields without a Python-level __init__


def _expand(counts: list[int]) -> list[int]:
    out: list[int] = []
    for card, n in enumerate(counts):
        out.extend([card] * n)
    return out


# what makes a position: the fields ``GameState.at`` sets (the rest follows from the game)
POSITION_FIELDS = tuple(
    """
        deck dest_deck face_up discard hands circulation yard_owner yard_wagons yard_locos held
        offers reached round_points phase seat round turn final_turns_left last_seat steals
        stolen_from reached_round
    """.split()
)


def empty_record() -> dict[str, Any]:
    """A game's record before setup; both engines start theirs from it (records are equal)."""
    return {
        "shuffles": [],
        "rounds": [],
        "setup": {"dealt": [], "kept": []},
        "turns": [],
        "resolutions": [],
    }


def _copied(value: Any) -> Any:
    """A position field on containers of its own (lists of lists two deep, dicts)."""
    if isinstance(value, list):
        return [list(item) if isinstance(item, list) else item for item in value]
    if isinstance(value, dict):
        return dict(value)
    return value


class GameState:
    """One game in progress. Use ``Game.new_state()`` to make one."""

    __slots__ = (
        "_big",
        "_round_facts",
        "_rounds_total",
        "_shuffles",
        "_turn_record",
        "_view_bonuses",
        "_view_deck",
        "_view_rules",
        "_view_table",
        "card_names",
        "circulation",
        "deck",
        "dest_deck",
        "discard",
        "face_up",
        "final_turns_left",
        "game",
        "hands",
        "held",
        "kinds",
        "last_seat",
        "loco",
        "n_colours",
        "offers",
        "phase",
        "players",
        "reached",
        "reached_round",
        "record",
        "round",
        "round_points",
        "rules",
        "scores",
        "seat",
        "steals",
        "stolen_from",
        "turn",
        "winners",
        "yard_locos",
        "yard_owner",
        "yard_wagons",
    )

    def __init__(
        self, game: Game, shuffles: ShuffleSource, record: bool = False, deal: bool = True
    ) -> None:
        """``deal=False`` leaves the table empty, for a caller that sets every pile itself
        (``knowledge.sample_world``): dealing would only be thrown away."""
        self.game = game
        self.players = game.players
        self.rules = game.rules
        self._shuffles = shuffles
        # facts every seat view shares: immutable, and none of them is what the engine reads
        self._view_table = game.catalogue.view_table
        self._view_deck = game.catalogue.deck  # the train deck's counts (R1): public
        self._view_rules = game.rules  # truly immutable (cardgame.value): safe to share
        self._big = game.big_city_set
        self._view_bonuses = game.catalogue.big_cities  # each city's bonus (R21): public
        self._rounds_total = game.rules.rounds_for(game.players)
        n = self.players
        # the edition's card kinds: its colours 0..n_colours-1, the locomotive last
        self.n_colours = game.catalogue.loco
        self.loco = game.catalogue.loco
        self.kinds = game.catalogue.kinds
        self.card_names = game.catalogue.card_names
        self.deck: list[int] = []
        self.face_up: list[int] = []
        self.discard = [0] * self.kinds
        self.hands = [[0] * self.kinds for _ in range(n)]
        self.circulation = [[0] * self.kinds for _ in range(n)]
        self.yard_owner = [NOBODY] * self.n_colours
        self.yard_wagons = [0] * self.n_colours
        self.yard_locos = [0] * self.n_colours
        self.dest_deck: list[int] = []
        self.held: list[list[int]] = [[] for _ in range(n)]
        self.reached: list[list[int]] = [[] for _ in range(n)]
        self.round_points: list[list[int]] = [[] for _ in range(n)]
        self._round_facts = self._freeze_round_facts()
        self.offers: list[list[int]] = [[] for _ in range(n)]
        self.phase = SETUP_KEEP
        self.seat = 0
        self.round = 1
        self.turn = 0
        self.final_turns_left: int | None = None
        self.last_seat = NOBODY
        self.steals = [0] * n  # steals made, per seat
        self.stolen_from = [0] * n  # columns lost to a steal, per seat
        self.reached_round: dict[int, int] = {}  # destination id -> round it was reached
        self.scores: tuple[SeatScore, ...] = ()
        self.winners: tuple[int, ...] = ()
        self.record: dict[str, Any] | None = None
        self._turn_record: dict[str, Any] | None = None
        if record:
            self.record = empty_record()
        if deal:
            self._setup()

    # ----------------------------------------------------------------- setup (R3-R6)
    def _names(self, cards: list[int]) -> list[str]:
        names = self.card_names
        return [names[c] for c in cards]

    def _shuffle(self, kind: str, cards: list[int], names: bool) -> list[int]:
        order = self._shuffles.shuffle(kind, cards)
        if self.record is not None:
            self.record["shuffles"].append(
                {"kind": kind, "order": self._names(order) if names else list(order)}
            )
        return order

    def _setup(self) -> None:
        rules = self.rules
        n = self.players
        counts = self.game.catalogue.deck  # R1: the game's train deck (card data)
        extra_locos = rules.seat_extra_locomotives  # a lever, by seat (zeros: off)
        for seat, hand in enumerate(self.hands):
            hand[self.loco] = rules.starting_locomotives + extra_locos[seat]  # R3
        wagons = [c for c in range(self.n_colours) for _ in range(counts[c])]
        given = n * rules.starting_locomotives + sum(extra_locos[:n])
        locos = [self.loco] * (counts[self.loco] - given)
        self.deck = self._shuffle(TRAIN_SETUP, wagons + locos, names=True)
        self._deal(rules.starting_hand)
        if any(rules.seat_extra_cards):
            self._deal_extra(rules.seat_extra_cards)
        self._turn_face_up()
        ids = [d.id for d in self.game.catalogue.destinations]
        self.dest_deck = self._shuffle(DESTINATION_SETUP, ids, names=False)
        for seat in range(n):
            self.offers[seat] = [self.dest_deck.pop() for _ in range(rules.destinations_dealt)]
        if self.record is not None:
            self.record["setup"]["dealt"] = [list(o) for o in self.offers]
        self._note_round_start()
        self.phase = SETUP_KEEP
        self.seat = 0

    def _deal(self, count: int) -> None:
        """Deal ``count`` cards to each seat, seat by seat, as many as the deck allows."""
        deck = self.deck
        for hand in self.hands:
            for _ in range(count):
                if not deck:
                    return
                hand[deck.pop()] += 1

    def _deal_extra(self, extra: tuple[int, ...]) -> None:
        """A lever (R3): after the hands, each seat in order gets its extra cards."""
        deck = self.deck
        for seat, hand in enumerate(self.hands):
            for _ in range(extra[seat]):
                if not deck:
                    return
                hand[deck.pop()] += 1

    def _turn_face_up(self) -> None:
        deck = self.deck
        self.face_up = [deck.pop() if deck else NO_CARD for _ in range(self.rules.face_up)]
        self._maybe_wipe()

    def _maybe_wipe(self) -> None:
        """Board-game variant: three face-up locomotives wipe the row (off by default, R4)."""
        if not self.rules.three_locomotive_wipe:
            return
        row = self.face_up
        while row.count(self.loco) >= 3 and self.deck:
            for card in row:
                if card != NO_CARD:
                    self.discard[card] += 1
            deck = self.deck
            row[:] = [deck.pop() if deck else NO_CARD for _ in row]
            if self._turn_record is not None:
                self._turn_record.setdefault("wipes", []).append(self._names(row))

    def _note_round_start(self) -> None:
        if self.record is not None:
            self.record["rounds"].append(
                {
                    "round": self.round,
                    "face_up": [self.card_names[c] if c != NO_CARD else None for c in self.face_up],
                    "hands": [self._names(_expand(h)) for h in self.hands],
                    "deck_size": len(self.deck),
                }
            )

    # -------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def card_total(self) -> int:
        """All train cards on the table: the deck's (96 printed) at every step (R1)."""
        total = len(self.deck) + sum(1 for c in self.face_up if c != NO_CARD)
        total += sum(self.discard) + sum(self.yard_wagons) + sum(self.yard_locos)
        total += sum(sum(h) for h in self.hands) + sum(sum(c) for c in self.circulation)
        return total

    @classmethod
    def at(cls, game: Game, shuffles: ShuffleSource, **position: Any) -> GameState:
        """A position set field by field, with no record: every one of ``POSITION_FIELDS``,
        taken as given (the caller's own lists). One that is left out or unknown is a
        TypeError, so a field added to the state cannot be forgotten where positions are
        made (a play-out's start, a sampled world)."""
        if position.keys() != set(POSITION_FIELDS):
            wrong = sorted(set(POSITION_FIELDS) ^ position.keys())
            raise TypeError(f"a position needs exactly POSITION_FIELDS; check {wrong}")
        out = cls(game, shuffles, deal=False)
        for name, value in position.items():
            setattr(out, name, value)
        out._round_facts = out._freeze_round_facts()
        return out

    def position(self, shuffles: ShuffleSource) -> GameState:
        """This position on lists of its own, with another source for later shuffles and no
        record: where a play-out (or a sampled world) starts."""
        return GameState.at(
            self.game, shuffles, **{name: _copied(getattr(self, name)) for name in POSITION_FIELDS}
        )

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now, as an immutable copy: what strategies get (R9).

        Every field is copied (tuples), so the view leads nowhere near this state and does not
        change when the game moves on: take a new one at each decision.
        """
        hands, held = self.hands, self.held
        return _new_view(
            SeatView,
            (
                seat,
                self.seat == seat,
                self.players,
                self.phase,
                self.round,
                self._rounds_total,
                self.turn,
                tuple(hands[seat]),
                tuple(held[seat]),
                tuple(self.offers[seat]),
                self._round_facts[0],
                tuple(self.face_up),
                tuple(self.yard_owner),
                tuple(self.yard_wagons),
                tuple(self.yard_locos),
                tuple(map(tuple, self.circulation)),
                tuple(map(sum, hands)),
                tuple(map(len, held)),
                tuple(self.discard),
                len(self.deck),
                len(self.dest_deck),
                self.final_turns_left is not None or not self.deck,
                self._round_facts[1],
                self._view_rules,
                self._big,
                self._view_table,
                self._view_deck,
                self._view_bonuses,
            ),
        )

    def _freeze_round_facts(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Reached ids and round points per seat as tuples: they change only when a round
        ends (``_end_round`` refreshes them), so views share them instead of copying."""
        return (tuple(map(tuple, self.reached)), tuple(map(tuple, self.round_points)))

    def legal_actions(self) -> list[A.Action]:
        """Every action the seat to move may take, in a fixed order."""
        return A.legal_actions(*self._legality_fields())

    def _legality_fields(self) -> tuple[Any, ...]:
        """What legality depends on, in the argument order of ``actions.legal_actions`` and
        ``actions.problem`` (``SeatView._legality_fields`` gives the same from a view)."""
        seat = self.seat
        return (
            self.phase,
            seat,
            self.hands[seat],
            self.yard_owner,
            self.yard_wagons,
            self.yard_locos,
            self.face_up,
            self.deck,
            self.dest_deck,
            self.offers[seat],
            self.rules.destinations_min_keep,
        )

    # -------------------------------------------------------------- legality
    def check(self, action: A.Action) -> None:
        """Raise IllegalActionError naming seat, action and ruling if ``action`` is illegal.

        Any object is checked (type, field types and ranges first), never raising anything
        but IllegalActionError; ``apply_unchecked`` skips all of this.
        """
        problem = self._problem(action)
        if problem is not None:
            raise IllegalActionError(self.seat, action, *problem)

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is legal now for the seat to move; any object may be asked."""
        return self._problem(action) is None

    def _problem(self, action: object) -> tuple[str, str] | None:
        """(ruling, reason) if ``action`` is illegal now, else None."""
        return A.problem(action, *self._legality_fields())

    # -------------------------------------------------------------- applying actions
    def apply(self, action: A.Action) -> None:
        """Apply ``action`` for the seat to move after checking it (raises if illegal)."""
        problem = self._problem(action)
        if problem is not None:
            raise IllegalActionError(self.seat, action, *problem)
        self.apply_unchecked(action)

    def apply_unchecked(self, action: A.Action) -> None:
        """Apply an action known to be legal (the Monte Carlo's fast path)."""
        phase = self.phase
        if phase == TURN:
            if self._turn_record is not None:
                self._turn_record["action"] = A.to_dict(action, self.game.catalogue.colours)
            kind = type(action)
            if kind is A.DrawDeck or kind is A.DrawFaceUp:
                self._pick(action, first=True)
            elif kind is A.PlaceColumn:
                self._place_column(action.colour, action.wagons, action.locos)  # type: ignore[union-attr]
            elif kind is A.PlaceThree:
                self._place_three(action.colours)  # type: ignore[union-attr]
            elif kind is A.DrawDestinations:
                self._draw_destinations()
            else:
                self._end_turn()  # Pass
        elif phase == SECOND_PICK:
            rec = self._turn_record
            if rec is not None and "action" not in rec:  # a one-card first turn: its action
                rec["action"] = A.to_dict(action, self.game.catalogue.colours)
            self._pick(action, first=False)
        elif phase == KEEP_DRAWN:
            self._keep_drawn(action.ids)  # type: ignore[union-attr]
        elif phase == SETUP_KEEP:
            self._keep_setup(action.ids)  # type: ignore[union-attr]

    def _keep_setup(self, ids: tuple[int, ...]) -> None:
        seat = self.seat
        offer = self.offers[seat]
        kept = [d for d in offer if d in ids]
        self.held[seat].extend(kept)
        self.dest_deck.extend(d for d in offer if d not in ids)
        self.offers[seat] = []
        if self.record is not None:
            self.record["setup"]["kept"].append(list(kept))
        if seat + 1 < self.players:
            self.seat = seat + 1
            return
        self.dest_deck = self._shuffle(DESTINATION_RESHUFFLE, self.dest_deck, names=False)  # R5
        self.seat = 0
        self._begin_turn()

    def _pick(self, action: A.Action, first: bool) -> None:
        """One pick of a train draw (R10, R11)."""
        seat = self.seat
        hand = self.hands[seat]
        deck = self.deck
        rec = self._turn_record
        if isinstance(action, A.DrawDeck):
            card = deck.pop()
            hand[card] += 1
            if rec is not None:
                rec.setdefault("picks", []).append({"from": "deck", "card": self.card_names[card]})
        else:
            slot = action.slot  # type: ignore[union-attr]
            card = self.face_up[slot]
            hand[card] += 1
            self.face_up[slot] = deck.pop() if deck else NO_CARD
            if rec is not None:
                refill = self.face_up[slot]
                rec.setdefault("picks", []).append(
                    {
                        "from": "face_up",
                        "slot": slot,
                        "card": self.card_names[card],
                        "refill": self.card_names[refill] if refill != NO_CARD else None,
                    }
                )
            if self.rules.three_locomotive_wipe:
                self._maybe_wipe()
            if card == self.loco:  # R10: a face-up locomotive counts as two
                self._end_turn()
                return
        if first and self._can_pick_second():
            self.phase = SECOND_PICK
            return
        self._end_turn()  # R11: no second card can be drawn, or this was the second

    def _can_pick_second(self) -> bool:
        """Whether any second pick exists (R10, R11): ``actions.second_picks`` without the list."""
        if self.deck:
            return True
        return any(card != NO_CARD and card != self.loco for card in self.face_up)

    def _place_column(self, colour: int, wagons: int, locos: int) -> None:
        seat = self.seat
        hand = self.hands[seat]
        self._steal_if_needed(colour)
        hand[colour] -= wagons
        hand[self.loco] -= locos
        self.yard_owner[colour] = seat
        self.yard_wagons[colour] = wagons
        self.yard_locos[colour] = locos
        self._end_turn()

    def _place_three(self, colours: tuple[int, int, int]) -> None:
        seat = self.seat
        hand = self.hands[seat]
        for c in colours:
            hand[c] -= 1
            self.yard_owner[c] = seat
            self.yard_wagons[c] = 1
            self.yard_locos[c] = 0
        self._end_turn()

    def _steal_if_needed(self, colour: int) -> None:
        """R12: the rival whose column was beaten discards it whole."""
        victim = self.yard_owner[colour]
        if victim == NOBODY:
            return
        wagons, locos = self.yard_wagons[colour], self.yard_locos[colour]
        self.discard[colour] += wagons
        self.discard[self.loco] += locos
        self.steals[self.seat] += 1
        self.stolen_from[victim] += 1
        if self._turn_record is not None:
            self._turn_record["steal"] = {
                "victim": victim,
                "colour": self.card_names[colour],
                "discarded": {"wagons": wagons, "locos": locos},
            }

    def _draw_destinations(self) -> None:
        deck = self.dest_deck
        count = min(self.rules.destinations_drawn, len(deck))
        self.offers[self.seat] = [deck.pop() for _ in range(count)]
        self.phase = KEEP_DRAWN

    def _keep_drawn(self, ids: tuple[int, ...]) -> None:
        seat = self.seat
        offer = self.offers[seat]
        kept = [d for d in offer if d in ids]
        returned = [d for d in offer if d not in ids]
        self.held[seat].extend(kept)
        self.dest_deck[:0] = returned  # R13: to the bottom
        self.offers[seat] = []
        if self._turn_record is not None:
            self._turn_record["destinations"] = {"drawn": list(offer), "kept": list(kept)}
        self._end_turn()

    # -------------------------------------------------------------- turn flow
    def _begin_turn(self) -> None:
        """Start the turn of ``self.seat``: step 1 is mandatory and automatic (R7, R8)."""
        self.phase = TURN
        self.turn += 1
        seat = self.seat
        owner = self.yard_owner
        moved: list[int] = []
        if seat in owner:
            circ = self.circulation[seat]
            for c in range(self.n_colours):
                if owner[c] != seat:
                    continue
                if self.yard_locos[c]:  # R7: locomotives sit on top
                    self.yard_locos[c] -= 1
                    circ[self.loco] += 1
                    moved.append(self.loco)
                else:
                    self.yard_wagons[c] -= 1
                    circ[c] += 1
                    moved.append(c)
                if not self.yard_wagons[c] and not self.yard_locos[c]:
                    owner[c] = NOBODY  # R8
        if self.record is not None:
            self._turn_record = {
                "turn": self.turn,
                "seat": seat,
                "round": self.round,
                "final_round": self.final_turns_left is not None,
                "step1": self._names(moved),
            }
        if self.turn == 1 and self.rules.first_turn != "full" and self._can_pick_second():
            # a lever (R6, R10): first_turn = "one_card" makes seat 0's first turn a single
            # train card, the decision a draw's second pick is (no other action)
            self.phase = SECOND_PICK

    def _end_turn(self) -> None:
        """Finish the turn; the final round starts once the deck is empty (R15)."""
        if self._turn_record is not None:
            self.record["turns"].append(self._turn_record)  # type: ignore[index]
            self._turn_record = None
        self.last_seat = self.seat
        if self.final_turns_left is None:
            if not self.deck:
                self.final_turns_left = self.players
        else:
            self.final_turns_left -= 1
            if self.final_turns_left <= 0:
                self._end_round()
                return
        self.seat = (self.seat + 1) % self.players
        self._begin_turn()

    def _end_round(self) -> None:
        """Resolve destinations (R16); start another round (R18, R19) or end the game."""
        catalogue = self.game.catalogue
        big = self.game.big_city_set
        resolution = []
        for seat in range(self.players):
            held = self.held[seat]
            got = resolve(self.circulation[seat], [catalogue.destination(d) for d in held], big)
            self.reached[seat].extend(got)
            for dest_id in got:
                self.reached_round[dest_id] = self.round
            self.held[seat] = [d for d in held if d not in got]
            self.round_points[seat].append(sum(catalogue.destination(d).points for d in got))
            # copies: a record says what happened then (self.held grows again in round 2)
            resolution.append(
                {"seat": seat, "reached": list(got), "unreached": list(self.held[seat])}
            )
        self._round_facts = self._freeze_round_facts()
        if self.record is not None:
            self.record["resolutions"].append({"round": self.round, "seats": resolution})
        if self.round < self.rules.rounds_for(self.players):
            self._start_next_round()
            return
        self.phase = OVER
        self.scores = final_scores(self.reached, self.held, catalogue)
        self.winners = winners(self.scores)

    def _start_next_round(self) -> None:
        """R19: all train cards but the hands form a new deck; deal, turn the row, resume."""
        pool = list(self.deck)
        pool.extend(c for c in self.face_up if c != NO_CARD)
        counts = list(self.discard)
        for c in range(self.n_colours):
            counts[c] += self.yard_wagons[c]
            counts[self.loco] += self.yard_locos[c]
        for circ in self.circulation:
            for k in range(self.kinds):
                counts[k] += circ[k]
        pool.extend(_expand(counts))
        self.discard = [0] * self.kinds
        self.circulation = [[0] * self.kinds for _ in range(self.players)]
        self.yard_owner = [NOBODY] * self.n_colours
        self.yard_wagons = [0] * self.n_colours
        self.yard_locos = [0] * self.n_colours
        self.round += 1
        self.deck = self._shuffle(TRAIN_ROUND, pool, names=True)
        self._deal(self.rules.round_two_deal)
        self._turn_face_up()
        self._note_round_start()
        self.final_turns_left = None if self.deck else self.players
        self.seat = (self.last_seat + 1) % self.players
        self._begin_turn()
