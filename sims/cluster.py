"""The Dask backend: the same batches on a Dask distributed cluster (a local one when no
scheduler address is given).

Several batches go to one task (``Bundler``), so Dask's cost per task (a millisecond or two)
stays under 1% of the task; a batch's id, games and files are unchanged by it. A worker
writes its batches' parts itself where it sees the run's mark in the results folder (a
shared folder: NFS and the like), and sends them back as bytes for the client to write where
it does not (``land_bundle``). A worker lost on a remote cluster has its tasks played again
by Dask on another worker: a part is named for its batch and written whole (a rename), so a
batch played twice is written twice with the same bytes, never recorded twice.

A Dask worker lost (``KilledWorker``) or a batch that escapes its games' guards costs no
game: the batch is replayed alone in local processes (sims/pool.py), so the verdict is the
local runner's. A lost scheduler, or a cluster with no workers for
``DASK_NO_WORKERS_SECONDS``, stops the run with ``RunStopped``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FetchTimeout
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .batch import Batch, BatchSummary, land, run_batch
from .errors import ResultsError, ResultsWriteError, RunStopped, StudyError
from .folder import MANIFEST, RUN_MARK_PREFIX
from .pool import clean_context, run_alone
from .stopping import POLL_SECONDS, StopFlag

if TYPE_CHECKING:
    from .runner import RunSummary

DASK_CONNECT_SECONDS = 5
DASK_NO_WORKERS_SECONDS = 60.0  # a cluster with no worker that long stops the run
DASK_CHECK_SECONDS = 1.0  # how often the scheduler is asked how many workers it has


def run_dask(
    todo: Iterable[Batch],
    workers: int,
    scheduler: str | None,
    finished: Callable[[BatchSummary], bool],
    summary: RunSummary,
    stop: StopFlag,
) -> None:
    """The same batches on a Dask distributed cluster (a local one when no address), several
    to a task (``Bundler``), each written by its worker where it sees the results folder."""
    from dask.distributed import Client, as_completed
    from distributed import KilledWorker

    _quiet_dask()
    cluster = None
    if scheduler:
        client = _connect(Client, scheduler)
    else:
        import dask

        # a batch whose worker dies is replayed locally at once (see KilledWorker below):
        # retrying it on Dask would only kill more workers; and no worker profiler, which
        # samples the playing thread's stack every 10 ms for a dashboard this run does not show
        settings = {
            "distributed.scheduler.allowed-failures": 0,
            "distributed.worker.profile.enabled": False,
        }
        with _quiet_workers(), dask.config.set(settings):
            try:
                cluster = local_cluster(workers)
            except Exception as exc:  # a worker killed while it started, a port taken
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise RunStopped(f"the local Dask cluster did not start ({reason})") from None
        client = Client(cluster)
    watch = _DaskWatch(client, f"at {scheduler}" if scheduler else "of the local cluster")
    mark = RunMark()
    # the runner hands a remote cluster's workers no folder, as they may not see this disk:
    # here they get it too, and each finds out whether it sees this run's mark there
    remote = os.path.abspath(summary.folder) if scheduler else None
    try:
        bundler = Bundler(todo, summary.games_total - summary.games_skipped)
        bundles: dict[str, list[Batch]] = {}
        futures = as_completed()

        def submit() -> bool:
            bundle = bundler.next()
            if not bundle:
                return False
            folder = bundle[0].folder  # one for the whole bundle (Bundler)
            if folder is None and remote is not None and mark.placeable(remote):
                folder = remote
                bundle = [replace(batch, folder=remote) for batch in bundle]
            name = mark.place(folder) if folder is not None else None
            try:
                future = client.submit(land_bundle, bundle, name, pure=False)
            except Exception as exc:  # a client that lost its scheduler
                raise watch.lost(exc) from None
            bundles[future.key] = bundle
            futures.add(future)
            return True

        def fill() -> None:
            bundler.threads = max(workers, watch.threads)
            while len(bundles) < 2 * bundler.threads and submit():
                pass

        fill()
        while not futures.is_empty():
            if stop:
                return
            ready = futures.next_batch(block=False)
            if not ready:
                watch.check()
                time.sleep(DASK_POLL_SECONDS)
                continue
            for future in sorted(ready, key=lambda f: bundles[f.key][0].id):
                bundle = bundles.pop(future.key)
                try:
                    landed = _dask_result(future, stop, watch)
                except ResultsError:
                    raise
                except KilledWorker:
                    # Dask blames every task queued on a dying worker: replay its batches
                    # alone in local processes, so the verdict is the local runner's
                    landed = _alone(bundle, stop)
                except CancelledError as exc:  # only a lost scheduler cancels our futures
                    raise watch.lost(exc) from None
                except Exception as exc:
                    if getattr(future, "status", "error") != "error":
                        raise watch.lost(exc) from None  # the client's failure, not the batch's
                    landed = _alone(bundle, stop)  # escaped its guards
                if landed is None:
                    return
                results, seconds = landed
                bundler.took(sum(b.games for b in bundle), seconds)
                for result in results:
                    if finished(result):
                        summary.stopped_on_failure = True
                        return
                fill()
    finally:
        _close_dask(client, cluster)
        mark.remove()


DASK_POLL_SECONDS = 0.02  # how often the client looks for finished tasks
DASK_TASK_SECONDS = 0.25  # a task plays this long at least: Dask's ~1-2 ms a task is <1%
DASK_BUNDLE_BATCHES = 64  # and holds at most this many batches
# Each task also costs the client process (its event loop: client, and a local cluster's
# scheduler and nannies) about 14 ms of CPU, measured on 2 workers (docs/scaling.md): at
# 16 workers and 0.25 s tasks that is 0.9 of a core, under the GIL the compaction threads
# need too. So tasks lengthen with the cluster, to keep that under a quarter of a core.
DASK_CLIENT_TASK_SECONDS = 0.014
DASK_CLIENT_SHARE = 0.25
DASK_TAIL_ROUNDS = 2  # the last tasks shrink: the plan's end is spread over this many rounds


class Bundler:
    """The plan's batches, several to a Dask task: enough games for ``task_seconds()`` at
    the rate of the tasks played so far (one batch a task until a rate is known), and never
    more than the games left over ``DASK_TAIL_ROUNDS`` tasks per thread, so the last tasks
    end together. A bundle changes no batch: ids, seeds, files and bytes are those of the
    batches played one by one, so the results do not depend on the bundling."""

    def __init__(self, todo: Iterable[Batch], games_left: int | None = None) -> None:
        self.queue = iter(todo)
        self.ahead: Batch | None = None
        self.per_game: float | None = None  # seconds a game, smoothed over the tasks
        self.games_left = games_left  # in the plan, not yet bundled (None: not known)
        self.threads = 1  # tasks the cluster plays at once (run_dask keeps it current)

    def task_seconds(self) -> float:
        """How long a task should play: long enough that the client's cost per task stays
        under ``DASK_CLIENT_SHARE`` of a core at this many threads."""
        return max(DASK_TASK_SECONDS, self.threads * DASK_CLIENT_TASK_SECONDS / DASK_CLIENT_SHARE)

    def took(self, games: int, seconds: float) -> None:
        """A task of ``games`` games played in ``seconds`` on its worker."""
        if games <= 0 or seconds <= 0:
            return
        rate = seconds / games
        self.per_game = rate if self.per_game is None else (self.per_game + rate) / 2

    def next(self) -> list[Batch]:
        """The next bundle, in plan order; empty when the plan is done."""
        wanted = 1 if self.per_game is None else self.task_seconds() / self.per_game
        if self.games_left is not None:
            wanted = min(wanted, self.games_left / (DASK_TAIL_ROUNDS * max(1, self.threads)))
        bundle: list[Batch] = []
        games = 0
        while len(bundle) < DASK_BUNDLE_BATCHES and (not bundle or games < wanted):
            batch = self.ahead or next(self.queue, None)
            self.ahead = None
            if batch is None:
                break
            if bundle and batch.folder != bundle[0].folder:
                self.ahead = batch  # a bundle writes to one place
                break
            bundle.append(batch)
            games += batch.games
        if self.games_left is not None:
            self.games_left -= games
        return bundle


def land_bundle(batches: list[Batch], mark: str | None) -> tuple[list[BatchSummary], float]:
    """Play and land a bundle's batches (in a Dask worker), and say how long that took.

    A worker writes a batch's parts itself only where it sees the run's mark (a file the
    client placed in the results folder, named for this run): the same path on another
    machine may be another folder, or none. Elsewhere, and once a write has failed here (a
    mount this worker may not write, as with NFS's root squash), it sends the parts back as
    bytes: the client writes them, and stops the run if it cannot either. The mark is looked
    for before each batch is written, so once the client has ended the run and removed it, a
    worker still playing writes nothing more there.
    """
    start = time.perf_counter()
    results = []
    writes = True
    for batch in batches:
        result = run_batch(batch)
        if batch.folder is not None and writes and sees_mark(batch.folder, mark):
            try:
                results.append(land(batch, result))
                continue
            except ResultsWriteError:  # nothing half written: files land whole or not at all
                writes = False
        results.append(land(replace(batch, folder=None), result))
    return results, time.perf_counter() - start


def sees_mark(folder: str, mark: str | None) -> bool:
    """Whether this process sees the run's mark in ``folder`` (so it is THE results
    folder, shared with the client)."""
    if mark is None:
        return False
    try:
        return os.path.isfile(os.path.join(folder, mark))
    except (OSError, ValueError):
        return False


class RunMark:
    """The run's mark in its results folder: an empty hidden file with a random name, placed
    once the folder exists (its manifest written) and removed when the run ends; a mark left
    by a killed client is removed by the next run that places one."""

    def __init__(self) -> None:
        self.name = f"{RUN_MARK_PREFIX}{secrets.token_hex(16)}"
        self.path: Path | None = None

    def placeable(self, folder: str) -> bool:
        """Whether the mark is, or may now be, in ``folder``: once the client has written the
        manifest there, so that workers never write into a folder before it is one."""
        return self.path is not None or os.path.isfile(os.path.join(folder, MANIFEST))

    def place(self, folder: str) -> str | None:
        """The mark's name, placed in ``folder`` if it is not yet; None if it cannot be (the
        workers then send every part back)."""
        if self.path is None:
            path = Path(folder) / self.name
            try:
                for old in Path(folder).glob(f"{RUN_MARK_PREFIX}*"):
                    old.unlink(missing_ok=True)
                path.touch()
            except OSError:
                return None
            self.path = path
        return self.name

    def remove(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)
            self.path = None


def _alone(bundle: list[Batch], stop: StopFlag) -> tuple[list[BatchSummary], float] | None:
    """A bundle's batches replayed one by one, alone in local processes; None when stopped.
    No time is reported: a replay says nothing of the cluster's rate."""
    results = []
    for batch in bundle:
        result = run_alone(batch, stop, clean_context())
        if result is None:
            return None
        results.append(result)
    return results, 0.0


class _DaskWatch:
    """Notices a lost scheduler and a cluster left without workers, where Dask itself would
    only wait: the run stops with ``RunStopped``, its batches in flight unwritten."""

    def __init__(self, client: Any, where: str) -> None:
        self.client = client
        self.where = where
        self.seen = time.monotonic()  # when the scheduler last had a worker
        self.due = 0.0
        self.threads = 0  # the cluster's threads when last asked: tasks it can play at once

    def lost(self, exc: BaseException) -> RunStopped:
        reason = getattr(exc, "reason", None) or " ".join(str(exc).split()) or type(exc).__name__
        return RunStopped(
            f"lost the Dask scheduler {self.where} ({reason}); the batches in flight were not "
            "written"
        )

    def check(self) -> None:
        if self.client.status not in ("running", "newly-created"):
            raise self.lost(ConnectionError(f"client {self.client.status}"))
        now = time.monotonic()
        if now < self.due:
            return
        self.due = now + DASK_CHECK_SECONDS
        try:
            info = self.client.scheduler_info(n_workers=0)
        except TypeError:  # a Dask before n_workers
            info = self.client.scheduler_info()
        except Exception:  # unanswered: the connection check above will tell
            return
        count = info.get("n_workers", len(info.get("workers", {})))
        self.threads = int(info.get("total_threads", count) or 0)
        if count:
            self.seen = now
        elif now - self.seen >= DASK_NO_WORKERS_SECONDS:
            raise RunStopped(
                f"the Dask scheduler {self.where} has had no workers for "
                f"{DASK_NO_WORKERS_SECONDS:g} s; the batches in flight were not written"
            )


def _dask_result(
    future: Any, stop: StopFlag, watch: _DaskWatch
) -> tuple[list[BatchSummary], float] | None:
    """A finished future's result, or None when stopped: a result lost with its worker is
    recomputed, and a Ctrl-C must not wait for that, nor a lost or empty cluster.

    The result is fetched on the client's event loop and waited for here in short steps:
    ``future.result(timeout=...)`` cancels its fetch at each timeout, and on Python 3.11 a
    cancellation that meets the fetch's end can leave Dask's ``sync`` with neither result
    nor error (an UnboundLocalError, seen on a loaded machine).
    """
    client = future.client
    fetch = asyncio.run_coroutine_threadsafe(_gather(client, future), client.loop.asyncio_loop)
    try:
        while not stop:
            try:
                landed: tuple[list[BatchSummary], float] = fetch.result(timeout=POLL_SECONDS)
                return landed
            except FetchTimeout:
                if fetch.done():  # the fetch's own error, not our wait's
                    raise
                watch.check()
        return None
    finally:
        fetch.cancel()


async def _gather(client: Any, future: Any) -> Any:
    return await client.gather(future, asynchronous=True)


def dask_setup(worker: object) -> None:
    """Dask preload hook: a local cluster's workers leave Ctrl-C to the main process (a
    terminal sends it to the whole process group), as the local pool's workers do."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_cluster(workers: int) -> Any:
    """A local Dask cluster of ``workers`` processes of one thread each."""
    from dask.distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        # TLS with temporary credentials, each end's certificate checked: its scheduler
        # listens on this machine, where any user could connect to a plain one and run code
        # in the workers, as this user (hostile pass 24r's dask24.py read the seal key so
        # and sealed a forgery)
        security=True,
        dashboard_address=None,
        # no dashboard, and its HTTP server on a free port of this machine's loopback only:
        # no warning about 8787
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        preload=[__name__],  # runs dask_setup below in each worker
    )


def _connect(client_class: Any, scheduler: str) -> Any:
    """A client of a running scheduler, or one line saying it cannot be reached."""
    try:
        return client_class(scheduler, timeout=DASK_CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as exc:
        raise StudyError(
            f"--scheduler {scheduler}: cannot reach the Dask scheduler "
            f"({' '.join(str(exc).split()) or type(exc).__name__})"
        ) from None


def check_scheduler(scheduler: str) -> None:
    """Fail fast (before a results folder exists) when a tcp scheduler does not answer."""
    address = scheduler.removeprefix("tcp://")
    if "://" in address:
        return  # tls, ucx, inproc: left to the client's own connect timeout
    host, _, port = address.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        raise StudyError(f"--scheduler {scheduler}: expected an address like tcp://host:8786")
    try:
        socket.create_connection((host.strip("[]"), int(port)), DASK_CONNECT_SECONDS).close()
    except (OSError, ValueError) as exc:
        raise StudyError(
            f"--scheduler {scheduler}: cannot reach the Dask scheduler "
            f"({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})"
        ) from None


def _quiet_dask() -> None:
    """Dask logs every worker's and nanny's shutdown (on Ctrl-C that was 77 lines), and a
    lost scheduler as tracebacks: the run says what happened in one line of its own."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in {"distributed", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def _quiet_workers() -> Iterator[None]:
    """The same for a local cluster's processes, which start while this is in force (the
    environment is theirs to read at import, and left as it was for the caller's). Critical
    only: on Ctrl-C a worker whose heartbeat finds the scheduler gone logs it as an error,
    with a traceback, and the run already says in one line what happened."""
    key, old = "DASK_LOGGING__DISTRIBUTED", os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ[key] = old or "critical"
    try:
        yield
    finally:
        if old is None:
            del os.environ[key]


def _close_dask(client: Any, cluster: Any) -> None:
    """Close the client and a local cluster quietly, and within a bounded time."""
    with contextlib.suppress(Exception):
        client.close(timeout=5)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)
