"""Destination-driven strategies."""

from __future__ import annotations

from dataclasses import dataclass

from cardgame import Destination
from cardgame.observation import SeatView

from .common import Scripted, ScriptedKnobs, Situation


@dataclass(frozen=True)
class TicketHunterKnobs(ScriptedKnobs):
    ticket_turns: int = 2
    card_share: float = 0.35
    slack: int = 2  # draws destinations while missing at most this many cards


class TicketHunter(Scripted):
    name = "ticket_hunter"
    intent = "Draws destinations often and keeps those its cards can cover."
    traits = frozenset({"draws_destinations_often"})
    Knobs = TicketHunterKnobs
    knobs: TicketHunterKnobs

    def wants_destinations(self, situation: Situation) -> bool:
        view = situation.view
        return (
            view.destination_deck_size > 0
            and situation.missing <= self.knobs.slack
            and situation.future_turns >= self.knobs.ticket_turns
            and view.turn >= self._pause_until
        )


@dataclass(frozen=True)
class BigCityKnobs(ScriptedKnobs):
    city_bonus: float = 16.0
    card_share: float = 0.5


class BigCity(Scripted):
    name = "big_city"
    intent = "Chases big-city majorities: values destinations by the bonuses they can win."
    traits = frozenset({"big_cities"})
    Knobs = BigCityKnobs

    def destination_value(self, dest: Destination, view: SeatView) -> float:
        names = sum(1 for city in dest.cities if city in view.big_cities)
        return dest.points + self.knobs.city_bonus * names
