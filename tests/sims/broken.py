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


# every way a strategy can misbehave: each must give a failed game, never stop a study
class FaceUpText(Planner):
    def turn(self, view):
        return A.DrawFaceUp("0")


class FaceUpFloat(Planner):
    def turn(self, view):
        return A.DrawFaceUp(1.0)


class FaceUpBool(Planner):
    def turn(self, view):
        return A.DrawFaceUp(True)


class KeepNone(Planner):
    def keep_setup(self, view):
        return A.KeepDestinations(None)


class ThreeOutOfRange(Planner):
    def turn(self, view):
        return A.PlaceThree((0, 1, 99))


class ReturnsNone(Planner):
    def turn(self, view):
        return None


class ReturnsJunk(Planner):
    def turn(self, view):
        return "draw from the deck"


class BadInit(Planner):
    def __init__(self, rng, knobs=None):
        raise ValueError("no knobs for me")


class Exits(Planner):
    def turn(self, view):
        raise SystemExit(3)


class ClosesGenerator(Planner):
    def turn(self, view):
        raise GeneratorExit("closed")


class Odd(BaseException):
    pass


class RaisesBase(Planner):
    def turn(self, view):
        raise Odd("odd")


class LoopsForever(Planner):
    def turn(self, view):
        while True:
            pass


class Cheater(Planner):
    """Determined introspection: finds the game state through gc and adds 6 locomotives."""

    def turn(self, view):
        if not getattr(self, "cheated", False):
            self.cheated = True
            find_state(view).hands[view.seat][8] += 6
        return super().turn(view)


class ScoreForger(Planner):
    """Leaves the cards alone but hands itself a reached destination it never reached."""

    def turn(self, view):
        if not getattr(self, "forged", False):
            self.forged = True
            state = find_state(view)
            state.reached[view.seat].append(state.dest_deck.pop())
        return super().turn(view)


def find_state(view):
    """The live GameState, found up the call stack (no view can hide it from frames)."""
    import sys

    from cardgame import GameState

    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, GameState):
                return value
        frame = frame.f_back
    raise LookupError("no game state up the stack")


class SlowInit(Planner):
    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        while True:
            pass


class Sleepy(Planner):
    """Takes a tenth of a second per turn (a blocking C call, not a Python loop)."""

    def turn(self, view):
        import time

        if view.turn < 4:
            time.sleep(0.1)
        return super().turn(view)
