"""Uniform random play: the baseline every other strategy should beat."""

from __future__ import annotations

from dataclasses import dataclass

from cardgame import Action, KeepDestinations
from cardgame.observation import SeatView

from ..strategy import MemoryKnobs, Strategy


@dataclass(frozen=True)
class RandomKnobs(MemoryKnobs):
    """Only the memory knobs: random play never looks at its pile, so they change nothing
    but keep every built-in configurable alike (a ladder may set them on all seats)."""


class RandomStrategy(Strategy):
    name = "random"
    intent = "Chooses uniformly among the legal actions: the baseline."
    traits = frozenset({"uniform"})
    Knobs = RandomKnobs

    def _any(self, view: SeatView) -> Action:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]

    def keep_setup(self, view: SeatView) -> KeepDestinations:
        return self._any(view)  # type: ignore[return-value]

    def keep_drawn(self, view: SeatView) -> KeepDestinations:
        return self._any(view)  # type: ignore[return-value]

    def turn(self, view: SeatView) -> Action:
        return self._any(view)

    def second_pick(self, view: SeatView) -> Action:
        return self._any(view)
