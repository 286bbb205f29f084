"""Threads reaped while the steady stop reads them (``hp28s.exitrace``).

With steady decisions the host waits after each answer until every thread of the game's
process is stopped (sims/guest.py ``_until_stopped``): it lists ``/proc/PID/task`` and, for
each thread, opens its ``stat`` and reads it. A thread reaped between the open and the read
makes the read fail with ``ESRCH`` (``ProcessLookupError``); only ``FileNotFoundError`` is
caught, so the host ends: the machine's fault, the game played again, twice a fault of the
machine (seat -1). (Shown outside the sandbox: a thread's ``stat`` opened, the thread joined,
then read: "ProcessLookupError [Errno 3] No such process".)

A thread that has begun to exit goes on exiting after the stop is sent. ``ExitRace`` makes
many such threads at once and holds them in the kernel while the host polls: thread A
changes the protection of a large populated mapping (``mprotect``, which holds the process's
memory-map lock for writing for some milliseconds), then ``N`` threads end at once with a raw
``exit`` (each waits in ``exit_mm`` for that lock, uninterruptibly), then it answers. The host
stops the process and polls while A and the exiting threads are not stopped; when A's call
ends, the exiting threads finish and are reaped, one after another, while the host reads
their ``stat`` files. Each decision from the second is a try; a hit ends the host.

``KEY``: ``MIB,N,HOLD,TRIES`` (default ``384,40,1,1000000``): the mapping's size, the exiting
threads a try, whether A holds the lock (0: no ``mprotect``, the threads just end), and at most
how many tries a game (decisions 2 to TRIES + 1; the rest are plain). ``N`` = 0 is the control.
"""

from __future__ import annotations

import ctypes
import threading
import time

from sims.strategies.planner import Planner

from . import LIBC, key, say

SYS_EXIT = 60
PROT_R, PROT_RW = 0x1, 0x3
MAP_PRIVATE_ANON = 0x02 | 0x20
MADV_NOHUGEPAGE, MADV_POPULATE_WRITE = 15, 23
LIBC.mprotect.restype = ctypes.c_int
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
LIBC.madvise.restype = ctypes.c_int
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _knobs() -> tuple[int, int, int, int]:
    parts = [int(p) for p in key().split(",") if p.strip().isdigit()]
    return tuple(parts + [384, 40, 1, 10**6][len(parts) :])[:4]  # type: ignore[return-value]


def _end_thread(go: threading.Event) -> None:
    go.wait()
    LIBC.syscall(SYS_EXIT, 0, 0, 0, 0, 0, 0)  # this thread only, in the kernel at once


class ExitRace(Planner):
    """Hostile: threads exiting, held in the kernel, while the host reads their stat."""

    def _setup(self) -> None:
        mib, self.ends, self.holds, self.tries = _knobs()
        self.size = mib << 20
        threading.stack_size(128 << 10)
        self.area = LIBC.mmap(None, self.size, PROT_RW, MAP_PRIVATE_ANON, -1, 0)
        LIBC.madvise(self.area, self.size, MADV_NOHUGEPAGE)
        LIBC.madvise(self.area, self.size, MADV_POPULATE_WRITE)
        self.prot = PROT_R
        self.n = 0
        t = time.perf_counter()
        LIBC.mprotect(self.area, self.size, PROT_R)
        LIBC.mprotect(self.area, self.size, PROT_RW)
        say(
            "ExitRace", f"{mib} MiB mapped; mprotect there {(time.perf_counter() - t) * 500:.1f} ms"
        )

    def _hold(self, go: threading.Event) -> None:
        go.wait()
        if not self.holds:
            return
        self.prot = PROT_RW if self.prot == PROT_R else PROT_R
        LIBC.mprotect(self.area, self.size, self.prot)

    def decide(self, view):
        if not hasattr(self, "area"):
            self._setup()
        action = super().decide(view)
        self.n += 1
        if self.n < 2 or self.n > self.tries + 1:
            return action
        hold, end = threading.Event(), threading.Event()
        holder = threading.Thread(target=self._hold, args=(hold,), daemon=True)
        holder.start()
        for _ in range(self.ends):
            threading.Thread(target=_end_thread, args=(end,), daemon=True).start()
        hold.set()
        time.sleep(0.0005)  # A in mprotect, the lock held for writing
        end.set()
        time.sleep(0.002)  # every ending thread in the kernel, waiting on the lock
        if self.n % 20 == 2:
            say("ExitRace", f"decision {self.n}: tries so far {self.n - 1}")
        return action
