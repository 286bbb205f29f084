"""Yard builders: strategies defined by how they use the rail yard."""

from __future__ import annotations

from dataclasses import dataclass

from cardgame import Action
from cardgame import actions as A
from cardgame.actions import cards_to_beat
from cardgame.layout import MIN_COLUMN, NOBODY
from cardgame.observation import SeatView

from .common import HOARD_VALUE, LATE_TURNS, RUSH_PAIR_VALUE, Scripted, ScriptedKnobs, Situation


@dataclass(frozen=True)
class HoarderKnobs(ScriptedKnobs):
    min_column: int = 4
    extra_cards: int = 3


class Hoarder(Scripted):
    name = "hoarder"
    intent = "Collects cards and places long columns that resist steals."
    traits = frozenset({"long_columns"})
    Knobs = HoarderKnobs

    def card_value(self, situation: Situation, card: int) -> float:
        value = super().card_value(situation, card)
        if card != situation.colours and situation.hand[card] >= 2:
            value += HOARD_VALUE  # grow a column it already holds
        return value

    def best_placement(self, situation: Situation) -> tuple[float, Action | None]:
        value, action = super().best_placement(situation)
        if isinstance(action, A.PlaceThree) and situation.future_turns > LATE_TURNS:
            return 0.0, None  # three single cards are easy prey
        return value, action


@dataclass(frozen=True)
class RusherKnobs(ScriptedKnobs):
    column_value: float = 1.0  # value of each new column: one more card per turn flows


class Rusher(Scripted):
    name = "rusher"
    intent = "Feeds its circulation pile as fast as it can: places every card it can, at once."
    traits = frozenset({"feeds_circulation"})
    Knobs = RusherKnobs
    knobs: RusherKnobs

    def best_placement(self, situation: Situation) -> tuple[float, Action | None]:
        """The placement that moves the most cards out of the hand (locomotives too)."""
        hand = situation.hand
        locos = hand[situation.colours]
        best: tuple[float, Action | None] = (0.0, None)
        free = []
        for c in range(situation.colours):
            have = hand[c]
            if not have or not situation.can_place_colour(c):
                continue
            if situation.owner[c] == NOBODY:
                free.append(c)
            need_size = max(MIN_COLUMN, cards_to_beat(situation.rival_size(c)))  # R12
            if have + locos >= need_size:
                value = have + locos + self.knobs.column_value
                if value > best[0]:
                    best = (value, A.COLUMNS[c][have][locos])
        if len(free) >= 3:
            first, second, third = sorted(sorted(free, key=lambda c: -situation.deficit[c])[:3])
            value = 3 + 3 * self.knobs.column_value
            if value > best[0]:
                best = (value, A.THREES[first, second, third])
        return best

    def turn(self, view: SeatView) -> Action:
        situation = self.situation(view)
        _, placement = self.best_placement(situation)
        if placement is not None and situation.future_turns > 0:
            return placement
        if self.wants_destinations(situation):
            return A.DRAW_DESTINATIONS
        draw = self.pick(situation, first=True)
        return draw if draw is not None else self.fallback(view)

    def card_value(self, situation: Situation, card: int) -> float:
        value = super().card_value(situation, card)
        if card < situation.colours and situation.hand[card] == 1 and value == 0.0:
            value = RUSH_PAIR_VALUE  # a pair can be placed at once
        return value
