"""How numbers read in a report (reports/numbers.py): win shares as percentages, their
changes in points, p-values never as 0.0e+00, and beside each verdict the interval it was
read from."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports.margins import DIFFERENT, EQUAL, UNKNOWN, judge
from reports.markdown import render as markdown
from reports.markdown import table
from reports.numbers import SURELY_NOT_ZERO, p_cell, p_text, percent, plain, points, shown


def test_shares_read_as_percentages_and_their_changes_as_points():
    assert percent(0.5166) == "51.7%" and percent(0.052) == "5.2%" and percent(1.0) == "100%"
    assert percent(0.0) == "0%" and percent(float("nan")) == ""
    assert points(0.0311) == "+3.1 pts" and points(-0.0222) == "-2.2 pts"
    assert points(-0.0001) == "0.0 pts"  # never "-0.0"
    assert p_cell(0.0) == "< 0.001" and p_cell(3.07e-5) == "< 0.001" and p_cell(0.0338) == "0.034"
    assert p_text(0.0) == "p < 0.001" and p_text(0.0098) == "p = 0.0098"
    assert plain(6.23e-05) == "0.0001" and plain(-6.23e-05) == "-0.0001"
    assert plain(123456.0) == "123,456" and plain(0.408333) == "0.408"


def test_a_win_rates_table_shows_percentages_and_p_values_below_a_thousandth():
    frame = pd.DataFrame(
        {
            "players": [2, 2],
            "strategy": ["planner", "thief"],
            "n_games": [480, 480],
            "rate": [0.554166666, 0.4625],
            "ci_low": [0.5124129, 0.415],
            "ci_high": [0.5951696, 0.511],
            "fair": [0.5, 0.5],
            "p_adjusted": [0.0, 0.38512],
            "verdict": [DIFFERENT, UNKNOWN],
        }
    )
    text = table(frame, list(frame.columns), "win_rates")
    assert "| 2 | planner | 480 | 55.4% | 51.2% | 59.5% | 50.0% | < 0.001 | different |" in text
    assert "| 0.39 |" in text
    assert not re.search(r"\d\.\d{4,}|e[-+]\d\d", text)


def _judged(difference: float, half: float, margin: float) -> pd.DataFrame:
    se = half / 1.959963984540054
    frame = pd.DataFrame(
        {
            "variant": ["v"],
            "players": [2],
            "metric": ["turns"],
            "difference": [difference],
            "ci_low": [difference - half],
            "ci_high": [difference + half],
            "p_value": [2 * float(stats.norm.sf(abs(difference) / se))],
        }
    )
    return judge(frame, margin, [], n="players")


def test_beside_practically_equal_the_equivalence_interval_and_surely_not_zero():
    row = _judged(0.4, 0.3, 1.0)  # +0.4 [+0.1, +0.7]: inside +-1, and excludes 0
    assert row["verdict"].iloc[0] == EQUAL and row["family_low"].iloc[0] > 0
    cells = shown(row, "variants", ["difference", "family_low", "family_high", "verdict"])
    assert list(cells.columns) == ["difference", "low", "high", "verdict"]
    got = cells.iloc[0]
    assert got["verdict"] == SURELY_NOT_ZERO == "practically equal, though surely not zero"
    # the equivalence interval (90%), the one the verdict is read from, not the family's
    assert float(got["low"]) == pytest.approx(row["equiv_low"].iloc[0], abs=1e-3)
    assert float(got["high"]) == pytest.approx(row["equiv_high"].iloc[0], abs=1e-3)
    plain_equal = shown(_judged(0.05, 0.3, 1.0), "variants", ["family_low", "verdict"])
    assert plain_equal.iloc[0]["verdict"] == EQUAL  # an interval holding 0 says no more


def test_a_different_verdict_shows_its_family_interval_and_a_share_in_points():
    frame = _judged(0.05, 0.02, 0.02).assign(metric="first_seat_win_share")
    frame = frame.assign(base=0.52, value=0.57)
    cells = shown(frame, "variants", ["base", "value", "difference", "family_low", "verdict"])
    got = cells.iloc[0]
    assert got["verdict"] == DIFFERENT
    assert (got["base"], got["value"], got["difference"]) == ("52.0%", "57.0%", "+5.0 pts")
    assert got["low"] == points(frame["family_low"].iloc[0])


def test_the_markdown_report_has_no_exponents_nor_long_share_fractions(analysis):
    text = markdown(analysis)
    tables = [line for line in text.splitlines() if line.startswith("| ")]
    assert tables
    for line in tables:
        assert not re.search(r"\b\d\.\d+e[-+]\d+\b", line), line
        assert "0.0e+00" not in line
    shares = [line for line in tables if line.startswith("| 2 | planner |")]
    shares = [line for line in shares if "separation" not in line]  # the leaders' row
    assert shares and all("%" in line or " pts" in line for line in shares), shares
    assert not re.search(r"p ?= ?0\.0e|p=0\b", text)
    assert "Bonferroni-adjusted over the same family" in text


def test_counts_stay_integers_and_missing_values_stay_empty():
    frame = pd.DataFrame({"n_games": [10.0, 12.0], "mean": [np.nan, 2.0], "note": [None, "x"]})
    cells = shown(frame, "game_length")
    assert cells["n_games"].tolist() == ["10", "12"]
    assert cells["mean"].tolist() == ["", "2"] and cells["note"].tolist() == ["", "x"]


def test_a_sweep_row_practically_equal_and_surely_not_zero_says_both():
    """Sweeps read both verdicts off one interval: a row inside the margin that excludes 0
    says both, beside that same interval."""
    frame = pd.DataFrame(
        {
            "metric": ["turns", "first_seat_edge"],
            "value": [1.0, 1.0],
            "difference": [-0.657, -0.0439],
            "ci_low": [-0.831, -0.068],
            "ci_high": [-0.482, -0.0199],
            "verdict": [EQUAL, DIFFERENT],
        }
    )
    cells = shown(frame, "sweeps")
    assert cells["verdict"].tolist() == [SURELY_NOT_ZERO, DIFFERENT]
    assert cells["ci_low"].tolist() == ["-0.831", "-6.8 pts"]
    assert cells["difference"].tolist() == ["-0.657", "-4.4 pts"]
    assert cells["value"].tolist() == ["1", "1"]  # the swept value, not a share


def test_the_variant_chart_draws_the_interval_each_verdict_is_read_from():
    from reports.figures import variant_effects, verdict_interval

    rows = pd.concat([_judged(0.4, 0.3, 1.0), _judged(0.9, 0.3, 0.5)], ignore_index=True)
    assert rows["verdict"].tolist() == [EQUAL, DIFFERENT]
    low, high = verdict_interval(rows)
    assert (low.iloc[0], high.iloc[0]) == (rows["equiv_low"].iloc[0], rows["equiv_high"].iloc[0])
    assert (low.iloc[1], high.iloc[1]) == (rows["family_low"].iloc[1], rows["family_high"].iloc[1])
    table = rows.assign(
        variant=["a", "b"], method="paired t", n_deals=100, n_games=100, margin=[1.0, 0.5]
    )
    point = variant_effects(table, ("turns",)).data[0]
    assert point.error_y.array[0] == pytest.approx(rows["equiv_high"].iloc[0] - 0.4)
