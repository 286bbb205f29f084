"""Both engines under the same rules tests.

The rules tests arrange and inspect a Python ``GameState`` field by field (``state.hands``,
``state.deck = [...]``, ``state.record``). ``NativeBackedState`` keeps those fields but hands
every rule to the native core: the deal (R3-R6), ``apply``, ``apply_unchecked``,
``legal_actions``, ``is_legal``, ``check`` and ``view`` copy the fields into a
``NativeState``, let the C code act, and write every field back, so the test reads what the
native core did. A wrong native rule then fails the test that pins the rule.

The ``engine`` fixture (tests/conftest.py) runs a module once per engine; for "native" it
makes ``Game.new_state`` (and so ``play_random``, ``record.replay``, ``sims.match``) build
native-backed states, and R16 resolution calls from Python use the native kernel.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import import_module
from types import ModuleType
from typing import Any

import pytest

from cardgame import Game, _native, resolution
from cardgame import actions as A
from cardgame.observation import SeatView
from cardgame.shuffling import ShuffleSource
from cardgame.state import GameState

try:
    from cardgame._native import _core
except ImportError as exc:  # not built (no C compiler): the native parameter is skipped
    _core = None
    CORE_PROBLEM = str(exc) or type(exc).__name__
else:
    CORE_PROBLEM = ""

CORE_BUILT = _core is not None and _native.BUILT
NOT_BUILT = (
    "the native core is not built here, so the rules tests run on the Python engine only "
    f"({CORE_PROBLEM or _native.NOT_BUILT}); `pip install -e .` with a C compiler builds it"
)
ENGINES = ("python", "native")


def native_module(name: str) -> ModuleType:
    """The compiled module ``name`` (e.g. "cardgame._native._core"). Without it the calling
    test skips, saying why, except where CI requires the build (REQUIRE_NATIVE=1): there it
    fails, so a broken build is never a run of quiet skips."""
    try:
        return import_module(name)
    except ImportError as exc:
        why = f"{name} is not built here ({exc}); `pip install -e .` with a C compiler builds it"
        if os.environ.get("REQUIRE_NATIVE") == "1":
            pytest.fail(why)
        pytest.skip(why)


class NativeBackedState(GameState):
    """A ``GameState`` whose rules run on the native core; its fields stay Python lists."""

    __slots__ = ()

    @classmethod
    def dealt(
        cls, game: Game, record: bool = False, shuffles: ShuffleSource | None = None
    ) -> NativeBackedState:
        """``game.new_state(record, shuffles)`` with the deal done by the native core."""
        native = _core.NativeState.new(game, record=record, shuffles=shuffles)
        state = cls(game, shuffles, deal=False)  # type: ignore[arg-type]
        native.write_to(state)
        return state

    def _native(self) -> Any:
        return _core.NativeState.from_state(self)

    def apply(self, action: A.Action) -> None:
        self._run(lambda native: native.apply(action))  # refused: nothing is written back

    def apply_unchecked(self, action: A.Action) -> None:
        self._run(lambda native: native.apply_unchecked(action))

    def _run(self, act: Callable[[Any], None]) -> None:
        """``act`` on a native copy, then every field written back."""
        native = self._native()
        turns = self.record["turns"] if self.record is not None else None
        if turns is None or type(turns) is list:
            act(native)
        else:  # a listener on the turn log (record.turn_tables) reads the state as it logs
            self.record["turns"] = _WriteBackFirst(turns, native, self)  # type: ignore[index]
            try:
                act(native)
            finally:
                self.record["turns"] = turns  # type: ignore[index]
        native.write_to(self)

    def legal_actions(self) -> list[A.Action]:
        return self._native().legal_actions()

    def is_legal(self, action: object) -> bool:
        return self._native().is_legal(action)

    def check(self, action: A.Action) -> None:
        self._native().check(action)

    def view(self, seat: int) -> SeatView:
        return self._native().view(seat)


class _WriteBackFirst:
    """The record's turn log while the native core acts: the Python engine logs a turn the
    moment it ends, its fields current, so a listener reading the state then (the verbose
    narration's tables) must find the native core's fields written back first."""

    def __init__(self, turns: list[Any], native: Any, state: GameState) -> None:
        self.turns, self.native, self.state = turns, native, state

    def append(self, turn: Any) -> None:
        self.native.write_to(self.state)
        self.turns.append(turn)


def native_new_state(
    self: Game, record: bool = False, shuffles: ShuffleSource | None = None
) -> GameState:
    """``Game.new_state`` for the native parameter."""
    return NativeBackedState.dealt(self, record=record, shuffles=shuffles)


@contextmanager
def engine_in_use(name: str) -> Iterator[str]:
    """Inside the block, new states follow the rules of engine ``name``: for "native",
    native-backed states and the native R16 kernel for any resolution asked from Python."""
    if name == "python":
        with resolution.engine_in_use(name):
            yield name
        return
    if not CORE_BUILT:
        if os.environ.get("REQUIRE_NATIVE") == "1":
            pytest.fail(NOT_BUILT)
        pytest.skip(NOT_BUILT)
    with pytest.MonkeyPatch.context() as patch, resolution.engine_in_use(name):
        patch.setattr(Game, "new_state", native_new_state)
        yield name
