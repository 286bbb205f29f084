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
