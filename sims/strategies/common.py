"""What scripted strategies share: reading the seat's situation and a planning pipeline
whose hooks each family overrides (Axelrod style: small classes, one idea each)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cardgame import Action, Destination, KeepDestinations
from cardgame import actions as A
from cardgame.actions import cards_to_beat
from cardgame.layout import MIN_COLUMN, NO_CARD, NOBODY
from cardgame.observation import SeatView
from cardgame.resolution import colour_need, covers

from ..strategy import AnyKnobs, MemoryKnobs, Strategy

# The heuristics' constants, each named once: the native twins (sims/_native/_scripted.pyx)
# read these values when they load, so both engines' strategies always use the same ones
# (tests/test_contract.py checks that every constant here reaches C).
DRAW_RATE = 1.3  # cards drawn from the deck per turn of play, on average: turns a deck lasts
DECK_VALUE = 1.0  # a blind draw: a face-up card must be worth more to be taken instead
NO_DRAW_VALUE = -1.0  # what a face-up card must beat when the deck is empty
ROW_STEP = 0.01  # deck empty: the row is all there is, each card beats the best by this
LOCO_VALUE = 2.5  # a face-up locomotive, when loco_pick_missing cards or more are missing
WANTED_VALUE = 1.5  # a card of a colour still missing ...
DEFICIT_STEP = 0.2  # ... plus this for each card of that colour missing ...
DEFICIT_CAP = 3  # ... counted up to this many ...
PAIR_VALUE = 0.3  # ... plus this when it makes a pair in hand (a column of two)
LATE_TURNS = 3  # at most this many turns left: min_column gives way (and a hoarder's veto)
PLACE_TURNS = 2  # at most this many turns left: min_useful gives way to ...
LATE_MIN_USEFUL = 1  # ... this: any placement that covers a missing card
HOARD_VALUE = 0.5  # hoarder: a card of a colour it holds 2+ of (a longer column)
RUSH_PAIR_VALUE = 1.1  # rusher: a card that makes a pair it can place at once
CERTAIN = 1.0  # a chance of one (the big-city odds: Scripted.city_value)


class Situation:
    """The seat's position for one decision: what its destinations need, what will reach
    its circulation pile in time, and what is still missing."""

    __slots__ = (
        "colours",
        "deficit",
        "future_turns",
        "hand",
        "locos_coming",
        "missing",
        "need",
        "owner",
        "rival",
        "seat",
        "supply",
        "view",
    )

    def __init__(self, view: SeatView, need: list[int]) -> None:
        self.view = view
        self.seat = seat = view.seat
        self.hand = view.hand
        # the game's colours (its hand's counts but the last, the locomotives': R1)
        self.colours = colours = len(view.hand) - 1
        self.owner = owner = view.yard_owner
        circ = view.circulation()
        # my turns after this one, before the round ends (R15: one more each at the end)
        future = 0 if view.final_round else int(view.deck_size / (DRAW_RATE * view.players)) + 1
        self.future_turns = future
        self.need = need
        supply = list(circ[:colours])
        locos_coming = circ[colours]
        rival = [0] * colours  # size of a rival's column per colour (0: none)
        wagons, locos = view.yard_wagons, view.yard_locos
        for c in range(colours):
            holder = owner[c]
            if holder == NOBODY:
                continue
            size = wagons[c] + locos[c]
            if holder != seat:
                rival[c] = size
                continue
            flows = size if size < future else future  # one card per turn, locos first
            from_locos = locos[c] if locos[c] < flows else flows
            locos_coming += from_locos
            supply[c] += flows - from_locos
        self.rival = rival
        self.supply = supply
        self.locos_coming = locos_coming
        deficit = [n - s if n > s else 0 for n, s in zip(need, supply, strict=True)]
        self.deficit = deficit
        self.missing = sum(deficit) - locos_coming  # > 0: still short

    @property
    def covered(self) -> bool:
        return self.missing <= 0

    def can_place_colour(self, c: int) -> bool:
        return self.owner[c] != self.seat

    def rival_size(self, c: int) -> int:
        return self.rival[c]

    def projected(self) -> list[int]:
        """Circulation as it may stand at the end: supply, plus the hand if placed in time."""
        hand = self.hand
        colours = self.colours
        pile = [self.supply[c] + hand[c] for c in range(colours)]
        pile.append(self.locos_coming + hand[colours])
        return pile


@dataclass(frozen=True)
class ScriptedKnobs(MemoryKnobs):
    card_share: float = 0.45  # setup: keep destinations needing up to this share of the deck/n
    min_useful: int = 2  # place when a play covers at least this many missing cards
    extra_cards: int = 1  # wagons placed beyond the deficit (steal armour, spare cards)
    min_column: int = 2  # shortest column the strategy will place (except when the end is near)
    loco_pick_missing: int = 3  # take a face-up locomotive when this many cards are missing
    ticket_turns: int = 4  # draw destinations only with at least this many turns left
    ticket_margin: int = 0  # spare cards a new destination must leave
    future_cards: float = 0.6  # cards per future turn counted on when keeping destinations
    ticket_pause: int = 3  # turns without destination draws after a draw that kept none
    steal_bonus: float = 0.0  # extra value per card a steal makes a rival discard
    # a share of the bonus points a destination's big cities are expected to win it: each
    # city's printed (or edited) bonus times what one more ticket naming it adds to the
    # chance of winning it (R21), estimated from what the seat sees (Scripted.city_value)
    city_weight: float = 2.0


def at_most(held: int, share: float, count: int) -> float:
    """The chance that ``held`` unseen tickets, each naming a city with chance ``share``,
    name it at most ``count`` times (binomial). The native twin does the same operations in
    the same order (sims/_native/_scripted.pyx), so both give the same number."""
    if count >= held or share <= 0.0:
        return CERTAIN
    if share >= CERTAIN:
        return 0.0
    miss = CERTAIN - share
    term = CERTAIN
    for _ in range(held):
        term *= miss
    ratio = share / miss
    total = term
    for j in range(count):
        term = term * (held - j) / (j + 1) * ratio
        total += term
    return total


def colour_weights(deck: tuple[int, ...]) -> list[float]:
    """What a circle of each colour costs, in cards of an average colour: a colour the deck
    holds fewer of is scarcer (1 each on a deck of equal colours, as printed, R1)."""
    colours = deck[:-1]  # the locomotives come last
    total = sum(colours)
    if not total:
        return [CERTAIN] * len(colours)
    mean = total / len(colours)
    return [mean / (n if n > 0 else 1) for n in colours]


def win_chance(view: SeatView, count: int, share: float) -> float:
    """The chance that ``count`` tickets naming a city are the most (or tied: R21) against
    every rival's tickets in hand, each naming it with chance ``share``."""
    if count <= 0:
        return 0.0
    chance = CERTAIN
    seat, held = view.seat, view.held_counts
    for rival in range(view.players):
        if rival != seat:
            chance *= at_most(held[rival], share, count)
    return chance


class Scripted(Strategy):
    """A planning pipeline: place what is needed, draw what is missing, take destinations
    only with a surplus. Families change knobs and override the hooks below."""

    Knobs = ScriptedKnobs
    knobs: ScriptedKnobs

    def __init__(self, rng: random.Random, knobs: AnyKnobs | None = None) -> None:
        super().__init__(rng, knobs)
        self._pause_until = 0  # turn number before which no destination draw
        self._need_key: tuple[int, ...] | None = None
        self._need: list[int] = []
        self._first_pick: Situation | None = None  # reused for the second pick of a draw
        self._first_pick_turn = -1
        self._shares_table: object = None  # the game's tables _shares is of
        self._shares_cards: object = None
        self._shares: dict[str, tuple[int, float]] = {}

    def situation(self, view: SeatView) -> Situation:
        """The seat's situation; the need vector is recomputed only when the hand of
        destinations changes."""
        key = view.held_ids
        if key != self._need_key:
            self._need_key = key
            self._need = colour_need(view.held, len(view.hand) - 1)
        return Situation(view, self._need)

    # ----------------------------------------------------------------- destinations
    def destination_value(self, dest: Destination, view: SeatView) -> float:
        """The ticket's points (the game's: edits included) and its share of big-city bonus."""
        weight = self.knobs.city_weight
        if not weight:
            return float(dest.points)
        return dest.points + weight * self.city_value(dest, view)

    def city_value(self, dest: Destination, view: SeatView) -> float:
        """The bonus points keeping ``dest`` is expected to add (R21): for each big city it
        names, the city's bonus in this game times how much one more ticket naming it raises
        the seat's chance of the most tickets naming it, ties included. A rival's tickets
        are unseen: each names the city with the share of the game's tickets that do."""
        shares = self._city_shares(view)
        held = view.held
        total = 0.0
        for city in (dest.city_a, dest.city_b):
            entry = shares.get(city)
            if entry is None:
                continue
            bonus, share = entry
            mine = sum(1 for d in held if d.city_a == city or d.city_b == city)
            gain = win_chance(view, mine + 1, share) - win_chance(view, mine, share)
            total += bonus * gain
        return total

    def _city_shares(self, view: SeatView) -> dict[str, tuple[int, float]]:
        """Each big city's bonus and the share of the game's tickets naming it (once a game:
        the view's tables are the game's own objects)."""
        table, cards = view.destinations_by_id, view.big_city_cards
        if table is not self._shares_table or cards is not self._shares_cards:
            tickets = [d for d in table if d is not None]
            self._shares = {
                big.city: (
                    big.points,
                    sum(1 for d in tickets if big.city in (d.city_a, d.city_b)) / len(tickets),
                )
                for big in cards
            }
            self._shares_table, self._shares_cards = table, cards
        return self._shares

    def keep_setup(self, view: SeatView) -> KeepDestinations:
        offer = view.offer
        budget = self.knobs.card_share * sum(view.train_cards) / view.players
        weights = colour_weights(view.train_cards)
        costs = {d.id: sum(weights[c] for c in d.colours) for d in offer}
        ranked = sorted(offer, key=lambda d: (-self.destination_value(d, view) / costs[d.id], d.id))
        kept: list[Destination] = []
        cards = 0.0
        for dest in ranked:
            if cards + costs[dest.id] <= budget:
                kept.append(dest)
                cards += costs[dest.id]
        minimum = view.rules.destinations_min_keep
        for dest in ranked:
            if len(kept) >= minimum:
                break
            if dest not in kept:
                kept.append(dest)
        return KeepDestinations(tuple(d.id for d in offer if d in kept))

    def keep_drawn(self, view: SeatView) -> KeepDestinations:
        situation = self.situation(view)
        pile = situation.projected()
        # cards still to come count as wild, minus the safety margin
        pile[-1] += int(self.knobs.future_cards * situation.future_turns) - self.knobs.ticket_margin
        need = list(situation.need)  # what the destinations kept so far require
        chosen: list[int] = []
        for dest in sorted(view.offer, key=lambda d: -self.destination_value(d, view)):
            trial = [n + d for n, d in zip(need, dest.need_of(situation.colours), strict=True)]
            if covers(pile, trial):
                need = trial
                chosen.append(dest.id)
        if not chosen:
            self._pause_until = view.turn + self.knobs.ticket_pause * view.players
        return KeepDestinations(tuple(d.id for d in view.offer if d.id in chosen))

    def wants_destinations(self, situation: Situation) -> bool:
        view = situation.view
        return (
            situation.covered
            and view.destination_deck_size > 0
            and situation.future_turns >= self.knobs.ticket_turns
            and view.turn >= self._pause_until
        )

    # ----------------------------------------------------------------- placing
    def placement_value(self, situation: Situation, colour: int, wagons: int, locos: int) -> float:
        """Missing cards a column covers (only what reaches circulation in time)."""
        future = situation.future_turns
        if future <= 0:
            return 0.0
        size = wagons + locos
        arriving = size if size < future else future
        loco_part = locos if locos < arriving else arriving
        wagon_part = arriving - loco_part
        deficit = situation.deficit[colour]
        covers = wagon_part if wagon_part < deficit else deficit
        shortage_left = situation.missing - covers
        if shortage_left > 0:
            covers += loco_part if loco_part < shortage_left else shortage_left
        return covers + self.knobs.steal_bonus * situation.rival[colour]

    def best_placement(self, situation: Situation) -> tuple[float, Action | None]:
        hand = situation.hand
        knobs = self.knobs
        locos = hand[situation.colours]
        free: list[int] = []
        min_column = knobs.min_column if situation.future_turns > LATE_TURNS else MIN_COLUMN
        owner, seat, rivals, deficits = (
            situation.owner,
            situation.seat,
            situation.rival,
            situation.deficit,
        )
        missing = situation.missing
        extra_cards = knobs.extra_cards
        placement_value = self.placement_value
        columns = A.COLUMNS
        best_value, best_size, best_action = 0.0, 0, None
        for c in range(situation.colours):
            have = hand[c]
            if not have or owner[c] == seat:
                continue
            rival = rivals[c]
            if owner[c] == NOBODY:
                free.append(c)
            deficit = deficits[c]
            if not deficit and not rival and (not locos or missing <= 0):
                continue  # such a column covers nothing: worth 0
            beats = cards_to_beat(rival)  # R12 (a free colour: rival 0)
            need_size = beats if beats > min_column else min_column
            # wagons: the deficit plus a little armour; locomotives only if short elsewhere
            wanted = deficit + extra_cards if deficit + extra_cards > 1 else 1
            wagons = have if have < wanted else wanted
            short_elsewhere = missing - deficit
            loco_options = (0, locos if locos < short_elsewhere else short_elsewhere)
            for lo in loco_options if locos and short_elsewhere > 0 else (0,):
                w = wagons
                if w + lo < need_size:
                    w = have if have < need_size - lo else need_size - lo
                    if w + lo < need_size:
                        extra = need_size - w - lo
                        if lo + extra > locos:
                            continue
                        lo += extra
                value = placement_value(situation, c, w, lo)
                size = w + lo
                if value > best_value or (value == best_value and size > best_size):
                    best_value, best_size, best_action = value, size, columns[c][w][lo]
        best: tuple[float, int, Action | None] = (best_value, best_size, best_action)
        if len(free) >= 3 and situation.future_turns > 0:
            # the three free colours most needed (stable: lowest colour first among equals)
            ranked = sorted(free, key=lambda c: deficits[c] <= 0)[:3]
            value = float(sum(1 for c in ranked if deficits[c] > 0))
            if (value, 3) > best[:2]:
                first, second, third = sorted(ranked)
                best = (value, 3, A.THREES[first, second, third])
        return best[0], best[2]

    def should_place(self, value: float, situation: Situation) -> bool:
        threshold = (
            self.knobs.min_useful if situation.future_turns > PLACE_TURNS else LATE_MIN_USEFUL
        )
        return value >= threshold

    # ----------------------------------------------------------------- drawing
    def card_value(self, situation: Situation, card: int) -> float:
        if card == situation.colours:  # the locomotive
            return LOCO_VALUE if situation.missing >= self.knobs.loco_pick_missing else 0.0
        deficit = situation.deficit[card]
        if deficit <= 0:
            return 0.0
        # one more of a colour already in hand helps make a column of two
        return (
            WANTED_VALUE
            + min(deficit, DEFICIT_CAP) * DEFICIT_STEP
            + (PAIR_VALUE if situation.hand[card] == 1 else 0.0)
        )

    def pick(self, situation: Situation, first: bool) -> Action | None:
        view = situation.view
        deck_size = view.deck_size
        best_value = DECK_VALUE if deck_size else NO_DRAW_VALUE
        best: Action | None = A.DRAW_DECK if deck_size else None
        card_value = self.card_value
        for slot, card in enumerate(view.face_up):
            if card == NO_CARD or (card == situation.colours and not first):
                continue
            value = card_value(situation, card)
            if not deck_size and value <= best_value:
                value = max(value, best_value + ROW_STEP)  # the row is all there is
            if value > best_value:
                best_value, best = value, A.DRAW_FACE_UP[slot]
        return best

    # ----------------------------------------------------------------- the turn
    def turn(self, view: SeatView) -> Action:
        situation = self.situation(view)
        value, placement = self.best_placement(situation)
        if placement is not None and self.should_place(value, situation):
            return placement
        if self.wants_destinations(situation):
            return A.DRAW_DESTINATIONS
        draw = self.pick(situation, first=True)
        if draw is not None:
            self._first_pick, self._first_pick_turn = situation, view.turn
            return draw
        return self.fallback(view)

    def second_pick(self, view: SeatView) -> Action:
        situation = self._first_pick
        if situation is not None and self._first_pick_turn == view.turn:
            situation.hand = view.hand  # one card more; what reaches circulation is unchanged
            situation.view = view  # views are copies: the row and deck changed with the pick
        else:
            situation = self.situation(view)
        draw = self.pick(situation, first=False)
        return draw if draw is not None else self.fallback(view)

    def fallback(self, view: SeatView) -> Action:
        """Nothing the plan wants is possible: any legal action, placements first."""
        legal = view.legal_actions()
        for action in legal:
            if isinstance(action, (A.PlaceColumn, A.PlaceThree)):
                return action
        for action in legal:
            if not isinstance(action, A.DrawDestinations):
                return action
        return legal[0]
