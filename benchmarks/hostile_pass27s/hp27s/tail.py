"""The window between a seat's answer and its stop, without steady decisions (``hp27s.tail``).

Wherever decisions have a limit, a guest's host stops its process once its seat has answered,
but without steady decisions the next seat does not wait for the host's word that every
thread stopped. Two ways to run on into the rival's decision:

- ``Tail``: after each answer, ``THREADS`` threads each map and fill a share of ``MIB`` MiB
  (``MAP_POPULATE``), a call that yields to no stop signal, so their kernel work runs while
  the rival decides. Each reports the CPU time of its calls (all of it after the answer).
- ``Lag``: ``THREADS`` threads hash 1 MiB blocks and stamp the time after each; the next
  decision finds the last stamp before the stop (the longest gap between the answer and
  the next view): how long its threads ran on after the answer, in user space, until the
  host's stop landed.

``NearLimit`` (honest) hashes for about a third of its 0.6 s limit in its first ``HEAVY`` decisions
and reports wall over CPU time; ``Idle`` is the planner in the sandbox, the control.
``KEY``: ``THREADS,MIB[,WORK]`` (default ``16,640``; ``WORK`` 200 ms)."""

from __future__ import annotations

import hashlib
import signal
import statistics
import threading
import time

from sims.strategies.planner import Planner

from . import LIBC, key, say

HEAVY = 10
WORK = 200
BLOCK = b"x" * (1 << 20)
PROT_RW = 0x3
MAP_PRIVATE_ANON_POPULATE = 0x02 | 0x20 | 0x8000


def _knobs() -> tuple[int, int]:
    parts = key().split(",")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return 16, 640


def _work() -> int:
    """``NearLimit``'s ms of hashing a heavy decision: ``KEY``'s third field."""
    parts = key().split(",")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else WORK


class NearLimit(Planner):
    """Honest: its first ``HEAVY`` decisions each do ``WORK`` ms of hashing."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n <= HEAVY:
            t, c = time.perf_counter(), time.thread_time()
            for _ in range(_work()):
                hashlib.sha256(BLOCK).digest()
            wall, cpu = time.perf_counter() - t, time.thread_time() - c
            say(
                "NearLimit",
                f"heavy decision {n}: wall {wall:.3f} s, cpu {cpu:.3f} s,"
                f" wall/cpu {wall / cpu:.2f}",
            )
        return super().decide(view)


class Idle(Planner):
    """The planner in the sandbox: the control."""


class Tail(Planner):
    """Hostile: after each answer its threads fill memory in calls no stop interrupts."""

    def _start(self) -> None:
        threads, mib = _knobs()
        threading.stack_size(256 << 10)
        self._size = (mib << 20) // threads
        self._go = [threading.Semaphore(0) for _ in range(threads)]
        self._cpu = [0.0] * threads  # CPU of each thread's last calls
        self._maps = [0] * threads
        self._fails = 0
        self._rounds: list[float] = []
        for i in range(threads):
            threading.Thread(target=self._run, args=(i,), daemon=True).start()

    def _run(self, i: int) -> None:
        while True:
            self._go[i].acquire()
            c = time.thread_time()
            if self._maps[i]:
                LIBC.munmap(self._maps[i], self._size)
            p = LIBC.mmap(None, self._size, PROT_RW, MAP_PRIVATE_ANON_POPULATE, -1, 0)
            if p in (None, 2**64 - 1, -1):
                self._maps[i] = 0
                self._fails += 1
            else:
                self._maps[i] = p
            self._cpu[i] = time.thread_time() - c

    def decide(self, view):
        if not hasattr(self, "_go"):
            self._start()
        else:
            time.sleep(0.01)  # each thread writes its figure once continued
            self._rounds.append(sum(self._cpu))
            self._cpu = [0.0] * len(self._cpu)
        n = len(self._rounds)
        if n and n % 20 == 0:
            r = self._rounds[-20:]
            say(
                "Tail",
                f"{len(self._go)} threads, {self._size >> 20} MiB each: CPU in calls after"
                f" the answer median {statistics.median(r):.3f} s, max {max(r):.3f} s"
                f" (decisions {n - 19}-{n}; failed maps {self._fails})",
            )
        action = super().decide(view)
        for go in self._go:
            go.release()
        time.sleep(0.003)  # each thread in its call (the GIL let go) when the answer leaves
        return action


class Lag(Planner):
    """Hostile: threads that run in user space until the host's stop lands."""

    def _start(self) -> None:
        threads, _ = _knobs()
        threading.stack_size(256 << 10)
        self._stamps: list[float] = []
        self._runs: list[float] = []
        self._free = threading.Event()  # its threads wait while its own decision runs
        self._conts: list[float] = []  # when its process was continued (its next view)
        signal.signal(signal.SIGCONT, lambda *_: self._conts.append(time.monotonic()))
        for _ in range(threads):
            threading.Thread(target=self._run, daemon=True).start()
        self._n = threads

    def _run(self) -> None:
        stamps = self._stamps
        while True:
            self._free.wait()
            hashlib.sha256(BLOCK).digest()
            stamps.append(time.monotonic())

    def decide(self, view):
        v = time.monotonic()
        if hasattr(self, "_free"):
            self._free.clear()
        if not hasattr(self, "_stamps"):
            self._start()
        else:
            a = self._answered
            c = min((t for t in self._conts if a <= t <= v), default=v)  # continued
            s = sorted(t for t in self._stamps if a <= t <= c)
            edges = [a, *s, c]
            gaps = [(edges[j + 1] - edges[j], j) for j in range(len(edges) - 1)]
            _, j = max(gaps)
            self._runs.append(edges[j] - a)  # the last stamp before the longest gap
            self._stamps.clear()
        n = len(self._runs)
        if n and n % 20 == 0:
            r = self._runs[-20:]
            say(
                "Lag",
                f"{self._n} threads ran on after the answer:"
                f" median {1000 * statistics.median(r):.1f} ms, max {1000 * max(r):.1f} ms"
                f" (decisions {n - 19}-{n})",
            )
        action = super().decide(view)
        self._answered = time.monotonic()
        self._free.set()
        return action
