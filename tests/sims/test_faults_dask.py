"""A Dask cluster that goes away is not games: a lost scheduler, or a scheduler left without
workers, stops the run in one line with the command that resumes it, and no game in flight is
written as failed; resumed on a new cluster, the folder holds the bytes of an uninterrupted
run. The scheduler and workers are processes of their own (tests/sims/faults.py)."""

import shlex

import pytest

from sims.results import load_results
from sims.runner import run
from sims.study import load_study
from tests.sims.broken import GATE
from tests.sims.faults import (
    Gate,
    Processes,
    cardgame,
    finish,
    gated_study,
    kill_group,
    python,
    result_files,
    start_scheduler,
    start_worker,
    wait_ready,
)

pytest.importorskip("dask.distributed")

# the CLI with the no-worker limit a test can wait for
SHORT_NO_WORKERS = """
import sys
import sims.cluster
sims.cluster.DASK_NO_WORKERS_SECONDS = 2.0
from cardgame.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def procs(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.close()


def uninterrupted(tmp_path, monkeypatch, gate, study):
    """The folder an undisturbed run writes (locally: the backend changes no byte)."""
    monkeypatch.setenv(GATE, str(gate.path))
    gate.open()
    run(load_study(study), workers=1, out=tmp_path / "whole", progress=False)
    return result_files(tmp_path / "whole")


def stopped_line(process):
    """The one line of a run that stopped: its problem, and the command that resumes it."""
    err = finish(process)
    assert process.returncode == 2, err
    assert "Traceback" not in err and "ERROR" not in err, err
    _header, line = err.strip().splitlines()  # the study's header, then the one line
    assert line.startswith("cardgame simulate: error: "), err
    problem, command = line.split("; continue with: ")
    return problem, shlex.split(command)


def resume_on(procs, gate, command, address):
    """Run the printed command against the new scheduler ``address``."""
    command[command.index("--scheduler") + 1] = address
    assert command[0] == "cardgame" and command[-1] == "--resume"
    resumed = procs.start(cardgame(*command[1:]), "resumed", gate.env)
    err = finish(resumed)
    assert resumed.returncode == 0, err


def test_a_lost_scheduler_writes_no_failed_game_and_the_resumed_folder_is_whole(
    procs, tmp_path, monkeypatch
):
    gate = Gate(tmp_path)
    study, out = gated_study(tmp_path), tmp_path / "out"
    address, log = start_scheduler(procs, gate.env, "scheduler")
    worker = start_worker(procs, gate.env, address, log, "worker")
    process = procs.start(
        cardgame("simulate", str(study), "--backend", "dask", "--scheduler", address,
                 "--workers", "2", "--out", str(out), "--no-progress"),
        "simulate", gate.env,
    )  # fmt: skip
    wait_ready(out, gate)  # the plain cell is in; a held game is in flight
    kill_group(procs.started[0])  # the scheduler
    problem, command = stopped_line(process)
    assert f"lost the Dask scheduler at {address}" in problem
    games = load_results(out).games
    assert len(games) == 8 and not games["failed"].any()  # nothing in flight was written
    kill_group(worker)
    gate.open()
    address, log = start_scheduler(procs, gate.env, "scheduler2")
    start_worker(procs, gate.env, address, log, "worker2")
    resume_on(procs, gate, command, address)
    assert result_files(out) == uninterrupted(tmp_path, monkeypatch, gate, study)


def test_a_scheduler_without_workers_stops_the_run_in_one_line(procs, tmp_path, monkeypatch):
    gate = Gate(tmp_path)
    study, out = gated_study(tmp_path), tmp_path / "out"
    address, log = start_scheduler(procs, gate.env, "scheduler")
    worker = start_worker(procs, gate.env, address, log, "worker")
    process = procs.start(
        python("-c", SHORT_NO_WORKERS, "simulate", str(study), "--backend", "dask",
               "--scheduler", address, "--workers", "2", "--out", str(out), "--no-progress"),
        "simulate", gate.env,
    )  # fmt: skip
    wait_ready(out, gate)
    kill_group(worker)  # the last worker goes: Dask alone would wait for another forever
    problem, command = stopped_line(process)
    assert f"the Dask scheduler at {address} has had no workers for 2 s" in problem
    assert not load_results(out).games["failed"].any()
    gate.open()
    start_worker(procs, gate.env, address, log, "worker2")
    resume_on(procs, gate, command, address)
    assert result_files(out) == uninterrupted(tmp_path, monkeypatch, gate, study)


def test_a_local_cluster_that_does_not_start_is_one_line_and_writes_nothing(
    tmp_path, monkeypatch, capsys
):
    """A worker killed while the cluster starts made Dask raise "Nanny failed to start":
    a traceback. Now the run stops in one line; nothing was played or written."""
    import dask.distributed

    from cardgame.cli import main

    def fails(*_args, **_kwargs):
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(dask.distributed, "LocalCluster", fails)
    study = tmp_path / "s.toml"
    study.write_text('pool = ["planner", "random"]\nplayers = [2]\ngames_per_cell = 2\n')
    out = tmp_path / "out"
    argv = ["simulate", str(study), "--backend", "dask", "--workers", "1", "--no-progress"]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the local Dask cluster did not start (Nanny failed to start.)" in err, err
    assert "Traceback" not in err and not out.exists()


def test_a_local_clusters_scheduler_takes_no_client_without_its_credentials():
    """Hostile pass 24r's dask24.py: another user of the machine found the local cluster's
    scheduler on 127.0.0.1, connected (no authentication) and ran code in its workers, as
    this user: it read the seal key. The cluster speaks TLS with temporary credentials and
    checks each end's certificate, and its dashboard listens on the loopback only."""
    import socket
    import ssl

    from sims.cluster import local_cluster

    with local_cluster(1) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://"), address
        host, port = address.removeprefix("tls://").rsplit(":", 1)
        # TLS without this run's certificate (what any client of another user has): the
        # scheduler refuses it, in the handshake or (TLS 1.3) at the first read; no clock
        # (a client's own time-outs raced a loaded machine)
        blind = ssl.create_default_context()
        blind.check_hostname = False
        blind.verify_mode = ssl.CERT_NONE
        with socket.create_connection((host, int(port)), timeout=30) as raw:
            raw.settimeout(None)  # waits for the refusal (pytest-timeout is the ceiling)
            try:
                with blind.wrap_socket(raw) as tls:
                    answer = tls.recv(1)  # a scheduler that took it would greet it here
            except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
                answer = b""
            assert answer == b"", answer
        with socket.create_connection((host, int(port)), timeout=5) as plain:
            plain.sendall(b"\0" * 64)  # no TLS handshake: the scheduler closes it
            plain.settimeout(None)  # waits for that close (pytest-timeout is the ceiling)
            try:
                answer = plain.recv(1)
            except ConnectionResetError:
                answer = b""
            assert answer in (b"", b"\x15")  # closed, or a TLS alert
        dashboard = cluster.scheduler.http_server
        if dashboard is not None:
            assert all(s.getsockname()[0] == "127.0.0.1" for s in dashboard._sockets.values())
