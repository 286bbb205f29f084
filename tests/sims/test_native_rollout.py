"""Play-outs on the native core (sims/_native/_match.play_out with ``native_twins``) end as
sims.search.rollout.play_out ends them: the same state, and the shared RNG left the same."""

from __future__ import annotations

import random

import pytest

from cardgame import Game, Rules
from sims import _native
from sims.search.rollout import MAX_PLAYOUT_TURNS, play_out
from sims.strategies.planner import Planner
from sims.strategies.random_play import RandomStrategy
from tests.sims.test_native_strategies import VARIANTS, needs_native
from tests.test_native_core import _assert_same_state

pytestmark = needs_native
POLICIES = {"planner": Planner, "random": RandomStrategy}


def test_the_native_play_out_stops_where_the_python_one_does():
    from sims._native._match import PLAYOUT_TURN_LIMIT

    assert PLAYOUT_TURN_LIMIT == MAX_PLAYOUT_TURNS


def test_twins_of_strategies_sharing_a_random_share_its_state():
    shared, own = random.Random(1), random.Random(2)
    strategies = [
        RandomStrategy(shared),
        Planner(shared),
        RandomStrategy(own),
        RandomStrategy(shared),
    ]
    twins = _native.native_twins(strategies)
    assert twins[0].getstate() == twins[3].getstate() == shared.getstate()
    assert twins[2].getstate() == own.getstate() and twins[1].getstate() is None
    assert _native.native_twins([Planner(own), object()]) is None


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_out_ends_as_the_python_play_out(policy, players):
    from cardgame._native._core import NativeState
    from sims._native._match import play_out as native_play_out

    variants = list(VARIANTS.values())
    for seed in range(10):
        game = Game(players, seed, variants[seed % len(variants)])
        python, base = game.new_state(), game.new_state()
        setup_rng = random.Random(seed)
        for _ in range(setup_rng.randrange(60)):  # the same start for both
            if python.is_over:
                break
            legal = python.legal_actions()
            action = legal[setup_rng.randrange(len(legal))]
            python.apply(action)
            base.apply(action)
        native = NativeState.from_state(base)
        until = None if seed % 3 else python.turn + 7 * (seed + 1)
        rng_py, rng_c = random.Random(seed), random.Random(seed)
        cls = POLICIES[policy]
        play_out(python, [cls(rng_py).decide for _ in range(players)], until)
        twins = _native.native_twins([cls(rng_c) for _ in range(players)])
        native_play_out(native, twins, until)
        _assert_same_state(native.to_state(), python)
        if policy == "random":
            assert twins[0].getstate() == rng_py.getstate()


def test_play_out_refuses_a_table_of_the_wrong_size():
    from cardgame._native._core import NativeState
    from sims._native._match import play_out as native_play_out

    state = NativeState.new(Game(3, 1, Rules()))
    with pytest.raises(ValueError, match="2 twins for 3 seats"):
        native_play_out(state, _native.native_twins([Planner(random.Random())] * 2))
