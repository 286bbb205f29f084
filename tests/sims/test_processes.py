"""Processes: workers die with their parent, signals stop a run cleanly, a dying worker
costs its batch's games and not the study. Real subprocesses and real signals."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardgame.cli import main
from sims.results import load_results
from sims.runner import run
from sims.strategies.planner import Planner
from sims.study import from_dict

ROOT = Path(__file__).resolve().parents[2]


class ExitsHard(Planner):
    """Ends its worker process at once in about one game in four (fixed by the game seed)."""

    def keep_setup(self, view):
        if self.rng.random() < 0.25:
            os._exit(1)
        return super().keep_setup(view)


class SystemExits(Planner):
    """Calls sys.exit(3) part way through every game."""

    def turn(self, view):
        if view.turn > 4:
            raise SystemExit(3)
        return super().turn(view)


# /proc helpers ----------------------------------------------------------------------------
def _stat(pid):
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # fields after the command name: state, ppid, ...


def children(pid):
    """PIDs whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(entry.name)
            if fields and fields[1] == str(pid):
                found.append(int(entry.name))
    return found


def alive(pid):
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie has ended


def wait_until(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def start_simulation(tmp_path, *extra, workers=2, name="proc"):
    """A long `cardgame simulate` (40,000 games: it cannot end before the test interrupts it,
    however loaded the machine) in its own process group, as from a shell."""
    study = tmp_path / f"{name}.toml"
    study.write_text(
        f'name = "{name}"\nseed = 5\nplayers = [2]\npool = ["planner", "random"]\n'
        "games_per_cell = 40000\nbatch_size = 4\n"
    )
    out = tmp_path / f"{name}-out"
    command = [sys.executable, "-m", "cardgame.cli", "simulate", str(study), "--no-progress"]
    command += ["--workers", str(workers), "--out", str(out), *extra]
    # output to files, not pipes: orphaned workers would hold a pipe open
    with open(tmp_path / f"{name}.out", "w") as stdout, open(tmp_path / f"{name}.err", "w") as err:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=stdout, stderr=err, start_new_session=True
        )
    process.stderr_path = err.name
    return process, out


def finish(process, seconds):
    """Wait for the process to exit; its stderr."""
    process.wait(timeout=seconds)
    return Path(process.stderr_path).read_text()


def wait_for_workers(process, count, seconds=30):
    assert wait_until(lambda: len(children(process.pid)) >= count, seconds), "no workers"
    return children(process.pid)


def wait_for_part(out, seconds=60):
    assert wait_until(lambda: any((out / "games").glob("*.parquet")), seconds), "no batch"


def assert_all_gone(pids, seconds=5):
    assert wait_until(lambda: not any(alive(p) for p in pids), seconds), [
        p for p in pids if alive(p)
    ]


# tests ------------------------------------------------------------------------------------
def test_sigkill_of_the_main_process_takes_its_workers_with_it(tmp_path):
    process, out = start_simulation(tmp_path)
    workers = wait_for_workers(process, 2)
    wait_for_part(out)
    process.kill()
    process.wait()
    assert_all_gone(workers, seconds=5)


def test_sigterm_stops_like_ctrl_c_with_the_resume_command(tmp_path):
    process, out = start_simulation(tmp_path)
    workers = wait_for_workers(process, 2)
    wait_for_part(out)
    process.terminate()
    err = finish(process, 20)
    assert process.returncode == 143, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("Interrupted. Continue with: cardgame")
    assert_all_gone(workers, seconds=5)


def test_two_quick_ctrl_cs_never_hang(tmp_path):
    trials = [start_simulation(tmp_path, name=f"t{n}")[0] for n in range(5)]  # side by side
    for n, process in enumerate(trials):
        process.workers = wait_for_workers(process, 2)
        time.sleep(0.03 * n)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group
        time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)
    for n, process in enumerate(trials):
        try:
            err = finish(process, 15)
        except subprocess.TimeoutExpired:
            for other in trials:
                with contextlib.suppress(ProcessLookupError):  # those that did end
                    os.killpg(other.pid, signal.SIGKILL)
            pytest.fail(f"trial {n}: two quick Ctrl-Cs hung the run")
        assert process.returncode == 130, err
        assert "Traceback" not in err
        assert_all_gone(process.workers, seconds=5)


def small(pool, games=8, batch_size=2):
    return from_dict(
        {
            "name": "w",
            "seed": 11,
            "players": [2],
            "pool": pool,
            "games_per_cell": games,
            "batch_size": batch_size,
        },
        "test",
    )


def test_a_worker_that_dies_costs_its_batch_not_the_study(tmp_path):
    study = small(["planner", "tests.sims.test_processes:ExitsHard"])
    summary = run(study, workers=2, out=tmp_path / "two", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    games = load_results(tmp_path / "two").games
    assert len(games) == study.total_games
    died = games[games["failure_error"].str.contains("worker died")]
    assert 0 < len(died) < len(games)
    assert len(summary.failures) == int(games["failed"].sum())
    run(study, workers=1, out=tmp_path / "one", progress=False)
    one = load_results(tmp_path / "one").games
    assert one.drop(columns="sim_minutes").equals(games.drop(columns="sim_minutes"))


def test_system_exit_in_a_strategy_does_not_end_the_run(tmp_path):
    study = small(["planner", "tests.sims.test_processes:SystemExits"], games=4)
    summary = run(study, workers=2, out=tmp_path / "r", progress=False)
    assert not summary.interrupted
    games = load_results(tmp_path / "r").games
    assert len(games) == study.total_games and games["failed"].all()
    assert games["failure_error"].str.contains("SystemExit").all()


def test_an_unreachable_dask_scheduler_is_one_line_and_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "never"
    began = time.time()
    code = main(
        ["simulate", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out),
         "--games", "2", "--players", "2", "--strategies", "planner,random"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and time.time() - began < 10
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
    assert not out.exists()


def test_ctrl_c_on_dask_prints_a_couple_of_lines(tmp_path):
    pytest.importorskip("dask.distributed")
    process, out = start_simulation(tmp_path, "--backend", "dask", workers=2)
    wait_for_part(out, seconds=90)
    everyone = children(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    err = finish(process, 60)
    assert process.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) <= 3, err
    assert lines[-1].startswith("Interrupted. Continue with: cardgame")
    assert_all_gone(everyone, seconds=10)


def test_a_worker_that_dies_on_dask_costs_the_same_games_as_locally(tmp_path):
    pytest.importorskip("dask.distributed")
    study = small(["planner", "tests.sims.test_processes:ExitsHard"])
    summary = run(study, workers=2, backend="dask", out=tmp_path / "dask", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    run(study, workers=2, out=tmp_path / "local", progress=False)
    dask, local = load_results(tmp_path / "dask").games, load_results(tmp_path / "local").games
    assert dask["failure_error"].str.contains("worker died").any()
    assert dask.drop(columns="sim_minutes").equals(local.drop(columns="sim_minutes"))


def test_a_worker_that_dies_mid_write_leaves_no_half_part(tmp_path, monkeypatch):
    import sims.results as results

    parent, real = os.getpid(), results._write_atomic

    def dies_mid_write(target, data):  # in a worker, half way through one batch's games part
        if os.getpid() != parent and target.parent.name == "games" and "g0000012" in target.name:
            results.temp_path(target).write_bytes(data[: len(data) // 2])
            os._exit(1)
        real(target, data)

    monkeypatch.setattr(results, "_write_atomic", dies_mid_write)
    study = small(["planner", "random"], games=16)  # the first 4 batches land via the parent
    summary = run(study, workers=2, out=tmp_path / "r", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    assert not list((tmp_path / "r").rglob("*.tmp"))
    games = load_results(tmp_path / "r").games
    died = games[games["failure_error"].str.contains("worker died", na=False)]
    assert list(died["game_index"]) == [12, 13]  # that batch, replayed alone, died again
    assert not games.drop(died.index)["failed"].any()
    assert len(summary.failures) == 2
