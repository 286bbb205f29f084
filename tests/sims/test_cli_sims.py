"""`cardgame simulate` from a new user's side: help, bad options, ad-hoc runs, the resume
command, and random input that must only ever give exit 0 or a one-line exit 2."""

import json
import shlex
import signal
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sims.runner
from cardgame.cli import main
from sims.runner import RunSummary
from sims.strategy import registered
from sims.study import adhoc_name
from tests.sims.faults import Gate, Processes, cardgame, finish, output, wait_ready


def exit_code(argv):
    try:
        return main(argv)
    except SystemExit as exc:  # argparse
        return exc.code


@pytest.fixture
def no_run(monkeypatch):
    """Replace the runner: these tests are about what happens before a study runs."""
    seen = []

    def fake_run(study, **options):
        seen.append((study, options))
        if options.get("announce"):
            options["announce"]()  # as the runner does once the folder is usable
        return RunSummary(options.get("out") or study.output, 0, study.total_games, 0)

    monkeypatch.setattr(sims.runner, "run", fake_run)
    return seen


@pytest.mark.parametrize(
    "argv",
    [
        ["--games", "x"],
        ["--players", "2,x"],
        ["--backend", "nope"],
        ["--workers", "many"],
    ],  # an unknown option is the top-level parser's (cardgame/cli.py)
)
def test_bad_options_are_one_line_exit_2(capsys, argv):
    assert exit_code(["simulate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardgame simulate: error:") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "argv",
    [
        ["--strategies", "planner,thief", "--players", "2"],  # a flags-only study
        [],  # the default study: its file names no cards either
        ["strategy-ladder"],
    ],
)
@pytest.mark.parametrize(
    ("cards", "message"), [("none", "no such folder of card files"), ("", "a folder")]
)
def test_a_bad_cards_folder_is_named_as_the_option(tmp_path, capsys, no_run, argv, cards, message):
    """Not as a key of a study file that has none (``strategy-ladder.toml: cards: ...``)."""
    folder = str(tmp_path / cards) if cards else ""
    assert exit_code(["simulate", *argv, "--cards", folder, "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardgame simulate: error: --cards: ") and message in err, err
    assert err.count("--cards:") == 1, err
    assert err.count("\n") == 1 and not no_run


@pytest.mark.parametrize("command", ["simulate", "watch"])
def test_help_lists_the_strategy_names(capsys, command):
    assert exit_code([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name in registered():
        assert name in out
    assert "module:Class" in out


def test_the_simulate_command_imports_no_heavy_module():
    code = (
        "import sys, sims.cli\n"
        "heavy = ('tqdm', 'pandas', 'pyarrow', 'simpy', 'dask', 'numpy')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_flags_only_make_an_adhoc_study_with_its_own_folder(tmp_path, monkeypatch, capsys, no_run):
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "--strategies", "planner,thief", "--players", "2", "--games", "4"]
    assert exit_code(argv) == 0
    study, options = no_run[-1]
    assert study.name == "adhoc-planner+thief-2p" and options["out"] is None
    assert study.output == "results/adhoc-planner+thief-2p"
    assert "strategy-ladder" not in capsys.readouterr().err


def test_flags_on_a_study_keep_its_name(tmp_path, monkeypatch, no_run):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.toml").write_text("players = [2]\n")
    assert exit_code(["simulate", "mine.toml", "--games", "4", "--seed", "1"]) == 0
    assert no_run[-1][0].name == "mine" and no_run[-1][0].output == "results/mine"
    assert exit_code(["simulate", "--workers", "1"]) == 0  # no study flags: the default study
    assert no_run[-1][0].name == "strategy-ladder"


def test_rounding_up_is_said_on_stderr(capsys, no_run):
    argv = ["simulate", "--strategies", "planner,thief,random", "--players", "3", "--games", "10"]
    assert exit_code(argv) == 0
    err = capsys.readouterr().err
    assert "10 games per cell rounded up to 12 (3 players) so every seat order" in err
    assert no_run[-1][0].total_games == 12


def test_absurd_game_counts_are_refused_in_one_line(capsys, no_run):
    assert exit_code(["simulate", "--games", str(10**9 + 1)]) == 2
    err = capsys.readouterr().err
    assert "games_per_cell: must be a whole number from 1 to 1000000000" in err
    assert err.count("\n") == 1 and not no_run


def test_the_printed_resume_command_of_an_adhoc_run_works(tmp_path):
    # the games of the third strategy wait for a gate: the run is held until the test opens it
    procs, gate = Processes(tmp_path), Gate(tmp_path)
    strategies = ["planner", "random", "tests.sims.broken:Gated"]
    argv = ["simulate", "--strategies", ",".join(strategies), "--players", "2", "--games", "4"]
    argv += ["--workers", "2", "--no-progress"]
    try:
        process = procs.start(cardgame(*argv), "adhoc", gate.env, cwd=tmp_path)
        folder = tmp_path / "results" / adhoc_name(strategies, [2])
        wait_ready(folder, gate, landed=1)
        process.send_signal(signal.SIGINT)
        err = finish(process)
        assert process.returncode == 130, err
        hint = err.strip().splitlines()[-1]
        prefix = "Interrupted. Continue with: "
        assert hint.startswith(prefix + "cardgame simulate ") and "--resume" in hint, hint
        gate.open()
        argv = shlex.split(hint.removeprefix(prefix))
        resumed = procs.start(cardgame(*argv[1:]), "resumed", gate.env, cwd=tmp_path)
        err = finish(resumed)
        assert resumed.returncode == 0, err
        assert "12 of 12 games" in output(resumed)
    finally:
        procs.close()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["study"]["name"] == adhoc_name(strategies, [2])


# fuzz: random option values --------------------------------------------------------------
SAFE_NAMES = [*registered(), "", ":", ".mod:Class", "mod:", ":Class", "nope:X", "a,b,,c"]
option_text = st.text(st.characters(codec="utf-8", exclude_characters=":"), max_size=12)


number_lists = st.lists(st.integers(-1, 6), max_size=4).map(lambda xs: ",".join(map(str, xs)))
name_lists = st.lists(st.sampled_from(SAFE_NAMES), max_size=5).map(",".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    games=st.one_of(option_text, st.integers(-5, 10**12).map(str)),
    players=st.one_of(option_text, number_lists),
    strategies=st.one_of(option_text, name_lists),
)
def test_random_option_values_give_exit_0_or_one_line_2(games, players, strategies):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    argv = ["simulate", f"--games={games}", f"--players={players}", f"--strategies={strategies}"]
    err = io.StringIO()
    original = sims.runner.run
    sims.runner.run = lambda study, **o: RunSummary(study.output, 0, study.total_games, 0)
    try:
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            code = exit_code(argv)
    finally:
        sims.runner.run = original
    text = err.getvalue()
    assert code in (0, 2), text
    assert "Traceback" not in text
    if code == 2:  # every problem found, each one line (sims/study.py from_dict)
        lines = text.splitlines()
        assert lines and text.endswith("\n"), text
        assert all(line.startswith("cardgame simulate: error: ") for line in lines), text
        assert len(lines) == len(set(lines)), text


def test_every_problem_of_a_study_file_is_a_line_and_nothing_is_written(tmp_path):
    import io
    from contextlib import redirect_stderr

    study = tmp_path / "bad.toml"
    study.write_text(
        'seed = -1\nplayers = [2, 7]\nrotation = "spiral"\npool = ["planner", "thief"]\n'
        "colour = 1\n[variants.v]\nface_up = 99\n[variants.w]\nthree_locomotive_wipe = 3\n"
        "[clock]\nplace = -1\n"
    )
    err = io.StringIO()
    with redirect_stderr(err):
        code = exit_code(["simulate", str(study), "--out", str(tmp_path / "r")])
    lines = err.getvalue().splitlines()
    assert code == 2
    assert [line.split(": ")[3] for line in lines] == [
        "colour", "seed", "players", "rotation", "variants.v", "variants.w", "clock.place"
    ], lines  # fmt: skip
    assert not (tmp_path / "r").exists()


def test_every_problem_inside_a_table_is_a_line_too(tmp_path):
    """Within the strategies, clock, report and a variant (its counts, each setting, each
    card edit), every bad entry is its own line, not only the table's first."""
    import io
    from contextlib import redirect_stderr

    study = tmp_path / "bad.toml"
    study.write_text(
        'pool = ["planner", "thief"]\nplayers = [2]\n[strategies.x]\nbase = 3\n'
        "[strategies.y]\nknobs = 4\n[clock]\nplace = -1\nnope = 2\n[variants.v]\n"
        "players = [9]\nface_up = 99\nstarting_hand = -1\ndeck = { red = 99, blue = -1 }\n"
        "[report]\nmargins = { win_share = -1, score = 1e9 }\n"
    )
    err = io.StringIO()
    with redirect_stderr(err):
        code = exit_code(["simulate", str(study), "--out", str(tmp_path / "r")])
    keys = [line.split(": ")[3] for line in err.getvalue().splitlines()]
    assert code == 2
    assert keys == [
        "strategies.x.base", "strategies.y.knobs", "variants.v.players", "variants.v",
        "variants.v", "variants.v.deck.red", "variants.v.deck.blue", "report.margins.win_share",
        "report.margins.score", "clock.place", "clock.nope",
    ], err.getvalue()  # fmt: skip
    assert not (tmp_path / "r").exists()


def test_the_light_copies_of_runner_and_study_constants_agree():
    import sims.cli
    import sims.study

    assert sims.cli.BACKENDS == sims.runner.BACKENDS
    assert sims.cli._builtin_studies() == sims.study.builtin_studies()
