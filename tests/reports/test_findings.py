"""Headline findings: per player count, tests of contrasts (never overlapping intervals)."""

from reports.findings import headline
from reports.markdown import render


def test_headline_is_per_player_count_and_never_reads_overlaps(analysis):
    lines = headline(analysis)
    text = "\n".join(lines)
    assert "overlap" not in text
    for players in (2, 4):
        assert any(f"at {players} players" in line.lower() for line in lines), text
    ratings = analysis.tables["ratings"]
    for _, row in ratings[ratings["strength"].isna()].iterrows():
        assert row["note"]  # no number, but a reason
    assert "random` is left out of the field" in text


def test_markdown_says_what_n_counts_and_names_the_correction(analysis):
    text = render(analysis)
    assert "n_games" in text and "Holm" in text
    assert "| players | rank | strategy | strength |" in text


def test_a_study_of_one_strategy_draws_no_rating_or_win_chart(tmp_path):
    from reports.analysis import analyse
    from reports.sections import build
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    study = {
        "name": "same",
        "seed": 5,
        "lineups": [["planner", "planner"]],
        "players": [2],
        "games_per_cell": 4,
        "batch_size": 4,
    }
    run(from_dict(study, "test"), workers=1, out=tmp_path / "r", progress=False)
    analysis = analyse(load_results(tmp_path / "r"))
    first = build(analysis).sections[0]
    assert first.key == "strongest" and not first.on_page  # left off the page
    assert first.charts == [] and "nothing to compare" in first.intro
    assert any("every seat is planner" in line for line in headline(analysis))


def test_a_p_value_reads_as_two_figures_or_below_a_thousandth():
    from reports.findings import _p

    assert _p(0.0312) == "p = 0.031"
    assert _p(0.0) == "p < 0.001" and _p(4e-7) == "p < 0.001"  # never 0.0e+00
    assert _p(float("nan")) == "p n/a"
