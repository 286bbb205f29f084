"""Hostile strategies of pass 26s on ``--isolate`` (benchmarks/hostile_pass26s).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import time
from pathlib import Path

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.syscall.argtypes = [ctypes.c_long] * 7
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
LIBC.prctl.restype = ctypes.c_int
LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def key() -> str:
    """The run's parameter (hp26s/key.txt, written by run.sh)."""
    try:
        return (Path(__file__).parent / "key.txt").read_text().strip()
    except OSError:
        return ""


def call(nr: int, *args: int) -> tuple[int, int]:
    """(return value, errno) of a raw system call."""
    ctypes.set_errno(0)
    full = list(args) + [0] * (6 - len(args))
    ret = LIBC.syscall(nr, *full)
    return ret, (ctypes.get_errno() if ret == -1 else 0)


def err(e: int) -> str:
    return errno.errorcode.get(e, str(e))


class Once(Planner):
    """Runs ``probe`` once, at its first decision of each game, then plays as the planner."""

    def probe(self) -> None:
        raise NotImplementedError

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe()
            except Exception as e:  # a probe's own error is reported, not the seat's failure
                say(type(self).__name__, f"probe raised {type(e).__name__}: {e}")
        return super().decide(view)


def _statfs(path: str) -> str:
    try:
        s = os.statvfs(path)
    except OSError as e:
        return f"{path}: {type(e).__name__} {e.errno}"
    return f"{path}: bfree {s.f_bfree} ffree {s.f_ffree} files {s.f_files}"


class Probe(Once):
    """What a game can see and hold that earlier passes did not try: the terminal
    multiplexer (``/dev/ptmx``: every pty counts against the machine's ``kernel.pty.nr``,
    and its buffers are kernel memory), file systems' free counts, access times of the
    shared copy, its capabilities, and the folders it can list."""

    def probe(self) -> None:
        n = "Probe"
        for d in ("/", "/dev", "/dev/pts", "/dev/shm", "/tmp", "/sys", "/proc", "/run", "/etc"):
            try:
                say(n, f"ls {d}: {sorted(os.listdir(d))[:30]}")
            except OSError as e:
                say(n, f"ls {d}: {type(e).__name__} {err(e.errno)}")
        for p in (
            "/",
            "/dev",
            "/dev/shm",
            "/tmp",
            sys.prefix,
            os.path.dirname(os.__file__),
            os.path.dirname(__file__),
        ):
            say(n, "statfs " + _statfs(p))
        # anonymous device numbers of its mounts (one allocator for the machine, lowest free)
        devs = []
        for p in (
            "/",
            "/tmp",
            "/dev/shm",
            "/dev",
            "/proc",
            "/dev/pts",
            sys.prefix,
            os.path.dirname(__file__),
        ):
            try:
                st = os.stat(p)
                devs.append(f"{p}={os.major(st.st_dev)}:{os.minor(st.st_dev)}")
            except OSError as ex:
                devs.append(f"{p}={err(ex.errno)}")
        say(n, "st_dev " + " ".join(devs))
        # capabilities of the game's process (capget, version 3)
        hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        r, e = call(125, ctypes.addressof(hdr), ctypes.addressof(data))
        say(
            n,
            f"capget: {r} {err(e)} eff {data[0]:#x}/{data[3]:#x} perm {data[1]:#x}"
            f" inh {data[2]:#x}",
        )
        # access times of the shared copy: does a read by one game set a bit others see?
        for f in (
            os.path.join(os.path.dirname(os.__file__), "antigravity.py"),
            os.path.join(os.path.dirname(__file__), "honest.py"),
        ):
            try:
                a0 = os.stat(f).st_atime_ns
                with open(f, "rb") as fh:
                    fh.read()
                a1 = os.stat(f).st_atime_ns
                say(n, f"atime {os.path.basename(f)}: before {a0} after {a1} moved {a1 != a0}")
            except OSError as ex:
                say(n, f"atime {f}: {type(ex).__name__} {err(ex.errno)}")
        # /dev/ptmx: a pty each open, counted machine-wide
        fds = []
        wrote = 0
        last = "none"
        for _ in range(int(key() or "40") if key().isdigit() else 40):
            try:
                fd = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            except OSError as ex:
                last = f"{type(ex).__name__} {err(ex.errno)}"
                break
            fds.append(fd)
            try:
                while True:
                    wrote += os.write(fd, b"x" * 4096)
            except OSError as ex:
                last = f"write stopped: {err(ex.errno)}"
        say(n, f"ptmx: {len(fds)} opened, {wrote} bytes buffered, last: {last}")
        for fd in fds:
            os.close(fd)
        # misc calls: each one's answer
        for name, nr, args in (
            ("getcpu", 309, (0, 0, 0)),
            ("membarrier query", 324, (0, 0, 0)),
            ("membarrier global", 324, (1, 0, 0)),
            ("timerfd_create", 283, (1, 0)),
            ("signalfd4", 289, (-1, 0, 8, 0)),
            ("epoll_create1", 291, (0,)),
            ("adjtimex read", 159, (0,)),
            ("quotactl", 179, (0, 0, 0, 0)),
            ("acct", 163, (0,)),
            ("swapoff", 168, (0,)),
            ("vhangup", 153, ()),
            ("ioprio_get pgrp", 252, (2, 0)),
            ("ioprio_get user", 252, (3, 0)),
            ("getpriority user", 140, (2, 0)),
            ("sched_getaffinity 1", 204, (1, 0, 0)),
            ("map_shadow_stack", 453, (0, 4096, 0)),
            ("mseal", 462, (0, 0, 0)),
            ("lsm_list_modules", 461, (0, 0, 0)),
            ("statmount", 457, (0, 0, 0, 0)),
            ("listmount", 458, (0, 0, 0, 0)),
            ("personality READ_IMPLIES_EXEC", 135, (0x0400000,)),
            ("ptrace TRACEME", 101, (0, 0, 0, 0)),
            ("io_uring_setup", 425, (8, 0)),
            ("userfaultfd", 323, (0,)),
            ("bpf", 321, (0, 0, 0)),
            ("perf_event_open", 298, (0, 0, -1, -1, 0)),
            ("memfd_create", 319, (0, 0)),
            ("pidfd_open 1", 434, (1, 0)),
            ("keyctl", 250, (0, 0)),
            ("unshare NEWUSER", 272, (0x10000000,)),
            ("mmap anon exec", 9, (0, 4096, 7, 0x22, -1, 0)),
            ("kill 0 0", 62, (0, 0)),
            ("clone3", 435, (0, 0)),
            ("mknodat fifo", 259, (-100, 0, 0o10600, 0)),
            ("sched_setattr idle 1", 314, (1, 0, 0)),
        ):
            if name == "adjtimex read":
                buf = ctypes.create_string_buffer(256)
                r, e = call(nr, ctypes.addressof(buf))
            else:
                r, e = call(nr, *args)
            say(n, f"{name}: {r} {err(e) if e else ''}")


class VmaNames(Once):
    """Kernel memory the limits miss: a name for each of ``KEY`` (60,000) one-page
    anonymous mappings (``PR_SET_VMA_ANON_NAME``). Each name is a small kernel allocation
    of its own (``anon_vma_name``: not charged to the memory group), held until the game
    ends: up to ``vm.max_map_count`` of them a process."""

    def probe(self) -> None:
        count = int(key()) if key().isdigit() else 60_000
        base = LIBC.mmap(None, count * 4096, 0, 0x22, -1, 0)  # PROT_NONE reserve
        named = failed = 0
        last = ""
        t = time.monotonic()
        for i in range(count):
            addr = base + i * 4096
            name = f"hp26s-{i:06d}-" + "n" * 60
            r = LIBC.prctl(
                0x53564D41,
                0,
                addr,
                4096,
                ctypes.cast(ctypes.c_char_p(name.encode()), ctypes.c_void_p).value,
            )
            if r == 0:
                named += 1
            else:
                failed += 1
                last = err(ctypes.get_errno())
                if failed > 20:
                    break
        say(
            "VmaNames",
            f"{named} named, {failed} refused ({last}) in {time.monotonic() - t:.2f} s; holding",
        )
        self._base = base
        time.sleep(float(os.environ.get("HOLD", "3")))


class CloseFds(Planner):
    """Item 5: a game that, right after its first answer, closes its ends of the game pipes
    (every descriptor from 3 up), so that the worker's next write of a view (or read of an
    answer) would meet a pipe with no reader (EPIPE) or no writer (EOF), which the worker
    takes as its host's end, the machine's fault. ``KEY``: "view" closes only the view
    pipe's read end, "answer" only the answer pipe's write end, anything else both."""

    def decide(self, view):
        if not getattr(self, "_armed", False):
            self._armed = True
            import threading

            what = key()
            fds = []
            for fd in range(3, 64):
                try:
                    flags = os.get_blocking(fd), os.fstat(fd)
                except OSError:
                    continue
                mode = __import__("fcntl").fcntl(fd, 3) & 3  # F_GETFL: O_RDONLY 0, O_WRONLY 1
                if (what == "view" and mode != 0) or (what == "answer" and mode != 1):
                    continue
                del flags
                fds.append(fd)

            def close() -> None:
                time.sleep(0.05)  # after the answer went out
                for fd in fds:
                    os.close(fd)
                say("CloseFds", f"closed {fds}")

            threading.Thread(target=close, daemon=True).start()
        return super().decide(view)
