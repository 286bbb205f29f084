"""Planning strategies: count what the destinations still need, place toward it."""

from __future__ import annotations

from dataclasses import dataclass

from .common import Scripted, ScriptedKnobs, Situation


class Planner(Scripted):
    name = "planner"
    intent = (
        "Counts what its destinations still need against circulation, yard and hand; draws "
        "and places toward it; takes new destinations only with a surplus."
    )
    traits = frozenset({"plans", "draws_destinations_when_covered"})


@dataclass(frozen=True)
class ThiefKnobs(ScriptedKnobs):
    steal_bonus: float = 1.5
    min_useful: int = 1


class Thief(Scripted):
    name = "thief"
    intent = "Prefers placements that beat a rival's column and force it to discard."
    traits = frozenset({"steals"})
    Knobs = ThiefKnobs

    def should_place(self, value: float, situation: Situation) -> bool:
        return value >= self.knobs.min_useful
