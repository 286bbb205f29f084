"""Each seat's chance of winning after every turn of a recorded game: the play-out oracle.

The game is replayed position by position (after setup, then after each turn). From the
true state at a position (every hand, pile, yard and destination as they were) ``K`` games
are played out by built-in strategies; only what nobody at the table has seen is drawn anew
for each: the order of the train deck, of the unseen part of the destination deck and of
later rounds' shuffles. A seat's chance is its mean share of the win over the play-outs (a
shared win counts 1/k to each winner), with the play-outs' standard error. The play-outs
are seeded from the record's seed and the position, so the same record gives the same
figures on either engine (the native core plays them when built: docs/native-core.md).

A record of an unfinished game (``cardgame play --human`` stopped with ``q``) replays
here too: the record format without ``final`` and ``result`` (docs/viewer.md).

``chance_table`` is the fast alternative: the learned standing model (sims/standing.py),
which knows who plays each seat (its strategy's terms at the table's player count), in
microseconds a position; the quality metrics and the viewer's model curve use it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from cardgame import Game, GameState, KeepDestinations, Rules
from cardgame import record as rec
from cardgame.catalogue import Catalogue
from cardgame.errors import CardgameError, IllegalActionError, RecordError
from cardgame.record import decisions, record_catalogue, shuffle_orders
from cardgame.record_schema import FORMAT, TRAIN_KINDS, VERSION, rules_dict, validate
from cardgame.shuffling import SeedCheckedShuffles, SeededShuffles
from cardgame.state import SETUP_KEEP

from .errors import UnknownStrategyError
from .search.rollout import play_out, reward
from .seeding import stream_seed
from .standing import StandingModel, shipped_model, standing
from .strategy import Strategy, StrategySpec, strategy_class

DEFAULT_PLAYOUTS = 64
SWING = 0.10  # a change of win chance this large (and beyond the noise) is a swing
FALLBACK_POLICY = "planner"

# ------------------------------------------------------------------ positions of a record


@dataclass(frozen=True)
class Snapshot:
    """The whole table at one moment (hidden parts included), as a viewer draws it."""

    round: int
    hands: tuple[tuple[int, ...], ...]
    circulation: tuple[tuple[int, ...], ...]
    yard_owner: tuple[int, ...]
    yard_wagons: tuple[int, ...]
    yard_locos: tuple[int, ...]
    face_up: tuple[int, ...]
    deck_size: int
    discard: tuple[int, ...]
    destination_deck_size: int
    held: tuple[tuple[int, ...], ...]
    reached: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, state: GameState) -> Snapshot:
        return cls(
            state.round,
            tuple(map(tuple, state.hands)),
            tuple(map(tuple, state.circulation)),
            tuple(state.yard_owner),
            tuple(state.yard_wagons),
            tuple(state.yard_locos),
            tuple(state.face_up),
            len(state.deck),
            tuple(state.discard),
            len(state.dest_deck),
            tuple(map(tuple, state.held)),
            tuple(map(tuple, state.reached)),
        )


@dataclass(frozen=True)
class Position:
    """One position of a replayed game: 0 after setup, ``t`` after turn ``t``.

    ``table`` is the table the moment the turn ended (before the next seat's step 1 or the
    round's resolution: what the turn did); ``state`` is the replay at the next decision,
    live: read it, never change it (the next position continues from it)."""

    index: int
    table: Snapshot
    state: GameState
    turn: dict[str, Any] | None


class _TurnLog(list[Any]):
    """The state's list of turn records, taking a snapshot as each turn is appended: the
    engine appends a turn the moment it ends (as ``record.turn_tables`` relies on too)."""

    def __init__(self, state: GameState) -> None:
        super().__init__()
        self.state = state
        self.tables: list[Snapshot] = []

    def append(self, turn: Any) -> None:
        super().append(turn)
        self.tables.append(Snapshot.of(self.state))


_PLACEHOLDERS: dict[str, Any] = {
    "final": {"face_up": [], "hands": []},
    "result": {
        "scores": [],
        "round_points": [],
        "winners": [],
        "turns": 0,
        "steals": [],
        "stolen_from": [],
    },
}


def is_unfinished(record: Any) -> bool:
    """Whether ``record`` is an unfinished game's (no ``final``, no ``result``)."""
    return isinstance(record, dict) and not any(key in record for key in _PLACEHOLDERS)


def unfinished_record(state: GameState, strategies: Sequence[str]) -> dict[str, Any]:
    """The record of a game stopped before its end: every key of a record but ``final``
    and ``result``, turns up to the last one finished, with its own digest."""
    if state.record is None:
        raise RecordError("this game was played without recording (new_state(record=True))")
    content = {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules_dict(state.rules, state.players),
        "seed": state.game.seed,
        "players": state.players,
        "strategies": list(strategies),
        **{key: _copy(value) for key, value in state.record.items()},
    }
    content["digest"] = rec.digest_of(content)
    return content


def _copy(value: Any) -> Any:
    """A plain JSON copy (the turn log is a list subclass while replaying)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def check_record(record: Any, catalogue: Catalogue | None = None) -> Rules:
    """Check a record before it is shown; return its rules. A finished game must replay to
    every field and its digest (``record.replay``); an unfinished one is checked for shape
    here and turn by turn, against its seed and digest, by ``positions``."""
    if is_unfinished(record):
        rules = validate({**record, **_PLACEHOLDERS})
        if rec.digest_of(record) != record["digest"]:
            raise RecordError("digest: the unfinished record was edited after it was written")
        return rules
    result = rec.replay(record, catalogue)
    if not result.ok:
        raise RecordError(f"the record does not replay: {result.divergence}")
    return Rules.from_dict(record["rules"])


def positions(
    record: dict[str, Any], catalogue: Catalogue | None = None, checked: bool = False
) -> Iterator[Position]:
    """Replay a record position by position, after ``check_record`` (``checked``: the
    caller has just done it). An unfinished record stopped before every seat kept its
    destinations has no position."""
    rules = Rules.from_dict(record["rules"]) if checked else check_record(record, catalogue)
    try:
        yield from _positions(record, rules, record_catalogue(record, catalogue))
    except RecordError:
        raise
    except CardgameError as exc:
        raise RecordError(f"record does not replay: {exc}") from None


def _positions(record: dict[str, Any], rules: Rules, catalogue: Catalogue) -> Iterator[Position]:
    game = Game(record["players"], record["seed"], rules, catalogue)
    shuffles = SeedCheckedShuffles(shuffle_orders(record, catalogue.card_names), record["seed"])
    state = game.new_state(record=True, shuffles=shuffles)
    log = _TurnLog(state)
    state.record["turns"] = log  # type: ignore[index]
    for index, kept in enumerate(record["setup"]["kept"]):
        try:
            state.apply(KeepDestinations(tuple(kept)))
        except IllegalActionError as exc:
            raise RecordError(f"does not replay: setup.kept[{index}]: {exc}") from None
    if state.phase == SETUP_KEEP:
        _check_unfinished(record, state, shuffles)
        return
    yield Position(0, Snapshot.of(state), state, None)
    for index, turn in enumerate(record["turns"]):
        if state.is_over:
            raise RecordError(f"does not replay: turns[{index}]: the game ended before it")
        try:
            for action in decisions(turn, catalogue.colours):
                state.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"does not replay: turn {index + 1}: {exc}") from None
        if len(log) <= index:
            raise RecordError(f"does not replay: turn {index + 1}: its decisions do not end it")
        found = rec.first_difference(log[index], turn, f"turns[{index}]")
        if found:
            raise RecordError(f"does not replay: {found}")
        yield Position(index + 1, log.tables[index], state, turn)
    _check_unfinished(record, state, shuffles)


def _check_unfinished(
    record: dict[str, Any], state: GameState, shuffles: SeedCheckedShuffles
) -> None:
    """The fields of an unfinished record that no turn holds: the deals, the resolutions
    and every shuffle (which the seed must give)."""
    if not is_unfinished(record):
        return  # a finished record was checked whole by record.replay
    expected = _copy(state.record)
    names = state.game.catalogue.card_names
    expected["shuffles"] = [
        {
            "kind": kind,
            "order": [names[c] for c in order] if kind in TRAIN_KINDS else order,
        }
        for kind, order in shuffles.seeded
    ]
    recorded = {key: record[key] for key in expected}
    found = rec.first_difference(expected, recorded)
    if found:
        raise RecordError(f"does not replay: {found}")


# ------------------------------------------------------------------ the play-outs


@dataclass(frozen=True)
class Chance:
    """Each seat's chance of winning at one position, with its standard error (0 when the
    game is over: the result itself)."""

    index: int
    chance: tuple[float, ...]
    stderr: tuple[float, ...]


@dataclass(frozen=True)
class Swing:
    """A change of a seat's chance between two positions larger than ``SWING`` and than
    twice its standard error (the noise of two independent estimates)."""

    index: int  # the position after the turn that made the change
    seat: int
    change: float
    noise: float  # two standard errors of the change


def builtin_policies() -> dict[str, type[Strategy]]:
    """The scripted built-in strategies, by name: they can play a play-out (the search
    player is far too slow for it)."""
    from .strategy import registered

    return {
        name: cls
        for name, cls in registered().items()
        if cls.__module__.startswith(f"{__package__}.strategies.")
    }


def playout_policies(strategies: Sequence[str], policy: str | None = None) -> list[str]:
    """Who plays each seat in the play-outs: ``policy`` for every seat if given, else the
    seat's recorded strategy when it is a scripted built-in, else ``FALLBACK_POLICY``."""
    known = builtin_policies()
    if policy is not None:
        strategy_class(policy)  # an unknown name is one clear line
        if policy not in known:
            raise UnknownStrategyError(
                f"play-out policy {policy!r}: choose a built-in: {', '.join(known)}"
            )
        return [policy] * len(strategies)
    return [name if name in known else FALLBACK_POLICY for name in strategies]


def _world(state: GameState, rng: random.Random, unseen: int) -> GameState:
    """The true state with everything no seat has seen put in a new random order: the
    train deck, the top ``unseen`` cards of the destination deck (those under them were put
    back in a known order, R13), and the shuffles of later rounds (R19)."""
    world = state.position(SeededShuffles(rng.getrandbits(64)))
    rng.shuffle(world.deck)
    dest = world.dest_deck
    if unseen > 1:
        top = dest[len(dest) - unseen :]
        rng.shuffle(top)
        dest[len(dest) - unseen :] = top
    return world


def _unseen_destination_count(state: GameState) -> int:
    """How many cards on top of the destination deck no seat has seen in order: the deck
    reshuffled after the setup keeps (R5), less every card drawn since (R13 puts the
    returned ones under it, so draws take the unseen cards first)."""
    record = state.record
    if record is None:
        return len(state.dest_deck)  # no history: the whole deck counts as unseen
    reshuffled = len(state.game.catalogue.destinations) - sum(map(len, record["setup"]["kept"]))
    drawn = sum(len(t["destinations"]["drawn"]) for t in record["turns"] if "destinations" in t)
    return max(0, min(len(state.dest_deck), reshuffled - drawn))


class _Engine:
    """Plays one world out with fresh strategies: in C when the native core and the
    strategies' twins are built and in use, else on the Python engine (the same game)."""

    def __init__(self, name: str = "auto") -> None:
        self.name = "python"
        self._native: tuple[Any, Any, Any] | None = None
        if name == "python":
            return
        from cardgame import _native as core

        if core.ENGINE != "native":
            return
        try:
            from cardgame._native._core import NativeState

            from ._native import native_twins
            from ._native._match import play_out as native_play_out
        except ImportError:  # a module of sims/_native not built: the same games in Python
            return
        self._native = (NativeState, native_twins, native_play_out)
        self.name = "native"

    def play(self, world: GameState, strategies: list[Strategy]) -> Any:
        """The finished (or, past the turn limit, cut-off) game."""
        if self._native is not None:
            native_state, twins_of, native_play_out = self._native
            twins = twins_of(strategies)
            if twins is not None:
                state = native_state.from_state(world)
                native_play_out(state, twins)
                return state
        play_out(world, [s.decide for s in strategies])
        return world


def estimate(
    state: GameState,
    policies: Sequence[str],
    playouts: int,
    seed: str,
    engine: _Engine | None = None,
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Each seat's mean win share over ``playouts`` play-outs from ``state`` (left as it
    is), and its standard error; the result itself once the game is over."""
    players = state.players
    if state.is_over:
        return tuple(reward(state, s, 0.0) for s in range(players)), (0.0,) * players
    engine = engine or _Engine()
    classes = [strategy_class(name) for name in policies]
    unseen = _unseen_destination_count(state)
    rng = random.Random(seed)
    sums = [0.0] * players
    squares = [0.0] * players
    for _ in range(playouts):
        world = _world(state, rng, unseen)
        strategies = [cls(random.Random(rng.getrandbits(64))) for cls in classes]
        finished = engine.play(world, strategies)
        for seat in range(players):
            share = reward(finished, seat, 0.0)
            sums[seat] += share
            squares[seat] += share * share
    means = tuple(total / playouts for total in sums)
    errors = tuple(
        math.sqrt(max(0.0, sq / playouts - m * m) / max(1, playouts - 1))
        for sq, m in zip(squares, means, strict=True)
    )
    return means, errors


def position_seed(record_seed: int, index: int) -> str:
    """The play-outs' seed at a position: the record's seed and the position, nothing else."""
    return stream_seed(record_seed, f"winchance:{index}")


class Oracle:
    """The play-outs for one record: who plays each seat out (``playout_policies``), how
    many play-outs a position, on which engine ("auto": native when built)."""

    def __init__(
        self,
        record: dict[str, Any],
        playouts: int = DEFAULT_PLAYOUTS,
        policy: str | None = None,
        engine: str = "auto",
    ) -> None:
        if playouts < 1:
            raise RecordError(f"play-outs: need at least 1, got {playouts}")
        self.seed = record["seed"]
        self.playouts = playouts
        self.policies = playout_policies(record["strategies"], policy)
        self._engine = _Engine(engine)
        self.engine = self._engine.name

    def at(self, position: Position) -> Chance:
        """Each seat's chance at ``position`` (seeded by the record's seed and the position)."""
        seed = position_seed(self.seed, position.index)
        chance, error = estimate(position.state, self.policies, self.playouts, seed, self._engine)
        return Chance(position.index, chance, error)


def swings(chances: Sequence[Chance], threshold: float = SWING) -> list[Swing]:
    """Changes between consecutive positions of at least ``threshold`` that exceed two
    standard errors of the change (independent play-outs at each position)."""
    found = []
    for before, after in pairwise(chances):
        for seat, (p0, p1) in enumerate(zip(before.chance, after.chance, strict=True)):
            change = p1 - p0
            noise = 2 * math.hypot(before.stderr[seat], after.stderr[seat])
            if abs(change) >= threshold and abs(change) > noise:
                found.append(Swing(after.index, seat, change, noise))
    return found


# ------------------------------------------------------------------ the learned model


CHANCE_COLUMNS = ("position", "seat", "strategy", "chance")


def chance_table(
    record: dict[str, Any],
    catalogue: Catalogue | None = None,
    strategies: Mapping[str, StrategySpec] | None = None,
    strengths: Mapping[str, float] | None = None,
    model: StandingModel | None = None,
) -> pd.DataFrame:
    """Each seat's chance of winning at every position of a recorded game (checked first),
    by the learned standing model with its strategy terms: one row per (position, seat),
    positions numbered as ``positions`` numbers them, ``strategy`` the record's label.

    A seat's strategy is found from its label: ``strategies`` (label -> spec, a study's
    configured strategies) first, then the model's own names and aliases; a strategy the
    model does not know is neutral (the trained pool's average) unless ``strengths`` gives
    its strength (log-odds, e.g. ``sims.standing.strength_from_share`` of its win share in
    a study's own games). The last position of a finished game is its result (a shared
    win split evenly), as in the quality metrics. The same record gives the same table
    whichever engine played it (a pure function of the record)."""
    model = model or shipped_model()
    labels = list(record["strategies"])
    given = strategies or {}
    seats = [given.get(label, label) for label in labels]
    terms = model.terms(seats, strengths)
    features, over = [], None
    for position in positions(record, catalogue):
        features.append(standing(position.state))
        if position.state.is_over:
            over = list(position.state.winners)
    players = len(labels)
    if not features:
        chances = np.zeros((0, players))
    else:
        chances = model.chances_many(np.asarray(features, dtype=float), terms)
    if over is not None and len(chances):
        chances[-1] = [1.0 / len(over) if s in over else 0.0 for s in range(players)]
    count = len(chances)
    return pd.DataFrame(
        {
            "position": np.repeat(np.arange(count), players),
            "seat": np.tile(np.arange(players), count),
            "strategy": pd.Categorical(
                np.tile(labels, count) if count else [], categories=list(dict.fromkeys(labels))
            ),
            "chance": chances.ravel(),
        },
        columns=list(CHANCE_COLUMNS),
    )
