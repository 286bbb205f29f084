# ruff: noqa: E501, SIM115  (attack code: long report lines, probes that open files inline)
"""Hostile strategies of a sixth independent pass on ``--isolate`` (benchmarks/hostile_pass6).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import mmap
import os
import signal
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


# ------------------------------------------------- pidfs: the machine's count of tasks made
# x86-64: clone(rdi=flags, rsi=stack, rdx=&pidfd, r10=0, r8=0); the child (a thread) exits at
# once without touching memory, the parent returns the new tid
CLONE_CODE = bytes.fromhex("4531d24531c0b8380000000f054885c07509b83c00000031ff0f05c3")
# CLONE_VM|FS|FILES|SIGHAND|PIDFD|THREAD|SYSVSEM: a thread (the filter allows it) with a pidfd
THREAD_WITH_PIDFD = 0x100 | 0x200 | 0x400 | 0x800 | 0x1000 | 0x10000 | 0x40000


class TaskCounter:
    """Each call makes one short thread and returns its pidfd's inode number: pidfs numbers
    every task the machine makes from one 64-bit counter (Linux 6.14+), so this is the
    count of tasks made on the whole machine since boot (what /proc/stat's ``processes``
    was), readable and movable from a game."""

    def __init__(self) -> None:
        # private: a shared mapping is refused
        self.page = mmap.mmap(
            -1,
            4096,
            flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
            prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC,
        )
        self.page.write(CLONE_CODE)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        kind = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_void_p)
        self.fn = kind(addr)
        self.stack = ctypes.create_string_buffer(16384)
        self.top = ctypes.addressof(self.stack) + 16384 - 64
        self.fd = ctypes.c_int(-1)

    def __call__(self) -> int:
        # the thread shares this one's TLS: no signal may be handled on it
        old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            for _ in range(1000):  # EAGAIN: the task bound, until exited threads are released
                self.fd.value = -1
                tid = self.fn(THREAD_WITH_PIDFD, self.top, ctypes.addressof(self.fd))
                if tid != -11:
                    break
                time.sleep(0.0005)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        if tid < 0:
            raise OSError(-tid, os.strerror(-tid))
        try:
            return os.fstat(self.fd.value).st_ino
        finally:
            os.close(self.fd.value)

    def advance_to(self, residue: int, modulus: int) -> int:
        """Make threads until the last one's number is ``residue`` mod ``modulus``."""
        n = self()
        while n % modulus != residue:
            n = self()
        return n


COUNTER: list[TaskCounter] = []  # kept for the process's life: a thread may still run its code


def counter() -> TaskCounter:
    if not COUNTER:
        COUNTER.append(TaskCounter())
    return COUNTER[0]


class TaskCount(Planner):
    """Read the machine's task counter, move it, read it again (the channel /proc/stat's
    ``processes`` gave pass 5's ForkColluder, closed by ``subset=pid``)."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                count = counter()
                a = count()
                b = count()
                time.sleep(1.0)
                c = count()
                t = time.perf_counter()
                for _ in range(1000):
                    count()
                made = time.perf_counter() - t
                d = count()
                say("TaskCount", f"pidfs inode numbers: {a}, then {b}; after 1 s {c} (machine: "
                    f"{c - b - 1} tasks made elsewhere); after 1000 threads of mine in {made:.3f} s: "
                    f"{d} (+{d - c - 1})")  # fmt: skip
            except OSError as exc:
                say("TaskCount", f"blocked: {exc}")
        return super().decide(view)


MEMO_MOD, MEMO_STEP, MEMO_SLACK = 1024, 64, 8


class TaskMemo(Planner):
    """Memory across games: at each decision leave the counter at ``value * 64 + 8`` mod 1024
    (4 bits); the next game's first read finds it, give or take the tasks made between (its
    host's fork and the machine's). The value it leaves is the one it read plus one."""

    def decide(self, view):
        if not hasattr(self, "_value"):
            try:
                self._count = counter()
                n = self._count()
                got = ((n - MEMO_SLACK) % MEMO_MOD) // MEMO_STEP
                self._value = (got + 1) % (MEMO_MOD // MEMO_STEP)
                say("TaskMemo", f"seat {view[0]}: the previous game left {got} (read {n}, residue "
                    f"{n % MEMO_MOD}); leaving {self._value}")  # fmt: skip
            except OSError as exc:
                self._value = None
                say("TaskMemo", f"blocked: {exc}")
        if self._value is not None:
            self._count.advance_to((self._value * MEMO_STEP + MEMO_SLACK) % MEMO_MOD, MEMO_MOD)
        return super().decide(view)


COL_MOD, COL_STEP = 2048, 16


class TaskColluder(Planner):
    """Two sandboxes in one game: at each decision read what the other colluder left on the
    machine's task counter (a card type and its count in its opening hand: 72 values), then
    leave its own next one."""

    def decide(self, view):
        if not hasattr(self, "_hand"):
            self._hand = list(view[7])
            self._k = 0
            self._read: dict[int, int] = {}
            try:
                self._count = counter()
            except OSError as exc:
                self._count = None
                say("TaskColluder", f"blocked: {exc}")
            say("TaskColluder", f"seat {view[0]} publishes its hand {self._hand}")
        if self._count is not None and self._k < 27:  # each card type three times, then plain play
            n = self._count()
            symbol = ((n - 1) % COL_MOD) // COL_STEP
            # its own last write (two decisions in a row: no other colluder in between) is not read
            if symbol < 72 and symbol != getattr(self, "_mine", None):
                self._read.setdefault(symbol // 8, []).append(symbol % 8)
            pos = self._k % 9
            self._k += 1
            mine = pos * 8 + min(self._hand[pos], 7)
            self._count.advance_to(mine * COL_STEP, COL_MOD)
            self._mine = mine
            if self._k == 27:  # the most frequent read of each card type
                hand = [
                    max(set(v), key=v.count) if (v := self._read.get(i)) else None for i in range(9)
                ]
                say("TaskColluder", f"seat {view[0]} reads the other's hand: {hand}")
        return super().decide(view)


# ------------------------------------------------- eventfd ids: one machine-wide id allocator
def eventfd_id(fd: int) -> int:
    with open(f"/proc/self/fdinfo/{fd}") as f:
        for line in f:
            if line.startswith("eventfd-id:"):
                return int(line.split()[1])
    return -1


class EventfdProbe(Planner):
    """Each eventfd takes the lowest free number of one id allocator of the whole machine
    (shown in /proc/self/fdinfo): what another sandbox holds shows as gaps."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                fds = [os.eventfd(0) for _ in range(8)]
                ids = [eventfd_id(fd) for fd in fds]
                say("EventfdProbe", f"seat {view[0]}: eventfd ids {ids}")
                for fd in fds:
                    os.close(fd)
            except OSError as exc:
                say("EventfdProbe", f"blocked: {exc}")
        return super().decide(view)


class EventfdColluder(Planner):
    """Two sandboxes in one game: each takes 37 eventfds (lowest free ids of the machine's
    allocator) and keeps the first and, for each card type, one of the next block of 4 (its
    count in its opening hand, at most 3); the other reads the gaps among the ids it is given
    (its open files are bounded at 64: 40 a probe)."""

    def decide(self, view):
        seat = view[0]
        if not hasattr(self, "_held"):
            self._hand = list(view[7])
            self._held = []
            try:
                block = [os.eventfd(0) for _ in range(37)]
                ids = [eventfd_id(fd) for fd in block]
                keep = {ids[0]} | {ids[1 + i * 4 + min(c, 3)] for i, c in enumerate(self._hand)}
                for fd, i in zip(block, ids, strict=True):
                    (self._held.append(fd) if i in keep else os.close(fd))
                say("EventfdColluder", f"seat {seat} publishes its hand {self._hand}: holds ids "
                    f"{sorted(keep)}")  # fmt: skip
            except OSError as exc:
                say("EventfdColluder", f"blocked: {exc}")
                self._told = True
            return super().decide(view)
        if not getattr(self, "_told", False):
            probe = []
            try:
                for _ in range(40):
                    probe.append(os.eventfd(0))
            except OSError:
                pass
            ids = [eventfd_id(fd) for fd in probe]
            for fd in probe:
                os.close(fd)
            mine = {eventfd_id(fd) for fd in self._held}
            free = set(ids)
            top = max(ids)
            gaps = [i for i in range(1, top) if i not in free and i not in mine]
            for universe in (
                [i for i in range(1, top)],
                [i for i in range(1, top) if i not in mine],
            ):
                pos = [universe.index(g) for g in gaps if g in universe]
                if not pos:
                    continue
                rel = [p - pos[0] for p in pos]
                hand = []
                for i in range(9):
                    inside = [r - 1 - i * 4 for r in rel if 1 + i * 4 <= r < 5 + i * 4]
                    if len(inside) != 1:
                        break
                    hand.append(inside[0])
                if len(hand) == 9:
                    self._told = True
                    say(
                        "EventfdColluder",
                        f"seat {seat} reads the other's hand {hand} (gaps {gaps})",
                    )
                    break
            else:
                say(
                    "EventfdColluder",
                    f"seat {seat}: no hand in gaps {gaps[:40]} (probe {len(ids)} ids up to {top})",
                )
        return super().decide(view)


# ------------------------------------------------- what else a game sees of the machine
def _try(what, fn):
    try:
        return f"{what}: {fn()}"
    except Exception as exc:
        return f"{what}: {type(exc).__name__} {exc}"


def _fdinfo() -> str:
    out = []
    for fd in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            with open(f"/proc/self/fdinfo/{fd}") as f:
                info = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
            st = os.fstat(int(fd))
            out.append(
                f"{fd}:{os.readlink(f'/proc/self/fd/{fd}')} ino={st.st_ino} mnt={info.get('mnt_id', '').strip()}"
            )
        except OSError as exc:
            out.append(f"{fd}: {exc.strerror}")
    return "; ".join(out)


def _statfs(path: str) -> str:
    st = os.statvfs(path)
    return f"blocks free {st.f_bfree}, files free {st.f_ffree}"


def _syslog() -> str:
    buf = ctypes.create_string_buffer(4096)
    n = LIBC.syscall(103, 3, buf, 4096)  # SYSLOG_ACTION_READ_ALL
    if n < 0:
        return os.strerror(ctypes.get_errno())
    return f"{n} bytes: {buf.raw[:120]!r}"


def _sc(nr, *args):
    r = LIBC.syscall(nr, *args)
    return f"{r} {os.strerror(ctypes.get_errno()) if r < 0 else ''}"


class Probe(Planner):
    """Files and calls with machine-wide state that a game can reach."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            items = [
                _try("/sys", lambda: os.listdir("/sys")[:10]),
                _try("/dev", lambda: sorted(os.listdir("/dev"))),
                _try("/dev/pts", lambda: os.listdir("/dev/pts")),
                _try("/", lambda: sorted(os.listdir("/"))),
                _try("/proc", lambda: sorted(os.listdir("/proc"))),
                _try(
                    "ns",
                    lambda: {
                        n: os.readlink(f"/proc/self/ns/{n}") for n in os.listdir("/proc/self/ns")
                    },
                ),
                _try("fds", _fdinfo),
                _try("statfs /usr", lambda: _statfs("/usr")),
                _try("statfs /tmp", lambda: _statfs("/tmp")),
                _try("syslog", _syslog),
                _try(
                    "mountinfo",
                    lambda: open("/proc/self/mountinfo").read()[:1500].replace("\n", " | "),
                ),
                _try("timerfd", lambda: _sc(283, 1, 0)),  # timerfd_create(CLOCK_MONOTONIC)
                _try("signalfd", lambda: _sc(289, -1, ctypes.byref(ctypes.c_ulong(0)), 8, 0)),
                _try("epoll", lambda: _sc(291, 0)),
                _try("membarrier query", lambda: _sc(324, 0, 0, 0)),
                _try("getcpu", lambda: os.sched_getaffinity(0)),
                _try("ptmx", lambda: os.open("/dev/ptmx", os.O_RDWR)),
                _try("statmount", lambda: _sc(457, 0, 0, 0, 0)),
                _try("listmount", lambda: _sc(458, 0, 0, 0, 0)),
                _try("swapoff", lambda: _sc(168, b"/x")),
                _try("acct", lambda: _sc(163, 0)),
                _try("quotactl", lambda: _sc(179, 0, 0, 0, 0)),
                _try("ustat", lambda: _sc(136, 0, 0)),
                _try("sched_getattr 1", lambda: os.sched_getscheduler(1)),
                _try(
                    "/proc/1/status",
                    lambda: [
                        ln
                        for ln in open("/proc/1/status").read().splitlines()
                        if ln.startswith(("Name", "NSpid", "Uid", "Cpus"))
                    ],
                ),
                _try("/proc/self/cgroup", lambda: open("/proc/self/cgroup").read()),
                _try("/etc", lambda: os.listdir("/etc")),
                _try("uname", lambda: os.uname()),
                _try("landlock", lambda: _sc(444, 0, 0, 1)),
            ]
            for item in items:
                say("Probe", item[:600])
        return super().decide(view)


class Honest(Planner):
    """An honest strategy's tools: numpy, threads, a temporary file."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            import tempfile
            import threading

            out = []
            try:
                import numpy as np

                out.append(f"numpy {np.__version__} sum {int(np.arange(1000).sum())}")
            except Exception as exc:
                out.append(f"numpy: {type(exc).__name__} {exc}")
            try:
                done = []
                ts = [threading.Thread(target=lambda: done.append(1)) for _ in range(4)]
                [t.start() for t in ts]
                [t.join() for t in ts]
                out.append(f"threads {len(done)}")
            except Exception as exc:
                out.append(f"threads: {type(exc).__name__} {exc}")
            try:
                with tempfile.NamedTemporaryFile() as f:
                    f.write(b"x" * 100000)
                    f.flush()
                    out.append(f"tempfile {f.name} {os.path.getsize(f.name)}")
                with tempfile.TemporaryDirectory() as d:
                    out.append(f"tempdir {d}")
            except Exception as exc:
                out.append(f"tempfile: {type(exc).__name__} {exc}")
            try:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(2) as ex:
                    out.append(f"pool {sum(ex.map(abs, [-1, -2]))}")
            except Exception as exc:
                out.append(f"pool: {type(exc).__name__} {exc}")
            try:
                import multiprocessing

                out.append(f"cpu_count {multiprocessing.cpu_count()}")
                with multiprocessing.Pool(1) as p:
                    out.append(f"mp pool {p.map(abs, [-3])}")
            except Exception as exc:
                out.append(f"multiprocessing (documented? fork denied): {type(exc).__name__} {exc}")
            say("Honest", "; ".join(out))
        return super().decide(view)
