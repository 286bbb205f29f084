"""One game between configured strategies, played on the table clock, as tidy rows.

Nothing a strategy does stops the study: a constructor or decision that raises (any
exception but KeyboardInterrupt, SystemExit included), returns junk or an illegal action, or
runs past the time limit per decision; and a finished game whose cards, yards, destinations
or scores do not add up. Each gives a failed game naming the seat, the strategy and the
error (seat -1 when a broken invariant cannot be blamed on one seat).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pyarrow as pa

from cardgame import (
    Action,
    Catalogue,
    Game,
    GameState,
    IllegalActionError,
    KeepDestinations,
    Phase,
    Rules,
)
from cardgame.errors import one_line
from cardgame.knowledge import KnowledgeTracker
from cardgame.record import to_record
from cardgame.state import KEEP_DRAWN, SETUP_KEEP

from .clock import ThinkTimes, play_on_clock
from .deadline import DEFAULT_DECISION_SECONDS, DecisionTimeout, Guard, guard
from .errors import ResultsError, UnknownStrategyError, brief_repr, describe_error
from .guest import GuestError, GuestLost, GuestStrategy, finish_guests, is_guest, prepare
from .invariants import invariant_problem
from .plan import Isolation
from .quality import COMEBACK_FLOOR, DECISIVE, Quality, quality
from .rows import NATIVE_TABLES, TableRows
from .schema import schema
from .seeding import guest_stream_seed, new_guest_key, stream_seed
from .standing import FEATURES, PROGRESS, points_now, shipped_model, standing
from .strategy import Strategy, StrategySpec, make_knobs, strategy_class

QUALITY_FIELDS = tuple(field.name for field in dataclasses.fields(Quality))
# Only train draws bring the end nearer: strategies that never draw could play forever.
MAX_TURNS = 2000
MAX_ERROR = 300  # characters of a failure message kept in the games table
LOST_TRIES = 2  # plays of a game whose guest is ended from outside, before it is the machine's


@dataclass(frozen=True)
class GameSpec:
    """Everything that fixes one game of a study."""

    study: str
    cell: str
    variant: str
    rules: Rules
    players: int
    seats: tuple[StrategySpec, ...]  # in seat order
    index: int
    seed: int
    isolation: Isolation = Isolation.NONE
    catalogue: Catalogue | None = None  # the cards (a study's edits); None: the printed ones
    guest_key: str = ""  # the run's secret for isolated guests' streams (seeding.guest_key)

    def game(self) -> Game:
        """The game this spec fixes (before any decision)."""
        return table_game(self.players, self.seed, self.rules, self.catalogue)


def table_game(players: int, seed: int, rules: Rules, catalogue: Catalogue | None) -> Game:
    """The game of a table (``catalogue`` None: the printed cards) dealt from ``seed``."""
    if catalogue is None:
        return Game(players, seed, rules)
    return Game(players, seed, rules, catalogue)


@dataclass
class GameOutcome:
    game: dict[str, Any] | None  # None: the rows are in the batch's native columns
    seats: list[dict[str, Any]] = field(default_factory=list)
    destinations: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None
    quality: dict[str, Any] | None = None  # a finished game's quality row, when asked for


class StrategyFailure(Exception):
    """A seat's strategy misbehaved, or the game broke an invariant (seat -1).

    The args are kept: SimPy re-raises an exception as ``type(exc)(*exc.args)``.
    """

    def __init__(self, seat: int, label: str, error: str) -> None:
        super().__init__(seat, label, error)
        self.seat, self.label, self.error = seat, label, _one_line(error)

    def __str__(self) -> str:
        return self.error


def play_game(
    spec: GameSpec,
    times: ThinkTimes | None = None,
    record: bool = False,
    decision_seconds: float = DEFAULT_DECISION_SECONDS,
    engine: str = "auto",
    quality: bool = False,
    tables: Mapping[str, TableRows] | None = None,
    steady: bool = False,
) -> GameOutcome:
    """Play one game; ``times=None`` plays without the clock (for measuring its overhead).

    ``decision_seconds`` is the wall-clock limit of each decision (0: none). ``engine``
    "auto" or "native" plays a line-up of built-in strategies on the native core when it is
    built (the same game, bit for bit); "python", or any other line-up, plays here.
    ``quality``: the outcome's quality row too (sims/quality.py), from each seat's chance
    estimated by the learned model (sims/standing.py) at every position.
    ``tables``: a batch's rows; a game finished on the native core writes its rows there
    itself and hands back an outcome whose ``game`` is None.
    ``steady``: in a game with an isolated guest every seat's decision takes the whole limit
    (``[limits] steady``). A guest's process runs only while its seat decides wherever
    decisions have a limit, steady or not.
    """
    guests = spec.isolation == Isolation.PROCESS and any(map(is_guest, spec.seats))
    if engine != "python" and not guests:  # a guest's module is never imported here
        outcome = _play_native(spec, times, record, quality, tables)
        if outcome is not None:
            return outcome
    if not guests:
        return _play_here(spec, times, record, decision_seconds, quality, steady)
    for _ in range(LOST_TRIES - 1):
        try:
            return _play_here(spec, times, record, decision_seconds, quality, steady)
        except GuestLost:  # ended from outside: the machine's fault, so the game again
            pass
    try:
        return _play_here(spec, times, record, decision_seconds, quality, steady)
    except GuestLost as lost:
        failure = StrategyFailure(-1, "", f"a guest's process was ended from outside {LOST_TRIES} "
                                  f"times ({lost}): a fault of the machine")  # fmt: skip
        return GameOutcome(game=game_row(spec, spec.game().new_state(), float("nan"), failure))


def _play_here(
    spec: GameSpec,
    times: ThinkTimes | None,
    record: bool,
    decision_seconds: float,
    quality: bool,
    steady: bool = False,
) -> GameOutcome:
    """``play_game`` on the Python engine; raises ``GuestLost`` when a guest was ended from
    outside its own code (the game is then played again)."""
    guests = spec.isolation == Isolation.PROCESS and any(map(is_guest, spec.seats))
    steady = steady and guests and decision_seconds > 0
    game = spec.game()
    state = game.new_state(record=record)
    limit = guard(decision_seconds, steady)
    minutes = float("nan")
    strategies: list[Strategy] = []
    try:
        if guests:
            _prepare_hosts(spec, decision_seconds)
        for seat in range(spec.players):
            strategies.append(_build(spec, seat, limit, decision_seconds, steady))
        offers: list[dict[str, Any]] = []
        trackers = _trackers(state, strategies)
        step = _stepper(spec, state, strategies, limit, offers, trackers)
        positions = Positions(state) if quality else None
        if positions is not None:
            step = positions.watching(step)
        if times is None:
            while not state.is_over:
                step()
        else:
            clock_rng = random.Random(stream_seed(spec.seed, "clock"))
            minutes = play_on_clock(state, step, times, clock_rng)
        problem = invariant_problem(state)
        if problem is not None:
            raise StrategyFailure(-1, "", f"invariant broken: {problem}")
    except DecisionTimeout:  # a late second raise that missed its decision: still over time
        if limit is not None:
            limit.leave()
        failure = StrategyFailure(state.seat, _label(spec, state.seat), _over(limit))
        return GameOutcome(game=game_row(spec, state, minutes, failure))
    except StrategyFailure as failure:
        return GameOutcome(game=game_row(spec, state, minutes, failure))
    finally:
        if guests:
            finish_guests(strategies)
    features = positions.features if positions is not None else None
    return _finished(spec, state, minutes, offers, record, features)


def _finished(
    spec: GameSpec,
    state: GameState,
    minutes: float,
    offers: list[dict[str, Any]],
    record: bool,
    features: list[Any] | None = None,
) -> GameOutcome:
    """The rows (and record) of a game played to its end, on either engine's final state;
    its quality row when ``features`` holds each position's (``Positions``)."""
    outcome = GameOutcome(
        game=game_row(spec, state, minutes, None),
        seats=_seat_rows(spec, state),
        destinations=_destination_rows(spec, state, offers),
    )
    if record:
        outcome.record = to_record(state, [s.label for s in spec.seats])
    if features is not None:
        outcome.quality = quality_row(spec, state, features)
    return outcome


class Positions:
    """Each seat's standing (sims/standing.py) at every position of a game played here:
    after setup, then after each turn (the positions of ``sims.winchance.positions``: the
    state at the next decision), the last one the finished game."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.turn = state.turn
        self.features: list[Any] = []

    def watching(self, step: Any) -> Any:
        """``step`` (one decision), noting the position whenever a turn has ended."""

        def watched() -> Any:
            done = step()
            state = self.state
            if state.turn != self.turn or state.is_over:
                self.turn = state.turn
                self.features.append(standing(state))
            return done

        return watched


def quality_row(spec: GameSpec, state: GameState, positions: list[Any]) -> dict[str, Any]:
    """The quality table's row of a finished game: the model's chance of each seat at every
    position but the last, which is the result itself (a shared win split evenly)."""
    scores = [score.total for score in state.scores]
    return _quality_row(spec, list(state.winners), scores, positions)


def _quality_row(
    spec: GameSpec, winners: list[int], scores: list[int], positions: list[Any]
) -> dict[str, Any]:
    """``quality_row`` from the result alone (the winning seats, each seat's final total):
    what a game finished on the native core hands over without a ``GameState``. Each
    seat's chance knows its strategy (the model's strategy terms, ``StandingModel.terms``:
    a strategy the model does not know is neutral)."""
    features = np.asarray(positions, dtype=float)
    model = shipped_model()
    chances = model.chances_many(features, model.terms(spec.seats))
    chances[-1] = [1.0 / len(winners) if s in winners else 0.0 for s in range(spec.players)]
    points = points_now(features)
    points[-1] = scores
    measured = quality(chances, winners, points, scores)
    return {**_base(spec), **{name: getattr(measured, name) for name in QUALITY_FIELDS}}


def batch_quality_table(
    base: tuple[str, str, str, int],
    features: bytes,
    games: list[tuple[int, int, int, tuple[str, ...], list[int], list[int]]],
    seats: Mapping[str, StrategySpec],
) -> pa.Table:
    """The quality rows of a batch's finished games in one pass, in the results schema: the
    very rows ``_quality_row`` makes game by game (tests/sims/test_quality_native.py).
    ``base`` is (study, cell, variant, players), ``features`` every noted position's standing
    of the games one after another (``_standing.Standings``), ``games`` each game's (index,
    seed, the end of its positions, its seats' labels in order, winners, final totals) and
    ``seats`` each label's strategy. The chances are ``StandingModel.chances_many``'s on all
    positions at once: numpy's product with the weights (one small product a position, as
    the game-by-game path makes it: its floats depend on how BLAS sums) and ``exp``, the
    rest in C; the metrics are the native kernel's (``_quality.qualities``: numpy's sums in
    numpy's order)."""
    from ._native._quality import normalise, qualities, shift_scores

    study, cell, variant, players = base
    model = shipped_model()
    x = np.frombuffer(features, dtype=float).reshape(-1, players, len(FEATURES))
    ends = np.array([game[2] for game in games], dtype=np.int64)
    terms: dict[tuple[str, ...], np.ndarray] = {}
    for game in games:
        if game[3] not in terms:
            terms[game[3]] = model.terms([seats[label] for label in game[3]])
    per_game = np.array([terms[game[3]] for game in games]).reshape(len(games), players, 2)
    # model.chances_many with each game's terms: numpy's product and exp, the rest in C
    chances = x @ model.weights
    shift_scores(chances, x, per_game, ends, PROGRESS)
    chances = np.exp(chances)
    normalise(chances)
    winners = np.array([game[4] + [-1] * (players - len(game[4])) for game in games], np.int64)
    scores = np.array([game[5] for game in games], dtype=np.int64).reshape(len(games), players)
    result = [[0.0] * players for _ in games]
    for row, game in zip(result, games, strict=True):
        for seat in game[4]:
            row[seat] = 1.0 / len(game[4])
    chances[ends - 1] = result
    points = points_now(x)
    points[ends - 1] = scores
    measured = qualities(
        chances, points, ends, winners.reshape(len(games), players), scores, DECISIVE,
        COMEBACK_FLOOR,
    )  # fmt: skip
    measured["game_index"] = np.array([game[0] for game in games], dtype=np.int64)
    measured["seed"] = np.array([game[1] for game in games], dtype=np.int64)
    measured["players"] = np.full(len(games), players, dtype=np.int64)
    texts = {"study": study, "cell": cell, "variant": variant}
    arrays = []
    target = schema("quality")
    for column in target:
        if column.name in texts:
            codes = pa.array(np.zeros(len(games), dtype=np.int32))
            arrays.append(pa.DictionaryArray.from_arrays(codes, pa.array([texts[column.name]])))
            continue
        values = measured[column.name]
        missing = values < 0 if column.name == "decisive_at" else None
        if column.name == "decisive_fraction":
            missing = np.isnan(values)
        if missing is not None and missing.any():
            values = np.where(missing, 0, values)  # a null's slot holds 0, as from dict rows
        else:
            missing = None
        try:
            arrays.append(pa.array(values, column.type, mask=missing))
        except (pa.ArrowException, OverflowError) as exc:
            raise ResultsError(
                f"a quality row does not fit the results schema ({column.name}: {exc})"
            ) from None
    return pa.Table.from_arrays(arrays, schema=target)


def _play_native(
    spec: GameSpec,
    times: ThinkTimes | None,
    record: bool,
    quality: bool = False,
    tables: Mapping[str, TableRows] | None = None,
) -> GameOutcome | None:
    """The game played by the native decision loop, or None when it cannot be (not built,
    the engine forced to Python, a seat without a native twin): the caller then plays it.

    A game finished without a record writes its rows straight from the C state into the
    batch's columns (``_rows.add_finished``: no ``GameState`` rebuilt, which cost more than
    the game, and no Python object per value); without ``tables`` it hands back dict rows
    read from one-game columns. A record or a failure takes the Python path's functions on
    the state the core hands back. Either way both paths give the same tables
    (tests/sims/test_native_match.py, tests/sims/test_native_rows.py). The invariant check
    is the Python path's guard against a strategy that reaches the state by introspection;
    native twins are C code that only reads its view, so it is left out here (it reads a
    ``GameState``, which would have to be rebuilt for it)."""
    native = native_loop()
    if native is None:
        return None
    twins = [native.twin(spec, seat) for seat in range(spec.players)]
    if any(t is None for t in twins):
        return None  # a strategy of one's own is never even built here, only under the guard
    start, clock = native.start(spec.game(), times, record)
    positions: list[Any] | None = [] if quality else None  # each position's features, by C
    played, offers, minutes, failed = native.play_native(
        start, twins, clock, positions, offer_rows=record
    )
    if failed is not None:
        return native_failure(spec, played, minutes, failed)
    if record:
        return _finished(spec, played.to_state(), minutes, offers, record, positions)
    outcome = GameOutcome(game=None)
    if positions is not None:  # before the rows: a game that fails here has none
        winners, scores = native.final_scores(played)
        outcome.quality = _quality_row(spec, winners, scores, positions)
    alone = tables is None
    rows = {name: TableRows(name) for name in NATIVE_TABLES} if tables is None else tables
    base = (spec.study, spec.cell, spec.variant, spec.players, spec.index, spec.seed)
    labels = [seat.label for seat in spec.seats]
    # all the game's rows, or none (a failure row takes their place)
    native.add_finished(
        *[rows[name].columns() for name in NATIVE_TABLES], played, base, labels, offers, minutes
    )
    if alone:
        outcome.game = rows["games"].rows()[0]
        outcome.seats = rows["seats"].rows()
        outcome.destinations = rows["destinations"].rows()
    return outcome


def native_failure(
    spec: GameSpec, played: Any, minutes: float, failed: tuple[int, str]
) -> GameOutcome:
    """The failed-game row of a game the native loop stopped: ``failed`` is the seat and
    error ``play_native`` named."""
    seat, error = failed
    failure = StrategyFailure(seat, _label(spec, seat), error)
    return GameOutcome(game=game_row(spec, played.to_state(), minutes, failure))


class _NativeLoop:
    """What the native path needs from the compiled modules, found once, and each seat
    spec's twin, made once per process from a newly built strategy and copied fresh for
    each game (``NativeStrategy.fresh``: building the Python strategy and reading its
    knobs cost more than a C game's set-up)."""

    def __init__(self) -> None:
        from cardgame._native._core import NativeState
        from cardgame._native._record import record_line

        from ._native import native_twin, twin_classes
        from ._native._match import new_timed, play_native
        from ._native._rows import add_finished, final_scores
        from ._native._standing import Standings
        from .strategies.random_play import RandomStrategy

        self.NativeState = NativeState
        self.record_line = record_line  # a finished game's JSONL line, written in C
        self.native_twin = native_twin
        self.play_native = play_native
        self.new_timed = new_timed
        self.add_finished = add_finished
        self.final_scores = final_scores
        self.Standings = Standings  # a batch's positions, noted in C (quality rows)
        self.classes = twin_classes()
        self.seeded = RandomStrategy  # the only built-in whose twin reads its RNG
        self.made: dict[tuple[StrategySpec, tuple[type, ...]], tuple[Any, bool] | None] = {}
        self.unused_rng = random.Random(0)

    def twin(self, spec: GameSpec, seat: int) -> Any:
        """The native twin of the seat's strategy, or None: a class without a twin (a
        strategy of one's own is not even built here), or knobs the twin cannot hold. A
        random twin's RNG is seeded as ``seat_rng`` seeds the strategy's."""
        made = self.prototype(spec.seats[seat])
        if made is None:
            return None
        return self.fresh(made, spec.seed, seat, seat_identity(spec.seats[seat]))

    def fresh(self, made: tuple[Any, bool], game_seed: int, seat: int, identity: str) -> Any:
        """A copy of the twin ``prototype`` made, for one game; a random twin's RNG is
        seeded as ``seat_rng`` seeds the strategy's (``identity``: ``seat_identity``)."""
        twin, seeded = made
        return twin.fresh(seat_stream_seed(game_seed, seat, identity)) if seeded else twin.fresh()

    def start(self, game: Game, times: ThinkTimes | None, record: bool | str = False) -> Any:
        """The game's fresh native state and the clock ``play_native`` takes (None without
        one): the deal's and the clock's generators seeded together in C, the clock exactly
        ``random.Random(stream_seed(seed, "clock"))``. ``record``: True for the record's
        dicts (``to_record``), "log" for its C log (``record_line``)."""
        if times is None:
            return self.NativeState.new(game, record=record), None
        start, clock = self.new_timed(game, stream_seed(game.seed, "clock"), record)
        return start, (times, clock)

    def prototype(self, seat_spec: StrategySpec) -> tuple[Any, bool] | None:
        """The seat spec's twin, never played (``fresh`` copies it for a game), and whether
        it reads its RNG; None when the strategy has no twin."""
        # the knobs' types too: True == 1 and hashes alike, but only 1 is a valid int knob
        key = (seat_spec, tuple(type(value) for _, value in seat_spec.knobs))
        try:
            made = self.made[key]
        except KeyError:
            made = self.made[key] = self._make(seat_spec)
        except TypeError:  # an unhashable knob value: no cache
            made = self._make(seat_spec)
        return made

    def _make(self, seat_spec: StrategySpec) -> tuple[Any, bool] | None:
        """The twin of a newly built strategy of ``seat_spec`` (never played: each game
        gets a fresh copy), and whether its class reads its RNG."""
        try:
            cls = strategy_class(seat_spec.base)
            if cls not in self.classes:
                return None
            knobs = make_knobs(cls, dict(seat_spec.knobs), f"strategy {seat_spec.label!r}")
            prototype = self.native_twin(cls(self.unused_rng, knobs))
        except Exception:  # an unloadable class or bad knobs: the Python path reports it
            return None
        return None if prototype is None else (prototype, cls is self.seeded)


_loop: list[_NativeLoop | None] = []
_engines: list[Any] = []  # cardgame._native, imported once (asked for once a game)


def native_loop() -> _NativeLoop | None:
    """The native decision loop when the core is built and in use (``CARDGAME_ENGINE``),
    else None."""
    if not _engines:
        from cardgame import _native

        _engines.append(_native)
    if _engines[0].ENGINE != "native":
        return None
    if not _loop:
        try:
            _loop.append(_NativeLoop())
        except ImportError:
            _loop.append(None)
    return _loop[0]


def crashed_game(spec: GameSpec, exc: Exception) -> GameOutcome:
    """A failed-game row for a game the simulator itself could not finish (a bug, not a
    strategy's): the batch and its worker go on."""
    failure = StrategyFailure(-1, "", f"internal error: {describe_error(exc)}")
    try:
        state: GameState | None = spec.game().new_state()
    except Exception:
        state = None
    return GameOutcome(game=game_row(spec, state, float("nan"), failure))


def _prepare_hosts(spec: GameSpec, decision_seconds: float) -> None:
    """Start the host of every isolated seat before any seat is built: a host's start (the
    strategy's import: its own code) is never timed, and no seat's process of this game is
    alive while another seat's strategy is imported, to time it."""
    taken: set[str] = set()
    for seat, seat_spec in enumerate(spec.seats):
        if not is_guest(seat_spec):
            continue
        try:
            prepare(seat_spec, decision_seconds, taken)
        except GuestLost:  # its host ended from outside while it started: the machine's
            raise
        except (GuestError, UnknownStrategyError) as exc:
            raise StrategyFailure(seat, seat_spec.label, describe_error(exc)) from None


def _build(
    spec: GameSpec, seat: int, limit: Guard | None, decision_seconds: float, steady: bool = False
) -> Strategy:
    """Seat ``seat``'s strategy, with its own seeded RNG; a failing constructor fails the game.

    Under isolation a strategy of one's own is built in its host's child (sims/guest.py),
    whose host ``_prepare_hosts`` started."""
    seat_spec = spec.seats[seat]
    if spec.isolation == Isolation.PROCESS and is_guest(seat_spec):
        rng = guest_rng(spec, seat)
        game = spec.game()

        def build(rng: random.Random) -> Strategy:
            return GuestStrategy(
                seat_spec,
                rng,
                spec.rules,
                game.catalogue,
                game.big_city_set,
                decision_seconds,
                paused=decision_seconds > 0,  # between its decisions: no rival starved
                steady=steady,
            )

        return _guarded(spec, seat, limit, build, rng)
    built = _guarded(spec, seat, limit, seat_spec.build, seat_rng(spec, seat))
    if not isinstance(built, Strategy):
        raise StrategyFailure(seat, seat_spec.label, f"built {brief_repr(built)}, not a Strategy")
    return built


def seat_rng(spec: GameSpec, seat: int) -> random.Random:
    """The seat's strategy's own RNG: seeded by the game, the seat and what the strategy is
    (``seat_identity``), nothing else."""
    return random.Random(seat_seed(spec, seat))


def guest_rng(spec: GameSpec, seat: int) -> random.Random:
    """An isolated guest's RNG: keyed by the run's secret (``GameSpec.guest_key``), so that
    nothing it can learn of its stream leads back to the game's seed and the deal. A spec
    without a key (a game played outside a run) takes this process's own."""
    key = spec.guest_key or _process_key()
    return random.Random(guest_stream_seed(key, seat_seed(spec, seat)))


_keys: list[str] = []


def _process_key() -> str:
    if not _keys:
        _keys.append(new_guest_key())
    return _keys[0]


def seat_seed(spec: GameSpec, seat: int) -> str:
    """The seed of ``seat_rng``."""
    return seat_stream_seed(spec.seed, seat, seat_identity(spec.seats[seat]))


def seat_identity(seat_spec: StrategySpec) -> str:
    """What a seat's random stream knows of its strategy: its base (registered name or
    ``module:Class``), never its label, so two labels of one strategy (a clone) draw the
    same numbers and play the same game on the same deal and seat (docs/data.md). Nor its
    knobs: two settings of one strategy meet the same draws in the same seat (common random
    numbers, as a comparison of knobs wants), and a human memory that recalls everything
    plays perfect memory's game. The base is the label of every built-in named as itself,
    so their streams are what they were."""
    return seat_spec.base


def seat_stream_seed(game_seed: int, seat: int, identity: str) -> str:
    """``seat_seed`` from the game's seed and the seat's ``seat_identity``."""
    return stream_seed(game_seed, f"seat{seat}:{identity}")


def _guarded(spec: GameSpec, seat: int, limit: Guard | None, call: Any, arg: Any) -> Any:
    """``call(arg)`` for a seat's strategy: any misbehaviour becomes a StrategyFailure.

    KeyboardInterrupt is the user's Ctrl-C and propagates. The time limit's raise can land
    on the way out of the call: the loop-free handlers below settle it either way.
    """
    if limit is None:
        try:
            return call(arg)
        except KeyboardInterrupt as exc:
            if _user_stop():
                raise
            raise StrategyFailure(seat, spec.seats[seat].label, describe_error(exc)) from None
        except GuestLost:
            raise
        except BaseException as exc:  # SystemExit, GeneratorExit, ... from a strategy
            raise StrategyFailure(seat, spec.seats[seat].label, describe_error(exc)) from None
    late = False
    try:
        limit.enter()
        result = call(arg)
        late = limit.leave()
    except DecisionTimeout:
        limit.leave()
        late = True
    except KeyboardInterrupt as exc:
        limit.leave()
        if _user_stop():
            raise
        raise StrategyFailure(seat, spec.seats[seat].label, describe_error(exc)) from None
    except GuestLost:
        limit.leave()
        raise
    except BaseException as exc:
        late = limit.leave()
        if not late:
            raise StrategyFailure(seat, spec.seats[seat].label, describe_error(exc)) from None
    if late or (limit.steady and not limit.hold()):
        raise StrategyFailure(seat, spec.seats[seat].label, _over(limit))
    return result


def _user_stop() -> bool:
    """Whether a KeyboardInterrupt may be the user's Ctrl-C: only where SIGINT still raises
    it (an interactive game). A run's workers ignore SIGINT and its parent turns it into a
    flag, so there one can only come from a strategy, and fails that strategy's seat."""
    import signal
    import threading

    return (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


def _trackers(state: GameState, strategies: list[Strategy]) -> list[KnowledgeTracker | None]:
    """A public-history tracker for each seat whose strategy asks to remember the game.

    Such a strategy sets the class attribute ``remembers_game = True`` and decides with
    ``decide_knowing(knowledge)``: the seat's view plus what it saw happen (docs/knowledge.md).
    """
    return [
        KnowledgeTracker(state, seat) if getattr(type(s), "remembers_game", False) is True else None
        for seat, s in enumerate(strategies)
    ]


def _stepper(
    spec: GameSpec,
    state: GameState,
    strategies: list[Strategy],
    limit: Guard | None,
    offers: list[dict[str, Any]],
    trackers: list[KnowledgeTracker | None],
) -> Any:
    """The function that makes and applies one decision (what the clock calls)."""
    watching = [t for t in trackers if t is not None]

    def step() -> tuple[Phase, Action]:
        seat = state.seat
        phase = state.phase
        if state.turn > MAX_TURNS:
            raise StrategyFailure(
                seat, _label(spec, seat), f"no end in sight: over {MAX_TURNS} turns"
            )
        # a fresh view (or knowledge) per decision: a snapshot must not go stale
        tracker = trackers[seat]
        if tracker is None:
            action = _guarded(spec, seat, limit, strategies[seat].decide, state.view(seat))
        else:
            knowledge = tracker.knowledge(state)
            # a tracker is made only for a strategy that remembers the game (decide_knowing)
            decide = cast(Any, strategies[seat]).decide_knowing
            action = _guarded(spec, seat, limit, decide, knowledge)
        keep = phase in (SETUP_KEEP, KEEP_DRAWN)
        if keep:
            offered = list(state.offers[seat])
            turn, round_number = state.turn, state.round
        if watching and state.is_legal(action):
            for watcher in watching:  # before the action: it reads the state it changes
                watcher.before(state, action)
        _apply(spec, state, seat, action)
        if keep:
            kept = set(action.ids) if isinstance(action, KeepDestinations) else set()
            for dest_id in offered:
                offers.append(
                    {
                        "seat": seat,
                        "destination_id": dest_id,
                        "offered_turn": turn,
                        "offered_round": round_number,
                        "kept": dest_id in kept,
                    }
                )
        return phase, action

    return step


def _apply(spec: GameSpec, state: GameState, seat: int, action: object) -> None:
    """Apply a seat's action on the checked path, which refuses a malformed action too."""
    try:
        state.apply(action)  # type: ignore[arg-type]
    except IllegalActionError as exc:
        raise StrategyFailure(seat, _label(spec, seat), str(exc)) from None
    except Exception as exc:  # the engine choked on it: still the seat's bad action
        raise StrategyFailure(
            seat, _label(spec, seat), f"bad action {brief_repr(action)}: {describe_error(exc)}"
        ) from None


def _label(spec: GameSpec, seat: int) -> str:
    return spec.seats[seat].label if 0 <= seat < len(spec.seats) else ""


def _over(limit: Guard | None) -> str:
    return f"decision took over {limit.limit:g} s" if limit is not None else "decision timed out"


def _one_line(text: str) -> str:
    """A failure's words on one line, nothing in them a terminal acts on (a guest's words
    reach the run's output: hostile pass 23's ForgedError cleared the screen)."""
    text = one_line(" ".join(str(text).split()))
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."


def _base(spec: GameSpec) -> dict[str, Any]:
    return {
        "study": spec.study,
        "cell": spec.cell,
        "variant": spec.variant,
        "players": spec.players,
        "game_index": spec.index,
        "seed": spec.seed,
    }


def game_row(
    spec: GameSpec, state: GameState | None, minutes: float, failure: StrategyFailure | None
) -> dict[str, Any]:
    """The games-table row; ``state`` None when the game could not even be set up."""
    labels = [s.label for s in spec.seats]
    winners = list(state.winners) if state is not None else []
    return {
        **_base(spec),
        "seats": "|".join(labels),
        "winners": "|".join(str(w) for w in winners),
        "winner_strategies": "|".join(labels[w] for w in winners),
        "n_winners": len(winners),
        "turns": state.turn if state is not None else 0,
        "rounds": state.round if state is not None else 0,
        "sim_minutes": minutes,
        "steals": sum(state.steals) if state is not None else 0,
        "failed": failure is not None,
        "failure_seat": failure.seat if failure else -1,
        "failure_strategy": failure.label if failure else "",
        "failure_error": failure.error if failure else "",
    }


def _seat_rows(spec: GameSpec, state: GameState) -> list[dict[str, Any]]:
    winners = state.winners
    rows = []
    for score in state.scores:
        seat = score.seat
        points = state.round_points[seat]
        rows.append(
            {
                **_base(spec),
                "seat": seat,
                "strategy": spec.seats[seat].label,
                "score": score.total,
                "destination_points": score.destination_points,
                "penalties": score.penalties,
                "bonus_points": score.bonus_points,
                "big_cities": "|".join(score.big_cities),
                "n_big_cities": len(score.big_cities),
                "kept": len(state.reached[seat]) + len(state.held[seat]),
                "reached": len(state.reached[seat]),
                "unreached": len(state.held[seat]),
                "is_winner": seat in winners,
                "win_share": 1.0 / len(winners) if seat in winners else 0.0,
                "rank": 1 + sum(1 for s in state.scores if s.total > score.total),
                "hand_left": sum(state.hands[seat]),
                "circulation_end": sum(state.circulation[seat]),
                "steals_made": state.steals[seat],
                "steals_suffered": state.stolen_from[seat],
                "round1_points": points[0] if points else 0,
                "round2_points": points[1] if len(points) > 1 else None,
            }
        )
    return rows


def _offer_key(offer: dict[str, Any]) -> tuple[int, int, int]:
    return offer["seat"], offer["offered_turn"], offer["destination_id"]


def _destination_rows(
    spec: GameSpec, state: GameState, offers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    catalogue = state.game.catalogue
    base = _base(spec)
    rows = []
    # in the table's key order (sims.schema.SORT_KEYS), as the native core writes them
    for offer in sorted(offers, key=_offer_key):
        dest = catalogue.destination(offer["destination_id"])
        seat = offer["seat"]
        reached_round = state.reached_round.get(dest.id) if offer["kept"] else None
        reached = reached_round is not None and dest.id in state.reached[seat]
        rows.append(
            {
                **base,
                **offer,
                "strategy": spec.seats[seat].label,
                "points": dest.points,
                "cards": len(dest.colours),
                "reached": reached,
                "reached_round": reached_round if reached else None,
                "net_points": (dest.points if reached else -dest.points) if offer["kept"] else 0,
            }
        )
    return rows
