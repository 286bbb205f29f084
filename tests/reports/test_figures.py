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
    # one trace per player count; a baseline far below the rest is drawn apart, value written
    table = analysis.tables["ratings"].dropna(subset=["strength"])
    fig = figures.ratings(table)
    apart = figures._off_scale(table)
    counts = [t for t in fig.data if t.name.endswith("players")]
    assert len(counts) == table["players"].nunique()
    for trace in counts:
        rows = table[(table["players"] == int(trace.name.split()[0]))]
        rows = rows.drop(index=apart.index, errors="ignore")
        assert dict(zip(trace.y, trace.x, strict=True)) == pytest.approx(
            dict(zip(rows["strategy"], rows["strength"], strict=True))
        )
    for _, row in apart.iterrows():
        (off,) = [t for t in fig.data if t.name.startswith("off scale")]
        assert any(f"{row['strength']:+.2f}" in text for text in off.text)


def test_a_random_baseline_does_not_squash_the_rating_axis():
    import pandas as pd

    table = pd.DataFrame(
        {
            "players": [2] * 4,
            "strategy": ["a", "b", "c", "random"],
            "strength": [0.3, 0.0, -0.3, -3.0],
            "ci_low": [0.1, -0.2, -0.5, -3.5],
            "ci_high": [0.5, 0.2, -0.1, -2.5],
            "n_tables": 100,
            "note": "",
        }
    )
    fig = figures.ratings(table)
    low, high = fig.layout.xaxis.range
    assert low > -1.0 and high < 1.0  # the axis spans the strategies, not the baseline
    assert "random" in figures.ratings_apart(table) and "-3.00" in figures.ratings_apart(table)


def test_head_to_head_heatmap_is_the_matrix(analysis):
    table = analysis.tables["head_to_head"]
    (trace,) = figures.head_to_head(table, 4).data
    row = list(trace.y).index("planner")
    col = list(trace.x).index("random")
    here = table[table["players"] == 4]
    expected = here[(here["strategy"] == "planner") & (here["opponent"] == "random")]
    assert trace.z[row][col] == pytest.approx(expected["rate"].iloc[0])
    assert trace.text[row][col].startswith(f"{100 * expected['rate'].iloc[0]:.0f}%")


def test_head_to_head_is_ordered_by_strength_with_numbers_and_a_scale_without_random(analysis):
    table, ratings = analysis.tables["head_to_head"], analysis.tables["ratings"]
    fig = figures.head_to_head(table, 4, ratings)
    (trace,) = fig.data
    rated = ratings[(ratings["players"] == 4)].dropna(subset=["strength"])
    rated = rated.sort_values("strength", ascending=False)["strategy"].tolist()
    assert [s for s in trace.y if s in rated] == rated  # strongest first
    assert fig.layout.meta["own_order"]  # the report's alphabetical order is not imposed
    assert all(
        cell
        for r, row in enumerate(trace.text)
        for c, cell in enumerate(row)
        if r != c and trace.z[r][c] is not None
    )
    fair = table[
        (table["players"] == 4) & ~table["strategy"].eq("random") & ~table["opponent"].eq("random")
    ]
    spread = max((fair["rate"] - 0.5).abs().max(), 0.05)
    assert trace.zmax == pytest.approx(0.5 + min(spread, 0.5))


def test_percentage_ticks_never_repeat():
    assert figures.percent_format([0.0, 0.04]) == ".1%"  # 0.5% steps keep a decimal
    assert figures.percent_format([0.0, 0.6]) == ".0%"
    assert figures.percent_format([-0.02, 0.03], signed=True) == "+.1%"


def test_meta_game_leaves_out_intervals_that_span_everything():
    import pandas as pd

    table = pd.DataFrame({"strategy": ["a", "b"], "weight": [1.0, 0.0], "boot_mean": [0.5, 0.5],
                          "ci_low": [0.0, 0.3], "ci_high": [1.0, 0.7], "share_positive": [0.6, 0.5],
                          "draws": 200})  # fmt: skip
    bar = figures.meta_game(table).data[0]
    assert list(bar.error_y.array) == pytest.approx([0.0, 0.2])


def test_seat_figure_has_one_line_per_player_count(analysis):
    table = analysis.tables["seat_advantage"]
    fig = figures.seat_advantage(table)
    assert len(fig.data) == table["players"].nunique()
    four = next(t for t in fig.data if t.name == "4 players")
    assert list(four.x) == [0, 1, 2, 3]  # seat 0 plays first, as everywhere
    assert "seat 0 plays first" in fig.layout.xaxis.title.text


def test_destination_figure_marks_flagged_cards(analysis):
    table = analysis.tables["destinations"]
    fig = figures.destination_balance(table)
    # every card of a player count with a fitted model, at its expected value
    plotted = sum(len(t.x) for t in fig.data if t.name in ("in line", "flagged"))
    assert plotted == int(table["expected"].notna().sum()) > 0
    flagged = sum(len(t.x) for t in fig.data if t.name == "flagged")
    assert flagged == int((table["flag"] != "").sum())


def test_variant_figure_shows_differences_each_panel_on_its_own_scale(analysis):
    table = analysis.tables["variants"]
    fig = figures.variant_effects(table)
    rows = table[table["metric"].isin(figures.VARIANT_METRICS)]
    assert sum(len(t.y) for t in fig.data) == len(rows)
    # one panel per metric and variant, none sharing its y axis with another
    axes = {t.yaxis for t in fig.data}
    assert len(axes) == rows.groupby(["metric", "variant"]).ngroups
    assert all(
        getattr(fig.layout, name).matches is None for name in fig.layout if name.startswith("yaxis")
    )


def test_penalties_are_drawn_below_zero_with_their_interval(analysis):
    table = analysis.tables["score_parts"]
    fig = figures.score_parts(table, 2)
    penalties = next(t for t in fig.data if t.name == "penalties")
    rows = table[(table["players"] == 2) & (table["part"] == "penalties")]
    assert list(penalties.y) == pytest.approx(list(-rows["mean"]))
    # the bar's upper error reaches -ci_low, its lower error -ci_high
    assert list(penalties.error_y.array) == pytest.approx(list(rows["mean"] - rows["ci_low"]))
    assert list(penalties.error_y.arrayminus) == pytest.approx(list(rows["ci_high"] - rows["mean"]))
