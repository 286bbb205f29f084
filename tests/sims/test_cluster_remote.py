"""Dask across machines: a worker writes its parts itself where it sees the run's mark in the
results folder and sends them back where it does not; several batches go to one task without
changing a byte; a worker lost mid-run has its batches played again by the others, never
recorded twice, and the folder holds the bytes of a local run.

The cluster test starts a real scheduler and two worker processes, each with a scratch folder
of its own, and kills one of them while it plays (tests/sims/faults.py: events, not time).
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import sims.cluster as cluster
import sims.runner as runner
from sims.batch import plan_batches
from sims.folder import write_manifest
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict, load_study
from tests.sims.broken import GATE
from tests.sims.faults import (
    Gate,
    Processes,
    alive,
    gated_study,
    python,
    result_files,
    start_scheduler,
    wait_until,
)

pytest.importorskip("dask.distributed")


def cheap_study(games: int = 12, batch_size: int = 2):
    return from_dict(
        {
            "name": "x",
            "seed": 3,
            "players": [2],
            "pool": ["random", "planner"],
            "games_per_cell": games,
            "batch_size": batch_size,
        },
        "test",
    )


def results_folder(path: Path) -> Path:
    """A folder that is a results folder (its manifest written), as the client leaves it."""
    write_manifest(path, {"name": "x"}, {}, cheap_study().plan.to_dict())
    return path


# the worker's side -------------------------------------------------------------------------
def test_a_worker_that_sees_the_run_s_mark_writes_its_parts_itself(tmp_path):
    folder = results_folder(tmp_path / "r")
    mark = cluster.RunMark()
    name = mark.place(str(folder))
    batches = [replace(b, folder=str(folder)) for b in plan_batches(cheap_study(4).plan)]
    results, seconds = cluster.land_bundle(batches, name)
    assert [r.id for r in results] == [b.id for b in batches] and seconds > 0
    assert all(r.files is None for r in results)  # written, not sent back
    assert sorted(p.name for p in (folder / "games" / "_parts").iterdir()) == [
        f"part-{b.id}.arrows.lz4" for b in batches
    ]
    mark.remove()
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("seen", ["no mark", "another run's mark", "no folder"])
def test_a_worker_that_does_not_see_the_mark_sends_the_bytes_back(tmp_path, seen):
    # the same path on another machine: a folder of its own (another run's, or none at all)
    folder = results_folder(tmp_path / "r")
    name = None if seen == "no mark" else cluster.RunMark().name
    if seen == "another run's mark":
        cluster.RunMark().place(str(folder))
    where = str(tmp_path / "elsewhere") if seen == "no folder" else str(folder)
    batches = [replace(b, folder=where) for b in plan_batches(cheap_study(4).plan)]
    results, _seconds = cluster.land_bundle(batches, name)
    assert all(r.files is not None for r in results)
    assert not (folder / "games").exists() and not (tmp_path / "elsewhere").exists()
    # the bytes the parent writes are those a worker would have written
    sent = {name: data for r in results for name, data in (r.files or {}).items()}
    mark = cluster.RunMark()
    cluster.land_bundle(
        [replace(b, folder=str(tmp_path / "w")) for b in batches],
        mark.place(str(results_folder(tmp_path / "w"))),
    )
    mark.remove()
    written = result_files(tmp_path / "w")
    assert sent == written


def test_a_worker_that_cannot_write_there_sends_the_bytes_back(tmp_path, monkeypatch):
    import sims.files as files

    folder = results_folder(tmp_path / "r")
    mark = cluster.RunMark()
    name = mark.place(str(folder))

    def refused(path, data):  # a mount this worker may not write (NFS root squash)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "_write_file", refused)
    batches = [replace(b, folder=str(folder)) for b in plan_batches(cheap_study(4).plan)]
    got, _seconds = cluster.land_bundle(batches, name)
    assert [r.id for r in got] == [b.id for b in batches]
    assert all(r.files is not None and r.games == 2 for r in got)
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == [name, "manifest.json"]


def test_a_run_s_mark_replaces_one_a_killed_client_left(tmp_path):
    folder = results_folder(tmp_path / "r")
    left = cluster.RunMark()
    left.place(str(folder))  # never removed: its client was killed
    mark = cluster.RunMark()
    assert not mark.placeable(str(tmp_path / "not yet a results folder"))
    assert mark.placeable(str(folder))
    mark.place(str(folder))
    assert [p.name for p in folder.glob(".dask-run-*")] == [mark.name]
    mark.remove()
    assert not list(folder.glob(".dask-run-*"))


# bundles -----------------------------------------------------------------------------------
def test_bundles_keep_the_plan_s_order_and_grow_to_the_measured_rate(monkeypatch):
    monkeypatch.setattr(cluster, "DASK_TASK_SECONDS", 0.25)
    monkeypatch.setattr(cluster, "DASK_BUNDLE_BATCHES", 5)
    plan = list(plan_batches(cheap_study(40).plan))  # 20 batches of 2 games
    bundler = cluster.Bundler(plan)
    bundles = [bundler.next()]
    assert len(bundles[0]) == 1  # no rate yet
    bundler.took(2, 0.1)  # 0.05 s a game: 0.25 s is 5 games, so 3 batches
    bundles.append(bundler.next())
    assert len(bundles[1]) == 3
    bundler.took(2, 0.001)  # faster games: as many batches as a bundle holds
    bundles.append(bundler.next())
    assert len(bundles[2]) == 5
    bundles.extend(iter(bundler.next, []))
    assert [b.id for bundle in bundles for b in bundle] == [b.id for b in plan]


def test_tasks_lengthen_with_the_cluster_and_shrink_at_the_plan_s_end(monkeypatch):
    """The client pays about DASK_CLIENT_TASK_SECONDS of CPU per task: more threads, longer
    tasks (at most DASK_CLIENT_SHARE of a core); and the last tasks share out what is left."""
    monkeypatch.setattr(cluster, "DASK_BUNDLE_BATCHES", 100)
    plan = list(plan_batches(cheap_study(4000).plan))  # 2,000 batches of 2 games
    assert cluster.Bundler(plan).task_seconds() == cluster.DASK_TASK_SECONDS
    wide = cluster.Bundler(plan)
    wide.threads = 64
    assert wide.task_seconds() == pytest.approx(64 * 0.014 / 0.25)  # 3.6 s
    bundler = cluster.Bundler(plan, games_left=4000)
    bundler.threads = 4
    bundler.took(2, 0.01)  # 0.005 s a game: a 0.25 s task is 50 games
    sizes, left = [], 4000
    for bundle in iter(bundler.next, []):
        sizes.append(sum(b.games for b in bundle))
        assert sizes[-1] < min(50, left / (2 * 4)) + 2  # a batch (2 games) past the share
        left -= sizes[-1]
    assert sizes[:72] == [50] * 72  # until the last 400 games: then two rounds' share
    assert sizes[-1] == 2 and left == 0 and bundler.games_left == 0


def test_a_bundle_never_mixes_batches_the_worker_writes_with_batches_it_sends_back():
    plan = list(plan_batches(cheap_study(12).plan))
    todo = [*plan[:2], *(replace(b, folder="/r") for b in plan[2:])]
    bundler = cluster.Bundler(todo)
    bundler.took(1, 1e-6)
    assert [[b.folder for b in bundle] for bundle in iter(bundler.next, [])] == [
        [None, None],
        ["/r"] * 4,
    ]


# a real cluster that loses a worker --------------------------------------------------------
@pytest.fixture
def procs(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.close()


def start_worker(procs, env, address, log, name, scratch):
    """One Dask worker process (no nanny: killed, it stays dead) with one thread and a
    scratch folder of its own, registered with the scheduler on return."""
    registered = log.read_text().count("Register worker")
    worker = procs.start(
        python("-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
               "--no-dashboard", "--local-directory", str(scratch)),
        name, env,
    )  # fmt: skip
    wait_until(lambda: log.read_text().count("Register worker") > registered, "a Dask worker")
    return worker


def test_a_lost_worker_s_batches_are_played_again_and_the_folder_is_a_local_run_s(
    procs, tmp_path, monkeypatch
):
    gate = Gate(tmp_path)
    monkeypatch.setenv(GATE, str(gate.path))
    study = load_study(gated_study(tmp_path, plain=10, gated=8))  # batches of 2
    plan = [b.id for b in plan_batches(study.plan)]
    address, log = start_scheduler(procs, gate.env, "scheduler")
    workers = {
        start_worker(procs, gate.env, address, log, name, tmp_path / f"{name}-scratch").pid
        for name in ("worker1", "worker2")
    }
    # first the 4 tasks sent before the manifest exists, one batch each; then 2 batches a
    # task, so a worker lost mid-task may have written one of its batches already
    monkeypatch.setattr(cluster, "DASK_BUNDLE_BATCHES", 2)
    by_parent: list[str] = []

    def land_files(folder, files):  # the parts the client writes (sent back by a worker)
        by_parent.extend(
            n.split("part-")[1].removesuffix(".arrows.lz4") for n in files if n.startswith("games/")
        )
        real_land_files(folder, files)

    real_land_files = runner.land_files
    monkeypatch.setattr(runner, "land_files", land_files)
    killed: list[int] = []

    def kill_a_waiting_worker() -> None:
        try:
            # a Gated game waits in a worker: that worker is mid-task, and stays so
            pid = wait_until(gate.waiting_pid, "a Gated game in a worker")
            assert pid in workers, pid  # never this process, which replays batches alone
            os.kill(pid, signal.SIGKILL)
            wait_until(lambda: not alive(pid), "the killed worker's end")
            killed.append(pid)
        finally:
            gate.open()  # whatever happened, the run can end

    killer = threading.Thread(target=kill_a_waiting_worker, daemon=True)
    killer.start()
    out = tmp_path / "out"
    summary = run(study, workers=2, backend="dask", scheduler=address, out=out, progress=False)
    killer.join()
    assert killed and killed[0] in workers
    assert summary.games_played == 18 and not summary.failures and not summary.interrupted

    # the folder: every game once, no temporary file or mark left, a local run's bytes
    games = load_results(out).games
    assert sorted(games.groupby("cell")["game_index"].apply(sorted)) == [
        list(range(8)),
        list(range(10)),
    ]
    assert not [p for p in out.rglob(".*")]
    # the workers wrote every part but those of the tasks sent before the manifest existed
    assert sorted(by_parent) == plan[:4]
    run(study, workers=1, out=tmp_path / "local", progress=False)
    assert result_files(out) == result_files(tmp_path / "local")
