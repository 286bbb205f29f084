"""The SimPy table clock: every decision takes simulated think time.

The model: each decision kind has a mean think time in seconds. A turn (its decisions: a
draw's two picks, a destination draw and its keep) takes the sum of their means times one
lognormal factor (mean 1, spread ``sigma``) drawn from the game's own clock RNG; a round's
resolution adds its own mean to the turn that ends the round. The clock only
measures; it never changes what is decided, so outcomes are identical with it on or off.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, fields
from typing import Any

import simpy

from cardgame import Action, GameState, Phase
from cardgame import actions as A

from .errors import StudyError

# a day per decision; and beyond a spread of 3 the median turn takes a hundredth of its mean
# (past 30 or so the lognormal factor underflows to 0 or overflows: no time at all)
MAX_THINK_SECONDS = 86_400.0
MAX_SIGMA = 3.0


@dataclass(frozen=True)
class ThinkTimes:
    """Mean seconds per decision kind; ``sigma`` is the lognormal spread."""

    setup_keep: float = 40.0
    draw_first: float = 6.0
    draw_second: float = 4.0
    place: float = 10.0
    draw_destinations: float = 5.0
    keep_destinations: float = 20.0
    pass_turn: float = 2.0
    resolution: float = 60.0  # counting destinations at the end of a round, per round
    sigma: float = 0.5

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, where: str = "clock") -> ThinkTimes:
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise StudyError(f"{where}.{key}: unknown think time (known: {sorted(known)})")
            high = MAX_SIGMA if key == "sigma" else MAX_THINK_SECONDS
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= high  # nor nan: TOML has it
            ):
                raise StudyError(
                    f"{where}.{key}: must be a number from 0 to {high:g}, got {value!r}"
                )
            data[key] = float(value)
        return cls(**data)

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


_TURN_FIELDS: dict[type, str] = {
    A.DrawDeck: "draw_first",
    A.DrawFaceUp: "draw_first",
    A.PlaceColumn: "place",
    A.PlaceThree: "place",
    A.DrawDestinations: "draw_destinations",
    A.Pass: "pass_turn",
}


def play_on_clock(
    state: GameState,
    step: Callable[[], tuple[Phase, Action]],
    times: ThinkTimes,
    rng: random.Random,
) -> float:
    """Play ``state`` to the end on a SimPy environment; return the simulated minutes.

    ``step`` makes and applies one decision and returns its phase and action. The table is
    one SimPy process: the seats act in turn, each decision holding the table for its
    think time; each round's resolution holds it too.
    """
    env = simpy.Environment()
    sigma = times.sigma
    shift = -sigma * sigma / 2  # mean of the lognormal factor is 1
    gauss, exp = rng.gauss, math.exp
    turn_means = {kind: getattr(times, name) for kind, name in _TURN_FIELDS.items()}
    phase_means = {
        Phase.SECOND_PICK: times.draw_second,
        Phase.KEEP_DRAWN: times.keep_destinations,
        Phase.SETUP_KEEP: times.setup_keep,
    }
    over, setup, turn_phase = Phase.OVER, Phase.SETUP_KEEP, Phase.TURN

    def table() -> Generator[simpy.events.Event, Any, None]:
        round_number = state.round
        while state.phase != over:
            # a turn's decisions (a draw's two picks, a keep) hold the table back to back:
            # one timeout per turn keeps the clock's cost low
            turn = state.turn
            mean = 0.0
            while True:
                phase, action = step()
                mean += turn_means[type(action)] if phase == turn_phase else phase_means[phase]
                if state.turn != turn or state.phase == over or state.phase == setup:
                    break
            if state.round != round_number or state.phase == over:
                round_number = state.round
                mean += times.resolution
            yield env.timeout(mean * exp(gauss(shift, sigma)) if mean > 0 else 0.0)

    env.process(table())
    env.run()
    return env.now / 60.0
