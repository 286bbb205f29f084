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
    PROGRESS,
    StandingModel,
    fit_model,
    points_now,
    shipped_model,
    standing,
    strategy_key,
    strength_from_share,
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


def synthetic(groups: int, truth_weights, truth_terms, seed: int = 4):
    """Positions drawn from a known model with strategy terms: rows, keys, won, groups."""
    rng = np.random.default_rng(seed)
    model = StandingModel(truth_weights, strengths=truth_terms)
    names = sorted(truth_terms)
    rows, keys, won, group_of = [], [], [], []
    for group in range(groups):
        seats = 2 + group % 3
        x = rng.poisson(3, size=(seats, len(FEATURES))).astype(float)
        x[:, PROGRESS] = rng.random()  # the same for every seat
        who = [names[i] for i in rng.integers(len(names), size=seats)]
        p = model.chances_many(x[None], model.terms(who))[0]
        winner = rng.choice(seats, p=p)
        rows.extend(x)
        keys.extend(who)
        won.extend(1.0 if s == winner else 0.0 for s in range(seats))
        group_of.extend([group] * seats)
    return np.array(rows), keys, np.array(won), np.array(group_of)


def test_the_strategy_terms_are_what_statsmodels_fits_and_the_softmax_it_maximises():
    truth_w = np.zeros(len(FEATURES))
    truth_w[:3] = [0.3, -0.2, 0.1]
    truth = {"strong": (1.0, -0.8), "weak": (-1.0, 0.5), "planner": (0.0, 0.0)}
    rows, keys, won, groups = synthetic(3000, truth_w, truth)
    model, errors = fit_model(rows, keys, won, groups, "planner")
    assert model.weights[PROGRESS] == 0.0 and set(model.strengths) == set(truth)
    # the likelihood of the fitted model is statsmodels' maximum, recomputed by the softmax
    from statsmodels.discrete.conditional_models import ConditionalLogit

    key_of = np.array(keys)
    loglik = 0.0
    for group in np.unique(groups):
        at = groups == group
        chances = model.chances_many(rows[at][None], model.terms(list(key_of[at])))[0]
        loglik += math.log(chances[won[at] == 1][0])
    seat = [i for i, name in enumerate(FEATURES) if name != "progress"]
    known = ["strong", "weak"]
    ind = np.column_stack([key_of == k for k in known]).astype(float)
    design = np.column_stack([rows[:, seat], ind, ind * rows[:, [PROGRESS]]])
    # statsmodels' own Newton: its default BFGS stops 2e-5 short of the maximum
    llf = ConditionalLogit(won, design, groups=groups).fit(disp=False, method="newton").llf
    assert loglik == pytest.approx(llf, rel=1e-9)
    # the differences between strategies are recovered within four standard errors
    for key in known:
        for term, name in ((0, "strength"), (1, "late")):
            fitted = model.strengths[key][term] - model.strengths["planner"][term]
            assert abs(fitted - truth[key][term]) < 4 * errors[f"{name}:{key}"]
    # centred: the rows' average seat is neutral
    share = {k: keys.count(k) / len(keys) for k in truth}
    assert sum(share[k] * model.strengths[k][0] for k in truth) == pytest.approx(0, abs=1e-12)


def test_chances_are_calibrated_by_strategy_on_games_drawn_from_the_model():
    """On positions drawn from a model, each strategy's mean chance is its win share: the
    reference the per-strategy ECE of benchmarks/standing.py measures against."""
    truth_w = np.zeros(len(FEATURES))
    truth_w[:2] = [0.2, 0.1]
    truth = {"strong": (1.2, 0.0), "weak": (-1.5, 0.0), "planner": (0.0, 0.0)}
    rows, keys, won, groups = synthetic(4000, truth_w, truth, seed=9)
    model, _ = fit_model(rows, keys, won, groups, "planner")
    key_of = np.array(keys)
    chances = np.empty(len(rows))
    blind = np.empty(len(rows))
    neutral = StandingModel(truth_w)
    for group in np.unique(groups):
        at = groups == group
        chances[at] = model.chances_many(rows[at][None], model.terms(list(key_of[at])))[0]
        blind[at] = neutral.chances_many(rows[at][None])[0]
    for key in truth:
        mine = key_of == key
        assert abs(chances[mine].mean() - won[mine].mean()) < 0.02
    # a model blind to who plays is off for the strong and the weak
    assert blind[key_of == "strong"].mean() < won[key_of == "strong"].mean() - 0.1
    assert blind[key_of == "weak"].mean() > won[key_of == "weak"].mean() + 0.1


def test_a_seat_the_model_does_not_know_is_neutral_unless_given_a_strength():
    from sims.strategy import StrategySpec

    model = StandingModel(
        np.zeros(len(FEATURES)),
        strengths={"planner": (0.5, -0.2), "ismcts(iterations=16)": (1.0, -0.5)},
        aliases={"ismcts-16": "ismcts(iterations=16)"},
    )
    cautious = StrategySpec("cautious", "planner", (("card_share", 0.2),))
    mine = StrategySpec("mine", "mymodule:Mine", (("x", 1),))
    search = StrategySpec("s16", "ismcts", (("iterations", 16),))
    assert strategy_key(cautious) == "planner(card_share=0.2)"
    assert strategy_key(StrategySpec("p", "planner", (("memory", "perfect"),))) == "planner"
    assert strategy_key(mine) == "mymodule:Mine(x=1)"
    terms = model.terms([cautious, mine, search, "ismcts-16", "someone", "planner"])
    assert terms.tolist() == [
        [0.5, -0.2],  # other knobs: the base strategy's terms
        [0.0, 0.0],  # a class of one's own: neutral
        [1.0, -0.5],
        [1.0, -0.5],  # a record's label, by the model's alias
        [0.0, 0.0],  # an unknown label
        [0.5, -0.2],
    ]
    given = model.terms(["someone", "planner"], {"someone": strength_from_share(0.5, 3)})
    assert given.tolist() == [[math.log(2.0), 0.0], [0.5, -0.2]]
    # with two neutral rivals, a seat of that strength at equal standings wins half the time
    x = np.zeros((1, 3, len(FEATURES)))
    chances = model.chances_many(x, np.array([[strength_from_share(0.5, 3), 0.0]] + [[0, 0]] * 2))
    assert chances[0, 0] == pytest.approx(0.5)
    # no terms at all: every seat neutral, as a model of format 1 is
    assert model.chances_many(x).tolist() == [[1 / 3] * 3]


def test_a_model_of_format_1_still_loads_with_no_strategy_terms():
    data = {
        "format": 1,
        "features": list(FEATURES[:-1]),
        "weights": {name: 0.1 for name in FEATURES[:-1]},
    }
    model = StandingModel.from_dict(data)
    assert model.strengths == {} and model.weights[PROGRESS] == 0.0
    assert model.terms(["planner"]).tolist() == [[0.0, 0.0]]


def test_the_shipped_model_knows_the_skill_study_s_strategies_and_is_calibrated_for_each():
    from sims.study import load_study

    model = shipped_model()
    calibration = model.to_dict()["calibration"]
    study = load_study("skill")
    labels = {label for lineup in study.lineups or () for label in lineup}
    assert {"random", "ismcts-16", "ismcts-64", "planner-human"} <= labels
    for label in labels:
        assert model.known(label) is not None, label  # as a record's label
        assert model.known(study.strategies[label]) is not None, label  # as configured
    assert calibration["ece"] <= 0.02
    for label in labels:
        part = calibration["by_strategy"][label]
        assert part["ece"] <= 0.05, label
        assert abs(part["mean_estimate"] - part["won"]) < 0.03, label
    assert model.strengths["random"][0] < 0 < model.strengths["ismcts"][0]


def by_count(groups: int, truth_w, truth: dict, seed: int = 5):
    """Positions drawn from a model whose strategies' strength depends on the player count
    (``truth``: key -> {players: strength}): rows, keys, won, groups."""
    rng = np.random.default_rng(seed)
    names = sorted(truth)
    rows, keys, won, group_of = [], [], [], []
    for group in range(groups):
        seats = 2 + group % 3
        x = rng.poisson(3, size=(seats, len(FEATURES))).astype(float)
        x[:, PROGRESS] = rng.random()
        who = [names[i] for i in rng.integers(len(names), size=seats)]
        scores = x @ truth_w + np.array([truth[k][seats] for k in who])
        p = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        winner = rng.choice(seats, p=p)
        rows.extend(x)
        keys.extend(who)
        won.extend(1.0 if s == winner else 0.0 for s in range(seats))
        group_of.extend([group] * seats)
    return np.array(rows), keys, np.array(won), np.array(group_of)


def test_per_player_count_terms_recover_a_strength_that_changes_with_the_table():
    truth_w = np.zeros(len(FEATURES))
    truth_w[:2] = [0.2, 0.1]
    truth = {
        "search": {2: 2.5, 3: 1.5, 4: 1.0},  # far stronger head to head
        "weak": {2: -1.0, 3: -1.0, 4: -1.0},
        "planner": {2: 0.0, 3: 0.0, 4: 0.0},
    }
    rows, keys, won, groups = by_count(6000, truth_w, truth)
    pooled, _ = fit_model(rows, keys, won, groups, "planner")
    model, errors = fit_model(rows, keys, won, groups, "planner", by_players=True, shrink=1.0)
    assert set(model.by_players["search"]) == {2, 3, 4}
    for count in (2, 3, 4):
        gap = model.by_players["search"][count][0] - model.by_players["planner"][count][0]
        assert abs(gap - truth["search"][count]) < 4 * errors["strength:search"] + 0.15, count
    # per strategy and player count, the mean chance is the win share; the pooled terms
    # miss the search player's head-to-head strength
    key_of = np.array(keys)
    size = np.bincount(groups)[groups]
    for fitted, tolerance in ((model, 0.03), (pooled, None)):
        chances = np.empty(len(rows))
        for group in np.unique(groups):
            at = groups == group
            terms = fitted.terms(list(key_of[at]))
            chances[at] = fitted.chances_many(rows[at][None], terms)[0]
        mine = (key_of == "search") & (size == 2)
        bias = chances[mine].mean() - won[mine].mean()
        if tolerance is None:
            assert bias < -0.03
        else:
            assert abs(bias) < tolerance


def test_the_match_up_term_adds_c_times_the_rivals_mean_rating_and_round_trips():
    model = StandingModel(
        np.zeros(len(FEATURES)),
        strengths={"planner": (0.5, -0.2), "search": (1.0, -0.5), "random": (-3.0, 0.0)},
        by_players={"search": {2: (2.0, -1.0)}},
        ratings={"planner": 0.5, "search": 1.0, "random": -3.0},
        rivals={"planner": 0.0, "search": 0.25, "random": 0.0},
    )
    # two players: the search player's own two-player terms, plus 0.25 x planner's rating
    assert model.terms(["search", "planner"]).tolist() == [[2.125, -1.0], [0.5, -0.2]]
    # three: pooled terms; rivals planner and random, mean rating -1.25
    terms = model.terms(["search", "planner", "random"])
    assert terms[0].tolist() == [1.0 - 0.3125, -0.5]
    # a seat given a strength: no match-up term of its own, its strength its rating
    given = model.terms(["search", "someone"], {"someone": 2.0})
    assert given.tolist() == [[2.0 + 0.5, -1.0], [2.0, 0.0]]
    again = StandingModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.to_dict() == model.to_dict()
    assert again.terms(["search", "planner", "random"]).tolist() == terms.tolist()


def test_the_newton_fit_is_the_maximum_statsmodels_finds_with_every_term():
    from statsmodels.discrete.conditional_models import ConditionalLogit

    from sims.standing import conditional_logit

    rng = np.random.default_rng(11)
    groups = 600
    design = np.zeros((groups, 4, 5))
    mask = np.zeros((groups, 4), dtype=bool)
    winner = np.zeros(groups, dtype=int)
    truth = np.array([0.5, -0.3, 0.2, 0.0, 1.0])
    flat, won, group_of = [], [], []
    for g in range(groups):
        seats = 2 + g % 3
        x = rng.normal(size=(seats, 5))
        p = np.exp(x @ truth) / np.exp(x @ truth).sum()
        winner[g] = rng.choice(seats, p=p)
        design[g, :seats], mask[g, :seats] = x, True
        flat.extend(x)
        won.extend(1.0 if s == winner[g] else 0.0 for s in range(seats))
        group_of.extend([g] * seats)
    mine = conditional_logit(design, winner, mask, chunk=97)
    fit = ConditionalLogit(np.array(won), np.array(flat), groups=np.array(group_of)).fit(
        disp=0, method="newton"
    )
    assert mine.loglik == pytest.approx(fit.llf, rel=1e-10)
    assert np.allclose(mine.params, fit.params, atol=1e-6)
    assert np.allclose(mine.errors, fit.bse, rtol=1e-4)
    again = conditional_logit(design, winner, mask, chunk=97)
    assert again.params.tolist() == mine.params.tolist()  # deterministic


def test_the_shipped_model_is_calibrated_per_strategy_on_the_skill_study_s_line_ups():
    """The figures ``benchmarks/standing.py calibrate --mix skill/search --write`` stored:
    every strategy of the skill study within the project's 0.05 (debiased ECE: the binned
    ECE less its noise on the games measured), its mean chance near its win share, and
    enough search games for the figure to mean something."""
    data = shipped_model().to_dict()
    skill, search = data["calibration_skill"], data["calibration_search"]
    assert skill["ece"] <= 0.02 and skill["brier"] < skill["brier_uninformed"]
    for label, part in skill["by_strategy"].items():
        if label.startswith("ismcts"):
            part = search["by_strategy"][label]
            assert part["games"] >= 300, label
        assert part["ece_debiased"] <= 0.05, label
        assert abs(part["mean_estimate"] - part["won"]) < 0.04, label
