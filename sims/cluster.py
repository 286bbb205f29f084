"""The Dask backend: the same batches on a Dask distributed cluster (a local one when no
scheduler address is given).

A Dask worker lost (``KilledWorker``) or a batch that escapes its games' guards costs no
game: the batch is replayed alone in local processes (sims/pool.py), so the verdict is the
local runner's. A lost scheduler, or a cluster with no workers for
``DASK_NO_WORKERS_SECONDS``, stops the run with ``RunStopped``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .batch import Batch, BatchSummary, land_batch
from .errors import ResultsError, RunStopped, StudyError
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
    """The same batches on a Dask distributed cluster (a local one when no address)."""
    from dask.distributed import Client, LocalCluster, as_completed
    from distributed import KilledWorker

    _quiet_dask()
    cluster = None
    if scheduler:
        client = _connect(Client, scheduler)
    else:
        import dask

        # a batch whose worker dies is replayed locally at once (see KilledWorker below):
        # retrying it on Dask would only kill more workers
        with _quiet_workers(), dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # no dashboard, and its HTTP server on a free port: no warning about 8787
                scheduler_kwargs={"dashboard_address": ":0"},
                preload=[__name__],  # runs dask_setup below in each worker
            )
        client = Client(cluster)
    watch = _DaskWatch(client, f"at {scheduler}" if scheduler else "of the local cluster")
    try:
        queue = iter(todo)
        batches = {}
        futures = as_completed()

        def submit(batch: Batch) -> None:
            try:
                future = client.submit(land_batch, batch, pure=False)
            except Exception as exc:  # a client that lost its scheduler
                raise watch.lost(exc) from None
            batches[future.key] = batch
            futures.add(future)

        for batch in itertools.islice(queue, 2 * workers):
            submit(batch)
        while not futures.is_empty():
            if stop:
                return
            ready = futures.next_batch(block=False)
            if not ready:
                watch.check()
                time.sleep(POLL_SECONDS)
                continue
            for future in sorted(ready, key=lambda f: batches[f.key].id):
                batch = batches.pop(future.key)
                try:
                    result = _dask_result(future, stop, watch)
                except ResultsError:
                    raise
                except KilledWorker:
                    # Dask blames every batch queued on a dying worker: replay this one alone
                    # in a local process, so the verdict is the local runner's
                    result = run_alone(batch, stop, clean_context())
                except CancelledError as exc:  # only a lost scheduler cancels our futures
                    raise watch.lost(exc) from None
                except Exception as exc:
                    if getattr(future, "status", "error") != "error":
                        raise watch.lost(exc) from None  # the client's failure, not the batch's
                    result = run_alone(batch, stop, clean_context())  # escaped its guards
                if result is None:
                    return
                if finished(result):
                    summary.stopped_on_failure = True
                    return
                nxt = next(queue, None)
                if nxt is not None:
                    submit(nxt)
    finally:
        _close_dask(client, cluster)


class _DaskWatch:
    """Notices a lost scheduler and a cluster left without workers, where Dask itself would
    only wait: the run stops with ``RunStopped``, its batches in flight unwritten."""

    def __init__(self, client: Any, where: str) -> None:
        self.client = client
        self.where = where
        self.seen = time.monotonic()  # when the scheduler last had a worker
        self.due = 0.0

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
        if count:
            self.seen = now
        elif now - self.seen >= DASK_NO_WORKERS_SECONDS:
            raise RunStopped(
                f"the Dask scheduler {self.where} has had no workers for "
                f"{DASK_NO_WORKERS_SECONDS:g} s; the batches in flight were not written"
            )


def _dask_result(future: Any, stop: StopFlag, watch: _DaskWatch) -> BatchSummary | None:
    """A finished future's result, or None when stopped: a result lost with its worker is
    recomputed, and a Ctrl-C must not wait for that, nor a lost or empty cluster."""
    while not stop:
        try:
            return future.result(timeout=POLL_SECONDS)
        except TimeoutError:
            watch.check()
    return None


def dask_setup(worker: object) -> None:
    """Dask preload hook: a local cluster's workers leave Ctrl-C to the main process (a
    terminal sends it to the whole process group), as the local pool's workers do."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    if not host or not port.isdigit():
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
    environment is theirs to read at import, and left as it was for the caller's)."""
    key, old = "DASK_LOGGING__DISTRIBUTED", os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ[key] = old or "error"
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
