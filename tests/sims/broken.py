"""Strategies that misbehave, for testing that failures are contained."""

from cardgame import actions as A
from sims.strategies.planner import Planner


class Raises(Planner):
    def turn(self, view):
        if view.turn > 6:
            raise RuntimeError("boom")
        return super().turn(view)


class Illegal(Planner):
    def turn(self, view):
        return A.COLUMNS[0][10][0]  # 10 purple: never in hand
