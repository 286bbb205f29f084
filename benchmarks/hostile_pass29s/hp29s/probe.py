"""Calls the deny list does not name, tried once from a game's process (``hp29s.probe``).

``Probe29`` plays the planner and, at its first decision, tries each call below and reports
its return and errno, and what it reads of state other sandboxes share (``statfs`` of each
mount it can see, ``statx``'s mount ids, the processor it runs on). A call that succeeds and
reaches anything beyond the game's own process would be a finding."""

from __future__ import annotations

import ctypes
import os
import time

from sims.strategies.planner import Planner

from . import LIBC, call, say

# x86_64 numbers
CALLS: list[tuple[str, int, tuple[int, ...]]] = [
    ("membarrier QUERY", 324, (0, 0, 0)),
    ("membarrier GLOBAL", 324, (1, 0, 0)),
    ("membarrier REGISTER_GLOBAL_EXPEDITED", 324, (4, 0, 0)),
    ("membarrier GLOBAL_EXPEDITED", 324, (2, 0, 0)),
    ("ioprio_set RT", 251, (1, 0, (1 << 13) | 0)),
    ("ioprio_set IDLE", 251, (1, 0, (3 << 13))),
    ("setpriority -5", 141, (0, 0, (-5) & 0xFFFFFFFF)),
    ("acct", 163, (0,)),
    ("quotactl", 179, (0, 0, 0, 0)),
    ("swapoff", 168, (0,)),
    ("iopl 3", 172, (3,)),
    ("ioperm", 173, (0x80, 1, 1)),
    ("clock_settime", 227, (0, 0)),
    ("settimeofday", 164, (0, 0)),
    ("setuid 1", 105, (1,)),
    ("setgroups 0", 116, (0, 0)),
    ("vhangup", 153, ()),
    ("prctl PR_SET_MM START_BRK", 157, (35, 6, 0x10000, 0, 0)),
    ("prctl PR_SET_IO_FLUSHER", 157, (57, 1, 0, 0, 0)),
    ("prctl PR_SET_CHILD_SUBREAPER", 157, (36, 1, 0, 0, 0)),
    ("prctl PR_SET_MDWE", 157, (65, 1, 0, 0, 0)),
    ("prctl PR_SET_THP_DISABLE", 157, (41, 1, 0, 0, 0)),
    ("prctl PR_SET_TIMERSLACK 1", 157, (29, 1, 0, 0, 0)),
    ("prctl PR_SET_PTRACER any", 157, (0x59616D61, (1 << 64) - 1, 0, 0, 0)),
    ("prctl PR_SET_SPECULATION_CTRL", 157, (53, 0, 4, 0, 0)),
    ("arch_prctl ARCH_SET_CPUID 0", 158, (0x1012, 0)),
    ("mlock2 (4096 at 0)", 325, (0, 4096, 0)),
    ("remap_file_pages", 216, (0, 4096, 0, 0, 0)),
    ("map_shadow_stack", 453, (0, 1 << 20, 0)),
    ("mseal", 462, (0, 0, 0)),
    ("epoll_create1", 291, (0,)),
    ("timerfd_create", 283, (1, 0)),
    ("signalfd4", 289, ((1 << 64) - 1, 0, 8, 0)),
    ("sched_setaffinity cpu0", 203, (0, 8, 0)),
    ("set_mempolicy_home_node", 450, (0, 4096, 0, 0)),
    ("kexec_file_load", 320, (0, 0, 0, 0, 0)),
    ("init_module", 175, (0, 0, 0)),
    ("reboot CAD off", 169, (0xFEE1DEAD, 672274793, 0, 0)),
    ("unshare 0", 272, (0,)),
    ("setns", 308, (0, 0)),
    ("lookup_dcookie", 212, (0, 0, 0)),
]


def _probe() -> None:
    name = "Probe29"
    for label, nr, args in CALLS:
        args = tuple(a & ((1 << 64) - 1) for a in args)
        if label == "sched_setaffinity cpu0":
            mask = ctypes.c_ulong(1)
            args = (0, 8, ctypes.addressof(mask))
        start = time.perf_counter()
        ret, err = call(nr, *args)
        took = (time.perf_counter() - start) * 1000
        say(name, f"{label}: {ret} errno {err} ({os.strerror(err) if err else 'ok'}) {took:.2f} ms")
    cpu = ctypes.c_uint(9999)
    call(309, ctypes.addressof(cpu), 0, 0)
    say(name, f"getcpu: {cpu.value}")
    # statx mount ids and statfs of what it can see
    for path in (
        "/",
        "/tmp",
        "/dev/shm",
        "/dev",
        "/proc",
        os.path.dirname(os.__file__),
        os.path.dirname(__file__),
    ):
        buf = ctypes.create_string_buffer(256)
        where = ctypes.create_string_buffer(path.encode())  # held until the call returns
        ret, err = call(
            332,
            (-100) & ((1 << 64) - 1),
            ctypes.addressof(where),
            0,
            0x1000 | 0x4000,
            ctypes.addressof(buf),
        )
        mnt = int.from_bytes(buf.raw[0x90:0x98], "little") if ret == 0 else -1
        try:
            fs = os.statvfs(path)
            sf = f"bfree {fs.f_bfree} ffree {fs.f_ffree} blocks {fs.f_blocks}"
        except OSError as exc:
            sf = f"statvfs {exc!r}"
        try:
            dev = os.stat(path).st_dev
        except OSError:
            dev = -1
        say(name, f"{path}: statx {ret}/{err} mnt_id {mnt} dev {dev:#x} {sf}")
    say(name, f"/dev: {sorted(os.listdir('/dev'))}")
    say(name, f"/: {sorted(os.listdir('/'))}")
    auxv = ctypes.create_string_buffer(512)
    say(
        name,
        f"auxv via PR_GET_AUXV: {call(157, 0x41555856, ctypes.addressof(auxv), 512, 0, 0)}",
    )
    say(name, f"fds: {[fd for fd in range(64) if _isfd(fd)]}")


def _isfd(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


class Probe29(Planner):
    """Hostile probe: the calls above at its first decision, then plays the planner."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == 1:
            try:
                _probe()
            except Exception as exc:
                say("Probe29", f"probe failed: {exc!r}")
        return super().decide(view)


_ = LIBC
