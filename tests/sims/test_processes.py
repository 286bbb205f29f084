"""Processes: workers die with their parent; a signal stops a run cleanly at any moment,
whatever disposition the test run inherited; a worker that dies costs no game it did not end
itself. Real subprocesses and real signals; every wait is for an event (tests/sims/faults.py),
so a loaded machine makes these tests slower, never red."""

import os
import signal
import struct
import threading

import pytest

import sims.cli
import sims.pool as pool_module
import sims.runner as runner
from cardgame.cli import main
from sims.pool import WORKER_DIED
from sims.results import load_results
from sims.runner import run
from sims.strategies.planner import Planner
from sims.study import from_dict, load_study
from tests.sims.broken import GATE
from tests.sims.faults import (
    EXIT_SECONDS,
    Gate,
    Processes,
    assert_all_gone,
    cardgame,
    children,
    finish,
    gated_study,
    python,
    result_files,
    sigint_disposition,
    wait_for_workers,
    wait_ready,
    wait_until,
)


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


@pytest.fixture
def procs(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.close()


@pytest.fixture
def own_signals():
    """SIGINT as in a process started from a terminal (Python's handler), whatever this test
    run inherited; this process's handlers are restored afterwards."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def start_simulation(procs, *extra, workers=2, name="proc", sigint="SIG_DFL", script=None):
    """A `cardgame simulate` held mid-way (its second cell waits for a gate the test does not
    open: it cannot end before the test stops it), in its own process group, as from a
    shell. ``script`` runs instead of the plain command (it gets the same arguments)."""
    folder = procs.folder / name
    folder.mkdir()
    gate, out = Gate(folder), folder / "out"
    args = ["simulate", str(gated_study(folder, gated=4000)), "--no-progress"]
    args += ["--workers", str(workers), "--out", str(out), *extra]
    command = cardgame(*args, sigint=sigint) if script is None else python("-c", script, *args)
    return procs.start(command, name, gate.env), out, gate


def last_line(err):
    return err.strip().splitlines()[-1]


# signals ----------------------------------------------------------------------------------
def test_sigkill_of_the_main_process_takes_its_workers_with_it(procs):
    process, out, gate = start_simulation(procs)
    workers = wait_for_workers(process, 2)
    wait_ready(out, gate)
    process.kill()
    process.wait()
    assert_all_gone(workers)


def test_sigterm_stops_like_ctrl_c_with_the_resume_command(procs):
    process, out, gate = start_simulation(procs)
    workers = wait_for_workers(process, 2)
    wait_ready(out, gate)
    assert sigint_disposition(process.pid) == "caught"  # the run's handler, not Python's
    process.terminate()
    err = finish(process)
    assert process.returncode == 143, err
    assert "Traceback" not in err
    assert last_line(err).startswith("Interrupted. Continue with: cardgame")
    assert_all_gone(workers)


def test_two_quick_ctrl_cs_never_hang(procs):
    trials = [start_simulation(procs, name=f"t{n}")[0] for n in range(5)]  # side by side
    for n, process in enumerate(trials):
        process.workers = wait_for_workers(process, 2)
        # the moments vary (the first batches may still be coming back through the pool's
        # pipe); whichever they are, the run must stop cleanly
        threading.Event().wait(0.03 * n)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group
        threading.Event().wait(0.02)
        os.killpg(process.pid, signal.SIGINT)
    for n, process in enumerate(trials):
        err = finish(process)
        assert process.returncode == 130, f"trial {n}: {err}"
        assert "Traceback" not in err
        assert_all_gone(process.workers)


def test_a_sigint_ignored_by_whoever_started_the_run_stays_ignored(procs):
    # `nohup cmd &` or a script's background job: the caller chose to ignore Ctrl-C
    process, out, gate = start_simulation(procs, sigint="SIG_IGN")
    wait_ready(out, gate)
    assert sigint_disposition(process.pid) == "ignored"
    process.terminate()  # SIGTERM still stops it
    err = finish(process)
    assert process.returncode == 143, err
    assert last_line(err).startswith("Interrupted. Continue with: cardgame")


STAGES = {
    "before the run": ("sims.cli", "build_study", 130, "cardgame simulate: interrupted"),
    "as the folder is checked": ("sims.runner", "_prepare_folder", 130, "Interrupted."),
    "as the first batch lands": ("sims.runner", "write_manifest", 130, "Interrupted."),
    "after the last game": ("sims.runner", "run", 0, "ctrl"),
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_ctrl_c_at_any_stage_of_the_command_is_a_clean_stop(
    tmp_path, monkeypatch, capsys, own_signals, stage
):
    module, name, code, said = STAGES[stage]
    target = {"sims.cli": sims.cli, "sims.runner": runner}[module]
    real = getattr(target, name)

    def ctrl_c_then(*args, **kwargs):
        if name == "run":  # the signal comes once the games are all in
            result = real(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGINT)
            return result
        os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, ctrl_c_then)
    argv = ["simulate", "--strategies", "planner,random", "--players", "2", "--games", "8"]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "r"), "--no-progress"]) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 0:  # a Ctrl-C once every game is in changes nothing
        assert out.startswith("8 of 8 games")
    else:
        assert last_line(err).startswith(said), err


STUCK_CLEAN_UP = """
import sys, threading
import sims.cli, sims.pool
sims.cli.STOP_GRACE_SECONDS = 1.0
sims.pool.close_pool = lambda pool, kill: threading.Event().wait()  # never returns
from cardgame.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_clean_up_that_never_ends_cannot_keep_the_process_after_a_signal(procs):
    process, out, gate = start_simulation(procs, script=STUCK_CLEAN_UP)
    workers = wait_for_workers(process, 2)
    wait_ready(out, gate)
    os.killpg(process.pid, signal.SIGINT)
    err = finish(process)
    assert process.returncode == 130, err
    hint = last_line(err)
    assert hint.startswith("Interrupted. Continue with: cardgame simulate"), err
    assert hint.endswith("--resume (its clean-up was cut short)")
    assert_all_gone(workers)


def test_a_pool_whose_worker_died_mid_send_still_shuts_down():
    pool = pool_module.new_pool(1)
    pool.submit(threading.Event().wait)  # a worker, busy
    wait_until(lambda: any(p.is_alive() for p in pool._processes.values()), "a worker")
    # half a message in the result pipe, as from a worker killed while sending its parts:
    # the pool's manager thread reads the header and waits for the other 990 bytes
    writer = pool._result_queue._writer.fileno()
    os.write(writer, struct.pack("!i", 1000) + b"x" * 10)
    closing = threading.Thread(target=pool_module.close_pool, args=(pool, True), daemon=True)
    closing.start()
    closing.join(EXIT_SECONDS)
    if closing.is_alive():
        os.write(writer, b"\0" * 990)  # let the manager go, so that this test run can end
        pytest.fail("the pool's shutdown hung on half a message")


# faults of the run are not games -------------------------------------------------------
def small(pool, games=8, batch_size=2):
    return from_dict(
        {
            "name": "w",
            "seed": 11,
            "players": [2],
            "pool": pool,
            "games_per_cell": games,
            "batch_size": batch_size,
            # every game its own deal: the fault strategies draw their faults from the seed
            "pairing": "none",
        },
        "test",
    )


def test_a_game_that_ends_its_worker_is_failed_and_no_other_game_is(tmp_path):
    study = small(["planner", "tests.sims.test_processes:ExitsHard"])
    summary = run(study, workers=2, out=tmp_path / "two", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    results = load_results(tmp_path / "two")
    games = results.games
    assert len(games) == study.total_games
    died = games[games["failure_error"] == WORKER_DIED]
    assert 0 < len(died) < len(games) / 2  # about one game in four: not whole batches
    assert (died["failure_seat"] == -1).all()
    assert not games.drop(died.index)["failed"].any()  # every other game was played out
    played = set(zip(results.seats["cell"], results.seats["game_index"], strict=True))
    assert played == set(zip(games["cell"], games["game_index"], strict=True)) - set(
        zip(died["cell"], died["game_index"], strict=True)
    )
    assert len(summary.failures) == len(died)
    run(study, workers=1, out=tmp_path / "one", progress=False)
    assert result_files(tmp_path / "one") == result_files(tmp_path / "two")


def test_system_exit_in_a_strategy_does_not_end_the_run(tmp_path):
    study = small(["planner", "tests.sims.test_processes:SystemExits"], games=4)
    summary = run(study, workers=2, out=tmp_path / "r", progress=False)
    assert not summary.interrupted
    games = load_results(tmp_path / "r").games
    assert len(games) == study.total_games and games["failed"].all()
    assert games["failure_error"].str.contains("SystemExit").all()


def test_a_worker_that_dies_mid_write_costs_no_game(tmp_path, monkeypatch):
    import sims.parts as parts
    from sims.files import temp_path

    parent, real = os.getpid(), parts._land_file

    def dies_mid_write(target, data):  # in a worker, half way through one batch's games part
        games = target.parent.parent.name == "games"  # TABLE/_parts/part-BATCH.arrows.lz4
        if os.getpid() != parent and games and "g0000012" in target.name:
            temp_path(target, per_process=True).write_bytes(data[: len(data) // 2])
            os._exit(1)
        real(target, data)

    monkeypatch.setattr(parts, "_land_file", dies_mid_write)
    study = small(["planner", "random"], games=16)  # the first 4 batches land via the parent
    summary = run(study, workers=2, out=tmp_path / "r", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    assert not summary.failures  # the death was the writer's, not a game's
    assert not list((tmp_path / "r").rglob("*.tmp"))
    monkeypatch.undo()
    run(study, workers=2, out=tmp_path / "plain", progress=False)
    assert result_files(tmp_path / "r") == result_files(tmp_path / "plain")


def test_a_worker_killed_from_outside_costs_no_game(tmp_path, monkeypatch):
    gate = Gate(tmp_path)
    monkeypatch.setenv(GATE, str(gate.path))
    study = load_study(gated_study(tmp_path, gated=4))

    def kill_a_waiting_worker():  # as the OOM killer or an administrator might
        try:
            os.kill(wait_until(gate.waiting_pid, "a held game"), signal.SIGKILL)
        finally:
            gate.open()  # whatever happened here, the run must be able to end

    killer = threading.Thread(target=kill_a_waiting_worker, daemon=True)
    killer.start()
    summary = run(study, workers=2, out=tmp_path / "r", progress=False)
    killer.join()
    assert summary.games_played == study.total_games and not summary.failures
    run(study, workers=1, out=tmp_path / "plain", progress=False)
    assert result_files(tmp_path / "r") == result_files(tmp_path / "plain")


# Dask -------------------------------------------------------------------------------------
def test_an_unreachable_dask_scheduler_is_one_line_and_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "never"
    code = main(
        ["simulate", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out),
         "--games", "2", "--players", "2", "--strategies", "planner,random"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
    assert not out.exists()


def test_ctrl_c_on_dask_prints_a_couple_of_lines(procs):
    pytest.importorskip("dask.distributed")
    process, out, gate = start_simulation(procs, "--backend", "dask", workers=2)
    wait_ready(out, gate)
    everyone = children(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    err = finish(process)
    assert process.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) <= 3, err
    assert lines[-1].startswith("Interrupted. Continue with: cardgame")
    assert_all_gone(everyone)


def test_a_worker_that_dies_on_dask_costs_the_same_games_as_locally(tmp_path):
    pytest.importorskip("dask.distributed")
    study = small(["planner", "tests.sims.test_processes:ExitsHard"])
    summary = run(study, workers=2, backend="dask", out=tmp_path / "dask", progress=False)
    assert not summary.interrupted and summary.games_played == study.total_games
    run(study, workers=2, out=tmp_path / "local", progress=False)
    assert (load_results(tmp_path / "dask").games["failure_error"] == WORKER_DIED).any()
    assert result_files(tmp_path / "dask") == result_files(tmp_path / "local")
