"""The report: one self-contained page, Markdown summary, clear errors, drawn in Chromium."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardgame.cli import main

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def report_file(results_folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", str(results_folder), "--out", str(out)]) == 0
    return out


def test_report_is_self_contained_with_plotly_once(report_file):
    text = report_file.read_text()
    assert text.count("plotly.js v") == 1  # the library's banner, inlined once
    start = text.index("<script type='text/javascript'>")
    outside = text[:start] + text[text.index("</script></head>", start) :]
    assert "src=" not in outside  # nothing is loaded from elsewhere
    assert "<h2>Summary</h2>" in text and "Strongest strategy" in text
    assert "Findings in full" in text
    assert 'download="win_rates.csv"' in text and "data:text/csv" in text
    for question in (
        "Which strategy is strongest?",
        "Does the seat order matter?",
        "How do 2, 3 and 4 players differ?",
        "Which destination cards",
        "What are the big cities worth?",
        "What do the rule variants change?",
    ):
        assert question in text
    assert "no evidence of a difference" in text  # a small study: a non-rejection, in words
    assert "not significant" not in text
    assert "Game length by player count" in text and "round 1 brings" in text
    assert "per player" in text  # turns labelled: all seats together, and each player's own


def test_report_says_each_stage_as_it_goes(results_folder, tmp_path, capsys):
    assert main(["report", str(results_folder), "--out", str(tmp_path / "r.html")]) == 0
    captured = capsys.readouterr()
    stages = [line for line in captured.err.splitlines() if line.startswith("report: ")]
    assert len(stages) >= 6  # never silent for long on a loaded machine
    assert any("reading" in line for line in stages) and any("figures" in line for line in stages)
    assert all(line.endswith(" s)") for line in stages)
    assert " s" in captured.out.splitlines()[-1]  # the total time


def test_markdown_summary(results_folder, tmp_path):
    out = tmp_path / "summary.md"
    assert (
        main(
            [
                "report",
                str(results_folder),
                "--format",
                "md",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert text.startswith("# Ticket to Ride")
    assert text.split("\n\n")[1] == "## Summary"  # the answers first, as on the page
    assert "| rank | strategy | strength |" in text


def _broken_copy(results_folder, tmp_path, damage):
    folder = tmp_path / "copy"
    shutil.copytree(results_folder, folder)
    damage(folder)
    return folder


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: shutil.rmtree(f), "no such results folder"),
        (lambda f: (f / "manifest.json").unlink(), "not a results folder"),
        (
            lambda f: next((f / "games").glob("*.parquet")).write_bytes(b"junk"),
            "corrupt Parquet file",
        ),
        (lambda f: [p.unlink() for p in (f / "games").glob("*.parquet")], "no finished games"),
        (
            lambda f: (f / "manifest.json").write_text('{"schema_version": 99, "study": {}}'),
            "schema version 99",
        ),
    ],
)
def test_bad_results_one_line_exit_2_nothing_overwritten(
    results_folder, tmp_path, capsys, damage, message
):
    folder = _broken_copy(results_folder, tmp_path, damage)
    out = tmp_path / "report.html"
    out.write_text("previous report")
    # a file of the sealed folder changed: refused as such; read anyway, the reader's check
    for extra, expected in (
        ([], (message, "since its run ended")),
        (["--accept-changes"], (message,)),
    ):
        assert main(["report", str(folder), "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err
        assert any(text in err for text in expected) and err.count("\n") == 1, err
        assert out.read_text() == "previous report"


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_report_draws_every_figure_in_headless_chromium(report_file, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but no Chromium was found")
        pytest.skip("no Chromium on this machine (.ci/run installs it)")
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            report_file.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    dom = result.stdout
    figures = report_file.read_text().count('class="plotly-graph-div"')
    assert figures >= 8
    assert dom.count("js-plotly-plot") >= figures  # plotly marks each div it drew
    assert dom.count('class="main-svg"') >= figures
    errors = dom.split('id="report-errors"', 1)[1].split("</div>", 1)[0]
    assert errors.strip(">").strip() == "", f"script errors: {errors}"


def test_quickstart_example_runs(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py"), str(tmp_path / "qs")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "win_rates.html" in result.stdout
    page = (tmp_path / "qs" / "win_rates.html").read_text()
    assert 'src="https://cdn.plot.ly' not in page and "plotly.js v" in page  # opens offline
