"""`cardgame tune`: the command's errors, and tune.html drawn offline."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reports.tuning import page, resume_command, run_command

TINY = """
name = "tiny"
seed = 5
players = [2]
lineups = [["planner", "thief"]]
games_per_cell = 10
"""
EDITS = "face_up = { values = [3, 7] }\nstarting_hand = { within = 1 }\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "tiny.toml").write_text(TINY)
    (folder / "edits.toml").write_text(EDITS)
    return folder


@pytest.fixture(scope="module")
def tuned(files, tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "t"
    code = run_command(
        [
            str(files / "tiny.toml"),
            "--objective",
            "seat",
            "--edits",
            str(files / "edits.toml"),
            "--budget",
            "1600",
            "--holdout",
            "200",
            "--workers",
            "1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    return out


def test_the_command_writes_the_page_the_study_and_the_evaluations(tuned, capsys):
    for name in ("tune.html", "edits.toml", "tune.json", "evaluations.parquet"):
        assert (tuned / name).is_file()
    assert (tuned / "evaluations" / "holdout.parquet").is_file()  # each step's per-deal sums
    text = (tuned / "tune.html").read_text()
    assert "plotly.js v" in text and 'src="https://cdn.plot.ly' not in text  # opens offline
    for heading in ("Verdict", "The edits", "Before and after", "Method", "Data"):
        assert heading in text
    assert text.count('class="plotly-graph-div"') >= 3


def test_rerunning_the_same_command_continues_and_gives_the_same_page(files, tuned):
    first = page(tuned)
    code = run_command(
        [
            str(files / "tiny.toml"),
            "--objective",
            "seat",
            "--edits",
            str(files / "edits.toml"),
            "--budget",
            "1600",
            "--holdout",
            "200",
            "--workers",
            "2",
            "--out",
            str(tuned),
            "--no-progress",
            "--resume",
        ]
    )
    assert code == 0
    assert page(tuned) == first


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--objective", "speed"], "unknown objective 'speed'"),
        (["--objective", "seat", "--budget", "0"], "budget: must be at least 1"),
        (["--objective", "seat", "--max-edits", "0"], "max-edits: must be at least 1"),
        (["--objective", "seat", "--edits", "missing.toml"], "missing.toml: no such edits file"),
        (["--objective", "seat", "--edits", "bad.toml"], "bad.toml: unknown parameter 'colour'"),
        (["--objective", "seat", "--edits", "broken.toml"], "broken.toml: not valid TOML"),
        (["--objective", "seat", "--cards", "nowhere"], "cards"),
        (["--objective", "seat", "--bands", "seat=-1"], "bands: seat must be above 0"),
        (["--objective", "seat", "--players", "3"], "no line-up of [3] players"),
    ],
)
def test_bad_options_and_files_are_one_line_exit_2_nothing_written(
    files, tmp_path, capsys, monkeypatch, argv, message
):
    monkeypatch.chdir(files)
    (files / "bad.toml").write_text("colour = { within = 1 }\n")
    (files / "broken.toml").write_text("face_up = {\n")
    out = tmp_path / "t"
    code = run_command(["tiny.toml", *argv, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()


HUGE = "1180591620717411303424"  # 2**70


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--holdout", HUGE], "tune: holdout: must be at most 100,000,000, got " + HUGE),
        (["--budget", HUGE], "tune: budget: must be at most 1,000,000,000, got " + HUGE),
        (["--workers", "100000"], "tune: workers: must be from 1 to"),
        (["--bands", "seat=5e-324"], "bands: seat must be from 0.1 to 50 points, got 5e-324"),
        (["--bands", "seat=1e-160"], "bands: seat must be from 0.1 to 50 points, got 1e-160"),
        (["--bands", "seat=2,strategies=60"], "bands: strategies must be from 0.1 to 50 points"),
        (["--bands", "destinations=11"], "bands: destinations must be from 0.1 to 10 z, got 11"),
        (
            ["--edits", "huge.toml"],
            "huge.toml: face_up: lets the search try 1,000,001 values, at most 100 can be "
            "searched: narrow it",
        ),
        (["--edits", "wide.toml"], "wide.toml: face_up: lets the search try 1,006 values"),
        (["--edits", "open.toml"], "open.toml: starting_hand: lets the search try 999,998 values"),
        (["--edits", "listed.toml"], "listed.toml: face_up: lets the search try 101 values"),
    ],
)
def test_options_the_search_would_trip_over_are_refused_before_any_game(
    files, tmp_path, capsys, monkeypatch, argv, message
):
    """Counts beyond any study, bands no hold-out resolves or no design misses, and edit
    ranges too wide to search: one line before the search starts, not after it wrote --out
    (or a traceback, or a loss of -inf)."""
    monkeypatch.chdir(files)
    (files / "huge.toml").write_text("face_up = { min = 0, max = 9223372036854775807 }\n")
    (files / "wide.toml").write_text("face_up = { within = 1000 }\n")
    (files / "open.toml").write_text("starting_hand = { min = 3 }\n")
    (files / "listed.toml").write_text(f"face_up = {list(range(101))}\n")
    out = tmp_path / "t"
    base = ["tiny.toml", "--objective", "seat", "--budget", "200", "--holdout", "0"]
    code = run_command([*base, *argv, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_bands_and_edit_ranges_within_the_limits_are_left_to_the_tuner(files):
    from sims.study import load_study
    from sims.tune.objectives import parse_bands
    from sims.tune.space import load_edits

    bands = parse_bands("seat=0.1,strategies=50,destinations=10")
    assert bands == {"seat": 0.001, "strategies": 0.5, "destinations": 10.0}
    assert parse_bands({"seat": 0.5})["seat"] == 0.5  # as a share: 50 points
    (files / "fine.toml").write_text(
        "starting_hand = { min = 5, max = 9, step = 2 }\n"
        '"destinations.*.points" = { within = 1000000 }\n'  # cut to 1-99 points
        "big_cities.Chicago = { min = 3 }\n"  # to 50
    )
    study = load_study(files / "tiny.toml")
    parameters, _ = load_edits(files / "fine.toml", study, {})
    assert {p.name for p in parameters} >= {"starting_hand", "big_cities.Chicago"}


def test_a_missing_required_option_is_one_line(files, capsys):
    with pytest.raises(SystemExit) as info:
        run_command([str(files / "tiny.toml"), "--out", "x"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--objective" in err and err.count("\n") == 1


def test_the_resume_hint_repeats_the_options():
    import argparse

    args = argparse.Namespace(
        study="s.toml",
        objective="seat",
        out="t",
        edits=None,
        max_edits=2,
        budget=5000,
        holdout=None,
        cards=None,
        players=[2],
        seed=None,
        bands=None,
        suspects=3,
        workers=2,
    )
    assert resume_command(args) == (
        "cardgame tune s.toml --objective seat --out t --budget 5000 --players 2 --workers 2 "
        "--resume"
    )


def test_tune_html_draws_every_figure_in_headless_chromium(tuned, tmp_path):
    browser = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    if browser is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but no Chromium was found")
        pytest.skip("no Chromium on this machine (.ci/run installs it)")
    page_file = tuned / "tune.html"
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            page_file.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    dom = result.stdout
    figures = page_file.read_text().count('class="plotly-graph-div"')
    assert dom.count("js-plotly-plot") >= figures
    errors = dom.split('id="page-errors"', 1)[1].split("</div>", 1)[0]
    assert errors.strip(">").strip() == "", f"script errors: {errors}"


def test_the_page_answers_first_in_a_designer_s_words_and_lists_every_edit(tuned):
    """The verdict box says what was tried, what each edit did and the answer, with no
    search jargon; the search's own evidence is under the method; the edits table lists
    every edit tried (from, to, its effect, what became of it), never an empty header."""
    import json

    from reports.tuning import _split

    text = (tuned / "tune.html").read_text()
    box = text.split("<h3>Verdict</h3>", 1)[1].split("</div>", 1)[0]
    assert "Tried" in box and "Answer:" in box
    for jargon in ("loss", "racing", "arm"):
        assert jargon not in box.lower().replace("players", ""), jargon
    lead, search = _split(json.loads((tuned / "tune.json").read_text())["summary"])
    assert lead[0].startswith("Tried ") and any(line.startswith("Answer: ") for line in lead)
    assert all(line.startswith("Search ") for line in search)
    edits = text.split("<h2>The edits</h2>", 1)[1].split("</table>", 1)[0]
    assert "<th>from</th><th>to</th><th>effect</th>" in edits
    assert edits.count("<tr>") >= 2  # the header and at least one edit tried
    method = text.split("<h2>Method</h2>", 1)[1]
    assert "The search, round by round" in method and "Search round 1" in method


def test_the_verdict_is_printed_once_on_stdout(files, tuned, capsys):
    """A resumed (finished) tune prints its verdict again: on stdout, once, and not on
    stderr, where the progress goes."""
    capsys.readouterr()
    code = run_command(
        [
            str(files / "tiny.toml"),
            "--objective",
            "seat",
            "--edits",
            str(files / "edits.toml"),
            "--budget",
            "1600",
            "--holdout",
            "200",
            "--workers",
            "1",
            "--out",
            str(tuned),
            "--no-progress",
            "--resume",
        ]
    )
    assert code == 0
    out, err = capsys.readouterr()
    assert out.count("Answer: ") == 1 and out.count("Tried ") == 1
    assert "Answer: " not in err and "Tried " not in err and "Search round" not in err
