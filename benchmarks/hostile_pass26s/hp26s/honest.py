"""Honest uses of the standard library and numpy not tried by earlier passes (mostly time
budgets, profiling and file calls): each should work in the sandbox as in the default mode
(``hp26s.honest:Honest26``)."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from . import Once, say


class _Budget(Exception):
    pass


def _itimer_budget() -> object:
    """A search cut by ITIMER_REAL's signal: a common time budget."""

    def stop(signum, frame):
        raise _Budget

    old = signal.signal(signal.SIGALRM, stop)
    n = 0
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        while True:
            n += 1
    except _Budget:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return n > 0


def _alarm_budget() -> object:
    def stop(signum, frame):
        raise _Budget

    old = signal.signal(signal.SIGALRM, stop)
    try:
        signal.alarm(1)
        time.sleep(3)
        return "slept through"
    except _Budget:
        return "cut"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _virtual_timer() -> object:
    hits = []
    old = signal.signal(signal.SIGVTALRM, lambda s, f: hits.append(1))
    signal.setitimer(signal.ITIMER_VIRTUAL, 0.01, 0.01)
    t = time.thread_time()
    while time.thread_time() - t < 0.1:
        pass
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    signal.signal(signal.SIGVTALRM, old)
    return len(hits) > 0


def _prof_timer() -> object:
    hits = []
    old = signal.signal(signal.SIGPROF, lambda s, f: hits.append(1))
    signal.setitimer(signal.ITIMER_PROF, 0.01, 0.01)
    t = time.process_time()
    while time.process_time() - t < 0.1:
        pass
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, old)
    return len(hits) > 0


def _interrupt_main() -> object:
    import _thread

    threading.Timer(0.05, _thread.interrupt_main).start()
    try:
        time.sleep(2)
        return "not interrupted"
    except KeyboardInterrupt:
        return "interrupted"


def _async_exc() -> object:
    import ctypes

    out = []

    def work():
        try:
            while True:
                time.sleep(0.001)
        except _Budget:
            out.append("stopped")

    t = threading.Thread(target=work)
    t.start()
    time.sleep(0.02)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(t.ident), ctypes.py_object(_Budget))
    t.join(2)
    return out


def _cprofile() -> object:
    import cProfile
    import io
    import pstats

    p = cProfile.Profile()
    p.runcall(sorted, range(10000), key=lambda x: -x)
    s = io.StringIO()
    pstats.Stats(p, stream=s).sort_stats("cumulative").print_stats(3)
    return len(s.getvalue()) > 0


def _tracemalloc() -> object:
    import tracemalloc

    tracemalloc.start()
    x = [bytes(1000) for _ in range(100)]
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del x
    return peak > 100_000


def _settrace() -> object:
    seen = []
    sys.settrace(lambda f, e, a: seen.append(e) or None)
    (lambda: 1)()
    sys.settrace(None)
    return len(seen) > 0


def _affinity_nice() -> object:
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    os.sched_setaffinity(0, cpus)
    return (len(cpus), os.cpu_count(), os.nice(0))


def _nice_up() -> object:
    return os.nice(1)


def _rusage_thread() -> object:
    import resource

    return resource.getrusage(resource.RUSAGE_THREAD).ru_utime >= 0


def _private_mmaps() -> object:
    import mmap

    a = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    a[:3] = b"abc"
    d = tempfile.mkdtemp()
    p = os.path.join(d, "f")
    with open(p, "wb") as f:
        f.write(b"x" * 8192)
    with open(p, "r+b") as f:
        b = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        b[:1] = b"y"
    return (bytes(a[:3]), bytes(b[:2]))


def _read_mmap() -> object:
    import mmap

    d = tempfile.mkdtemp()
    p = os.path.join(d, "f")
    with open(p, "wb") as f:
        f.write(b"x" * 8192)
    with open(p, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # MAP_SHARED, read-only
        return bytes(m[:2])


def _file_calls() -> object:
    d = tempfile.mkdtemp()
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    with open(a, "wb") as f:
        f.write(os.urandom(100_000))
    out = []
    with open(a, "rb") as src, open(b, "wb") as dst:
        out.append(os.sendfile(dst.fileno(), src.fileno(), 0, 50_000))
    with open(a, "rb") as src, open(b, "r+b") as dst:
        out.append(os.copy_file_range(src.fileno(), dst.fileno(), 50_000, 50_000))
    fd = os.open(os.path.join(d, "c"), os.O_RDWR | os.O_CREAT)
    os.posix_fallocate(fd, 0, 1 << 20)
    os.truncate(os.path.join(d, "c"), 10)
    os.close(fd)
    os.link(a, os.path.join(d, "hard"))
    os.symlink(a, os.path.join(d, "soft"))
    out.append(os.path.getsize(os.path.join(d, "soft")))
    return out


def _spooled() -> object:
    with tempfile.SpooledTemporaryFile(max_size=1000) as f:
        f.write(b"x" * 5000)
        f.seek(0)
        return len(f.read())


def _gzip_csv() -> object:
    import csv
    import gzip

    d = tempfile.mkdtemp()
    p = os.path.join(d, "t.csv.gz")
    with gzip.open(p, "wt", newline="") as f:
        csv.writer(f).writerows([[1, 2], [3, 4]])
    with gzip.open(p, "rt") as f:
        return list(csv.reader(f))


def _numpy_linalg() -> object:
    import numpy as np

    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 300))
    w = np.linalg.eigvalsh(a + a.T)
    _u, s, _vt = np.linalg.svd(a)
    f = np.fft.rfft(rng.standard_normal(1 << 16))
    return (len(w), round(float(s[0]), 3) > 0, len(f))


def _numpy_big() -> object:
    import numpy as np

    a = np.ones(400 << 20, dtype=np.uint8)  # 400 MiB of the 1 GiB address space
    return int(a[-1])


def _many_threads() -> object:
    ev = threading.Event()
    ts = [threading.Thread(target=ev.wait) for _ in range(48)]
    for t in ts:
        t.start()
    ev.set()
    for t in ts:
        t.join()
    return len(ts)


def _pool_map() -> object:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor() as pool:
        return sum(pool.map(lambda x: x * x, range(1000)))


def _select_sleep() -> object:
    import select

    t = time.monotonic()
    select.select([], [], [], 0.02)
    p = select.poll()
    p.poll(20)
    e = select.epoll()
    e.poll(0.02)
    e.close()
    return round(time.monotonic() - t, 2)


def _sigwait_pending() -> object:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    pend = signal.sigpending()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    return sorted(pend)


def _raise_signal() -> object:
    got = []
    old = signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
    signal.raise_signal(signal.SIGUSR1)
    signal.signal(signal.SIGUSR1, old)
    return got


def _ctypes_libm() -> object:
    import ctypes

    m = ctypes.CDLL("libm.so.6")
    m.cos.restype = ctypes.c_double
    m.cos.argtypes = [ctypes.c_double]
    return m.cos(0.0)


def _timeit_dis() -> object:
    import ast
    import dis
    import io
    import timeit

    s = io.StringIO()
    dis.dis(ast.parse, file=s)
    return (timeit.timeit("1+1", number=1000) >= 0, len(s.getvalue()) > 0)


def _decimal_random() -> object:
    import decimal
    import random

    decimal.getcontext().prec = 500
    r = random.SystemRandom().random()
    return (
        str(decimal.Decimal(1) / decimal.Decimal(7))[:5],
        0 <= r < 1,
        random.Random().getrandbits(100_000) >= 0,
    )


def _walk_own() -> object:
    import importlib.resources

    here = os.path.dirname(__file__)
    n = sum(len(f) for _, _, f in os.walk(here))
    text = importlib.resources.files(__package__).joinpath("honest.py").read_text()
    return (n > 0, len(text) > 0)


def _statvfs_du() -> object:
    import shutil

    return (os.statvfs("/tmp").f_bsize, shutil.disk_usage("/tmp").total)


def _thread_stack_default() -> object:
    threading.stack_size(64 << 20)
    out = []
    t = threading.Thread(target=lambda: out.append(1))
    t.start()
    t.join()
    threading.stack_size(0)
    return out


CHECKS: dict[str, Callable[[], object]] = {
    name[1:]: f
    for name, f in list(globals().items())
    if name.startswith("_") and callable(f) and f.__module__ == __name__ and name != "_Budget"
}


class Honest26(Once):
    """Runs every check once (first decision of each game) and reports each as ok or
    FAILED with the exception's type."""

    def probe(self) -> None:
        for name, check in CHECKS.items():
            t = time.monotonic()
            try:
                result = check()
                say("Honest26", f"{name}: ok ({result!r:.80}) {time.monotonic() - t:.2f} s")
            except BaseException as e:
                say("Honest26", f"{name}: FAILED {type(e).__name__} {str(e)[:80]}")
