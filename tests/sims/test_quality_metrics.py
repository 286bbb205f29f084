"""The game-quality metrics (sims/quality.py) against values worked out by hand, and the
calibration figures (sims/calibration.py) against a direct computation."""

from __future__ import annotations

import numpy as np
import pytest

from sims.calibration import bootstrap, brier, ece, reliability
from sims.quality import quality

# a 2-player game: seat 1 leads, seat 0 takes over on the last turn and wins
COMEBACK = [[0.5, 0.5], [0.3, 0.7], [0.2, 0.8], [0.6, 0.4], [1.0, 0.0]]


def test_a_late_comeback_by_hand():
    q = quality(COMEBACK, [0], points=[[0, 0], [1, 3], [2, 5], [9, 6], [20, 12]], scores=[20, 12])
    assert q.positions == 5
    # leaders: none (tie), 1, 1, 0, 0 -> one change
    assert q.lead_changes_chance == 1
    # points leaders: none, 1, 1, 0, 0
    assert q.lead_changes_points == 1
    # behind by 0, 0.4, 0.6, 0 over the 4 positions before the result
    assert q.drama == pytest.approx((0 + 0.4 + 0.6 + 0) / 4)
    # above 1/2 from position 3 on, of positions 0..4
    assert (q.decisive_at, q.decisive_fraction) == (3, 0.75)
    # changes: 0.2, 0.1, 0.4, 0.4 (each seat's change, halved and summed: the same)
    assert q.excitement == pytest.approx(1.1)
    assert q.lowest_chance == pytest.approx(0.2) and q.comeback == pytest.approx(5.0)
    assert q.final_margin == 8


def test_a_wire_to_wire_four_player_game():
    rows = [[0.4, 0.2, 0.2, 0.2], [0.55, 0.15, 0.15, 0.15], [1.0, 0.0, 0.0, 0.0]]
    q = quality(rows, [0], scores=[30, 10, 25, 12])
    assert q.lead_changes_chance == 0 and q.drama == 0.0
    assert (q.decisive_at, q.decisive_fraction) == (1, 0.5)
    assert q.excitement == pytest.approx((0.3 + 0.9) / 2)  # (0.15 + 3 x 0.05), (0.45 + 3 x 0.15)
    assert q.comeback == pytest.approx(2.5) and q.final_margin == 5
    assert q.lead_changes_points is None


def test_a_shared_win_counts_its_winners_as_one_side():
    rows = [[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]]
    q = quality(rows, [0, 1], scores=[14, 14, 9])
    assert q.drama == pytest.approx(0.0)  # the side had 0.6 against 0.4
    assert q.lowest_chance == pytest.approx(0.6) and q.final_margin == 5
    assert q.lead_changes_chance == 0  # the result is a tie at the top: no single leader


def test_a_winner_never_above_one_half_has_no_decisive_point_and_a_floor():
    q = quality([[0.0, 1.0], [0.4, 0.6]], [0])
    assert q.decisive_at is None and q.decisive_fraction is None
    assert q.comeback == 100.0  # 1 / max(0, 0.01)


@pytest.mark.parametrize(
    ("chances", "winners", "said"),
    [([], [0], "no positions"), ([[0.5, 0.5]], [2], "not seats"), ([[0.5, 0.5]], [], "not")],
)
def test_bad_input_is_refused(chances, winners, said):
    with pytest.raises(ValueError, match=said):
        quality(chances, winners)


def test_calibration_figures_by_hand():
    p = np.array([0.05, 0.15, 0.15, 0.95, 0.95, 0.55])
    y = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    assert brier(p, y) == pytest.approx(np.mean((p - y) ** 2))
    bins = [b for b in reliability(p, y) if b.n]
    assert [(b.n, b.mean_estimate, b.won) for b in bins] == [
        (1, pytest.approx(0.05), 0.0),
        (2, pytest.approx(0.15), 0.5),
        (1, pytest.approx(0.55), 0.0),
        (2, pytest.approx(0.95), 1.0),
    ]
    # ECE: (1 x 0.05 + 2 x 0.35 + 1 x 0.55 + 2 x 0.05) / 6
    assert ece(p, y) == pytest.approx((0.05 + 0.7 + 0.55 + 0.1) / 6)
    briers, eces = bootstrap(np.array([0, 0, 1, 1, 2, 2]), p, y, 50, 1)
    assert briers.shape == eces.shape == (50,) and (eces >= 0).all()
