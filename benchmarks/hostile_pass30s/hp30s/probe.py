"""Calls and reads no earlier pass tried, once from a game's process (``hp30s.probe``).

``Probe30`` plays the planner and, at its first decision, tries each call below and reports
its return and errno, then reads the times of the device files its ``/dev`` binds from the
machine (the same inodes for every sandbox and the machine itself) before and after writing
to and reading from each: a time the write moved would be a note every sandbox can read."""

from __future__ import annotations

import ctypes
import os
import time

from sims.strategies.planner import Planner

from . import call, say

U64 = (1 << 64) - 1


def _attr(policy: int, flags: int, nice: int = 0, umin: int = 0, umax: int = 1024) -> ctypes.Array:
    """A ``struct sched_attr`` (56 bytes, SCHED_ATTR_SIZE_VER1)."""
    words = (ctypes.c_uint32 * 14)()
    words[0] = 56
    words[1] = policy
    words[2], words[3] = flags & 0xFFFFFFFF, flags >> 32
    words[4] = nice & 0xFFFFFFFF
    words[12], words[13] = umin, umax
    return words


def _calls() -> list[tuple[str, int, tuple[int, ...]]]:
    uclamp = _attr(0, 0x20 | 0x40 | 0x08 | 0x10, 0, 1024, 1024)  # UTIL_CLAMP_MIN|MAX, KEEP_*
    deadline = _attr(6, 0)
    keep = [uclamp, deadline]
    buf = ctypes.create_string_buffer(4096)
    keep.append(buf)
    _calls.keep = keep  # held until the calls are made
    return [
        ("sched_setattr uclamp min 1024", 314, (0, ctypes.addressof(uclamp), 0)),
        ("sched_setattr SCHED_DEADLINE", 314, (0, ctypes.addressof(deadline), 0)),
        ("sysfs 3 (count of filesystem types)", 139, (3,)),
        ("ustat", 136, (0x2F, ctypes.addressof(buf))),
        ("get_mempolicy", 239, (ctypes.addressof(buf), 0, 0, 0, 0)),
        ("set_mempolicy MPOL_LOCAL", 238, (4, 0, 0)),
        ("pkey_alloc", 330, (0, 0)),
        ("prctl PR_SET_SYSCALL_USER_DISPATCH off", 157, (59, 0, 0, 0, 0)),
        ("prctl PR_MCE_KILL early", 157, (33, 1, 1, 0, 0)),
        ("prctl PR_SET_TSC enable", 157, (26, 1, 0, 0, 0)),
        ("prctl PR_TASK_PERF_EVENTS_DISABLE", 157, (31, 0, 0, 0, 0)),
        ("prctl PR_SET_TAGGED_ADDR_CTRL", 157, (55, 0, 0, 0, 0)),
        ("prctl PR_GET_SPECULATION_CTRL", 157, (52, 0, 0, 0, 0)),
        ("prctl PR_SET_MM_EXE_FILE", 157, (35, 13, 0, 0, 0)),
        ("quotactl_fd", 443, (0, 0, 0, 0)),
        ("process_mrelease", 448, (0, 0)),
        ("futex FUTEX_LOCK_PI_PRIVATE", 202, (ctypes.addressof(buf), 134, 0, 0, 0, 0)),
        ("futex FUTEX_UNLOCK_PI_PRIVATE", 202, (ctypes.addressof(buf), 135, 0, 0, 0, 0)),
        ("swapon", 167, (0, 0)),
        ("mlockall MCL_CURRENT", 151, (1,)),
        ("vmsplice (no fd)", 278, (U64, 0, 0, 0)),
        ("kexec_load", 246, (0, 0, 0, 0)),
        ("delete_module", 176, (0, 0)),
        ("uselib", 134, (0,)),
        ("nfsservctl", 180, (0,)),
        ("migrate_pages (denied: a control)", 256, (0, 0, 0, 0)),
    ]


def _times(path: str) -> tuple[int, int, int] | str:
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"{exc.__class__.__name__} {exc.errno}"
    return st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns


def _devices(name: str) -> None:
    for dev in ("null", "zero", "full", "random", "urandom", "tty", "ptmx", "core"):
        path = f"/dev/{dev}"
        before = _times(path)
        did = []
        for how, flags in (("w", os.O_WRONLY), ("r", os.O_RDONLY)):
            try:
                fd = os.open(path, flags | os.O_NONBLOCK)
            except OSError as exc:
                did.append(f"open {how} errno {exc.errno}")
                continue
            try:
                if how == "w":
                    os.write(fd, b"x" * 64)
                else:
                    os.read(fd, 64)
                did.append(f"{how} ok")
            except OSError as exc:
                did.append(f"{how} errno {exc.errno}")
            finally:
                os.close(fd)
        time.sleep(0.01)
        after = _times(path)
        moved = "MOVED" if before != after else "unchanged"
        say(name, f"{path}: {', '.join(did)}; times {moved} {before} -> {after}")


def _counts(name: str) -> None:
    import multiprocessing

    try:
        mp = multiprocessing.cpu_count()
    except Exception as exc:
        mp = repr(exc)
    say(
        name,
        f"cpu_count {os.cpu_count()} sysconf {os.sysconf('SC_NPROCESSORS_ONLN')} "
        f"affinity {sorted(os.sched_getaffinity(0))} multiprocessing {mp}",
    )


def _probe() -> None:
    name = "Probe30"
    for label, nr, args in _calls():
        args = tuple(a & U64 for a in args)
        start = time.perf_counter()
        ret, err = call(nr, *args)
        took = (time.perf_counter() - start) * 1000
        say(name, f"{label}: {ret} errno {err} ({os.strerror(err) if err else 'ok'}) {took:.2f} ms")
    _counts(name)
    _devices(name)
    import resource

    say(name, f"children's rusage {resource.getrusage(resource.RUSAGE_CHILDREN)[:4]}")
    say(name, f"uid {os.getuid()} euid {os.geteuid()} groups {os.getgroups()}")


class Probe30(Planner):
    """Hostile probe: the calls and reads above at its first decision, then plays the planner."""

    def decide(self, view):
        n = getattr(self, "_n", 0) + 1
        self._n = n
        if n == 1:
            try:
                _probe()
            except Exception as exc:
                say("Probe30", f"probe failed: {exc!r}")
        return super().decide(view)
