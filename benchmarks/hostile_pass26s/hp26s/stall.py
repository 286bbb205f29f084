"""A stall after each answer that no limit counts, under steady decisions
(``hp26s.stall``).

After each answer a thread of ``PopStall`` maps ``KEY`` MiB (512) with ``MAP_POPULATE``.
Unlike ``MADV_POPULATE_WRITE`` (pass 24s's StopStall, which the kernel breaks off for a
pending stop), the populate of ``mmap`` gives way only to a fatal signal, so the host's
stop, which waits until every thread is stopped, would wait for it: time after the
answer, before the next seat may decide. Both classes report the gap between each answer
and their next view (median, max), which the stall would lengthen; ``GapControl`` is the
same without the populate."""

from __future__ import annotations

import ctypes
import statistics
import threading
import time

from sims.strategies.planner import Planner

from . import LIBC, key, say

LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


class GapControl(Planner):
    """The gap between its answers and its next views, reported every 20 decisions."""

    def _note(self) -> None:
        now = time.monotonic()
        if getattr(self, "_answered", None) is not None:
            self._gaps.append(now - self._answered)
        else:
            self._gaps = []
        if len(self._gaps) and len(self._gaps) % 20 == 0:
            g = self._gaps
            say(
                type(self).__name__,
                f"{len(g)} gaps answer->view: median {statistics.median(g):.3f} s,"
                f" max {max(g):.3f} s" + self._extra(),
            )

    def _extra(self) -> str:
        return ""

    def decide(self, view):
        self._note()
        action = super().decide(view)
        self._answered = time.monotonic()
        return action


class PopStall(GapControl):
    """After each answer: ``mmap(MAP_POPULATE)`` of ``KEY`` MiB in a thread (unmapped at
    its next decision)."""

    def _extra(self) -> str:
        s = self._spans
        return (
            f"; {self._failed} refused; {len(s)} populates,"
            f" median {statistics.median(s):.3f} s, max {max(s):.3f} s"
            if s
            else ""
        )

    def decide(self, view):
        mib = int(key()) if key().isdigit() else 512
        if not hasattr(self, "_go"):
            self._go = threading.Event()
            self._spans: list[float] = []
            self._addr = None
            self._failed = 0

            def run() -> None:
                while True:
                    self._go.wait()
                    self._go.clear()
                    time.sleep(0.0005)  # let the answer go out first
                    t = time.monotonic()
                    addr = LIBC.mmap(None, mib << 20, 3, 0x22 | 0x8000, -1, 0)  # POPULATE
                    if addr in (None, ctypes.c_void_p(-1).value):
                        self._failed += 1
                    else:
                        self._addr = addr
                        self._spans.append(time.monotonic() - t)

            threading.Thread(target=run, daemon=True).start()
        if self._addr not in (None, ctypes.c_void_p(-1).value):
            LIBC.munmap(self._addr, mib << 20)
            self._addr = None
        action = super().decide(view)
        self._go.set()
        return action
