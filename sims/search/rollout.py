"""Play-outs: finish a (sampled) game with a fast policy per seat and score it.

Engine-agnostic: a play-out needs ``is_over``, ``seat``, ``view(seat)``, ``apply_unchecked``,
``turn``, ``scores`` and ``winners`` of the state, nothing more. ``Seats`` hold the rollout
policies of one play-out; ``engine_for`` picks where a search's worlds are played: on the
Python engine, or (when the native core and the policies' native twins are built and
``cardgame._native.ENGINE`` is native) on a ``NativeState`` whose play-out is one C call.
Both give the same states, rewards and so the same search, bit for bit.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from cardgame import Action
from cardgame.knowledge import Knowledge, sample_world
from cardgame.observation import SeatView
from cardgame.resolution import resolve

from ..strategies.planner import Planner
from ..strategies.random_play import RandomStrategy

# a play-out that has not ended after this many turns is scored on its estimated totals
MAX_PLAYOUT_TURNS = 2000
# score margin (points) that counts as a clear result in the blended reward
MARGIN_SCALE = 20.0

Policy = Callable[[SeatView], Action]


# the rollout policies by name: built-in strategies, so each has a native twin
ROLLOUT_POLICIES: dict[str, Callable[[random.Random], Any]] = {
    "planner": Planner,
    "random": RandomStrategy,
}


def rollout_strategies(name: str, players: int, rng: random.Random) -> list[Any]:
    """Fresh rollout strategies, one per seat (scripted ones keep per-game state; random
    ones share ``rng``)."""
    make = ROLLOUT_POLICIES[name]
    return [make(rng) for _ in range(players)]


def play_out(state: Any, seat_policies: list[Policy], until_turn: int | None = None) -> None:
    """Play ``state`` to its end with one policy per seat, or only until turn ``until_turn``
    (a cut-off: ``reward`` then scores the position with ``estimated_totals``)."""
    view = state.view
    apply = state.apply_unchecked
    limit = MAX_PLAYOUT_TURNS if until_turn is None else min(until_turn, MAX_PLAYOUT_TURNS)
    while not state.is_over:
        if state.turn > limit:
            return
        seat = state.seat
        apply(seat_policies[seat](view(seat)))


def estimated_totals(state: Any) -> list[float]:
    """Each seat's score if its cards still to come were known: destinations reached so far
    (R20), plus the held destinations that its circulation pile, its yard columns and its
    hand could cover together (exact R16 on that pile), minus the held ones they cannot
    (penalties). Big-city bonuses (R21) and cards still to be drawn are left out: a cut-off's
    heuristic, not a score."""
    game = state.game
    destination = game.catalogue.destination
    big = game.big_city_set
    # each field read once: a native state builds a Python list per read
    circulation, hands, held_all, reached_all = (
        state.circulation,
        state.hands,
        state.held,
        state.reached,
    )
    yards = [
        (colour, owner, wagons, locos)
        for colour, (owner, wagons, locos) in enumerate(
            zip(state.yard_owner, state.yard_wagons, state.yard_locos, strict=True)
        )
        if owner >= 0
    ]
    totals = []
    for seat in range(state.players):
        pile = [c + h for c, h in zip(circulation[seat], hands[seat], strict=True)]
        for colour, owner, wagons, locos in yards:
            if owner == seat:
                pile[colour] += wagons
                pile[-1] += locos  # the locomotives: the last count
        held = [destination(d) for d in held_all[seat]]
        got = set(resolve(pile, held, big))
        reached = sum(destination(d).points for d in reached_all[seat])
        totals.append(reached + sum(d.points if d.id in got else -d.points for d in held))
    return totals


def reward(state: Any, seat: int, margin_weight: float) -> float:
    """In [0, 1]: the seat's share of the win, blended with its score margin over the best
    rival (a squashed margin separates good from bad losses when play-outs are few). A game
    cut off before its end is scored on ``estimated_totals``."""
    if state.is_over:
        winners = state.winners
        totals = [s.total for s in state.scores]
    else:
        totals = estimated_totals(state)
        top = max(totals)
        winners = tuple(i for i, t in enumerate(totals) if t == top)
    win = 1.0 / len(winners) if seat in winners else 0.0
    if not margin_weight:
        return win
    mine = totals[seat]
    best_rival = max(t for i, t in enumerate(totals) if i != seat)
    margin = 0.5 + 0.5 * math.tanh((mine - best_rival) / MARGIN_SCALE)
    return (1.0 - margin_weight) * win + margin_weight * margin


class PythonSeats:
    """The rollout policies of one play-out on the Python engine."""

    __slots__ = ("decide",)

    def __init__(self, strategies: list[Any]) -> None:
        self.decide = [s.decide for s in strategies]

    def move(self, state: Any) -> None:
        """The seat to move makes its policy's move."""
        seat = state.seat
        state.apply_unchecked(self.decide[seat](state.view(seat)))

    def play_out(self, state: Any, until_turn: int | None) -> None:
        play_out(state, self.decide, until_turn)


class NativeSeats:
    """The same policies as native twins (``sims._native``): a move decided in C, the
    play-out one C call (``sims._native._match.play_out``) on a ``NativeState``."""

    __slots__ = ("_move", "_play_out", "twins")

    def __init__(
        self,
        twins: list[Any],
        native_play_out: Callable[..., None],
        native_move: Callable[..., None],
    ) -> None:
        self.twins = twins
        self._play_out = native_play_out
        self._move = native_move

    def move(self, state: Any) -> None:
        self._move(state, self.twins)

    def play_out(self, state: Any, until_turn: int | None) -> None:
        self._play_out(state, self.twins, until_turn)


class PythonEngine:
    """Worlds and play-outs on the Python engine (the reference)."""

    name = "python"

    def sampler(self, knowledge: Knowledge, forgotten: int) -> Sampler:
        """Worlds of ``knowledge``: for a seed, a source of the world
        ``sample_world(knowledge, random.Random(seed), forgotten)`` and that rng after it, once
        per call (sampling anew is cheaper than a copy of a Python state)."""

        def worlds(seed: int) -> Worlds:
            def world() -> tuple[Any, random.Random]:
                rng = random.Random(seed)
                return sample_world(knowledge, rng, forgotten), rng

            return world

        return worlds

    @staticmethod
    def legal_count(state: Any) -> int:
        """How many moves the seat to move has."""
        return len(state.legal_actions())

    def seats(self, name: str, players: int, rng: random.Random) -> PythonSeats:
        return PythonSeats(rollout_strategies(name, players, rng))


class NativeEngine:
    """Worlds converted once to ``NativeState`` and played on with native twins."""

    name = "native"

    def __init__(self) -> None:
        from .. import _native
        from .._native._match import play_out as native_play_out
        from .._native._sample import WorldSampler, legal_count, load_rng, move

        self._twins = _native.native_twins

        self._sampler = WorldSampler
        self._play_out = native_play_out
        self._fresh: dict[tuple[str, int], list[Any]] = {}
        self._random: dict[int, list[Any]] = {}
        self._load_rng = load_rng
        self._move = move
        self.legal_count = legal_count  # in C: no actions built

    def sampler(self, knowledge: Knowledge, forgotten: int) -> Sampler:
        """As ``PythonEngine.sampler``, each world sampled in C straight into a
        ``NativeState`` (``sims._native._sample``) once and copied per call (a C copy). The
        rng is a ``SampledRandom``: never drawn from here, the twins copy its state."""
        sampler = self._sampler(knowledge, forgotten)

        def worlds(seed: int) -> Worlds:
            base, rng = sampler.world(seed)

            def world() -> tuple[Any, Any]:
                return base.copy(), rng

            return world

        return worlds

    def _make_twins(self, name: str, strategies: list[Any]) -> list[Any]:
        twins = self._twins(strategies)
        if twins is None:  # every rollout policy is a built-in with a twin
            raise RuntimeError(f"no native twin for the {name!r} rollout policy")
        return twins

    def seats(self, name: str, players: int, rng: Any) -> NativeSeats:
        if name == "random":
            # a random policy keeps no state but its rng: its twins (sharing one rng, as the
            # Python policies share the world's rng) are made once and take each world's
            # rng state in C
            twins = self._random.get(players)
            if twins is None:
                strategies = rollout_strategies(name, players, random.Random(0))
                twins = self._random[players] = self._make_twins(name, strategies)
            self._load_rng(twins, rng)
        else:
            # a scripted policy draws nothing and keeps per-game state: new twins per
            # play-out, from fresh strategies made once (they never decide themselves)
            fresh = self._fresh.get((name, players))
            if fresh is None:
                fresh = self._fresh[name, players] = rollout_strategies(name, players, rng)
            strategies = fresh
            twins = self._make_twins(name, strategies)
        return NativeSeats(twins, self._play_out, self._move)


Worlds = Callable[[], tuple[Any, Any]]  # a world to play on, and its rng
Sampler = Callable[[int], Worlds]  # the worlds of one seed
Engine = PythonEngine | NativeEngine


def engine_for(name: str = "") -> Engine:
    """Where play-outs run: ``name`` (python or native), or by default the native core
    when it is built and in use (``cardgame._native.ENGINE``) and so are the search's
    native modules (the twins, the play-out and the sampler; else Python, as if unbuilt)."""
    if name == "python":
        return PythonEngine()
    if name == "native":
        return NativeEngine()
    from cardgame import _native as core

    if core.ENGINE != "native":
        return PythonEngine()
    try:
        return NativeEngine()
    except ImportError:  # a module of sims/_native not built: the same search in Python
        return PythonEngine()
