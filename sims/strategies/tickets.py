"""Destination-driven strategies."""

from __future__ import annotations

from dataclasses import dataclass

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
    city_weight: float = 3.0
    card_share: float = 0.5


class BigCity(Scripted):
    name = "big_city"
    intent = "Chases big-city majorities: values destinations by the bonuses they can win."
    # the shared destination_value counts the bonuses a ticket's big cities may win: here
    # with a heavy weight
    traits = frozenset({"big_cities"})
    Knobs = BigCityKnobs
