"""The runner: deterministic at any scale, resumable after a kill, failures contained."""

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from cardgame import Rules
from sims.clock import ThinkTimes
from sims.errors import ResultsError
from sims.folder import done_batches
from sims.match import GameSpec, play_game
from sims.parts import part_files, read_part
from sims.results import load_results
from sims.runner import run
from sims.seeding import game_seed
from sims.strategy import spec
from sims.study import from_dict
from tests.sims.faults import (
    Gate,
    Processes,
    cardgame,
    finish,
    gated_study,
    kill_group,
    output,
    parts,
    result_files,
    wait_ready,
)

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


@pytest.fixture
def procs(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.close()


def simulate_held(procs, name, workers):
    """A `cardgame simulate` of a gated study (tests/sims/faults.py), held mid-way until the
    test opens its gate: the arguments, its results folder and the gate."""
    folder = procs.folder / name
    folder.mkdir()
    out = folder / "out"
    args = ["simulate", str(gated_study(folder)), "--workers", str(workers), "--no-progress"]
    return [*args, "--out", str(out)], out, Gate(folder)


def test_a_killed_run_resumes_to_exactly_the_games_of_an_uninterrupted_one(procs):
    args, killed, gate = simulate_held(procs, "kill", workers=1)
    process = procs.start(cardgame(*args), "kill", gate.env)
    wait_ready(killed, gate)
    kill_group(process)
    process.wait()
    assert parts(killed) == 4  # the plain cell; the gated one was held
    gate.open()
    resumed = procs.start(cardgame(*args, "--resume"), "resumed", gate.env)
    err = finish(resumed)
    assert resumed.returncode == 0, err
    assert "from before" in output(resumed)
    whole = procs.folder / "whole"
    plain = procs.start(cardgame(*args[:-1], str(whole)), "whole", gate.env)
    err = finish(plain)
    assert plain.returncode == 0, err
    a, b = tables(killed), tables(whole)
    assert not a["games"].duplicated(["cell", "game_index"]).any()
    assert_same_tables(a, b)
    assert result_files(killed) == result_files(whole)


def test_corrupt_results_give_one_clear_error(tmp_path):
    study = small_study(players=[2], pool=["planner", "random"])
    run(study, workers=1, out=tmp_path / "r", progress=False)
    part = next((tmp_path / "r" / "games").glob("*.parquet"))
    part.write_bytes(b"not parquet")
    with pytest.raises(ResultsError, match="compact.parquet changed since its run ended"):
        load_results(tmp_path / "r")  # the seal first
    with pytest.raises(ResultsError, match="corrupt Parquet file"):
        load_results(tmp_path / "r", accept_changes=True)  # then the reader's own check
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

    study = load_study("strategy-ladder")  # played until settled: one look or both
    looks = study.plan.look_factors
    assert len(results.games) in {study.total_games * factor for factor in looks}
    assert len(results.games) == results.plan.total_games
    assert ("Settled at look" in result.stdout) or ("The cap (43,680 games)" in result.stdout)


def test_ctrl_c_stops_cleanly_and_names_the_resume_command(procs):
    args, out, gate = simulate_held(procs, "int", workers=2)
    process = procs.start(cardgame(*args), "int", gate.env)
    wait_ready(out, gate)
    process.send_signal(signal.SIGINT)
    err = finish(process)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    hint = err.strip().splitlines()[-1]
    assert hint.startswith("Interrupted. Continue with: cardgame simulate") and "--resume" in hint
    gate.open()
    resumed = procs.start(cardgame(*shlex.split(hint.split("cardgame ", 1)[1])), "re", gate.env)
    err = finish(resumed)
    assert resumed.returncode == 0, err
    games = load_results(out).games
    assert len(games) == 16 and not games["failed"].any()  # 8 plain games, 8 held ones
    assert not games.duplicated(["cell", "game_index"]).any()


# workers write their own parts ------------------------------------------------------------
KILL_MID_WRITE = """
import json, os, signal, sys
import sims.parts as parts
from sims.files import temp_path
from sims.runner import run
from sims.study import from_dict

parent = os.getpid()
real = parts._land_file

def dies_mid_write(target, data):
    # a worker writing the games part of one batch: half a file, then parent and worker die
    games = target.parent.parent.name == "games"
    if os.getpid() != parent and games and target.name == "part-c0002-g0000000.arrows.lz4":
        temp_path(target, per_process=True).write_bytes(data[: len(data) // 2])
        os.kill(parent, signal.SIGKILL)
        os._exit(1)
    real(target, data)

parts._land_file = dies_mid_write
run(from_dict(json.loads(sys.argv[1]), "test"), workers=1, out=sys.argv[2], progress=False,
    records=True)
"""


def test_the_folder_is_the_same_bytes_with_one_worker_two_and_after_a_kill_mid_write(tmp_path):
    import json

    study = small_study()
    run(study, workers=1, out=tmp_path / "one", progress=False, records=True)
    run(study, workers=2, out=tmp_path / "two", progress=False, records=True)
    killed = tmp_path / "killed"
    subprocess.run(
        [sys.executable, "-c", KILL_MID_WRITE, json.dumps(SMALL), str(killed)],
        capture_output=True,
        check=False,
    )
    half = list((killed / "games" / "_parts").glob(".part-c0002-g0000000.arrows.lz4.*.tmp"))
    assert half, "the worker should die part way through writing that games part"
    assert not (killed / "games" / "_parts" / "part-c0002-g0000000.arrows.lz4").exists()
    landed = load_results(killed).games  # the half file is no part: readers skip it
    assert 0 < len(landed) < study.total_games
    summary = run(study, workers=2, out=killed, progress=False, records=True, resume=True)
    assert summary.games_skipped == len(landed)  # exactly the missing batches are replayed
    assert summary.games_played == study.total_games - len(landed)
    assert not list(killed.rglob("*.tmp"))
    one = result_files(tmp_path / "one")
    assert [name for name in one if name.startswith("games/")] == ["games/compact.parquet"]
    assert len(done_batches(tmp_path / "one")) == 8  # the batches it holds, in its footer
    assert one == result_files(tmp_path / "two") == result_files(killed)


def test_a_local_dask_cluster_writes_the_same_bytes(tmp_path):
    pytest.importorskip("dask.distributed")
    study = small_study(players=[2], pool=["random", "planner"], games_per_cell=4, batch_size=1)
    run(study, workers=1, out=tmp_path / "local", progress=False)
    run(study, workers=2, backend="dask", out=tmp_path / "dask", progress=False)
    assert result_files(tmp_path / "local") == result_files(tmp_path / "dask")


def test_the_parent_never_turns_rows_into_parts_when_no_game_fails(tmp_path, monkeypatch):
    import sims.batch as batch_module

    parent, calls = os.getpid(), tmp_path / "calls"
    real = batch_module.batch_tables

    def counted(batch_id, rows):  # appends the pid of the process that converts rows
        with open(calls, "a") as out:
            out.write(f"{os.getpid()}\n")
        return real(batch_id, rows)

    monkeypatch.setattr(batch_module, "batch_tables", counted)
    study = small_study(players=[2], pool=["random", "thief"], games_per_cell=12, batch_size=2)
    run(study, workers=2, out=tmp_path / "r", progress=False)
    pids = calls.read_text().split()
    assert len(pids) == 6 and str(parent) not in pids  # 6 batches, each converted in a worker
    assert len(load_results(tmp_path / "r").games) == study.total_games


def test_no_more_than_two_batches_per_worker_are_in_flight_however_slow_they_are(
    tmp_path, monkeypatch
):
    import sims.pool as pool_module

    real, in_flight = pool_module.wait, []

    def slow(futures, timeout=None, return_when=None):  # the first polls find nothing done,
        in_flight.append(len(futures))  # as on a loaded machine
        if len(in_flight) <= 5:
            return set(), set(futures)
        return real(futures, timeout=timeout, return_when=return_when)

    monkeypatch.setattr(pool_module, "wait", slow)
    study = small_study(players=[2], pool=["random", "thief"], games_per_cell=16, batch_size=2)
    run(study, workers=1, out=tmp_path / "r", progress=False)
    assert max(in_flight) == 2  # and so only the first two go back to be written here


def test_a_worker_sends_back_a_small_summary_and_no_rows(tmp_path):
    import pickle

    from sims.batch import land_batch, plan_batches

    study = small_study(players=[2], pool=["random", "thief"], games_per_cell=40, batch_size=40)
    batch = next(iter(plan_batches(study.plan)))
    summary = land_batch(batch.__class__(**{**batch.__dict__, "folder": str(tmp_path)}))
    assert summary.files is None and summary.games == 40
    assert len(pickle.dumps(summary)) < 1000
    rows = {
        t: sum(read_part(p).num_rows for p in part_files(tmp_path / t).values())
        for t in ("games", "seats")
    }
    assert rows == {"games": 40, "seats": 80}


@pytest.mark.parametrize(("scheduler", "written_by_workers"), [(None, 3), ("tcp://x:8786", 0)])
def test_workers_write_parts_once_the_manifest_exists_and_only_on_a_shared_disk(
    tmp_path, monkeypatch, scheduler, written_by_workers
):
    import sims.cluster as cluster
    from sims.batch import land_batch

    folders = []

    def in_process(todo, workers, scheduler, finished, summary, stop):  # as Dask would
        for batch in todo:
            folders.append(batch.folder)
            finished(land_batch(batch))

    monkeypatch.setattr(cluster, "run_dask", in_process)
    study = small_study(players=[2], pool=["random", "thief"], games_per_cell=8, batch_size=2)
    run(study, backend="dask", scheduler=scheduler, out=tmp_path / "r", progress=False)
    # the first batch goes back to the parent, which writes the manifest before its parts;
    # a remote scheduler's workers may not see this disk: they always send their parts back
    assert folders[0] is None
    assert sum(folder is not None for folder in folders) == written_by_workers
    assert result_files(tmp_path / "r") == result_files(run_plain(study, tmp_path / "plain"))


def run_plain(study, folder):
    run(study, workers=1, out=folder, progress=False)
    return folder
