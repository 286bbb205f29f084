"""Sweeps in the report: a section with, per sweep, its sentence, then its figure and a
one-sentence caption; a summary row per sweep; the swept values kept out of the ordinary
variant section; the frames from Python (``reports.sweeps.sweep_tables``)."""

import re
from html import escape

import pytest

from reports import margins
from reports.sweeps import sentence, sweep_tables

STUDY = {
    "name": "what-if",
    "seed": 5,
    "players": [2],
    "lineups": [["planner", "thief"]],
    "games_per_cell": 30,
    "batch_size": 30,
    "sweeps": {
        "x": {"parameter": "destinations.24.points", "values": [8, 12, 16]},
        "y": {"parameter": "destinations_drawn", "values": [2, 4, 6]},
    },
}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path_factory.mktemp("sweep") / "r"
    run(from_dict(STUDY, "what-if.toml"), workers=1, out=folder, progress=False)
    return load_results(folder)


@pytest.fixture(scope="module")
def analysis(swept):
    from reports.analysis import analyse

    return analyse(swept)


def test_sweep_tables_give_one_tidy_frame_per_metric_from_python(swept):
    frames = sweep_tables(swept)
    assert {"turns", "mean_score", "first_seat_edge", "keep_rate"} <= set(frames)
    turns = frames["turns"]
    assert set(turns["sweep"]) == {"x", "y"}
    assert sorted(turns[turns["sweep"] == "y"]["value"]) == [2, 4, 6]
    printed = turns[turns["printed"]]
    assert (printed["difference"] == 0).all()  # the printed value against itself
    for _, row in turns.iterrows():
        assert row["verdict"] == margins.interval_verdict(
            row["ci_low"], row["ci_high"], row["margin"]
        )
    assert "keep_rate" in frames and set(frames["keep_rate"]["sweep"]) == {"x"}  # the card


def test_swept_values_are_not_ordinary_variants(analysis):
    variants = analysis.tables["variants"]
    assert not variants["variant"].str.contains("=").any()
    keys = [s.key for s in __import__("reports.sections").sections.build(analysis).sections]
    assert "sweeps" in keys and "variants" not in keys


def test_the_sweep_section_puts_each_sentence_before_its_figure(analysis):
    from reports.html import page
    from reports.sections import build

    report = build(analysis)
    section = next(s for s in report.sections if s.key == "sweeps")
    assert [c.lead for c in section.charts] == [
        sentence(s, analysis.sweep_tables) for s in analysis.sweeps
    ]
    for chart in section.charts:
        assert len(re.findall(r"[.!?](\s|$)", chart.caption)) == 1  # one sentence
        assert chart.figure.data  # drawn, not empty
    text = page(report)
    for chart in section.charts:
        lead = text.index(chart.lead.split(" (")[0])
        figure = text.index("plotly-graph-div", lead)
        assert lead < figure < text.index(escape(chart.caption), lead)
    assert "Sweep x" in text and "Sweep y" in text
    assert report.page_sections[0].key == "sweeps"  # the study's question first


def test_the_summary_gives_each_sweep_a_verdict_row(analysis):
    from reports import answers

    rows = {a.label: a for a in answers.sweeps(analysis)}
    assert set(rows) == {"Sweep x", "Sweep y"}
    for answer in rows.values():
        (cell,) = answer.cells.values()
        assert cell.light in ("green", "amber")
        assert cell.text == "no change" or cell.text == "not yet known" or " at " in cell.text


def test_markdown_has_the_sweep_section(analysis):
    from reports.markdown import render

    text = render(analysis)
    assert "## What do the swept values change?" in text and "### Sweep x" in text
    assert "Sweeping destinations.24.points (printed: 12)" in text
    assert "[Sweep x](#what-do-the-swept-values-change)" in text


def test_a_study_margin_changes_the_sweep_verdicts(swept):
    from reports.sweeps import sweep_frames

    sweeps = list(swept.plan.sweeps.values())
    wide = sweep_frames(
        swept.games,
        swept.seats,
        swept.destinations,
        sweeps,
        margins={**margins.DEFAULT_MARGINS, "turns": 100.0},
    )
    turns = wide["turns"][~wide["turns"]["printed"]]
    assert (turns["margin"] == 100.0).all()
    assert set(turns["verdict"]) <= {"practically equal", "different"}  # nothing is unknown


def test_a_report_that_reads_the_offers_from_their_files_gives_the_same_tables(swept, analysis):
    """``cardgame report`` leaves the destinations table in its files (the swept card's rows
    read alone, every offer summed a chunk at a time): the same tables and sweep frames."""
    import pandas as pd

    from reports.analysis import analyse
    from sims.results import load_results

    lazy = load_results(swept.folder, destinations=False)
    streamed = analyse(lazy)
    assert lazy._destinations is None  # never loaded whole
    assert streamed.tables.keys() == analysis.tables.keys()
    for name, table in analysis.tables.items():
        pd.testing.assert_frame_equal(streamed.tables[name], table, check_exact=True)
    for metric, frame in analysis.sweep_tables.items():
        pd.testing.assert_frame_equal(streamed.sweep_tables[metric], frame, check_exact=True)


def test_a_sweep_study_reports_with_its_strategy_module_gone(tmp_path):
    """The report reads the plan the manifest stores: it parses no study and loads no
    strategy, so a study of a ``module:Class`` strategy reports where the module is gone."""
    import os
    import subprocess
    import sys

    code = tmp_path / "code"
    code.mkdir()
    (code / "planbot.py").write_text(
        "from sims.strategies.planner import Planner\n\n\n"
        "class PlanBot(Planner):\n    name = 'planbot'\n"
    )
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "gone"\nseed = 3\nplayers = [2]\nlineups = [["planner", "planbot:PlanBot"]]\n'
        'games_per_cell = 4\n\n[sweeps.x]\nparameter = "big_cities.Chicago"\nvalues = [4, 30]\n'
    )
    folder = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": str(code)}
    cli = [sys.executable, "-m", "cardgame.cli"]
    run = [*cli, "simulate", str(study), "--out", str(folder), "--workers", "1", "--no-progress"]
    subprocess.run(run, env=env, check=True, capture_output=True, cwd=tmp_path)
    (code / "planbot.py").unlink()
    report = [*cli, "report", str(folder), "--format", "md", "--out", str(tmp_path / "r.md")]
    done = subprocess.run(report, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Sweep x" in (tmp_path / "r.md").read_text()
