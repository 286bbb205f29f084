"""Calibration figures (sims/calibration.py) against values worked out by hand, and the
bootstrap's sums against resampling the rows of whole games directly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sims.calibration import bin_index, bootstrap, brier, ece, reliability, report


def test_brier_and_ece_by_hand():
    p = np.array([0.05, 0.15, 0.15, 0.95])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    # (0.05^2 + 0.85^2 + 0.15^2 + 0.05^2) / 4
    assert brier(p, y) == pytest.approx((0.0025 + 0.7225 + 0.0225 + 0.0025) / 4)
    # bins 0, 1, 9: gaps 0.05 (1 estimate), |0.15 - 0.5| (2), 0.05 (1)
    assert ece(p, y) == pytest.approx((0.05 + 2 * 0.35 + 0.05) / 4)
    assert ece(np.array([0.3, 0.3]), np.array([0.0, 1.0])) == pytest.approx(0.2)


def test_bins_are_equal_width_and_one_is_in_the_last():
    assert bin_index(np.array([0.0, 0.0999, 0.1, 0.55, 0.9, 1.0])).tolist() == [0, 0, 1, 5, 9, 9]
    bins = reliability(np.array([0.25, 0.35, 1.0]), np.array([1.0, 0.0, 1.0]))
    assert [b.n for b in bins] == [0, 0, 1, 1, 0, 0, 0, 0, 0, 1]
    assert bins[2].mean_estimate == 0.25 and bins[2].won == 1.0
    assert np.isnan(bins[0].mean_estimate) and (bins[9].low, bins[9].high) == (0.9, 1.0)


def direct(game, p, y, draws, seed):
    """The bootstrap spelled out: draw games, gather their rows, score them."""
    games = np.unique(game)
    rng = np.random.default_rng(seed)
    briers, eces = [], []
    for _ in range(draws):
        rows = np.concatenate([np.flatnonzero(game == g) for g in rng.choice(games, len(games))])
        briers.append(brier(p[rows], y[rows]))
        eces.append(ece(p[rows], y[rows]))
    return np.array(briers), np.array(eces)


def sample(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    game, players, p, y = [], [], [], []
    for g in range(games):
        n = 2 + g % 3
        for _ in range(1 + g % 4):
            chance = rng.dirichlet(np.ones(n))
            won = rng.choice(n, p=chance)
            for seat in range(n):
                game.append(g)
                players.append(n)
                p.append(chance[seat])
                y.append(float(seat == won))
    return np.array(game), np.array(players), np.array(p), np.array(y)


def test_the_bootstrap_resamples_whole_games():
    game, _, p, y = sample(30, 1)
    fast = bootstrap(game, p, y, 40, 7)
    slow = direct(game, p, y, 40, 7)
    assert np.allclose(fast[0], slow[0]) and np.allclose(fast[1], slow[1])
    # the draws depend only on the seed and the games: the same resamples for another estimate
    other = bootstrap(game, np.full(len(p), 0.5), y, 40, 7)
    assert np.allclose(other[0], direct(game, np.full(len(p), 0.5), y, 40, 7)[0])


def test_the_report_per_player_count():
    game, players, p, y = sample(60, 2)
    figures = report(game, players, p, y, 50, 3)
    assert figures["games"] == 60 and figures["estimates"] == len(p)
    assert figures["brier"] == pytest.approx(brier(p, y))
    low, high = figures["ece_ci"]
    assert low <= high
    by = figures["by_players"]
    assert sorted(by) == [2, 3, 4] and by[2]["games"] == 20
    # one winner a game: 1/2 is off by 1/2 for both seats; 1/3 by 2/3 once and 1/3 twice
    assert by[2]["brier_uninformed"] == pytest.approx(0.25)
    assert by[3]["brier_uninformed"] == pytest.approx((4 / 9 + 2 / 9) / 3)
    assert by[4]["brier_uninformed"] == pytest.approx((9 / 16 + 3 / 16) / 4)
    part = players == 3
    assert by[3]["ece"] == pytest.approx(ece(p[part], y[part]))
    assert by[3]["brier_ci"][0] <= by[3]["brier"] <= by[3]["brier_ci"][1]


def test_calibration_by_group_by_hand():
    from sims.calibration import by_group

    game = np.array([0, 0, 1, 1, 2, 2])
    group = np.array(["a", "b", "a", "b", "a", "b"])
    p = np.array([0.2, 0.8, 0.8, 0.2, 0.25, 0.75])
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    out = by_group(game, group, p, y, 200, 7)
    a, b = out["a"], out["b"]
    assert (a["games"], a["estimates"], b["games"]) == (3, 3, 3)
    # a: estimates 0.2, 0.8, 0.25 (bins 2, 8, 2) won 0, 1, 1
    assert a["mean_estimate"] == pytest.approx(1.25 / 3) and a["won"] == pytest.approx(2 / 3)
    assert a["brier"] == pytest.approx((0.04 + 0.04 + 0.5625) / 3)
    # bin 2: mean 0.225, won 0.5 (2 estimates); bin 8: 0.8 vs 1 (1 estimate)
    assert a["ece"] == pytest.approx((2 * 0.275 + 0.2) / 3)
    # b: 0.8 won, 0.2 lost, 0.75 lost: bins 8 (0.8 vs 1), 2 (0.2 vs 0), 7 (0.75 vs 0)
    assert b["ece"] == pytest.approx((0.2 + 0.2 + 0.75) / 3)
    assert b["brier_ci"][0] <= b["brier"] <= b["brier_ci"][1]
    assert a["ece_ci"][0] <= a["ece"] + 1e-12


def test_the_ece_noise_by_hand():
    from sims.calibration import noise

    # one bin (all estimates in 0.2-0.3), three games: residuals y - p per game
    game = np.array([0, 0, 1, 2])
    p = np.array([0.25, 0.25, 0.25, 0.25])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    # gap = mean(y - p) = 0.25; game residuals 0.5, -0.25, 0.75 with counts 2, 1, 1
    gap = 0.25
    spread = ((0.5 - 2 * gap) ** 2 + (-0.25 - gap) ** 2 + (0.75 - gap) ** 2) / 16
    variance = spread * 3 / 2
    floor, debiased = noise(game, p, y)
    assert floor == pytest.approx(math.sqrt(2 * variance / math.pi))
    assert debiased == pytest.approx(math.sqrt(max(gap**2 - variance, 0.0)))


def test_a_calibrated_estimator_s_ece_is_its_noise_and_debiased_near_zero():
    """The reference the per-strategy figures are read against: outcomes drawn from the
    estimates themselves (one winner per game among its seats), a few hundred games, as a
    search player's rows have. The raw ECE sits near the noise floor, far above 0 (about
    0.03); the debiased ECE takes more than half of that off (about 0.014); a model off by
    0.10 is not hidden by the debiasing."""
    from sims.calibration import noise

    rng = np.random.default_rng(20)
    raws, floors, debiased, shifted = [], [], [], []
    for _ in range(40):
        game, p, y = [], [], []
        for g in range(300):
            chance = rng.dirichlet([2.0, 2.0, 2.0])
            winner = rng.choice(3, p=chance)
            for _ in range(5):  # the same game seen at five positions
                game += [g] * 3
                p += list(chance)
                y += [1.0 if s == winner else 0.0 for s in range(3)]
        game_, p_, y_ = np.array(game), np.array(p), np.array(y)
        raws.append(ece(p_, y_))
        floor, fixed = noise(game_, p_, y_)
        floors.append(floor)
        debiased.append(fixed)
        shifted.append(noise(game_, np.clip(p_ + 0.10, 0, 1), y_)[1])
    assert np.mean(raws) == pytest.approx(np.mean(floors), rel=0.35)
    # the debiasing takes off more than half the bias, not all: sqrt of a positive part
    assert np.mean(raws) > 0.02 and np.mean(debiased) < 0.55 * np.mean(raws)
    assert min(shifted) > 0.07
