"""Yard builders: strategies defined by how they use the rail yard."""

from __future__ import annotations

from dataclasses import dataclass

from cardgame import Action
from cardgame import actions as A
from cardgame.cards import LOCO, NUM_COLOURS
from cardgame.observation import SeatView

from .common import Scripted, ScriptedKnobs, Situation


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
        if card != LOCO and situation.hand[card] >= 2:
            value += 0.5  # grow a column it already holds
        return value

    def best_placement(self, situation: Situation) -> tuple[float, Action | None]:
        value, action = super().best_placement(situation)
        if isinstance(action, A.PlaceThree) and situation.future_turns > 3:
            return 0.0, None  # three single cards are easy prey
        return value, action


@dataclass(frozen=True)
class RusherKnobs(ScriptedKnobs):
    min_useful: int = 0
    extra_cards: int = 10


class Rusher(Scripted):
    name = "rusher"
    intent = "Feeds its circulation pile as fast as it can: places whenever it can."
    traits = frozenset({"places_often"})
    Knobs = RusherKnobs

    def placement_value(self, situation: Situation, colour: int, wagons: int, locos: int) -> float:
        # every card that reaches circulation counts, needed or not
        return super().placement_value(situation, colour, wagons, locos) + 0.1 * (wagons + locos)

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
        if card < NUM_COLOURS and situation.hand[card] == 1 and value == 0.0:
            value = 1.1  # a pair can be placed at once
        return value
