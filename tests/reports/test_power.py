"""Power: the minimal detectable effects, against statsmodels reference values, and a planted
check that an effect of the MDE is found about 80% of the time."""

import numpy as np
import pandas as pd
import pytest

from reports import power


def test_mde_rate_matches_statsmodels_solve_power():
    # NormalIndPower().solve_power(effect_size=None, nobs1=100, alpha=0.05, power=0.8, ratio=0)
    # -> 0.2801568334667266 (Cohen's h); at p0 = 0.5: sin(asin(sqrt(.5)) + h/2)^2 - 0.5
    h = 0.2801568334667266
    expected = np.sin(np.arcsin(np.sqrt(0.5)) + h / 2) ** 2 - 0.5
    assert power.mde_rate(0.5, 100) == pytest.approx(expected, rel=1e-9)
    assert power.mde_rate(0.5, 100) == pytest.approx(0.138253, abs=1e-6)
    # the normal shortcut (z.975 + z.8) * sqrt(p0 (1 - p0) / n) is close
    assert power.mde_rate(0.25, 400) == pytest.approx(2.8016 * np.sqrt(0.25 * 0.75 / 400), rel=0.05)


def test_mde_from_se():
    assert power.mde_from_se(0.1) == pytest.approx(0.28015852, abs=1e-7)  # (1.95996+0.84162)*SE


def test_planted_effect_of_the_mde_is_found_about_80_percent_of_the_time():
    rng = np.random.default_rng(7)
    n, p0 = 400, 0.25
    p1 = p0 + power.mde_rate(p0, n)
    wins = rng.binomial(n, p1, size=4000)
    h = 2 * np.arcsin(np.sqrt(wins / n)) - 2 * np.arcsin(np.sqrt(p0))
    found = np.abs(h) * np.sqrt(n) > power.Z_ALPHA  # the arcsine z-test the power assumes
    assert 0.77 < found.mean() < 0.83
    null = rng.binomial(n, p0, size=4000)
    h0 = 2 * np.arcsin(np.sqrt(null / n)) - 2 * np.arcsin(np.sqrt(p0))
    assert 0.035 < (np.abs(h0) * np.sqrt(n) > power.Z_ALPHA).mean() < 0.065


def _seats(games: int) -> pd.DataFrame:
    rows = []
    for g in range(games):
        for seat, strategy in enumerate(("a", "b") if g % 2 else ("b", "a")):
            win = float((g % 3 == 0) == (strategy == "a"))
            rows.append(
                {
                    "cell": "base/2p/a+b",
                    "game_index": g,
                    "players": 2,
                    "seat": seat,
                    "strategy": strategy,
                    "win_share": win,
                    "variant": "base",
                }
            )
    return pd.DataFrame(rows)


def test_convergence_is_cumulative_in_game_order_and_ends_at_the_overall_rate():
    seats = _seats(90)
    frame = power.convergence(seats, points=10)
    a = frame[frame["strategy"] == "a"].sort_values("games")
    assert a["games"].is_monotonic_increasing and a["games"].iloc[-1] == 90
    assert a["rate"].iloc[-1] == pytest.approx(30 / 90)
    assert (a["ci_high"] - a["ci_low"]).iloc[-1] < (a["ci_high"] - a["ci_low"]).iloc[0]
    assert frame.equals(power.convergence(seats.sample(frac=1, random_state=1), points=10))


def test_seat_convergence_for_a_table_of_one_strategy():
    seats = _seats(60).assign(strategy="a")
    assert power.convergence(seats).empty  # alone at every table: nothing to compare
    frame = power.key_convergence(seats)
    assert set(frame["strategy"]) == {"seat 0"}
    assert frame.sort_values("games")["n_games"].iloc[-1] == 60
