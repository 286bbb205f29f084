"""ISMCTS on the native core: the search plays its sampled worlds on a
``NativeState`` with native twins of the rollout policies, and finds what it finds on the
Python engine, bit for bit: the same result (move, visits, mean rewards) at every decision."""

from __future__ import annotations

import pytest

import cardgame._native as core
from cardgame import Game, Rules
from sims.match import GameSpec, play_game
from sims.search import ismcts as search_module
from sims.search.rollout import NativeEngine, PythonEngine, engine_for
from sims.strategy import StrategySpec, spec
from tests.sims.test_native_strategies import needs_native

pytestmark = needs_native


def _searches(monkeypatch, engine, players, knobs, seed):
    """Every search result of one game of ismcts seats (and planners, one random seat at
    larger tables) played with ``engine`` in use, and the game's outcome."""
    monkeypatch.setattr(core, "ENGINE", engine)
    results = []
    original = search_module.search

    def recording(*args, **kwargs):
        result = original(*args, **kwargs)
        assert isinstance(kwargs.get("engine") or engine_for(), _ENGINES[engine])
        results.append(result)
        return result

    monkeypatch.setattr("sims.search.player.search", recording)
    ismcts = StrategySpec("ism", "ismcts", tuple(knobs.items()))
    seats = [ismcts, spec("planner"), ismcts, spec("random")][:players]
    game = GameSpec("t", "t", "base", Rules(), players, tuple(seats), 0, seed)
    outcome = play_game(game, decision_seconds=0)
    return results, repr(vars(outcome))  # repr: nan minutes compare equal


_ENGINES = {"python": PythonEngine, "native": NativeEngine}


@pytest.mark.parametrize("horizon", [0, 6])
@pytest.mark.parametrize("root", ["halving", "uct"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_ismcts_searches_alike_on_both_engines(monkeypatch, players, root, horizon):
    knobs = {"iterations": 6, "root": root, "horizon": horizon}
    seed = 500 + 10 * players + (root == "uct") + horizon
    python = _searches(monkeypatch, "python", players, knobs, seed)
    native = _searches(monkeypatch, "native", players, knobs, seed)
    assert python[0] and native == python


@pytest.mark.parametrize(("players", "root"), [(2, "halving"), (3, "uct"), (4, "halving")])
def test_random_rollouts_search_alike_on_both_engines(monkeypatch, players, root):
    knobs = {"iterations": 6, "rollout": "random", "root": root, "horizon": 10 * (players == 4)}
    python = _searches(monkeypatch, "python", players, knobs, 41 + players)
    native = _searches(monkeypatch, "native", players, knobs, 41 + players)
    assert python[0] and native == python


def test_human_memory_searches_alike_on_both_engines(monkeypatch):
    knobs = {"iterations": 6, "memory": "human", "root": "uct"}
    python = _searches(monkeypatch, "python", 2, knobs, 7)
    native = _searches(monkeypatch, "native", 2, knobs, 7)
    assert python[0] and native == python


def test_the_engine_follows_the_engine_in_use(monkeypatch):
    monkeypatch.setattr(core, "ENGINE", "python")
    assert isinstance(engine_for(), PythonEngine)
    monkeypatch.setattr(core, "ENGINE", "native")
    assert isinstance(engine_for(), NativeEngine)
    assert isinstance(engine_for("python"), PythonEngine)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_worlds_sampled_in_c_are_the_python_samples(players):
    """WorldSampler.world(seed) is sample_world(k, Random(seed), forgotten) as a NativeState,
    and leaves the sampler's Random as sample_world leaves it."""
    import dataclasses
    import random

    from sims._native._sample import WorldSampler

    from cardgame.knowledge import sample_world
    from sims.memory import with_own_pile
    from tests.test_knowledge import play
    from tests.test_native_core import _assert_same_state

    rng = random.Random(players)
    checked = 0
    for case in range(12):
        state, trackers = play(players, 100 * players + case, rng.randrange(0, 100))
        if state.is_over:  # no seat searches then (and a sampled world is not scored)
            continue
        knowledge = trackers[case % players].knowledge(state)
        pile = list(knowledge.view.circulations[knowledge.seat])
        forgotten = 0
        for kind in range(len(pile)):  # a human memory recalls all but a few cards
            while pile[kind] and forgotten < case % 3:
                pile[kind] -= 1
                forgotten += 1
        view = with_own_pile(knowledge.view, tuple(pile))
        knowledge = dataclasses.replace(knowledge, view=view)
        sampler = WorldSampler(knowledge, forgotten)
        for seed in (case, 2**64 - 1 - case, 0):
            expected_rng = random.Random(seed)
            expected = sample_world(knowledge, expected_rng, forgotten)
            world, after = sampler.world(seed)
            _assert_same_state(world.to_state(), expected)
            assert after.getstate() == expected_rng.getstate()
            checked += 1
    assert checked >= 18


def test_a_missing_native_module_leaves_the_search_on_python(monkeypatch):
    import sys

    monkeypatch.setattr(core, "ENGINE", "native")
    monkeypatch.setitem(sys.modules, "sims._native._sample", None)  # import fails
    assert isinstance(engine_for(), PythonEngine)


def test_the_priors_key_leaves_out_only_the_games_constants():
    from cardgame.observation import _FIELDS

    assert _FIELDS[-search_module._GAME_FIELDS :] == (
        "rules",
        "big_cities",
        "destinations_by_id",
        "train_cards",
        "big_city_cards",
    )


def test_the_legal_count_is_the_number_of_legal_actions():
    import random

    from cardgame._native._core import NativeState
    from sims._native._sample import legal_count

    for seed in range(6):
        state = NativeState.new(Game(2 + seed % 3, seed))
        rng = random.Random(seed)
        while True:
            legal = state.legal_actions()
            assert legal_count(state) == len(legal) == PythonEngine.legal_count(state)
            if state.is_over:
                break
            state.apply(legal[rng.randrange(len(legal))])
