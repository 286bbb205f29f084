# ruff: noqa: E501, SIM115  (attack code: long report lines, probes that open files inline)
"""Hostile strategies of a seventh independent pass on ``--isolate`` (benchmarks/hostile_pass7).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


# ------------------------------------------------- procfs inode numbers: get_next_ino()
def proc_ino() -> int:
    """A fresh procfs inode: /proc/self/fd/<n> of a descriptor just opened is looked up anew,
    and a pid entry's inode number comes from ``get_next_ino()``, the machine's one counter
    (per-CPU batches of 1024) that pipes, sockets and anonymous inodes also draw from."""
    fd = os.open("/dev/null", os.O_RDONLY)
    try:
        return os.stat(f"/proc/self/fd/{fd}", follow_symlinks=False).st_ino
    finally:
        os.close(fd)
        # a lookup of the closed number drops the cached entry: the next lookup makes a new inode
        with contextlib.suppress(OSError):
            os.stat(f"/proc/self/fd/{fd}", follow_symlinks=False)


def pin(cpu: int) -> bool:
    try:
        os.sched_setaffinity(0, {cpu})
        return True
    except OSError:
        return False


class ProcIno(Planner):
    """Read and move get_next_ino() from a game: stat fresh /proc/self/fd entries."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                out = []
                for cpu in (0, 1):
                    ok = pin(cpu)
                    a = [proc_ino() for _ in range(3)]
                    time.sleep(1)
                    b = proc_ino()
                    t = time.perf_counter()
                    for _ in range(3000):
                        c = proc_ino()
                    dt = time.perf_counter() - t
                    out.append(
                        f"cpu {cpu} (pinned {ok}): inos {a}; after 1 s {b} (+{b - a[-1]}); after 3000 of mine in {dt:.3f} s: {c} (+{c - b})"
                    )
                say("ProcIno", f"seat {view[0]}: " + "; ".join(out))
            except OSError as exc:
                say("ProcIno", f"blocked: {exc}")
        return super().decide(view)


MEMO_MOD = 1024  # the per-CPU batch
MEMO_STEP = 64  # 16 values, 4 bits


class InoMemo(Planner):
    """Memory across games of one host through get_next_ino(): pinned to CPU 0, read the
    residue the previous game left in that CPU's batch, then leave (value + 1) mod 16."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                pin(0)
                n = proc_ino()
                got = (n % MEMO_MOD) // MEMO_STEP
                mine = (got + 1) % (MEMO_MOD // MEMO_STEP)
                target = mine * MEMO_STEP + 8
                k = 0
                while (n % MEMO_MOD) != target and k < 5000:
                    n = proc_ino()
                    k += 1
                say(
                    "InoMemo",
                    f"the previous game left {got} (read residue {n % MEMO_MOD if k == 0 else '-'}); leaving {mine} ({k} inodes, now {n}, residue {n % MEMO_MOD})",
                )
            except OSError as exc:
                say("InoMemo", f"blocked: {exc}")
        return super().decide(view)


# ------------------------------------------------- page cache: a log of regions in cold files
FILES = sorted(glob.glob("/usr/lib/google-cloud-sdk/bin/kubectl.1.*")) + sorted(
    glob.glob("/usr/lib/google-cloud-sdk/bin/[akl]*[a-z]")
)
STRIDE = 1 << 20  # far past any readahead window
BITS = 18  # 9 card types x 2 bits (a count of 0-3; more is clamped)
REGION = BITS + 1  # a flag page, then the data


def _pages():
    for path in FILES:
        size = os.path.getsize(path)
        fd = os.open(path, os.O_RDONLY)
        for off in range(0, size - 4096, STRIDE):
            yield fd, off


class CacheHand(Planner):
    """Set-only page-cache channel for a seatings-paired study: each game reads the flag
    pages of a log of regions (each 19 pages 1 MiB apart in cold shared files) until the
    first cold one; the region before it is the previous game's (its hand, 2 bits a card
    type, read by timing); then it writes its own opening hand in the fresh region by
    reading the pages of its set bits."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self._run(view)
            except OSError as exc:
                say("CacheHand", f"blocked: {exc}")
        return super().decide(view)

    @staticmethod
    def _time(fd: int, off: int) -> float:
        t = time.perf_counter_ns()
        os.pread(fd, 1, off)
        return (time.perf_counter_ns() - t) / 1000

    def _run(self, view):
        pages = list(_pages())
        regions = len(pages) // REGION
        hand = [min(c, 3) for c in view[7]]
        threshold = 20.0  # microseconds: a warm page is ~1-5, a cold one from the disk 50+
        i, flags = 0, []
        while i < regions:
            fd, off = pages[i * REGION]
            us = self._time(fd, off)
            flags.append(round(us, 1))
            if us > threshold:
                break
            i += 1
        if i >= regions:
            say("CacheHand", "no cold region left")
            return
        t0 = time.perf_counter()
        if i > 0:
            base = (i - 1) * REGION + 1
            times = [self._time(*pages[base + b]) for b in range(BITS)]
            bits = [1 if us < threshold else 0 for us in times]
            got = [bits[2 * k] * 2 + bits[2 * k + 1] for k in range(9)]
            say(
                "CacheHand",
                f"seat {view[0]} reads region {i - 1}: previous game's hand {got} (times us {[round(x, 1) for x in times]})",
            )
        base = i * REGION + 1
        for k in range(9):
            for j, bit in enumerate((hand[k] >> 1 & 1, hand[k] & 1)):
                if bit:
                    os.pread(pages[base + 2 * k + j][0], 1, pages[base + 2 * k + j][1])
        say(
            "CacheHand",
            f"seat {view[0]} writes region {i}: its hand {hand} (flags us {flags[-4:]}; {time.perf_counter() - t0:.3f} s; regions {regions})",
        )


# ------------------------------------------------- a wider look at what a game can reach
def _try(what, fn):
    try:
        return f"{what}: {fn()}"
    except Exception as exc:
        return f"{what}: {type(exc).__name__} {exc}"


class Probe7(Planner):
    """What a game sees and leaves: /tmp across games, /dev, mount ids, cpu, inodes."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            out = [
                _try("tmp before", lambda: sorted(os.listdir("/tmp"))[:8]),
                _try("write tmp", lambda: open("/tmp/hp7-left", "w").write("x")),
                _try("dev", lambda: sorted(os.listdir("/dev"))),
                _try("sys", lambda: os.listdir("/sys")[:5]),
                _try("proc", lambda: sorted(os.listdir("/proc"))[:30]),
                _try(
                    "mountinfo ids",
                    lambda: [ln.split()[0] for ln in open("/proc/self/mountinfo")][:6],
                ),
                _try("getcpu", lambda: os.sched_getaffinity(0)),
                _try("self stat starttime", lambda: open("/proc/self/stat").read().split()[21]),
                _try("tmp ino", lambda: os.stat("/tmp").st_ino),
                _try("tmpfile ino", lambda: os.stat("/tmp/hp7-left").st_ino),
                _try("fdinfo 0", lambda: open("/proc/self/fdinfo/0").read().replace("\n", " | ")),
                _try("fdinfo 1", lambda: open("/proc/self/fdinfo/1").read().replace("\n", " | ")),
                _try("getrandom", lambda: os.getrandom(4).hex()),
                _try("uptime(clock_boottime)", lambda: time.clock_gettime(time.CLOCK_BOOTTIME)),
                _try("uname", lambda: os.uname().nodename),
                _try(
                    "mounts",
                    lambda: [
                        (ln.split()[4], ln.split(" - ")[1].split()[0])
                        for ln in open("/proc/self/mountinfo")
                    ],
                ),
                _try(
                    "ptmx",
                    lambda: (
                        lambda fd: (
                            (
                                os.ttyname(fd) if False else os.fstat(fd).st_ino,
                                open(f"/proc/self/fdinfo/{fd}").read().split(),
                            )[1:]
                            and (os.fstat(fd).st_ino, os.readlink(f"/proc/self/fd/{fd}"))
                        )
                    )(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)),
                ),
                _try("task ino", lambda: os.stat(f"/proc/self/task/{os.getpid()}").st_ino),
            ]
            say("Probe7", f"seat {view[0]}: " + "; ".join(out))
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


COL_MOD = 1024  # one CPU's batch of get_next_ino()
COL_STEP = 16  # 64 symbols; up to 11 inodes made by others in between are tolerated


class ProcColluder(Planner):
    """Two sandboxes in one game, both pinned to CPU 0: at each decision read the symbol the
    other colluder left on that CPU's get_next_ino() batch (a card type and its count in its
    opening hand), then leave its own next one, by statting fresh /proc/self/fd entries."""

    def decide(self, view):
        if not hasattr(self, "_hand"):
            self._hand = list(view[7])
            self._k = 0
            self._read: dict[int, list[int]] = {}
            self._ok = pin(0)
            say("ProcColluder", f"seat {view[0]} publishes its hand {self._hand}")
        if self._ok and self._k < 27:
            n = proc_ino()
            symbol = (n % COL_MOD) // COL_STEP
            if symbol < 36 and symbol != getattr(self, "_mine", None):
                self._read.setdefault(symbol // 4, []).append(symbol % 4)
            pos = self._k % 9
            self._k += 1
            mine = pos * 4 + min(self._hand[pos], 3)
            k = 0
            while (n % COL_MOD) != mine * COL_STEP + 2 and k < 2048:
                n = proc_ino()
                k += 1
            self._mine = mine
            if self._k == 27:
                hand = [
                    max(set(v), key=v.count) if (v := self._read.get(i)) else None for i in range(9)
                ]
                say("ProcColluder", f"seat {view[0]} reads the other's hand: {hand}")
        return super().decide(view)
