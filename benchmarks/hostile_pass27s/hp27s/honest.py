"""Honest uses not tried by earlier passes, most across the stop between decisions
(``hp27s.honest:Honest27``): work handed to threads in one decision and collected in the
next, timers, a pool sized by the machine, and some standard modules. Each check reports
``ok`` or ``FAILED``; the same strategy runs in the default mode for comparison."""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time

from sims.strategies.planner import Planner

from . import say


def _checks() -> dict[str, object]:
    import bz2
    import datetime
    import faulthandler
    import gc
    import hashlib
    import json
    import locale
    import lzma
    import os
    import platform
    import resource
    import secrets
    import select
    import signal
    import sqlite3
    import sys
    import tempfile
    import uuid
    import zipfile

    import numpy as np

    def itimer_budget() -> str:
        class Budget(Exception):
            pass

        def ring(*_: object) -> None:
            raise Budget

        old = signal.signal(signal.SIGALRM, ring)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.02)
            try:
                while True:
                    pass
            except Budget:
                return "rang"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def deep() -> int:
        sys.setrecursionlimit(20000)
        out = []

        def walk(n: int) -> int:
            return 0 if n == 0 else 1 + walk(n - 1)

        threading.stack_size(64 << 20)
        t = threading.Thread(target=lambda: out.append(walk(15000)))
        t.start()
        t.join()
        threading.stack_size(0)
        return out[0]

    def files() -> int:
        with tempfile.TemporaryDirectory() as d:
            with zipfile.ZipFile(f"{d}/a.zip", "w", zipfile.ZIP_LZMA) as z:
                z.writestr("x", "y" * 10000)
            with open(f"{d}/b.json", "w") as f:
                json.dump({"a": list(range(1000))}, f)
            return len(lzma.compress(b"x" * 100000)) + len(bz2.compress(b"x" * 100000))

    def sqlite_thread() -> int:
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.execute("create table t (a)")
        t = threading.Thread(
            target=lambda: db.executemany("insert into t values (?)", [(i,) for i in range(100)])
        )
        t.start()
        t.join()
        return db.execute("select count(*) from t").fetchone()[0]

    def faults() -> str:
        faulthandler.enable()
        faulthandler.dump_traceback_later(60)
        faulthandler.cancel_dump_traceback_later()
        return "ok"

    return {
        "itimer_budget": itimer_budget,
        "deep_recursion_thread": deep,
        "zip_lzma_bz2_json": files,
        "sqlite_from_thread": sqlite_thread,
        "faulthandler": faults,
        "scrypt": lambda: hashlib.scrypt(b"p", salt=b"s", n=2**14, r=8, p=1)[:2],
        "uuid1": lambda: str(uuid.uuid1())[:8],
        "platform": platform.platform,
        "setlocale": lambda: locale.setlocale(locale.LC_ALL, ""),
        "astimezone": lambda: datetime.datetime.now().astimezone().tzname(),
        "cpu_count": lambda: (os.cpu_count(), len(os.sched_getaffinity(0))),
        "getrusage_thread": lambda: resource.getrusage(resource.RUSAGE_THREAD).ru_utime >= 0,
        "select_sleep": lambda: select.select([], [], [], 0.01),
        "gc_freeze": lambda: (gc.freeze(), gc.unfreeze(), gc.collect())[2] >= 0,
        "secrets": lambda: len(secrets.token_bytes(16)),
        "numpy_in_thread": lambda: (
            concurrent.futures.ThreadPoolExecutor(2)
            .submit(lambda: float(np.linalg.inv(np.eye(50) * 2)[0, 0]))
            .result()
        ),
    }


class Honest27(Planner):
    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == 1:
            for name, check in _checks().items():
                try:
                    say("Honest27", f"{name}: ok {str(check())[:40]}")
                except BaseException as exc:  # a check's failure is its report
                    say("Honest27", f"{name}: FAILED {type(exc).__name__} {str(exc)[:80]}")
            # across the stop: work handed over now, collected at later decisions
            workers = (__import__("os").cpu_count() or 1) * 2
            self._pool = concurrent.futures.ThreadPoolExecutor(workers)
            self._future = self._pool.submit(lambda: sum(i * i for i in range(3_000_000)))
            self._timer_fired = threading.Event()
            threading.Timer(0.05, self._timer_fired.set).start()
            self._q: queue.Queue[float] = queue.Queue()
            self._ticks = [0]

            def ticker() -> None:
                while True:
                    time.sleep(0.01)
                    self._ticks[0] += 1
                    self._q.put(time.monotonic())

            threading.Thread(target=ticker, daemon=True).start()
        if n == 5:
            fut = self._future
            done = fut.done() or bool(fut.result(timeout=5))
            say(
                "Honest27",
                f"pool work across decisions ({self._pool._max_workers} workers): ok {done}",
            )
            say(
                "Honest27",
                f"timer across decisions: {'ok' if self._timer_fired.wait(5) else 'FAILED'}",
            )
            say(
                "Honest27",
                f"ticker thread across decisions: ok {self._ticks[0] > 0},"
                f" queue {self._q.qsize() > 0}",
            )
        return super().decide(view)
