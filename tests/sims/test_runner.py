"""The runner: deterministic at any scale, resumable after a kill, failures contained."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from cardgame import Rules
from sims.clock import ThinkTimes
from sims.errors import ResultsError
from sims.match import GameSpec, play_game
from sims.results import load_results
from sims.runner import run
from sims.seeding import game_seed
from sims.strategy import spec
from sims.study import from_dict

SMALL = {
    "name": "small",
    "seed": 7,
    "players": [2, 3],
    "pool": ["planner", "random", "thief"],
    "games_per_cell": 6,
    "batch_size": 4,
}


def small_study(**changes):
    return from_dict({**SMALL, **changes}, "test")


def tables(folder):
    results = load_results(folder)
    return {name: getattr(results, name) for name in ("games", "seats", "destinations")}


def assert_same_tables(a, b):
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_like=False)


def test_seeds_depend_only_on_root_cell_and_index():
    assert game_seed(7, "base/2p/a+b", 3) == game_seed(7, "base/2p/a+b", 3)
    assert game_seed(7, "base/2p/a+b", 3) != game_seed(7, "base/2p/a+b", 4)
    assert game_seed(7, "base/2p/a+b", 3) != game_seed(8, "base/2p/a+b", 3)


def test_one_worker_and_two_give_identical_tables(tmp_path):
    study = small_study()
    run(study, workers=1, out=tmp_path / "one", progress=False)
    run(study, workers=2, out=tmp_path / "two", progress=False)
    one, two = tables(tmp_path / "one"), tables(tmp_path / "two")
    assert len(one["games"]) == study.total_games
    assert_same_tables(one, two)


def test_local_dask_cluster_gives_identical_tables(tmp_path):
    pytest.importorskip("dask.distributed")
    study = small_study(players=[2], pool=["planner", "random"])
    run(study, workers=1, out=tmp_path / "local", progress=False)
    run(study, workers=2, backend="dask", out=tmp_path / "dask", progress=False)
    assert_same_tables(tables(tmp_path / "local"), tables(tmp_path / "dask"))


def test_the_clock_never_changes_an_outcome():
    seats = (spec("planner"), spec("thief"))
    game = GameSpec("s", "c", "base", Rules(), 2, seats, 0, 99)
    timed = play_game(game, ThinkTimes())
    untimed = play_game(game, None)
    assert timed.game["sim_minutes"] > 0
    assert {**timed.game, "sim_minutes": 0} == {**untimed.game, "sim_minutes": 0}
    assert timed.seats == untimed.seats
    slow = play_game(game, ThinkTimes(place=600.0))
    assert slow.seats == timed.seats and slow.game["sim_minutes"] > timed.game["sim_minutes"]


def test_a_failing_strategy_is_recorded_and_the_run_goes_on(tmp_path):
    study = small_study(players=[2], pool=["planner", "tests.sims.broken:Raises"])
    summary = run(study, workers=1, out=tmp_path / "r", progress=False)
    games = load_results(tmp_path / "r").games
    assert len(games) == study.total_games  # nothing lost
    failed = games[games["failed"]]
    assert len(failed) == len(summary.failures) > 0
    row = failed.iloc[0]
    assert row["failure_strategy"] == "tests.sims.broken:Raises"
    assert "RuntimeError: boom" in row["failure_error"]
    assert row["failure_seat"] in (0, 1)


def test_an_illegal_action_is_a_failure_naming_seat_and_ruling(tmp_path):
    study = small_study(players=[2], pool=["planner", "tests.sims.broken:Illegal"])
    summary = run(study, workers=1, out=tmp_path / "r", progress=False, fail_fast=True)
    assert summary.stopped_on_failure
    assert "illegal action" in summary.failures[0] and "R12" in summary.failures[0]


def test_results_folder_is_not_overwritten_without_resume(tmp_path):
    study = small_study(players=[2], pool=["planner", "random"])
    run(study, workers=1, out=tmp_path / "r", progress=False)
    with pytest.raises(ResultsError, match="--resume"):
        run(study, workers=1, out=tmp_path / "r", progress=False)
    with pytest.raises(ResultsError, match="different study"):
        run(
            small_study(players=[2], pool=["planner", "random"], seed=8),
            workers=1,
            out=tmp_path / "r",
            progress=False,
            resume=True,
        )


def simulate_command(tmp_path, name, seed, games_per_cell, workers):
    """A `cardgame simulate` command line for a small study of 4 cells in batches of 4."""
    study_file = tmp_path / f"{name}.toml"
    study_file.write_text(
        f'name = "{name}"\nseed = {seed}\nplayers = [2, 3]\n'
        'pool = ["planner", "random", "thief"]\n'
        f"games_per_cell = {games_per_cell}\nbatch_size = 4\n"
    )
    return [
        sys.executable,
        "-m",
        "cardgame.cli",
        "simulate",
        str(study_file),
        "--workers",
        str(workers),
        "--no-progress",
    ]


def wait_for_parts(folder, count):
    deadline = time.time() + 60
    while time.time() < deadline and len(list((folder / "games").glob("*.parquet"))) < count:
        time.sleep(0.01)


def test_a_killed_run_resumes_to_exactly_the_games_of_an_uninterrupted_one(tmp_path):
    command = simulate_command(tmp_path, "kill", seed=3, games_per_cell=48, workers=1)
    killed = tmp_path / "killed"
    process = subprocess.Popen(
        [*command, "--out", str(killed)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_for_parts(killed, 3)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    parts_before = len(list((killed / "games").glob("*.parquet")))
    assert 3 <= parts_before < 48, "the run should be killed part way"
    resumed = subprocess.run(
        [*command, "--out", str(killed), "--resume"], capture_output=True, text=True, check=True
    )
    assert "from before" in resumed.stdout
    whole = tmp_path / "whole"
    subprocess.run([*command, "--out", str(whole)], capture_output=True, check=True)
    a, b = tables(killed), tables(whole)
    assert not a["games"].duplicated(["cell", "game_index"]).any()
    assert_same_tables(a, b)


def test_corrupt_results_give_one_clear_error(tmp_path):
    study = small_study(players=[2], pool=["planner", "random"])
    run(study, workers=1, out=tmp_path / "r", progress=False)
    part = next((tmp_path / "r" / "games").glob("*.parquet"))
    part.write_bytes(b"not parquet")
    with pytest.raises(ResultsError, match="corrupt Parquet file"):
        load_results(tmp_path / "r")
    with pytest.raises(ResultsError, match="no such results folder"):
        load_results(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsError, match="not a results folder"):
        load_results(Path(tmp_path / "empty"))


def test_records_flag_writes_replayable_game_records(tmp_path):
    from cardgame.record import load, replay

    study = small_study(players=[2], pool=["planner", "random"])
    run(study, workers=1, out=tmp_path / "r", progress=False, records=True)
    parts = sorted((tmp_path / "r" / "records").glob("*.jsonl"))
    records = [r for part in parts for r in load(part)]
    assert len(records) == study.total_games
    assert {tuple(r["strategies"]) for r in records} == {
        ("planner", "random"),
        ("random", "planner"),
    }
    assert all(replay(r).ok for r in records[:5])


def test_simulate_with_no_argument_runs_the_default_study(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cardgame.cli", "simulate", "--workers", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "strategy-ladder" in result.stderr and "game/s" in result.stderr  # the progress bar
    results = load_results(tmp_path / "results" / "strategy-ladder")
    from sims.study import load_study

    assert len(results.games) == load_study("strategy-ladder").total_games


def test_ctrl_c_stops_cleanly_and_names_the_resume_command(tmp_path):
    out = tmp_path / "out"
    command = [
        *simulate_command(tmp_path, "int", seed=4, games_per_cell=96, workers=2),
        "--out",
        str(out),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_parts(out, 2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err
    hint = err.strip().splitlines()[-1]
    assert hint.startswith("Interrupted. Continue with: cardgame simulate") and "--resume" in hint
    resumed = subprocess.run(
        [sys.executable, "-m", "cardgame.cli", *hint.split("cardgame ", 1)[1].split()],
        capture_output=True,
        text=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr[-1000:]
    games = load_results(out).games
    assert len(games) == 4 * 96  # 3 two-player cells and 1 three-player cell, all played once
    assert not games.duplicated(["cell", "game_index"]).any()
