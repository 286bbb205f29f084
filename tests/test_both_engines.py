"""The harness that runs the rules tests on both engines (tests/native_engine.py) does what
it says: under the native parameter the rules that move a state are the native core's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cardgame import Game, GameState, KeepDestinations, resolution
from cardgame.randomplay import play_random
from cardgame.record import to_record
from cardgame.shuffling import SeededShuffles

from . import native_engine
from .native_engine import NativeBackedState, engine_in_use

ROOT = Path(__file__).resolve().parents[1]


def test_new_states_are_those_of_the_engine_under_test(engine):
    state = Game(3, 4).new_state(record=True)
    expected = NativeBackedState if engine == "native" else GameState
    assert type(state) is expected
    assert type(play_random(Game(2, 1))) is expected
    # R16 asked from Python: the reference for "python" whatever CARDGAME_ENGINE chose
    python_resolution = resolution.resolve_counted is resolution.resolve_counted_python
    assert python_resolution == (engine == "python")


def test_every_rule_of_a_native_backed_state_goes_through_the_core(monkeypatch):
    calls: list[str] = []
    real = native_engine._core

    def from_state(state):
        calls.append("from_state")
        return real.NativeState.from_state(state)

    def new(*args, **kwargs):
        calls.append("new")
        return real.NativeState.new(*args, **kwargs)

    spy = SimpleNamespace(NativeState=SimpleNamespace(from_state=from_state, new=new))
    with engine_in_use("native"):
        monkeypatch.setattr(native_engine, "_core", spy)
        state = Game(2, 7).new_state()
    assert calls == ["new"]
    for method in ("legal_actions", "view"):
        getattr(state, method)(*([0] if method == "view" else []))
    action = KeepDestinations(tuple(state.offers[0]))
    state.is_legal(action)
    state.check(action)
    state.apply(action)
    state.apply_unchecked(state.legal_actions()[0])
    assert calls == ["new"] + ["from_state"] * 7


def test_a_native_backed_game_is_the_native_cores_game():
    source = SeededShuffles(6)
    with engine_in_use("native"):
        backed = play_random(Game(4, 6), record=True)
        state = Game(4, 6).new_state(shuffles=source)
    native = native_engine._core.NativeState.new(Game(4, 6), record=True)
    rng = random.Random("random-player:6")
    while not native.is_over:
        legal = native.legal_actions()
        native.apply(legal[rng.randrange(len(legal))])
    assert to_record(backed) == to_record(native.to_state())
    assert type(state) is NativeBackedState
    assert state._shuffles is source  # the source stays where the Python engine keeps it


WITHOUT_CORE = (
    "import sys\n"
    "sys.modules['cardgame._native._core'] = None\n"  # as on a machine without a C compiler
    "import pytest\n"
    # -n 0: in this process, where the core is hidden (a test process would import it)
    "sys.exit(pytest.main(['-n', '0', '-p', 'no:cacheprovider', '-rs',\n"
    "                      '-k', 'r3_setup and 2]',\n"
    "                      'tests/test_rules_setup.py']))\n"
)


@pytest.mark.parametrize("required", ["", "1"])
def test_without_the_core_the_native_parameter_skips_or_fails_where_required(required):
    environ = {k: v for k, v in os.environ.items() if k != "REQUIRE_NATIVE"}
    if required:
        environ["REQUIRE_NATIVE"] = required
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_CORE], capture_output=True, text=True, env=environ, cwd=ROOT
    )
    if required:  # CI: a native parameter that cannot run is an error, not a skip
        assert done.returncode == 1, done.stdout
        assert "1 passed" in done.stdout and "1 error" in done.stdout, done.stdout
    else:
        assert done.returncode == 0, done.stdout
        assert "1 passed" in done.stdout and "1 skipped" in done.stdout, done.stdout
        assert "the native core is not built here" in done.stdout
