"""The native core: built where it can be, identical to the Python engine, and
never required. The resolution tests parametrise over ``ENGINES`` from here; the rules tests
run on both engines through the ``engine`` fixture (tests/conftest.py, tests/native_engine.py;
docs/native-core-spike.md, "How both engines are tested").

CI (``.ci/run``) sets REQUIRE_NATIVE=1, so there a missing extension fails instead of
skipping; it also reruns the rules and resolution tests with CARDGAME_ENGINE=python.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cardgame.state
from cardgame import Game, Rules, _native, default_catalogue
from cardgame.cli import main
from cardgame.randomplay import play_random
from cardgame.record import dumps, to_record
from cardgame.resolution import resolve_counted_python, resolver

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = default_catalogue()
BIG = frozenset(CATALOGUE.big_city_names)

NOT_BUILT = (
    "the native extension is not built here, so only the Python engine is tested "
    f"({_native.NOT_BUILT}); `pip install -e .` with a C compiler builds it"
)
ENGINES = [
    pytest.param("python", id="python"),
    pytest.param(
        "native", id="native", marks=pytest.mark.skipif(not _native.BUILT, reason=NOT_BUILT)
    ),
]
needs_native = pytest.mark.skipif(not _native.BUILT, reason=NOT_BUILT)


def resolve_with(engine: str):
    """``resolve`` (ids only) of the named engine."""
    counted = resolver(engine)
    return lambda pile, dests, big: counted(pile, dests, big)[0]


def test_the_native_core_is_built_where_required():
    # CI sets REQUIRE_NATIVE=1: there a failed build must be red, not a skipped parameter
    if os.environ.get("REQUIRE_NATIVE") == "1":
        assert _native.BUILT, _native.NOT_BUILT


def test_the_engine_in_use_follows_the_environment():
    asked = os.environ.get(_native.ENV, "")
    expected = asked or ("native" if _native.BUILT else "python")
    assert expected == _native.ENGINE
    assert _native.PROBLEM is None


# --- the kernel against the reference, far beyond the rules tests' holdings

piles = st.lists(st.integers(0, 9), min_size=8, max_size=8).flatmap(
    lambda wagons: st.integers(0, 12).map(lambda locos: [*wagons, locos])
)
held = st.integers(0, 46).flatmap(
    lambda size: st.lists(st.integers(1, 46), min_size=size, max_size=size, unique=True)
)


@needs_native
@settings(max_examples=400, deadline=None)
@given(ids=held, pile=piles, cheap=st.sampled_from([0, 1, 7, 1000]))
def test_native_resolution_equals_python_sets_and_work(ids, pile, cheap):
    dests = [CATALOGUE.destination(i) for i in ids]
    native = resolver("native")(pile, dests, BIG, cheap)
    # same set, and the same number of search nodes: the same search, step for step
    assert native == resolve_counted_python(pile, dests, BIG, cheap)


@needs_native
def test_native_resolution_on_seeded_all_46_holdings():
    rng = random.Random(10)
    deck = [c for c in range(8) for _ in range(10)] + [8] * 16
    everything = [CATALOGUE.destination(i) for i in range(1, 47)]
    for _ in range(60):
        pile = [0] * 9
        for card in rng.sample(deck, rng.randint(10, 70)):
            pile[card] += 1
        got = resolver("native")(pile, everything, BIG)
        assert got == resolve_counted_python(pile, everything, BIG)


@needs_native
def test_native_kernel_declines_what_its_arrays_cannot_hold():
    kernel = _native.resolution_kernel
    dests = [CATALOGUE.destination(i) for i in (1, 2, 3)]
    assert kernel.resolve_counted([0] * 8 + [64], dests, BIG) is None  # a count over 63
    assert kernel.resolve_counted([1.0] * 9, dests, BIG) is None  # not ints
    assert kernel.resolve_counted([1] * 8, dests, BIG) is None  # not 9 counts
    # and the dispatch answers those in Python
    pile = [0] * 8 + [64]
    assert resolver("native")(pile, dests, BIG) == resolve_counted_python(pile, dests, BIG)


# --- whole games: the same records on both engines


def _records(engine: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    counted = resolver(engine)
    monkeypatch.setattr(cardgame.state, "resolve", lambda c, d, b: counted(c, d, b)[0])
    out = []
    for players, seed, rules in [
        (2, 3, Rules()),
        (3, 8, Rules()),
        (4, 5, Rules()),
        (4, 9, Rules.from_dict({"rounds": {"4": 1}})),
    ]:
        state = play_random(Game(players, seed, rules), record=True)
        out.append(dumps(to_record(state, ["random"] * players)))
    return out


@needs_native
def test_whole_games_give_the_same_records_on_both_engines(monkeypatch):
    assert _records("native", monkeypatch) == _records("python", monkeypatch)


def _run(code: str, **env: str) -> str:
    """stdout of ``python -c code`` in a clean environment plus ``env``."""
    environ = {k: v for k, v in os.environ.items() if k != _native.ENV} | env
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


PLAY = (
    "from cardgame import Game, _native\n"
    "from cardgame.randomplay import play_random\n"
    "from cardgame.record import dumps, to_record\n"
    "print(_native.ENGINE, _native.BUILT)\n"
    "print(dumps(to_record(play_random(Game(3, 8), record=True), ['random'] * 3)))\n"
)
# the compiled module made unimportable, as on a machine without a C compiler
WITHOUT_EXTENSION = "import sys\nsys.modules['cardgame._native._resolution'] = None\n"


def test_without_the_extension_the_package_imports_and_plays_on_python():
    engine, record = _run(WITHOUT_EXTENSION + PLAY).splitlines()
    assert engine == "python False"
    assert json.loads(record)["result"] == json.loads(_run(PLAY).splitlines()[1])["result"]
    assert record == _run(PLAY, CARDGAME_ENGINE="python").splitlines()[1]


def test_without_the_extension_the_version_line_says_so():
    out = _run(WITHOUT_EXTENSION + "from cardgame.cli import main\nmain(['--version'])\n")
    assert "engine: python (native extension not built" in out


@needs_native
def test_the_environment_chooses_the_engine_and_the_records_agree():
    native, native_record = _run(PLAY, CARDGAME_ENGINE="native").splitlines()
    python, python_record = _run(PLAY, CARDGAME_ENGINE="python").splitlines()
    assert (native, python) == ("native True", "python True")
    assert native_record == python_record


def test_version_names_the_engine(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"engine: {_native.ENGINE}" in out
    assert ("extension built" in out) == _native.BUILT


def test_a_bad_engine_name_is_one_line_and_exit_2():
    code = "import sys\nfrom cardgame.cli import main\nsys.exit(main(['play', '--quiet']))\n"
    environ = os.environ | {_native.ENV: "fortran"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=ROOT
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "cardgame: error: CARDGAME_ENGINE='fortran': expected python or native"
    ]


def test_an_unknown_engine_has_no_resolver():
    with pytest.raises(ValueError, match="no 'fortran' resolution engine"):
        resolver("fortran")


def test_engine_in_use_switches_the_resolver_for_a_block_and_restores_it():
    from cardgame import resolution

    chosen = resolution.resolve_counted
    with resolution.engine_in_use("python"):
        assert resolution.resolve_counted is resolution.resolve_counted_python
    assert resolution.resolve_counted is chosen
    with (
        pytest.raises(ValueError, match="no 'fortran' resolution engine"),
        resolution.engine_in_use("fortran"),
    ):
        pass
    assert resolution.resolve_counted is chosen
