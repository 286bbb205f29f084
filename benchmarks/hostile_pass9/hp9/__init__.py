# ruff: noqa: E501  (attack code: long report lines; timing loops kept explicit)
"""Hostile strategies of a ninth independent pass on ``--isolate`` (benchmarks/hostile_pass9).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import statistics
import sys
import threading
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
STDLIB = os.path.dirname(os.__file__)  # in the view's copy: one tmpfs every sandbox binds


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _key() -> str:
    """The experiment's name, written by run.sh into the package folder (the sandbox's
    environment is empty): a fresh channel per experiment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip() or "hp9"
    except OSError:
        return "hp9"


KEY = _key()


def hand_bits(hand: list[int]) -> list[int]:
    out = []
    for count in hand:
        c = min(count, 3)
        out += [c >> 1 & 1, c & 1]
    return out


def bits_hand(bits: list[int]) -> list[int]:
    return [bits[2 * k] * 2 + bits[2 * k + 1] for k in range(len(bits) // 2)]


class Once(Planner):
    """Runs ``attack(view)`` once, at the first decision, then plays as a planner."""

    NAME = "Once"

    def attack(self, view) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.attack(view)
            except Exception as exc:
                say(self.NAME, f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)


# ------------------------------------------------- shared futexes on the view's tmpfs pages
SYS_FUTEX = 202
FUTEX_WAIT, FUTEX_WAKE, FUTEX_CMP_REQUEUE = 0, 1, 4  # no FUTEX_PRIVATE_FLAG: keyed by inode
PROT_READ, MAP_PRIVATE = 1, 2
FUTEX_FILE = os.path.join(
    STDLIB, "_pydecimal.py"
)  # any file of the copy; every sandbox maps the same inode
WORDS = 32  # a region: a flag word, then 18 data words, spare


class FutexBoard:
    """A read-only private mapping of a file of the view's copy. A futex word of a page
    never written is keyed by the file's inode and offset, not by the process: a waiter in
    one sandbox is found (counted, woken) by a call from any other that maps the same file,
    read-only."""

    def __init__(self) -> None:
        fd = os.open(FUTEX_FILE, os.O_RDONLY)
        self.size = os.fstat(fd).st_size & ~4095
        self.base = LIBC.mmap(None, self.size, PROT_READ, MAP_PRIVATE, fd, 0)
        os.close(fd)
        if self.base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        start = int(hashlib.sha256(KEY.encode()).hexdigest(), 16) % (self.size // 4 - 4096)
        self.start = start * 4

    def addr(self, region: int, word: int) -> int:
        return self.base + self.start + 4 * (region * WORDS + word)

    def value(self, address: int) -> int:
        return ctypes.c_int.from_address(address).value

    def waiters(self, address: int) -> int:
        """How many tasks (of any sandbox) wait on this word: requeued onto itself, none
        woken, the count returned."""
        n = LIBC.syscall(
            SYS_FUTEX,
            ctypes.c_void_p(address),
            FUTEX_CMP_REQUEUE,
            0,
            ctypes.c_void_p(0x7FFFFFFF),
            ctypes.c_void_p(address),
            self.value(address),
        )
        if n < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return n

    def hold(self, address: int) -> None:
        """A thread waiting on the word for the rest of the game (re-waits if woken)."""

        def wait() -> None:
            v = self.value(address)
            while True:
                LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAIT, v, None, None, 0)

        threading.Thread(target=wait, daemon=True).start()

    def publish(self, region: int, bits: list[int]) -> None:
        self.hold(self.addr(region, 0))
        for b, bit in enumerate(bits):
            if bit:
                self.hold(self.addr(region, 1 + b))
        time.sleep(0.05)  # the threads are waiting

    def read(self, region: int, n: int) -> tuple[int, list[int]]:
        flag = self.waiters(self.addr(region, 0))
        return flag, [min(self.waiters(self.addr(region, 1 + b)), 1) for b in range(n)]


class FutexSelf(Once):
    """The key check within one game: a waiter on one mapping of the file, counted and woken
    through a second, separate mapping of it (so the key is the file's, not the memory's)."""

    NAME = "FutexSelf"

    def attack(self, view):
        a, b = FutexBoard(), FutexBoard()
        w = a.addr(5, 0)
        a.hold(w)
        time.sleep(0.05)
        counted = b.waiters(b.addr(5, 0))
        woken = LIBC.syscall(
            SYS_FUTEX, ctypes.c_void_p(b.addr(5, 0)), FUTEX_WAKE, 0x7FFFFFFF, None, None, 0
        )
        say(
            self.NAME,
            f"seat {view[0]}: mappings at {a.base:#x} and {b.base:#x}; waiters counted through the other mapping {counted}, woken through it {woken}",
        )


class FutexColluder(Planner):
    """Two sandboxes of one game (two labels): at its first decision each takes the first
    region of the board with no waiter on its flag and holds a waiting thread on its flag and
    on each set bit of its opening hand; at each decision it counts the waiters on every
    other region's words, so each reads the other's hand (exact, live, either order)."""

    def decide(self, view):
        step = getattr(self, "_step", 0)
        self._step = step + 1
        try:
            if step == 0:
                self._board = FutexBoard()
                region = 0
                while self._board.waiters(self._board.addr(region, 0)):
                    region += 1
                self._region = region
                hand = [min(c, 3) for c in view[7]]
                self._board.publish(region, hand_bits(hand))
                say("FutexColluder", f"seat {view[0]} publishes its hand {hand} in region {region}")
                self._seen: set[int] = set()
            for region in range(0, 8):
                if region == self._region or region in self._seen:
                    continue
                flag, bits = self._board.read(region, 18)
                if flag:
                    self._seen.add(region)
                    say(
                        "FutexColluder",
                        f"seat {view[0]} (decision {step}) reads region {region}: {bits_hand(bits)} (flag waiters {flag})",
                    )
        except Exception as exc:
            say("FutexColluder", f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)


class FutexHand(Once):
    """Across sandboxes of concurrent games (another worker, another run): reads every
    region that has waiters, then publishes its own hand, held for its whole game."""

    NAME = "FutexHand"

    def attack(self, view):
        board = FutexBoard()
        found = []
        region = 0
        while True:
            flag, bits = board.read(region, 18)
            if not flag:
                break
            found.append((region, bits_hand(bits)))
            region += 1
        hand = [min(c, 3) for c in view[7]]
        board.publish(region, hand_bits(hand))
        say(
            self.NAME, f"seat {view[0]} reads {found}; publishes its hand {hand} in region {region}"
        )


# ------------------------------------------------- the free space of the machine's /dev/shm
PAGE = 4096
SHM_BASE, SHM_STEP = 64, 16  # pages: a symbol s is a stderr of SHM_BASE + SHM_STEP * s pages


def shm_free() -> tuple[int, int]:
    """(free blocks, free inodes) of the tmpfs that holds the view's copy (the machine's
    /dev/shm): the superblock every sandbox binds read-only."""
    s = os.statvfs(STDLIB)
    return s.f_bfree, s.f_ffree


class ShmSend(Once):
    """Writes a symbol (its opening hand's first three counts, 6 bits) as the size of its
    stderr: the host copies a game's stderr into its own stderr file, which lives in the
    machine's /dev/shm, when the game ends; the worker truncates it when it relays it."""

    NAME = "ShmSend"

    def attack(self, view):
        hand = [min(c, 3) for c in view[7]]
        symbol = hand[0] * 16 + hand[1] * 4 + hand[2]
        pages = SHM_BASE + SHM_STEP * symbol
        say(
            self.NAME,
            f"seat {view[0]} sends symbol {symbol} (hand {hand[:3]}): {pages} pages of stderr at its game's end",
        )
        os.write(2, b"x" * (pages * PAGE - 1) + b"\n")


class ShmWatch(Once):
    """Spends most of its first decision (8 s of the 10 s limit) polling the free blocks of
    the view's tmpfs (the machine's /dev/shm), and decodes each release the size of a
    sender's stderr: the worker truncates a host's stderr file in one step, so its pages
    come back between two reads, exactly (the host's copy of it is written in 64 KiB steps)."""

    NAME = "ShmWatch"
    SECONDS = 8.0

    def attack(self, view):
        end = time.monotonic() + self.SECONDS
        first, inodes = shm_free()
        last = first
        jumps, steps, changes = [], 0, 0
        while time.monotonic() < end:
            free = shm_free()[0]
            steps += 1
            if free != last:
                changes += 1
                d = free - last
                if SHM_BASE <= d <= SHM_BASE + SHM_STEP * 63 + 2:
                    k = (d - 1 - SHM_BASE) / SHM_STEP
                    jumps.append(
                        (
                            round(time.monotonic(), 3),
                            d,
                            round(k) if abs(k - round(k)) < 0.01 else None,
                        )
                    )
                last = free
            time.sleep(0.0002)
        say(
            self.NAME,
            f"seat {view[0]}: {steps} reads, {changes} changes in {self.SECONDS} s; free blocks {first} -> {last}, free inodes {inodes}; releases of 64 to 1074 pages (monotonic s, pages, k where pages = 1 + 64 + 16 k): {jumps}",
        )


# ------------------------------------------------- what else a game can read or move
SYS_LISTMOUNT, SYS_STATMOUNT, SYS_SYSLOG = 458, 457, 103
LSMT_ROOT = 0xFFFFFFFFFFFFFFFF
STATMOUNT_SB_BASIC, STATMOUNT_MNT_ROOT, STATMOUNT_MNT_POINT = 0x1, 0x8, 0x10


class MntIdReq(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("spare", ctypes.c_uint32),
        ("mnt_id", ctypes.c_uint64),
        ("param", ctypes.c_uint64),
        ("mnt_ns_id", ctypes.c_uint64),
    ]


def mount_roots() -> list[tuple[str, str, int]]:
    """(mount point, root of the mount in its filesystem, its filesystem's magic) of every mount of its namespace:
    listmount, then statmount (both allowed)."""
    req = MntIdReq(24, 0, LSMT_ROOT, 0, 0)
    ids = (ctypes.c_uint64 * 512)()
    n = LIBC.syscall(SYS_LISTMOUNT, ctypes.byref(req), ids, 512, 0)
    if n < 0:
        raise OSError(ctypes.get_errno(), "listmount")
    out = []
    buf = ctypes.create_string_buffer(1 << 16)
    for mid in ids[:n]:
        r = MntIdReq(24, 0, mid, STATMOUNT_SB_BASIC | STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT, 0)
        if LIBC.syscall(SYS_STATMOUNT, ctypes.byref(r), buf, len(buf), 0) < 0:
            continue
        raw = buf.raw
        root_off, point_off = (
            int.from_bytes(raw[104:108], "little"),
            int.from_bytes(raw[108:112], "little"),
        )

        def text(off: int, raw: bytes = raw) -> str:
            start = 512 + off
            return raw[start : raw.index(b"\0", start)].decode(errors="replace")

        out.append((text(point_off), text(root_off), int.from_bytes(raw[24:32], "little")))
    return out


class Probe9(Once):
    """One line each: what a game can read of the run and the machine, or move."""

    NAME = "Probe9"

    def attack(self, view):
        out = []

        def t(what, fn):
            try:
                out.append(f"{what}: {fn()}")
            except Exception as exc:
                out.append(f"{what}: {type(exc).__name__} {exc}")

        def roots():
            found = mount_roots()
            shown = [r for p, r, _ in found if "cardgame" in r]
            kinds = {}
            for p, _, magic in found:
                kinds.setdefault(hex(magic), []).append(p)
            census = {k: (len(v) if k == "0x1021994" else v) for k, v in kinds.items()}
            return f"{len(found)} mounts; roots naming cardgame: {sorted(set(x.split('/')[1] for x in shown))}; e.g. {[(p, r) for p, r, _ in found if 'guest' in r][:2]}; filesystems (magic: tmpfs 0x1021994 counted, others listed) {census}"

        t("statmount roots", roots)

        def syslog():
            buf = ctypes.create_string_buffer(1 << 14)
            n = LIBC.syscall(SYS_SYSLOG, 3, buf, len(buf))  # SYSLOG_ACTION_READ_ALL
            return n if n >= 0 else os.strerror(ctypes.get_errno())

        t("syslog READ_ALL", syslog)
        t(
            "syslog SIZE_BUFFER",
            lambda: (lambda n: n if n >= 0 else os.strerror(ctypes.get_errno()))(
                LIBC.syscall(SYS_SYSLOG, 10, None, 0)
            ),
        )
        here = os.path.dirname(__file__)
        t(
            "inode of its own code (the machine's /dev/shm counter at its host's start)",
            lambda: os.stat(__file__).st_ino,
        )
        t("inode of os.py in the view", lambda: os.stat(os.__file__).st_ino)
        t(
            "statvfs of its code (free blocks, free inodes of /dev/shm)",
            lambda: (os.statvfs(here).f_bfree, os.statvfs(here).f_ffree),
        )

        def urandom_write():
            with open("/dev/urandom", "wb", buffering=0) as f:
                return f.write(b"hp9" * 100)

        t("write /dev/urandom", urandom_write)
        t("xattrs of os.py", lambda: os.listxattr(os.__file__))

        def ptys():
            fds = []
            try:
                while len(fds) < 40:
                    fds.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
            except OSError as exc:
                return f"{len(fds)} then {exc}"
            finally:
                names = os.listdir("/dev/pts") if os.path.isdir("/dev/pts") else None
                for fd in fds:
                    os.close(fd)
            return f"{len(fds)} opened; /dev/pts then {names}"

        t("ptys", ptys)

        def epoll_watches():
            import select

            eps, files, n = [], [], 0
            try:
                for _ in range(20):
                    files.append(os.open("/dev/urandom", os.O_RDONLY))
                for _ in range(20):
                    eps.append(select.epoll())
                for ep in eps:
                    for fd in files + [e.fileno() for e in eps if e is not ep]:
                        try:
                            ep.register(fd, select.EPOLLIN)
                            n += 1
                        except OSError:
                            pass
                return f"{n} watches with {len(files)} files and {len(eps)} epolls (the machine's root user may hold /proc/sys/fs/epoll/max_user_watches)"
            finally:
                for ep in eps:
                    ep.close()
                for fd in files:
                    os.close(fd)

        t("epoll watches", epoll_watches)

        def rwx():
            mm = LIBC.mmap(None, 4096, 7, 0x22, -1, 0)
            return hex(mm or 0)

        t("anonymous RWX mapping", rwx)

        def sync_time():
            s = time.perf_counter()
            LIBC.sync()
            return f"{(time.perf_counter() - s) * 1000:.1f} ms"

        t("sync()", sync_time)

        def mlock():
            import resource

            mm = LIBC.mmap(None, 1 << 20, 3, 0x22, -1, 0)
            r = LIBC.mlock(ctypes.c_void_p(mm), 1 << 20)
            return f"RLIMIT_MEMLOCK {resource.getrlimit(resource.RLIMIT_MEMLOCK)}; mlock 1 MiB -> {r if r == 0 else os.strerror(ctypes.get_errno())}"

        t("mlock", mlock)

        def adjtimex():
            buf = ctypes.create_string_buffer(256)
            return LIBC.adjtimex(buf)

        t("adjtimex (read)", adjtimex)
        say(self.NAME, f"seat {view[0]}: " + " | ".join(out))


class Honest9(Once):
    """What an honest strategy might use besides Honest8's list: timers of its own, the
    usual helpers that read the machine, a thread pool, numpy with its BLAS threads."""

    NAME = "Honest9"

    def attack(self, view):
        import concurrent.futures
        import platform
        import random
        import secrets
        import signal
        import tempfile
        import uuid

        out = []

        def t(what, fn):
            try:
                out.append(f"{what}: {fn()}")
            except Exception as exc:
                out.append(f"{what}: {type(exc).__name__} {exc}")

        def alarm():
            fired = []
            old = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            time.sleep(0.05)
            signal.signal(signal.SIGALRM, old)
            return f"fired {len(fired)}"

        t("setitimer SIGALRM", alarm)
        t("signal.alarm", lambda: (signal.alarm(0), "ok")[1])
        t(
            "threading.Timer",
            lambda: (lambda tm: (tm.start(), tm.join(), "ok")[2])(
                threading.Timer(0.01, lambda: None)
            ),
        )
        t(
            "ThreadPoolExecutor",
            lambda: sum(concurrent.futures.ThreadPoolExecutor(4).map(lambda x: x * x, range(10))),
        )
        t(
            "ProcessPoolExecutor",
            lambda: sum(concurrent.futures.ProcessPoolExecutor(2).map(abs, range(4))),
        )
        t("os.cpu_count", os.cpu_count)
        t("sched_getaffinity", lambda: len(os.sched_getaffinity(0)))
        t("os.getloadavg", os.getloadavg)
        t("platform.platform", platform.platform)
        t("uuid4", lambda: str(uuid.uuid4())[:8])
        t("secrets", lambda: secrets.token_hex(4))
        t("SystemRandom", lambda: round(random.SystemRandom().random(), 3))
        t(
            "TemporaryDirectory",
            lambda: (lambda d: (os.listdir(d.name), d.cleanup(), "ok")[2])(
                tempfile.TemporaryDirectory()
            ),
        )
        t("disk_usage /tmp", lambda: __import__("shutil").disk_usage("/tmp").total)

        def blas():
            import numpy as np

            a = np.random.default_rng(1).random((400, 400))
            s = time.perf_counter()
            b = a @ a
            return f"{float(b[0, 0]):.3f} in {time.perf_counter() - s:.3f} s; threads {threading.active_count()}"

        t("numpy matmul", blas)
        t("faulthandler", lambda: (__import__("faulthandler").enable(), "ok")[1])
        t(
            "getrusage",
            lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss,
        )
        say(self.NAME, f"seat {view[0]}: " + " | ".join(out))


# ------------------------------------------------- huge pages of the view's tmpfs copy
HUGE = 2 << 20
MADV_COLLAPSE = 25  # allowed: collapses a file's page cache into a huge page, for every mapper
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
# touch one byte a page: mov al,[rdi]; add rdi,4096; dec rsi; jnz; ret
_TOUCH_CODE = bytes.fromhex("8a074881c70010000048ffce75f2c3")
_touch = None


def _toucher():
    global _touch
    if _touch is None:
        mem = LIBC.mmap(None, 4096, 7, 0x22, -1, 0)
        ctypes.memmove(mem, _TOUCH_CODE, len(_TOUCH_CODE))
        _touch = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_long)(mem)
    return _touch


def huge_slots() -> list[tuple[str, int]]:
    """Every 2 MiB region of every file of the view of at least 2 MiB, in one order every
    game computes alike: (path, region)."""
    import numpy

    roots = [
        os.path.dirname(os.__file__),
        os.path.dirname(os.path.dirname(numpy.__file__)),
        "/usr/lib/x86_64-linux-gnu",
        "/lib/x86_64-linux-gnu",
        "/usr/bin",
        "/usr/local/lib",
    ]
    files = set()
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                p = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) >= HUGE:
                        files.add(p)
    for p in (os.path.realpath(sys.executable),):
        if os.path.getsize(p) >= HUGE:
            files.add(p)
    unique = {}
    for p in sorted(files):  # /lib and /usr/lib: one file under two names
        unique.setdefault(os.stat(p).st_ino, p)
    return [(p, k) for p in sorted(unique.values()) for k in range(os.path.getsize(p) // HUGE)]


BLOB = os.path.join(os.path.dirname(__file__), "blob.bin")  # made by run.sh (git-ignored)


def blob_slots() -> list[tuple[str, int]]:
    """The 2 MiB regions of a large file of the strategy's own package: its host copies it
    into its folder in the machine's /dev/shm once, for all its games."""
    return [(BLOB, k) for k in range(os.path.getsize(BLOB) // HUGE)]


def _map_region(path: str, k: int) -> tuple[int, int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        res = LIBC.mmap(None, 2 * HUGE, 0, 0x22, -1, 0)
        a = (res + HUGE - 1) & ~(HUGE - 1)
        got = LIBC.mmap(a, HUGE, PROT_READ, MAP_PRIVATE | 0x10, fd, k * HUGE)
        if got != a:
            raise OSError(ctypes.get_errno(), "mmap fixed")
        return res, a
    finally:
        os.close(fd)


def region_us(path: str, k: int) -> float:
    """Time to fault in a fresh mapping of the region, a byte a page: ~100 us as 4 KiB
    pages, ~8 us once its page cache is one huge page."""
    touch = _toucher()
    times = []
    for _ in range(3):
        res, a = _map_region(path, k)
        s = time.perf_counter_ns()
        touch(a, HUGE // 4096)
        times.append((time.perf_counter_ns() - s) / 1000)
        LIBC.munmap(res, 2 * HUGE)
    return sorted(times)[1]


def collapse(path: str, k: int) -> int:
    res, a = _map_region(path, k)
    r = LIBC.madvise(a, HUGE, MADV_COLLAPSE)
    err = ctypes.get_errno()
    LIBC.munmap(res, 2 * HUGE)
    return 0 if r == 0 else err


HUGE_US = 40.0  # below: a huge page (set)


class HugeLog:
    """A log of entries (a flag, then 18 data bits) over the view's 2 MiB regions, from a
    start the experiment's key picks: a bit is set by collapsing its region into a huge page
    (MADV_COLLAPSE), read by timing a fresh mapping's faults. Reading sets nothing."""

    def __init__(self, bits: int = 18, slots: list[tuple[str, int]] | None = None) -> None:
        self.slots = huge_slots() if slots is None else slots
        self.bits = bits
        self.width = bits + 1
        span = max(1, len(self.slots) - 4 * self.width)
        self.start = int(hashlib.sha256(KEY.encode()).hexdigest(), 16) % span

    def slot(self, entry: int, i: int) -> tuple[str, int]:
        return self.slots[self.start + entry * self.width + i]

    def get(self, entry: int, i: int) -> tuple[int, float]:
        us = region_us(*self.slot(entry, i))
        return (1 if us < HUGE_US else 0), us

    def first_free(self) -> tuple[int, list[float]]:
        flags = []
        entry = 0
        while self.start + (entry + 1) * self.width <= len(self.slots):
            bit, us = self.get(entry, 0)
            flags.append(round(us))
            if not bit:
                return entry, flags
            entry += 1
        return entry, flags  # every entry set: the log is full

    def capacity(self) -> int:
        return (len(self.slots) - self.start) // self.width

    def read(self, entry: int) -> list[int]:
        return [self.get(entry, 1 + b)[0] for b in range(self.bits)]

    def write(self, entry: int, bits: list[int]) -> list[int]:
        errs = [collapse(*self.slot(entry, 1 + b)) for b, bit in enumerate(bits) if bit]
        errs.append(collapse(*self.slot(entry, 0)))
        return [e for e in errs if e]


class HugeScan(Once):
    """How many 2 MiB regions the view has, and how many are huge pages already."""

    NAME = "HugeScan"

    def attack(self, view):
        slots = huge_slots()
        s = time.perf_counter()
        times = [region_us(p, k) for p, k in slots]
        files = sorted({p for p, _ in slots})
        say(
            self.NAME,
            f"seat {view[0]}: {len(slots)} regions of 2 MiB in {len(files)} files ({[os.path.basename(f) for f in files]}); {sum(t < HUGE_US for t in times)} huge now; times us min/median/max {min(times):.0f}/{statistics.median(times):.0f}/{max(times):.0f}; scan {time.perf_counter() - s:.2f} s",
        )


class HugeHand(Once):
    """Seatings-paired studies (and memory across games, hosts and workers): read the
    previous game's opening hand (its first seven counts: the shared view has about 20
    regions here) from the huge-page log, then write its own in the next free entry."""

    NAME = "HugeHand"
    TYPES = 7

    def log(self) -> HugeLog:
        return HugeLog(bits=2 * self.TYPES)

    def attack(self, view):
        t0 = time.perf_counter()
        log = self.log()
        i, flags = log.first_free()
        prev = bits_hand(log.read(i - 1)) if i > 0 else None
        hand = [min(c, 3) for c in view[7]][: self.TYPES]
        errs = log.write(i, hand_bits(hand)) if i < log.capacity() else ["log full"]
        say(
            self.NAME,
            f"seat {view[0]} reads entry {i - 1}: previous game's hand {prev}; writes entry {i}: its hand {hand} (log of {len(log.slots)} regions from {log.start}; flags us {flags[-3:]}; errors {errs}; {time.perf_counter() - t0:.3f} s)",
        )


class HugeMemo(HugeHand):
    """Memory across games of one host: the same log in a large file of its own package
    (blob.bin), which its host copied into the machine's /dev/shm for all its games."""

    NAME = "HugeMemo"
    TYPES = 9

    def log(self) -> HugeLog:
        return HugeLog(bits=2 * self.TYPES, slots=blob_slots())


class HugeCount(Once):
    """Memory across games: the number of entries earlier games set (a unary counter)."""

    NAME = "HugeCount"

    def attack(self, view):
        log = HugeLog(bits=0)
        i, flags = log.first_free()
        errs = log.write(i, []) if i < log.capacity() else ["full"]
        say(
            self.NAME,
            f"seat {view[0]}: games before me {i}; I set entry {i} (flags us {flags}; errors {errs})",
        )
