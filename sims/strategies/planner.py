"""Planning strategies: count what the destinations still need, place toward it."""

from __future__ import annotations

from dataclasses import dataclass

from .common import Scripted, ScriptedKnobs, Situation


@dataclass(frozen=True)
class PlannerKnobs(ScriptedKnobs):
    """The shared knobs: a planner counts big-city bonuses at their expected worth."""


class Planner(Scripted):
    name = "planner"
    intent = (
        "Counts what its destinations still need against circulation, yard and hand; draws "
        "and places toward it; takes new destinations only with a surplus."
    )
    traits = frozenset({"plans", "draws_destinations_when_covered"})
    Knobs = PlannerKnobs


@dataclass(frozen=True)
class ThiefKnobs(ScriptedKnobs):
    steal_bonus: float = 3.0  # value per card the rival must discard
    min_useful: int = 1
    hunt_value: float = 1.4  # value of a card that helps beat a rival's column


class Thief(Scripted):
    name = "thief"
    intent = "Prefers placements that beat a rival's column and force it to discard."
    traits = frozenset({"steals"})
    Knobs = ThiefKnobs
    knobs: ThiefKnobs

    def card_value(self, situation: Situation, card: int) -> float:
        value = super().card_value(situation, card)
        if card < situation.colours and situation.rival_size(card) >= 2:
            value = max(value, self.knobs.hunt_value)  # gather ammunition against that column
        return value
