"""The mutable game state and every rule that changes it (R3-R19).

Cards are ints (0-7 wagon colours, 8 locomotive); a hand, a circulation pile or the discard
pile is a list of 9 counts. Each colour stands in at most one rail yard (R12), so the yards
are stored once for the table: owner, wagons and locomotives per colour.
"""

from __future__ import annotations

from enum import IntEnum
from itertools import combinations
from typing import TYPE_CHECKING, Any

from . import actions as A
from .cards import CARD_NAMES, LOCO, LOCOMOTIVES, NUM_COLOURS, WAGONS_PER_COLOUR
from .errors import IllegalActionError
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
    from .observation import Observation, SeatView

CARD_KINDS = NUM_COLOURS + 1
NO_CARD = -1
NOBODY = -1


class Phase(IntEnum):
    """Which decision the state waits for."""

    SETUP_KEEP = 0  # a seat chooses which dealt destinations to keep (R5)
    TURN = 1  # step 2 of a turn: choose the action (R10-R14)
    SECOND_PICK = 2  # the second train card of a draw (R10, R11)
    KEEP_DRAWN = 3  # keep some of the destinations just drawn (R13)
    OVER = 4


# Module-level aliases: a global lookup is ten times cheaper than Phase.X on the hot path.
SETUP_KEEP, TURN, SECOND_PICK, KEEP_DRAWN, OVER = (
    Phase.SETUP_KEEP,
    Phase.TURN,
    Phase.SECOND_PICK,
    Phase.KEEP_DRAWN,
    Phase.OVER,
)


def _names(cards: list[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def _expand(counts: list[int]) -> list[int]:
    out: list[int] = []
    for card, n in enumerate(counts):
        out.extend([card] * n)
    return out


class GameState:
    """One game in progress. Use ``Game.new_state()`` to make one."""

    __slots__ = (
        "_shuffles",
        "_turn_record",
        "circulation",
        "deck",
        "dest_deck",
        "discard",
        "face_up",
        "final_turns_left",
        "game",
        "hands",
        "held",
        "last_seat",
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

    def __init__(self, game: Game, shuffles: ShuffleSource, record: bool = False) -> None:
        self.game = game
        self.players = game.players
        self.rules = game.rules
        self._shuffles = shuffles
        n = self.players
        self.deck: list[int] = []
        self.face_up: list[int] = []
        self.discard = [0] * CARD_KINDS
        self.hands = [[0] * CARD_KINDS for _ in range(n)]
        self.circulation = [[0] * CARD_KINDS for _ in range(n)]
        self.yard_owner = [NOBODY] * NUM_COLOURS
        self.yard_wagons = [0] * NUM_COLOURS
        self.yard_locos = [0] * NUM_COLOURS
        self.dest_deck: list[int] = []
        self.held: list[list[int]] = [[] for _ in range(n)]
        self.reached: list[list[int]] = [[] for _ in range(n)]
        self.round_points: list[list[int]] = [[] for _ in range(n)]
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
            self.record = {
                "shuffles": [],
                "rounds": [],
                "setup": {"dealt": [], "kept": []},
                "turns": [],
                "resolutions": [],
            }
        self._setup()

    # ----------------------------------------------------------------- setup (R3-R6)
    def _shuffle(self, kind: str, cards: list[int], names: bool) -> list[int]:
        order = self._shuffles.shuffle(kind, cards)
        if self.record is not None:
            self.record["shuffles"].append(
                {"kind": kind, "order": _names(order) if names else list(order)}
            )
        return order

    def _setup(self) -> None:
        rules = self.rules
        n = self.players
        for hand in self.hands:
            hand[LOCO] = rules.starting_locomotives  # R3
        wagons = [c for c in range(NUM_COLOURS) for _ in range(WAGONS_PER_COLOUR)]
        locos = [LOCO] * (LOCOMOTIVES - n * rules.starting_locomotives)
        self.deck = self._shuffle(TRAIN_SETUP, wagons + locos, names=True)
        self._deal(rules.starting_hand)
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

    def _turn_face_up(self) -> None:
        deck = self.deck
        self.face_up = [deck.pop() if deck else NO_CARD for _ in range(self.rules.face_up)]
        self._maybe_wipe()

    def _maybe_wipe(self) -> None:
        """Board-game variant: three face-up locomotives wipe the row (off by default, R4)."""
        if not self.rules.three_locomotive_wipe:
            return
        row = self.face_up
        while row.count(LOCO) >= 3 and self.deck:
            for card in row:
                if card != NO_CARD:
                    self.discard[card] += 1
            deck = self.deck
            row[:] = [deck.pop() if deck else NO_CARD for _ in row]
            if self._turn_record is not None:
                self._turn_record.setdefault("wipes", []).append(_names(row))

    def _note_round_start(self) -> None:
        if self.record is not None:
            self.record["rounds"].append(
                {
                    "round": self.round,
                    "face_up": [CARD_NAMES[c] if c != NO_CARD else None for c in self.face_up],
                    "hands": [_names(_expand(h)) for h in self.hands],
                    "deck_size": len(self.deck),
                }
            )

    # -------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def is_final_round(self) -> bool:
        return self.final_turns_left is not None or not self.deck

    def card_total(self) -> int:
        """All train cards on the table; 96 at every step (R1) - an invariant for tests."""
        total = len(self.deck) + sum(1 for c in self.face_up if c != NO_CARD)
        total += sum(self.discard) + sum(self.yard_wagons) + sum(self.yard_locos)
        total += sum(sum(h) for h in self.hands) + sum(sum(c) for c in self.circulation)
        return total

    def observe(self, seat: int) -> Observation:
        """A frozen snapshot of what ``seat`` may know (R9)."""
        from .observation import observe

        return observe(self, seat)

    def view(self, seat: int) -> SeatView:
        """A live, read-only view of what ``seat`` may know: cheap, for strategies."""
        from .observation import SeatView

        return SeatView(self, seat)

    def legal_actions(self) -> list[A.Action]:
        """Every action the seat to move may take, in a fixed order."""
        phase = self.phase
        if phase == TURN:
            return self._turn_actions()
        if phase == SECOND_PICK:
            return self._second_picks()
        if phase == SETUP_KEEP:
            return _keep_subsets(self.offers[self.seat], self.rules.destinations_min_keep)
        if phase == KEEP_DRAWN:
            return _keep_subsets(self.offers[self.seat], 0)
        return []

    def _turn_actions(self) -> list[A.Action]:
        out: list[A.Action] = []
        if self.deck:
            out.append(A.DRAW_DECK)
        slots = A.DRAW_FACE_UP
        for slot, card in enumerate(self.face_up):
            if card != NO_CARD:
                out.append(slots[slot])
        out.extend(self._placements())
        if self.dest_deck:
            out.append(A.DRAW_DESTINATIONS)
        if not out:
            out.append(A.PASS)  # R14
        return out

    def _second_picks(self) -> list[A.Action]:
        out: list[A.Action] = [A.DRAW_DECK] if self.deck else []
        slots = A.DRAW_FACE_UP
        for slot, card in enumerate(self.face_up):
            if card != NO_CARD and card != LOCO:  # R10: face-up locomotive first pick only
                out.append(slots[slot])
        return out

    def _placements(self) -> list[A.Action]:
        """Columns (R12a) and three-colour plays (R12b) from the hand of the seat to move."""
        seat = self.seat
        hand = self.hands[seat]
        owner = self.yard_owner
        locos = hand[LOCO]
        out: list[A.Action] = []
        free: list[int] = []
        columns = A.COLUMNS
        for c in range(NUM_COLOURS):
            have = hand[c]
            if not have:
                continue
            holder = owner[c]
            if holder == seat:
                continue  # R12: own colour banned
            if holder == NOBODY:
                free.append(c)
                need = 2
            else:
                need = self.yard_wagons[c] + self.yard_locos[c] + 1  # R12: strictly more
            table = columns[c]
            for w in range(1, have + 1):
                start = need - w if need > w else 0
                if start <= locos:
                    row = table[w]
                    out.extend(row[start : locos + 1])
        if len(free) >= 3:
            threes = A.THREES
            out.extend(threes[combo] for combo in combinations(free, 3))
        return out

    # -------------------------------------------------------------- legality
    def check(self, action: A.Action) -> None:
        """Raise IllegalActionError naming seat, action and ruling if ``action`` is illegal."""
        problem = self._problem(action)
        if problem is not None:
            raise IllegalActionError(self.seat, action, *problem)

    def _problem(self, action: A.Action) -> tuple[str, str] | None:
        """(ruling, reason) if ``action`` is illegal now, else None."""
        phase = self.phase
        kind = type(action)
        if phase == TURN:
            if kind is A.DrawDeck:
                return None if self.deck else ("R11", "the train deck is empty")
            if kind is A.PlaceColumn or kind is A.PlaceThree:
                return self._placement_problem(action)  # type: ignore[arg-type]
            if kind is A.DrawFaceUp:
                slot = action.slot  # type: ignore[union-attr]
                if self._face_up_card(slot) == NO_CARD:
                    return ("R11", f"face-up slot {slot} is empty")
                return None
            if kind is A.DrawDestinations:
                return None if self.dest_deck else ("R13", "the destination deck is empty")
            if kind is A.Pass:
                if self._turn_actions() != [A.PASS]:
                    return ("R14", "passing is allowed only when no action is legal")
                return None
            if kind is A.KeepDestinations:
                return ("R13", "no destinations are on offer")
            return ("R10", f"unknown action {action!r}")
        if phase == SECOND_PICK:
            if kind is A.DrawDeck:
                return None if self.deck else ("R11", "the train deck is empty")
            if kind is A.DrawFaceUp:
                card = self._face_up_card(action.slot)  # type: ignore[union-attr]
                if card == NO_CARD:
                    return ("R11", f"face-up slot {action.slot} is empty")  # type: ignore[union-attr]
                if card == LOCO:
                    return ("R10", "a face-up locomotive can only be the first pick")
                return None
            return ("R10", "the second train card of the draw is expected")
        if phase == OVER:
            return ("R17", "the game is over")
        ruling = "R5" if phase == SETUP_KEEP else "R13"
        if kind is not A.KeepDestinations:
            return (ruling, "a destination keep is expected now")
        offer = self.offers[self.seat]
        ids = action.ids  # type: ignore[union-attr]
        if len(set(ids)) != len(ids) or not set(ids) <= set(offer):
            return (ruling, f"can keep only destinations offered ({offer})")
        minimum = self.rules.destinations_min_keep if phase == SETUP_KEEP else 0
        if len(ids) < minimum:
            return (ruling, f"must keep at least {minimum}")
        return None

    def _face_up_card(self, slot: int) -> int:
        return self.face_up[slot] if 0 <= slot < len(self.face_up) else NO_CARD

    def _placement_problem(self, action: A.PlaceColumn | A.PlaceThree) -> tuple[str, str] | None:
        seat = self.seat
        hand = self.hands[seat]
        if isinstance(action, A.PlaceThree):
            colours = action.colours
            if len(set(colours)) != 3:
                return ("R12", "a three-colour play needs three different colours")
            for c in colours:
                if hand[c] < 1:
                    return ("R12", f"no {CARD_NAMES[c]} wagon in hand")
                if self.yard_owner[c] == seat:
                    return ("R12", f"{CARD_NAMES[c]} is already in the seat's own yard")
                if self.yard_owner[c] != NOBODY:
                    return ("R12", f"1 {CARD_NAMES[c]} card cannot beat a rival's column")
            return None
        c, w, lo = action.colour, action.wagons, action.locos
        if not 0 <= c < NUM_COLOURS:
            return ("R12", "unknown colour")
        if w < 1 or lo < 0 or w + lo < 2:
            return ("R12", "a column needs 2 or more cards, at least one a wagon")
        if hand[c] < w or hand[LOCO] < lo:
            return ("R12", f"hand lacks {w} {CARD_NAMES[c]} and {lo} locomotive(s)")
        holder = self.yard_owner[c]
        if holder == seat:
            return ("R12", f"{CARD_NAMES[c]} is already in the seat's own yard")
        if holder != NOBODY:
            rival = self.yard_wagons[c] + self.yard_locos[c]
            if w + lo <= rival:
                return (
                    "R12",
                    f"seat {holder}'s {CARD_NAMES[c]} column has {rival}: must place strictly more",
                )
        return None

    # -------------------------------------------------------------- applying actions
    def apply(self, action: A.Action) -> None:
        """Apply ``action`` for the seat to move after checking it (raises if illegal)."""
        self.check(action)
        self.apply_unchecked(action)

    def apply_unchecked(self, action: A.Action) -> None:
        """Apply an action known to be legal (the Monte Carlo's fast path)."""
        phase = self.phase
        if phase == TURN:
            if self._turn_record is not None:
                self._turn_record["action"] = A.to_dict(action)
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
            self.record["setup"]["kept"].append(kept)
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
                rec.setdefault("picks", []).append({"from": "deck", "card": CARD_NAMES[card]})
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
                        "card": CARD_NAMES[card],
                        "refill": CARD_NAMES[refill] if refill != NO_CARD else None,
                    }
                )
            if self.rules.three_locomotive_wipe:
                self._maybe_wipe()
            if card == LOCO:  # R10: a face-up locomotive counts as two
                self._end_turn()
                return
        if first and self._can_pick_second():
            self.phase = SECOND_PICK
            return
        self._end_turn()  # R11: no second card can be drawn, or this was the second

    def _can_pick_second(self) -> bool:
        """Whether any second pick exists (R10, R11): ``_second_picks`` without the list."""
        if self.deck:
            return True
        return any(card != NO_CARD and card != LOCO for card in self.face_up)

    def _place_column(self, colour: int, wagons: int, locos: int) -> None:
        seat = self.seat
        hand = self.hands[seat]
        self._steal_if_needed(colour)
        hand[colour] -= wagons
        hand[LOCO] -= locos
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
        self.discard[LOCO] += locos
        self.steals[self.seat] += 1
        self.stolen_from[victim] += 1
        if self._turn_record is not None:
            self._turn_record["steal"] = {
                "victim": victim,
                "colour": CARD_NAMES[colour],
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
            self._turn_record["destinations"] = {"drawn": offer, "kept": kept}
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
            for c in range(NUM_COLOURS):
                if owner[c] != seat:
                    continue
                if self.yard_locos[c]:  # R7: locomotives sit on top
                    self.yard_locos[c] -= 1
                    circ[LOCO] += 1
                    moved.append(LOCO)
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
                "step1": _names(moved),
            }

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
            resolution.append({"seat": seat, "reached": list(got), "unreached": self.held[seat]})
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
        for c in range(NUM_COLOURS):
            counts[c] += self.yard_wagons[c]
            counts[LOCO] += self.yard_locos[c]
        for circ in self.circulation:
            for k in range(CARD_KINDS):
                counts[k] += circ[k]
        pool.extend(_expand(counts))
        self.discard = [0] * CARD_KINDS
        self.circulation = [[0] * CARD_KINDS for _ in range(self.players)]
        self.yard_owner = [NOBODY] * NUM_COLOURS
        self.yard_wagons = [0] * NUM_COLOURS
        self.yard_locos = [0] * NUM_COLOURS
        self.round += 1
        self.deck = self._shuffle(TRAIN_ROUND, pool, names=True)
        self._deal(self.rules.round_two_deal)
        self._turn_face_up()
        self._note_round_start()
        self.final_turns_left = None if self.deck else self.players
        self.seat = (self.last_seat + 1) % self.players
        self._begin_turn()


def _keep_subsets(offer: list[int], minimum: int) -> list[A.Action]:
    out: list[A.Action] = []
    for size in range(len(offer), minimum - 1, -1):
        out.extend(A.KeepDestinations(ids) for ids in combinations(offer, size))
    return out
