"""Honest uses no earlier pass tried (``hp30s.honest:Honest30``): a strategy's data shipped
beside its code, libraries through ctypes, archives, links and renames in its own folder,
profilers, the package metadata of what it imports. Each check reports ``ok`` or
``FAILED`` with the error; ``python -m hp30s.honest`` runs the same checks outside any
sandbox for comparison."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from sims.strategies.planner import Planner

from . import say


def _data_file() -> str:
    import importlib.resources

    return importlib.resources.files("hp30s").joinpath("weights.json").read_text()[:20]


def _ctypes_libm() -> float:
    import ctypes
    import ctypes.util

    libm = ctypes.CDLL("libm.so.6")
    libm.cbrt.restype = ctypes.c_double
    libm.cbrt.argtypes = [ctypes.c_double]
    return libm.cbrt(27.0)


def _metadata() -> str:
    import importlib.metadata

    return importlib.metadata.version("numpy")


def _archives() -> str:
    import os
    import shutil
    import tarfile
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        src = os.path.join(where, "src")
        os.makedirs(src)
        for i in range(5):
            with open(os.path.join(src, f"f{i}.txt"), "w") as f:
                f.write("x" * 1000)
        os.symlink("f0.txt", os.path.join(src, "link"))
        os.link(os.path.join(src, "f1.txt"), os.path.join(src, "hard"))
        os.rename(os.path.join(src, "f2.txt"), os.path.join(src, "f2b.txt"))
        archive = shutil.make_archive(os.path.join(where, "a"), "gztar", src)
        out = os.path.join(where, "out")
        with tarfile.open(archive) as tar:
            tar.extractall(out)
        zipped = shutil.make_archive(os.path.join(where, "z"), "zip", src)
        shutil.unpack_archive(zipped, os.path.join(where, "out2"))
        return f"{sorted(os.listdir(out))} {len(os.listdir(os.path.join(where, 'out2')))}"


def _logging_rotate() -> str:
    import logging
    import logging.handlers
    import os
    import tempfile

    where = tempfile.mkdtemp()
    log = logging.getLogger("hp30s.rotate")
    log.propagate = False
    handler = logging.handlers.RotatingFileHandler(
        os.path.join(where, "log"), maxBytes=2000, backupCount=3
    )
    log.addHandler(handler)
    for i in range(200):
        log.warning("line %d of the log", i)
    handler.close()
    log.removeHandler(handler)
    return str(sorted(os.listdir(where)))


def _profilers() -> str:
    import cProfile
    import pstats
    import timeit
    import tracemalloc

    tracemalloc.start()
    data = [list(range(100)) for _ in range(100)]
    snap = tracemalloc.take_snapshot()
    tracemalloc.stop()
    prof = cProfile.Profile()
    prof.enable()
    sum(sum(row) for row in data)
    prof.disable()
    stats = pstats.Stats(prof)
    took = timeit.timeit("sum(range(100))", number=1000)
    return f"{len(snap.statistics('lineno')) > 0} {stats.total_calls} {took > 0}"


def _inspect() -> str:
    import inspect

    return str(len(inspect.getsource(Honest30)))


def _numpy_files() -> str:
    import os
    import tempfile

    import numpy as np

    where = tempfile.mkdtemp()
    a = np.random.default_rng(1).random((300, 300))
    np.save(os.path.join(where, "a.npy"), a)
    np.savez_compressed(os.path.join(where, "b.npz"), a=a)
    b = np.load(os.path.join(where, "a.npy"))
    c = np.load(os.path.join(where, "b.npz"))["a"]
    s = np.linalg.svd(b)[1]
    f = np.fft.rfft(c[0])
    return f"{bool((b == c).all())} {s[0]:.1f} {len(f)}"


def _timers_and_queues() -> str:
    import concurrent.futures
    import queue
    import sched
    import selectors
    import threading

    fired = threading.Event()
    timer = threading.Timer(0.01, fired.set)
    timer.start()
    ok = fired.wait(2)
    s = sched.scheduler(time.monotonic, time.sleep)
    got = []
    s.enter(0.005, 1, got.append, (1,))
    s.run()
    sel = selectors.DefaultSelector()
    sel.close()
    q: queue.PriorityQueue = queue.PriorityQueue()
    for i in (3, 1, 2):
        q.put(i)
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        futures = [pool.submit(sum, range(10**5)) for _ in range(32)]
        done, _ = concurrent.futures.wait(futures, timeout=5)
    return f"{ok} {got} {q.get()} {len(done)}"


def _files() -> str:
    import os
    import tempfile

    fd, path = tempfile.mkstemp()
    os.posix_fallocate(fd, 0, 1 << 20)
    os.write(fd, b"x" * 4096)
    os.fsync(fd)
    os.fdatasync(fd)
    other = tempfile.mkstemp()[0]
    os.lseek(fd, 0, 0)
    os.copy_file_range(fd, other, 4096)
    os.sendfile(other, fd, 0, 4096)
    os.truncate(path, 100)
    os.close(fd)
    os.close(other)
    return str(os.path.getsize(path))


def _system() -> str:
    import os
    import platform
    import socket
    import sysconfig

    return (
        f"{socket.gethostname()} {os.nice(0)} {os.times()[0] >= 0} "
        f"{len(sysconfig.get_paths())} {platform.libc_ver()} {os.confstr('CS_GNU_LIBC_VERSION')}"
    )


def _fqdn() -> str:
    import socket

    start = time.perf_counter()
    name = socket.getfqdn()
    return f"{name} in {time.perf_counter() - start:.3f} s"


def _tracing() -> str:
    calls = []

    def tracer(frame, event, arg):
        calls.append(event)

    sys.setprofile(tracer)
    sum(range(10))
    sys.setprofile(None)
    return str(len(calls) > 0)


CHECKS: dict[str, Callable[[], object]] = {
    "data_file": _data_file,
    "ctypes_libm": _ctypes_libm,
    "metadata_numpy": _metadata,
    "archives_links": _archives,
    "logging_rotate": _logging_rotate,
    "profilers": _profilers,
    "inspect_source": _inspect,
    "numpy_files_svd_fft": _numpy_files,
    "timers_queues_pool": _timers_and_queues,
    "files_fallocate_fsync_copy": _files,
    "system_names": _system,
    "getfqdn": _fqdn,
    "setprofile": _tracing,
}


def run_checks(name: str) -> None:
    for label, check in CHECKS.items():
        try:
            result = check()
        except BaseException as exc:  # an honest strategy would not catch these
            say(name, f"{label}: FAILED {exc.__class__.__name__}: {str(exc)[:120]}")
        else:
            say(name, f"{label}: ok {str(result)[:120]}")


class Honest30(Planner):
    """Honest: the checks above at its first decision, then the planner."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            run_checks("Honest30")
        return super().decide(view)


if __name__ == "__main__":
    run_checks("Honest30-outside")
