"""Figures are checked by their data: each draws exactly what its stats frame holds."""

import pytest

from reports import figures


def test_win_rate_bars_hold_the_rates_and_intervals(analysis):
    table = analysis.tables["win_rates"]
    fig = figures.win_rates(table)
    for trace in fig.data:
        players = int(trace.name.split()[0])
        rows = table[table["players"] == players]
        assert list(trace.x) == list(rows["strategy"])
        assert list(trace.y) == pytest.approx(list(rows["rate"]))
        assert list(trace.error_y.array) == pytest.approx(list(rows["ci_high"] - rows["rate"]))


def test_rating_points_are_the_strengths_per_player_count(analysis):
    # was: one pooled trace; ratings are now per player count, one trace each
    table = analysis.tables["ratings"].dropna(subset=["strength"])
    fig = figures.ratings(table)
    assert len(fig.data) == table["players"].nunique()
    for trace in fig.data:
        rows = table[table["players"] == int(trace.name.split()[0])]
        assert dict(zip(trace.y, trace.x, strict=True)) == pytest.approx(
            dict(zip(rows["strategy"], rows["strength"], strict=True))
        )


def test_head_to_head_heatmap_is_the_matrix(analysis):
    table = analysis.tables["head_to_head"]
    (trace,) = figures.head_to_head(table, 4).data
    row = list(trace.y).index("planner")
    col = list(trace.x).index("random")
    here = table[table["players"] == 4]
    expected = here[(here["strategy"] == "planner") & (here["opponent"] == "random")]
    assert trace.z[row][col] == pytest.approx(expected["rate"].iloc[0])


def test_seat_figure_has_one_line_per_player_count(analysis):
    table = analysis.tables["seat_advantage"]
    fig = figures.seat_advantage(table)
    assert len(fig.data) == table["players"].nunique()
    four = next(t for t in fig.data if t.name == "4 players")
    assert list(four.x) == [1, 2, 3, 4]


def test_destination_figure_marks_flagged_cards(analysis):
    table = analysis.tables["destinations"]
    fig = figures.destination_balance(table)
    # every card of a player count with a fitted model, at its expected value
    plotted = sum(len(t.x) for t in fig.data if t.name in ("in line", "flagged"))
    assert plotted == int(table["expected"].notna().sum()) > 0
    flagged = sum(len(t.x) for t in fig.data if t.name == "flagged")
    assert flagged == int((table["flag"] != "").sum())


def test_variant_figure_shows_differences(analysis):
    table = analysis.tables["variants"]
    fig = figures.variant_effects(table, "turns")
    rows = table[table["metric"] == "turns"]
    assert sum(len(t.y) for t in fig.data if t.type == "bar") == len(rows)


def test_penalties_are_drawn_below_zero_with_their_interval(analysis):
    table = analysis.tables["score_parts"]
    fig = figures.score_parts(table, 2)
    penalties = next(t for t in fig.data if t.name == "penalties")
    rows = table[(table["players"] == 2) & (table["part"] == "penalties")]
    assert list(penalties.y) == pytest.approx(list(-rows["mean"]))
    # the bar's upper error reaches -ci_low, its lower error -ci_high
    assert list(penalties.error_y.array) == pytest.approx(list(rows["mean"] - rows["ci_low"]))
    assert list(penalties.error_y.arrayminus) == pytest.approx(list(rows["ci_high"] - rows["mean"]))
