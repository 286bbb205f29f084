"""A game reaching its leader, pid 1 of its namespace (``hp29s.leader``).

The game's process is pid 2; its leader (the host's code, which waits for it and reports how
it ended) is pid 1 of the same pid namespace, with the same user. A game may signal nothing,
but calls that name a process by pid and check only its owner are not signals.

- ``LeaderProbe``: at its first decision, asks and sets its leader's scheduling, niceness,
  I/O priority and affinity (``KEY``: ``set`` to set them; default: only read), and reports.
"""

from __future__ import annotations

import ctypes
import os

from sims.strategies.planner import Planner

from . import call, key, say

SCHED_IDLE = 5


def _probe(setting: bool) -> None:
    name = "LeaderProbe"
    say(
        name,
        f"getpriority(1): {call(140, 0, 1)}; getpgid(1): {call(121, 1)}; getsid(1): {call(124, 1)}",
    )
    say(name, f"sched_getscheduler(1): {call(145, 1)}; ioprio_get(1): {call(252, 1, 1)}")
    mask = ctypes.c_ulong(0)
    say(
        name,
        f"sched_getaffinity(1): {call(204, 1, 8, ctypes.addressof(mask))} mask {mask.value:#x}",
    )
    limit = (ctypes.c_ulong * 2)()
    say(name, f"prlimit64(1, CPU) read: {call(302, 1, 0, 0, ctypes.addressof(limit))}")
    if setting:
        param = ctypes.c_int(0)
        say(name, f"setpriority(1, 19): {call(141, 0, 1, 19)}")
        say(
            name,
            f"sched_setscheduler(1, IDLE): {call(144, 1, SCHED_IDLE, ctypes.addressof(param))}",
        )
        say(name, f"ioprio_set(1, IDLE): {call(251, 1, 1, 3 << 13)}")
        one = ctypes.c_ulong(1)
        say(name, f"sched_setaffinity(1, cpu0): {call(203, 1, 8, ctypes.addressof(one))}")
        say(name, f"after: getpriority(1) {call(140, 0, 1)}, sched_getscheduler(1) {call(145, 1)}")
    say(name, f"self: pid {os.getpid()} ppid {os.getppid()}")


class LeaderProbe(Planner):
    """Hostile probe: its leader's scheduling, read (and with ``KEY=set`` set)."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == 1:
            try:
                _probe(key() == "set")
            except Exception as exc:
                say("LeaderProbe", f"failed: {exc!r}")
        return super().decide(view)
