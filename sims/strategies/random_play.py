"""Uniform random play: the baseline every other strategy should beat."""

from __future__ import annotations

from cardgame import Action, KeepDestinations
from cardgame.observation import SeatView

from ..strategy import Strategy


class RandomStrategy(Strategy):
    name = "random"
    intent = "Chooses uniformly among the legal actions: the baseline."
    traits = frozenset({"uniform"})

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
