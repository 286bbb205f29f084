"""The learned win-chance model: the standing is the same on both engines at every position,
its chances are a softmax that statsmodels' own likelihood agrees with, and the shipped model
is calibrated."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from cardgame import Rules
from cardgame.resolution import covers
from sims.match import GameSpec, Positions, play_game
from sims.standing import (
    FEATURES,
    StandingModel,
    points_now,
    shipped_model,
    standing,
)
from sims.strategy import spec

POOL = ("planner", "thief", "hoarder", "rusher", "ticket_hunter", "big_city", "random")


def game_spec(index: int, players: int, rules: Rules | None = None) -> GameSpec:
    rng = random.Random(f"standing-test:{index}")
    names = tuple(spec(rng.choice(POOL)) for _ in range(players))
    return GameSpec("t", "c", "base", rules or Rules(), players, names, index, rng.getrandbits(63))


def native():
    from sims.match import native_loop

    loop = native_loop()
    if loop is None:
        pytest.skip("the native core is not built")
    return loop


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_core_notes_the_standing_the_python_engine_computes_at_every_position(players):
    loop = native()
    for index in range(6):
        game = game_spec(index, players, Rules(face_up=4) if index % 2 else None)
        twins = [loop.twin(game, seat) for seat in range(players)]
        noted: list = []
        played, _, _, failed = loop.play_native(
            loop.NativeState.new(game.game()), twins, None, noted
        )
        assert failed is None
        # the same game on the Python engine, its positions noted by sims.match.Positions
        python = play_game(game, None, False, 0, "python", quality=True).quality
        native_row = play_game(game, None, False, 0, "native", quality=True).quality
        assert python == native_row
        assert len(noted) == played.turn + 1 == python["positions"]


def test_the_standing_of_a_state_is_the_same_read_by_either_engine():
    loop = native()
    from sims._native._standing import standing_of

    game = game_spec(1, 4)
    state = game.game().new_state()
    positions = Positions(state)
    rng = random.Random(5)

    def step():
        action = rng.choice(state.legal_actions())
        state.apply(action)

    watched = positions.watching(step)
    checked = 0
    while not state.is_over:
        watched()
        if rng.random() < 0.2 or state.is_over:
            assert standing_of(loop.NativeState.from_state(state)) == standing(state)
            checked += 1
    assert checked > 5
    assert positions.features[-1] == standing(state)
    assert len(positions.features) == state.turn + 1


def test_a_ticket_is_covered_alone_when_locomotives_make_up_what_colours_lack():
    need = (2, 0, 0, 0, 0, 0, 0, 1)
    assert covers([2, 0, 0, 0, 0, 0, 0, 1, 0], need)
    assert covers([1, 0, 0, 0, 0, 0, 0, 0, 2], need)
    assert not covers([1, 0, 0, 0, 0, 0, 0, 0, 1], need)
    assert covers([0] * 9, (0,) * 8)


def test_chances_are_the_softmax_statsmodels_maximises():
    from statsmodels.discrete.conditional_models import ConditionalLogit

    rng = np.random.default_rng(3)
    groups, rows, won = [], [], []
    truth = rng.normal(size=len(FEATURES)) / 4
    for group in range(400):
        seats = 2 + group % 3
        x = rng.poisson(4, size=(seats, len(FEATURES))).astype(float)
        p = np.exp(x @ truth) / np.exp(x @ truth).sum()
        winner = rng.choice(seats, p=p)
        rows.extend(x)
        won.extend(1.0 if s == winner else 0.0 for s in range(seats))
        groups.extend([group] * seats)
    x, y, g = np.array(rows), np.array(won), np.array(groups)
    fit = ConditionalLogit(y, x, groups=g).fit(disp=False)
    model = StandingModel(fit.params)
    loglik = 0.0
    for group in range(400):
        at = g == group
        chances = model.chances_many(x[at][None, :, :])[0]
        assert chances.sum() == pytest.approx(1.0)
        loglik += math.log(chances[y[at] == 1][0])
    assert loglik == pytest.approx(fit.llf, rel=1e-9)


def test_the_shipped_model_loads_and_says_how_it_was_made_and_how_calibrated():
    model = shipped_model()
    data = model.to_dict()
    assert tuple(data["features"]) == FEATURES and len(model.weights) == len(FEATURES)
    assert data["trained_on"]["games"] >= 2000
    calibration = data["calibration"]
    assert calibration["games"] >= 2000 and calibration["ece"] <= 0.05
    assert calibration["brier"] < calibration["brier_uninformed"]
    assert json.loads(json.dumps(data)) == data


def test_points_now_is_banked_plus_covered_minus_uncovered():
    features = np.zeros((1, 2, len(FEATURES)))
    features[0, 0, :3] = [10, 7, 4]
    features[0, 1, :3] = [0, 0, 12]
    assert points_now(features).tolist() == [[13.0, -12.0]]
