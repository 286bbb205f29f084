# ruff: noqa: RUF059  (attack code: long probe lines)
"""Honest uses of the standard library and numpy not tried by passes 19, 21 and 23s."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable


def steps() -> list[tuple[str, Callable[[], object]]]:
    def cpu_count() -> object:
        import multiprocessing

        return (os.cpu_count(), len(os.sched_getaffinity(0)), multiprocessing.cpu_count())

    def pwd_entry() -> object:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name

    def grp_entry() -> object:
        import grp

        return grp.getgrgid(os.getgid()).gr_name

    def mmap_read_own() -> object:
        import mmap

        path = os.path.join(tempfile.mkdtemp(), "m.bin")
        with open(path, "wb") as f:
            f.write(b"x" * 4096)
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m[:1]

    def mmap_copy_own() -> object:
        import mmap

        path = os.path.join(tempfile.mkdtemp(), "m.bin")
        with open(path, "wb") as f:
            f.write(b"x" * 4096)
        with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as m:
            m[0] = 0x79
            return m[:1]

    def sqlite_file() -> object:
        import sqlite3

        con = sqlite3.connect(os.path.join(tempfile.mkdtemp(), "d.db"))
        con.execute("create table t(x)")
        con.execute("insert into t values (1)")
        con.commit()
        return con.execute("select count(*) from t").fetchone()

    def shelve_db() -> object:
        import shelve

        with shelve.open(os.path.join(tempfile.mkdtemp(), "s")) as db:
            db["k"] = [1, 2]
            return db["k"]

    def named_temp() -> object:
        with tempfile.NamedTemporaryFile("w+", suffix=".json") as f:
            f.write("{}")
            f.flush()
            return os.path.getsize(f.name)

    def temp_dir_cleanup() -> object:
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "a", "b"))
            open(os.path.join(d, "a", "b", "c"), "w").close()
        return os.path.exists(d)

    def links() -> object:
        d = tempfile.mkdtemp()
        open(os.path.join(d, "a"), "w").close()
        os.link(os.path.join(d, "a"), os.path.join(d, "b"))
        os.symlink("a", os.path.join(d, "c"))
        os.replace(os.path.join(d, "b"), os.path.join(d, "e"))
        return sorted(os.listdir(d))

    def fallocate_truncate() -> object:
        path = os.path.join(tempfile.mkdtemp(), "f")
        with open(path, "wb") as f:
            os.posix_fallocate(f.fileno(), 0, 1 << 20)
            os.truncate(f.fileno(), 1000)
        return os.path.getsize(path)

    def copyfile_sendfile() -> object:
        import shutil

        d = tempfile.mkdtemp()
        with open(os.path.join(d, "a"), "wb") as f:
            f.write(os.urandom(1 << 20))
        shutil.copyfile(os.path.join(d, "a"), os.path.join(d, "b"))
        return os.path.getsize(os.path.join(d, "b"))

    def copy_file_range() -> object:
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "a"), "wb") as f:
            f.write(b"y" * 65536)
        with open(os.path.join(d, "a"), "rb") as a, open(os.path.join(d, "b"), "wb") as b:
            return os.copy_file_range(a.fileno(), b.fileno(), 65536)

    def secrets_random() -> object:
        import random
        import secrets

        return (len(secrets.token_hex(16)), random.SystemRandom().random() < 1)

    def event_wait() -> object:
        import threading

        e = threading.Event()
        threading.Timer(0.01, e.set).start()
        return e.wait(2)

    def queue_threads() -> object:
        import queue
        import threading

        q: queue.Queue[int] = queue.Queue()
        ts = [threading.Thread(target=lambda i=i: q.put(i * i)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return sum(q.get(timeout=1) for _ in range(8))

    def condition_timeout() -> object:
        import threading

        c = threading.Condition()
        with c:
            return c.wait(0.01)

    def semaphore_timeout() -> object:
        import threading

        s = threading.Semaphore(0)
        return s.acquire(timeout=0.01)

    def barrier() -> object:
        import threading

        b = threading.Barrier(3)
        ts = [threading.Thread(target=b.wait) for _ in range(2)]
        for t in ts:
            t.start()
        b.wait(timeout=2)
        for t in ts:
            t.join()
        return "passed"

    def process_pool() -> object:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(1) as ex:
            return ex.submit(abs, -1).result(timeout=5)

    def subprocess_run() -> object:
        import subprocess

        return subprocess.run(["true"], check=False).returncode

    def ctypes_find() -> object:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("m")
        return (name, ctypes.CDLL(name or "libm.so.6").sqrt is not None)

    def gzip_csv() -> object:
        import csv
        import gzip

        path = os.path.join(tempfile.mkdtemp(), "t.csv.gz")
        with gzip.open(path, "wt", newline="") as f:
            csv.writer(f).writerows([[1, 2], [3, 4]])
        with gzip.open(path, "rt") as f:
            return list(csv.reader(f))

    def pickle_file() -> object:
        import pickle

        path = os.path.join(tempfile.mkdtemp(), "p.pkl")
        with open(path, "wb") as f:
            pickle.dump({"a": [1, 2]}, f)
        with open(path, "rb") as f:
            return pickle.load(f)

    def numpy_save_npz() -> object:
        import numpy as np

        path = os.path.join(tempfile.mkdtemp(), "a.npz")
        np.savez_compressed(path, a=np.arange(1000))
        return int(np.load(path)["a"].sum())

    def numpy_linalg() -> object:
        import numpy as np

        rng = np.random.default_rng(1)
        a = rng.random((300, 300))
        return round(float(np.linalg.det(a @ a.T + np.eye(300)) > 0), 1), float(
            np.fft.fft(a[0]).real[0]
        ) > 0

    def numpy_threads() -> object:
        from concurrent.futures import ThreadPoolExecutor

        import numpy as np

        with ThreadPoolExecutor(4) as ex:
            return sum(
                ex.map(lambda n: float(np.ones((n, n)).dot(np.ones(n)).sum()), [50, 100, 150, 200])
            )

    def tracemalloc_profile() -> object:
        import cProfile
        import tracemalloc

        tracemalloc.start()
        cProfile.runctx("sum(range(1000))", {}, {})
        cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak > 0

    def timeit_sleep() -> object:
        import time
        import timeit

        time.sleep(0.001)
        return timeit.timeit("1+1", number=1000) > 0

    def rusage_times() -> object:
        import resource
        import time

        return (
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0,
            time.process_time() >= 0,
            time.thread_time() >= 0,
        )

    def nice_affinity() -> object:
        os.nice(1)
        os.sched_setaffinity(0, os.sched_getaffinity(0))
        os.sched_yield()
        return os.getpriority(os.PRIO_PROCESS, 0)

    def platform_info() -> object:
        import platform

        return (
            platform.system(),
            platform.machine(),
            platform.python_version(),
            platform.libc_ver()[0],
        )

    def sysconfig_paths() -> object:
        import sysconfig

        return sorted(sysconfig.get_paths())[:2]

    def statvfs_tmp() -> object:
        return os.statvfs("/tmp").f_bsize

    def datetime_local() -> object:
        import datetime

        return datetime.datetime.now().astimezone().tzname()

    def epoll_selector() -> object:
        import select

        ep = select.epoll()
        ep.close()
        return "ok"

    def getrandom_big() -> object:
        return len(os.urandom(1 << 20))

    def os_walk_scandir() -> object:
        d = tempfile.mkdtemp()
        for i in range(50):
            os.makedirs(os.path.join(d, str(i)))
        return sum(1 for _ in os.walk(d))

    def getlogin() -> object:
        return os.getlogin()

    def ttyname() -> object:
        return os.isatty(1), os.isatty(2)

    def atexit_warn() -> object:
        import atexit
        import warnings

        atexit.register(lambda: None)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            warnings.warn("hp24s", stacklevel=1)
        return len(w)

    def signal_timer() -> object:
        import signal

        fired = []
        old = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        import time

        time.sleep(0.05)
        signal.signal(signal.SIGALRM, old)
        return fired

    def sigint_handler() -> object:
        import signal

        old = signal.signal(signal.SIGTERM, lambda *_: None)
        signal.signal(signal.SIGTERM, old)
        return "set"

    def large_array() -> object:
        import numpy as np

        a = np.zeros((700, 1 << 17), dtype=np.uint8)  # 87.5 MiB
        a[::7, ::4096] = 1
        return int(a.sum())

    def shm_tempfile() -> object:
        fd, path = tempfile.mkstemp(dir="/dev/shm")
        os.write(fd, b"z" * 1000)
        os.close(fd)
        os.unlink(path)
        return "ok"

    def heavy_import() -> object:
        import decimal
        import fractions
        import statistics

        return (
            statistics.mean([1, 2, 3]),
            fractions.Fraction(1, 3) * 3,
            decimal.Decimal("0.1") * 3,
        )

    return [(name.__name__, name) for name in (
        cpu_count, pwd_entry, grp_entry, getlogin, ttyname, mmap_read_own, mmap_copy_own,
        sqlite_file, shelve_db, named_temp, temp_dir_cleanup, links, fallocate_truncate,
        copyfile_sendfile, copy_file_range, secrets_random, event_wait, queue_threads,
        condition_timeout, semaphore_timeout, barrier, process_pool, subprocess_run,
        ctypes_find, gzip_csv, pickle_file, numpy_save_npz, numpy_linalg, numpy_threads,
        tracemalloc_profile, timeit_sleep, rusage_times, nice_affinity, platform_info,
        sysconfig_paths, statvfs_tmp, datetime_local, epoll_selector, getrandom_big,
        os_walk_scandir, atexit_warn, signal_timer, sigint_handler, large_array,
        shm_tempfile, heavy_import,
    )]  # fmt: skip
