"""Strategies that misbehave, for testing that failures are contained."""

import os
import time
from pathlib import Path

from cardgame import actions as A
from sims.deadline import DecisionTimeout
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
        if view.turn < 4:
            time.sleep(0.1)
        return super().turn(view)


GATE = "SIMS_TEST_GATE"


class Gated(Planner):
    """Plays as the planner, but first waits until the file named by $SIMS_TEST_GATE exists,
    writing its process id to ``<gate>.waiting`` while it waits: a run that plays it cannot
    end before the test opens the gate, and the test waits for that file instead of racing
    the clock.

    The decision limit cannot cut the wait short (it is caught), so a game played with the
    gate open is the planner's game whatever the limit and the machine's load.
    """

    def keep_setup(self, view):
        gate = Path(os.environ[GATE])
        while True:
            try:
                if gate.exists():
                    break
                # whole or not at all: a reader never sees a half-written id
                part = Path(f"{gate}.waiting.{os.getpid()}")
                part.write_text(str(os.getpid()))
                os.replace(part, f"{gate}.waiting")
                time.sleep(0.01)
            except DecisionTimeout:
                continue
        return super().keep_setup(view)
