"""Reports refuse what they cannot use with one line, and say when results are partial."""

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cardgame.cli import main
from sims.folder import seal
from sims.runner import run
from sims.study import from_dict


def _one_line_error(capsys, message: str) -> None:
    """The error is one line; lines of progress ("report: <stage> ...", printed only once
    the results were read and checked) may come before it."""
    err = capsys.readouterr().err
    assert message in err, err
    lines = [line for line in err.splitlines() if not line.startswith("report: ")]
    assert len(lines) == 1 and "Traceback" not in err, err


def test_report_out_at_a_folder_is_refused_and_leaves_no_temporary_file(
    results_folder, tmp_path, capsys
):
    target = tmp_path / "adir"
    target.mkdir()
    assert main(["report", str(results_folder), "--out", str(target)]) == 2
    _one_line_error(capsys, "is a folder")
    assert list(tmp_path.iterdir()) == [target] and not list(target.iterdir())


def test_report_out_in_an_unwritable_place_is_one_line(results_folder, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["report", str(results_folder), "--out", str(blocker / "r.html")]) == 2
    _one_line_error(capsys, "is not a folder")
    assert main(["report", str(results_folder), "--out", "/proc/report.html"]) == 2
    _one_line_error(capsys, "cannot write the report")


def test_report_out_that_cannot_be_written_is_refused_before_reading(
    results_folder, monkeypatch, capsys
):
    import reports.analysis

    def no_analysis(*_args, **_kwargs):
        raise AssertionError("the report was analysed")

    monkeypatch.setattr(reports.analysis, "analyse", no_analysis)
    assert main(["report", str(results_folder), "--out", "/proc/report.html"]) == 2
    err = capsys.readouterr().err
    assert "/proc/report.html: cannot write the report" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("margins", "message"),
    [
        ({"win_share": float("inf")}, "win_share (a share of games): must be from 0.0002 to 1"),
        ({"win_share": 1.5}, "margins.win_share (a share of games): must be from 0.0002 to 1"),
        ({"score": 1e308}, "margins.score (points): must be from 0.01 to 1000, got 1e+308"),
        ({"turns": 5e-324}, "margins.turns (turns per game; a game ends by 2000): must be from"),
        ({"score": 10**400}, "must be from 0.01 to 1000, got a number of 401 digits"),
        ({"drama": float("nan")}, "margins.drama: must be a positive number, got nan"),
    ],
)
def test_report_margins_outside_what_the_metric_can_move_are_one_line(
    results_folder, tmp_path, monkeypatch, capsys, margins, message
):
    """A margin of inf or 1e308 made every verdict "practically equal"; one of 5e-324, one
    no study can decide. The manifest of a study run before its file was checked may hold
    them."""
    import json

    import reports.analysis

    def no_analysis(*_args, **_kwargs):
        raise AssertionError("the report was analysed")

    monkeypatch.setattr(reports.analysis, "analyse", no_analysis)
    folder = tmp_path / "copy"
    shutil.copytree(results_folder, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["study"]["report"] = {"margins": margins}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    argv = ["report", str(folder), "--out", str(tmp_path / "r.html")]
    assert main(argv) == 2
    _one_line_error(capsys, "manifest.json changed since its run ended")
    assert main([*argv, "--accept-changes"]) == 2
    _one_line_error(capsys, message)
    assert not (tmp_path / "r.html").exists()


def test_report_margins_run_from_a_hundredth_of_the_default_to_what_the_metric_can_move():
    from reports.margins import DEFAULT_MARGINS, MARGIN_UNITS, margins_of
    from sims.plan import REPORT_MARGINS

    assert set(REPORT_MARGINS) == set(DEFAULT_MARGINS) == set(MARGIN_UNITS)
    for name, (low, _) in REPORT_MARGINS.items():
        assert low == pytest.approx(DEFAULT_MARGINS[name] / 100, rel=1e-12)
    ceilings = {name: high for name, (_, high) in REPORT_MARGINS.items()}
    assert margins_of({"report": {"margins": ceilings}}) == ceilings
    floors = {name: low for name, (low, _) in REPORT_MARGINS.items()}
    assert margins_of({"report": {"margins": floors}}) == floors


def _failing_study_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "all-failed"
    study = {
        "name": "all-fail",
        "seed": 3,
        "players": [2],
        "lineups": [["tests.sims.broken:Raises", "random"]],
        "games_per_cell": 4,
        "batch_size": 4,
    }
    run(from_dict(study, "test"), workers=1, out=folder, progress=False)
    return folder


def test_report_when_every_game_failed_names_the_first_failure(tmp_path, capsys):
    folder = _failing_study_folder(tmp_path)
    assert main(["report", str(folder), "--out", str(tmp_path / "r.html")]) == 2
    _one_line_error(capsys, "all 4 games failed")
    assert not (tmp_path / "r.html").exists()


def test_report_refuses_a_table_missing_a_column(results_folder, tmp_path, capsys):
    folder = tmp_path / "copy"
    shutil.copytree(results_folder, folder)
    for part in (folder / "seats").glob("*.parquet"):
        table = pq.read_table(part)  # its metadata kept: still the run's compacted table
        without = table.drop_columns(["score"]).replace_schema_metadata(table.schema.metadata)
        pq.write_table(without, part)
    argv = ["report", str(folder), "--out", str(tmp_path / "r.html"), "--accept-changes"]
    assert main(argv) == 2
    _one_line_error(capsys, "no column score")  # the reader checks every part's schema


def test_a_partial_results_folder_is_reported_as_partial(tmp_path, capsys):
    from tests.reports.conftest import STUDY

    folder = tmp_path / "copy"  # a run stopped before it finished keeps its parts
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, keep_parts=True)
    parts = sorted((folder / "games" / "_parts").glob("*.arrows.lz4"))
    parts[-1].unlink()  # as if the run had been stopped before its last batch
    seal(folder)  # as that run would have sealed it when it stopped
    out = tmp_path / "r.md"
    assert main(["report", str(folder), "--format", "md", "--out", str(out)]) == 0
    assert "holds" in capsys.readouterr().err
    assert "Partial results" in out.read_text()


def test_complete_results_are_not_called_partial(results_folder, tmp_path, capsys):
    out = tmp_path / "r.md"
    assert main(["report", str(results_folder), "--format", "md", "--out", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert "Partial results" not in out.read_text()


@pytest.mark.parametrize("module", ["reports.cli"])
def test_report_command_module_imports_no_pandas_or_plotly(module):
    heavy = "('pandas', 'plotly', 'scipy')"
    code = f"import sys, {module}; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_findings_markdown_emphasis_becomes_html():
    from reports.html import inline_markdown

    assert inline_markdown("**planner** beats `random` <b>") == (
        "<strong>planner</strong> beats <code>random</code> &lt;b&gt;"
    )


def test_the_method_paragraph_says_whether_games_share_deals():
    from reports.sections import pairing_text

    assert pairing_text({}).startswith("unpaired")
    assert "same deal" in pairing_text({"pairing": "deals"})


def test_all_failed_by_a_broken_invariant_blames_no_seat():
    """Seat -1 (an invariant broken, or the simulator's own error) is not 'seat 0'."""
    from types import SimpleNamespace

    import pandas as pd

    from reports.checks import check_reportable
    from sims.errors import ResultsError

    games = pd.DataFrame(
        {
            "failed": [True, True],
            "game_index": [0, 1],
            "cell": ["base/2p/a+b"] * 2,
            "failure_seat": [-1, 1],
            "failure_strategy": ["", "b"],
            "failure_error": ["invariant broken: 97 train cards", "boom"],
        }
    )
    results = SimpleNamespace(folder="f", games=games, seats=pd.DataFrame())
    with pytest.raises(ResultsError) as info:
        check_reportable(results)
    text = str(info.value)
    assert "no one seat: invariant broken" in text and "seat 0" not in text
    results.games = games.iloc[::-1].reset_index(drop=True)
    with pytest.raises(ResultsError, match=r"seat 1 \(b\): boom"):
        check_reportable(results)


def test_a_report_keeps_freed_memory_for_its_next_columns_where_glibc_runs_it():
    """glibc's mallopt takes the settings (else the report's system time at a million games
    is a quarter of its CPU: docs/scaling.md); elsewhere nothing is changed and nothing fails."""
    import platform
    import subprocess
    import sys

    probe = "from reports.cli import keep_freed_memory; print(keep_freed_memory())"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert out.stdout.strip() == str(glibc)
