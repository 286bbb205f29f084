# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of a fifteenth independent pass on ``--isolate`` (benchmarks/hostile_pass15).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MAP_FAILED = ctypes.c_void_p(-1).value
PROT_RWX = 7
MAP_PRIVATE = 2
MAP_ANON_PRIVATE = 0x22

# pass 9's Flush+Reload: a load timed with rdtscp (cycles returned), then clflush of the line
FR_CODE = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)
TOUCH_CODE = bytes.fromhex("8b07c3")  # mov eax, [rdi]; ret


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def exec_page(path: str | None = None) -> int:
    """A private, writable and executable page: a file mapping of the view's own code
    (``os.py`` by default), which the filter lets through (it refuses PROT_EXEC only with
    MAP_ANONYMOUS), and which the view's mount, unlike /tmp, lets be executable."""
    fd = os.open(path or os.__file__, os.O_RDONLY)
    try:
        addr = LIBC.mmap(None, 4096, PROT_RWX, MAP_PRIVATE, fd, 0)
    finally:
        os.close(fd)
    if addr in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return addr


class Once(Planner):
    """A planner that runs ``probe`` once, at its first decision."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe()
            except Exception as exc:  # report what was refused
                say(type(self).__name__, f"probe raised {type(exc).__name__}: {exc}")
        return super().decide(view)

    def probe(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class ExecFile(Once):
    """Class (c): machine code of one's own, in a private RWX mapping of a view file."""

    def probe(self) -> None:
        name = type(self).__name__
        anon = LIBC.mmap(None, 4096, PROT_RWX, MAP_ANON_PRIVATE, -1, 0)
        say(
            name,
            f"anonymous RWX mmap: {'refused ' + os.strerror(ctypes.get_errno()) if anon in (None, MAP_FAILED) else 'ok'}",
        )
        for path in (os.__file__, sys.executable, "/dev/zero", "/tmp/x"):
            try:
                if path == "/tmp/x":
                    with open(path, "wb") as f:
                        f.write(b"\0" * 4096)
                addr = exec_page(path)
            except OSError as exc:
                say(name, f"RWX private mapping of {path}: refused {exc}")
                continue
            ctypes.memmove(addr, FR_CODE, len(FR_CODE))
            ctypes.memmove(addr + 512, TOUCH_CODE, len(TOUCH_CODE))
            probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(addr)
            touch = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(addr + 512)
            buf = ctypes.create_string_buffer(4096)
            line = ctypes.addressof(buf) + 128
            misses, hits = [], []
            for _ in range(2000):
                probe(line)  # flushed
                misses.append(probe(line))  # timed after a flush: a miss
                touch(line)
                hits.append(probe(line))  # timed after a load: a hit
            misses.sort()
            hits.sort()
            say(
                name,
                f"RWX private mapping of {path}: ran own code (rdtscp, clflush): median cycles after a flush {misses[1000]}, after a load {hits[1000]}",
            )


# ------------------------------------------------------------------ pass 14's cache channels, on exec_page
class _Line:
    """A cache line of a file of the shared copy, with a timed probe and a touch."""

    def __init__(self) -> None:
        LIBC.mmap.restype = ctypes.c_void_p
        LIBC.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        code = exec_page()  # RWX, private: a file mapping of the view (anonymous RWX is refused)
        ctypes.memmove(code, FR_CODE, len(FR_CODE))
        ctypes.memmove(code + 512, bytes.fromhex("8b07c3"), 3)
        self.probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(code)
        self.touch = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(code + 512)
        fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
        base = LIBC.mmap(None, 196608, 1, 2, fd, 0)  # read-only, private: the copy's own pages
        self.addr = base + 8192 + 64 * 9

    def threshold(self) -> float:
        """Below this process's own misses (flushed lines): a line another core loaded is
        served from the shared cache, faster than memory but slower than a hit of its own."""
        miss = []
        for _ in range(4000):
            self.probe(self.addr)
            miss.append(self.probe(self.addr))
        miss.sort()
        return miss[len(miss) // 20] - 10


SECONDS_NS = 7_500_000_000  # each seat's first decision: within the 10-s limit
SLOT_NS = 25_000_000  # one half-bit; the two seats' clocks are the machine's one clock
BITS = 16  # the first four colour counts of an opening hand, 4 bits each (capped at 15)


def _bits(hand) -> list[int]:
    out = []
    for count in hand[:4]:
        out += [min(count, 15) >> k & 1 for k in range(4)]
    return out


class CacheTalk(Planner):
    """Two sandboxes at once: games paired by seatings and played at the same time by two
    workers (``cachetalk.toml``: batches of one game, ``--workers 2``). Seat 0 (the pair's
    first game) sends its opening hand for 7.5 s at its first decision: each bit in two
    slots (Manchester), the line touched in a loop in a "1" half, left alone in a "0"
    half, slot i of the frame at wall-clock slot s with s % 32 == i. Seat 1 (the second
    game, whose rival holds that hand) times the line for 7.5 s at its first decision and
    reads each bit from which half had more fast loads."""

    NAME = "CacheTalk"

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._line = None

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self._line = _Line()
                if view.seat == 0:
                    bits = _bits(view.hand)
                    say(
                        self.NAME,
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in view.hand[:4]]} (bits {bits})",
                    )
                    self._send(bits)
                else:
                    self._receive(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def _send(self, bits: list[int]) -> None:
        with _quiet():
            os.sched_setaffinity(0, {0})
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        line, addr = self._line, self._line.addr
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            if frame[now // SLOT_NS % len(frame)]:
                for _ in range(200):
                    line.touch(addr)
            else:
                time.sleep(0.002)

    def _receive(self, view) -> None:
        with _quiet():
            os.sched_setaffinity(0, {1})
        line, addr = self._line, self._line.addr
        n = 2 * BITS
        hist = [[0] * 32 for _ in range(n)]  # probe times in 16-cycle buckets, per half-slot
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            hist[now // SLOT_NS % n][min(line.probe(addr) >> 4, 31)] += 1
        best = None
        for cut in range(8, 24):  # "fast": below cut * 16 cycles; the cut that separates best
            rate = [sum(h[:cut]) / max(sum(h), 1) for h in hist]
            margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(BITS))
            if best is None or margin > best[0]:
                best = (margin, cut, rate)
        margin, cut, rate = best
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(BITS)]
        counts = [sum(bits[4 * c + k] << k for k in range(4)) for c in range(4)]
        say(
            self.NAME,
            f"seat 1 own hand {list(view.hand)}; {sum(map(sum, hist))} probes, fast below {cut * 16} cycles; "
            f"fast-load rates per half-slot {[round(r, 3) for r in rate]}; "
            f"read the pair game's seat-0 (its rival's) first four counts: {counts} (smallest margin {margin:.3f})",
        )


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


class CacheNote(Planner):
    """Two colluding seats of one game (two sandboxes), taking turns: a cache line's state
    outlives the decision that set it. At the end of each of its decisions a seat leaves
    its opening hand's first four counts (16 bits) in 16 lines of 16 pages of the shared
    copy (a line loaded for 1, flushed for 0), plus a reference pair (one loaded, one
    flushed); at the start of each decision it times one load of each of its rival's lines
    (and flushes them) and votes each bit against the reference pair's midpoint. Nothing
    runs while the rival decides: it is meant for steady decisions, where a seat's process
    is stopped but while it decides."""

    NAME = "CacheNote"
    PAGES = 20  # 16 bits and 2 references, one line a page (no prefetch across pages)

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._line = None
        self._votes = [[0, 0] for _ in range(BITS)]
        self._rounds = 0

    def _lines(self, seat: int) -> list[int]:
        base = self._line.addr - (8192 + 64 * 9)  # the mapping's start
        first = 2 + seat * (self.PAGES + 2)
        return [base + (first + k) * 4096 + 64 * 5 for k in range(BITS + 2)]

    def decide(self, view):
        try:
            if self._line is None:
                self._line = _Line()
            probe, touch = self._line.probe, self._line.touch
            rival = self._lines(1 - view.seat)
            for a in rival:  # the pages' TLB entries warm, by a line 2 KiB away on each
                touch(a + 2048)
            probe(self._line.addr)  # the probe's own code and path warm
            times = [probe(a) for a in rival]
            hot, cold = times[BITS], times[BITS + 1]
            if cold > hot + 40:  # a reference pair that separates: the rival wrote this turn
                cut = (hot + cold) / 2
                self._rounds += 1
                for k in range(BITS):
                    self._votes[k][1 if times[k] < cut else 0] += 1
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        action = super().decide(view)
        try:
            own = self._lines(view.seat)
            bits = _bits(view_hand := self._hand0(view))
            for k, a in enumerate(own[:BITS]):
                (touch if bits[k] else probe)(a)
            touch(own[BITS])
            probe(own[BITS + 1])
            if view.final_round and not getattr(self, "_said", False) and self._rounds >= 5:
                self._said = True
                read = [1 if v[1] > v[0] else 0 for v in self._votes]
                counts = [sum(read[4 * c + k] << k for k in range(4)) for c in range(4)]
                weak = sum(1 for v in self._votes if min(v) * 3 > max(v))
                say(
                    self.NAME,
                    f"seat {view.seat} own first four counts {[min(c, 15) for c in view_hand[:4]]}; read the rival's: {counts} ({self._rounds} turns read, {weak} weak bits)",
                )
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action

    def _hand0(self, view):
        if not hasattr(self, "_opening"):
            self._opening = tuple(view.hand)
        return self._opening


class CacheNoteB(CacheNote):
    """The same, under a second name (a second label, so a second host and sandbox)."""


# ------------------------------------------------------------------ (b) steady decisions
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_DONTNEED, MADV_POPULATE_WRITE = 4, 23


class StopLoad(Planner):
    """Steady decisions stop a guest's process once its seat has answered, but a stop lands
    only when a thread returns to user space: a thread inside one long call (``madvise``'s
    MADV_POPULATE_WRITE over a large region, allowed; the kernel looks only for a fatal
    signal there) runs on through the rival's decision. Just before each answer, THREADS
    threads each give back and fill again BLOCK bytes. What it tries: the rival's decisions, slowed past a short limit, fail the
    rival's seat."""

    THREADS = int(os.environ.get("HP15_THREADS", "8"))
    BLOCK = int(os.environ.get("HP15_MIB", "48")) << 20
    EVERY = 3  # every third answer: the fills end before its own next decisions

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._blocks = [
            LIBC.mmap(None, self.BLOCK, 3, MAP_ANON_PRIVATE, -1, 0) for _ in range(self.THREADS)
        ]
        self._turns = 0

    def _fill(self, addr: int) -> None:
        LIBC.madvise(addr, self.BLOCK, MADV_DONTNEED)
        LIBC.madvise(addr, self.BLOCK, MADV_POPULATE_WRITE)

    def decide(self, view):
        action = super().decide(view)
        self._turns += 1
        if self._turns == 1:
            say("StopLoad", f"seat {view.seat}: first answer")
        if self._turns % self.EVERY:
            return action
        for addr in self._blocks:
            threading.Thread(target=self._fill, args=(addr,), daemon=True).start()
        if self._turns == self.EVERY:
            say(
                "StopLoad",
                f"seat {view.seat}: {self.THREADS} fills of {self.BLOCK >> 20} MiB started at each answer",
            )
        return action


class Plain(Planner):
    """An honest planner in a sandbox: the control of StopLoad."""


# ------------------------------------------------------------------ (f) honest strategies
class Honest15(Once):
    """What an honest strategy uses: numpy, threads, tempfile, shelve, dbm, sqlite3."""

    def probe(self) -> None:
        import concurrent.futures
        import dbm
        import shelve
        import shutil
        import sqlite3
        import tempfile

        import numpy as np

        name = "Honest15"

        def check(what, call):
            try:
                say(name, f"{what}: ok {call()!r}"[:200])
            except Exception as exc:
                say(name, f"{what}: FAILED {type(exc).__name__} {exc}"[:200])

        m = np.random.default_rng(1).random((200, 200))
        check(
            "numpy solve/svd",
            lambda: round(float(np.linalg.solve(m, m.sum(1)).sum() + np.linalg.svd(m)[1][0]), 3),
        )
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            check("threads", lambda: sum(pool.map(lambda x: x * x, range(100))))
        d = tempfile.mkdtemp()

        def shelf():
            with shelve.open(os.path.join(d, "s")) as s:
                s["k"] = [1, 2]
            with shelve.open(os.path.join(d, "s")) as s:
                return s["k"]

        def db():
            with dbm.open(os.path.join(d, "d"), "c") as s:
                s[b"k"] = b"v"
                return s[b"k"]

        def sql():
            con = sqlite3.connect(":memory:")
            con.execute("create table t(x)")
            con.executemany("insert into t values (?)", [(i,) for i in range(100)])
            return con.execute("select sum(x) from t").fetchone()[0]

        def sql_file():
            con = sqlite3.connect(os.path.join(d, "a.db"))
            con.execute("create table t(x)")
            return con.execute("select count(*) from t").fetchone()[0]

        def copy():
            with open(os.path.join(d, "f"), "w") as f:
                f.write("x")
            return shutil.copy(os.path.join(d, "f"), os.path.join(d, "g"))

        check(
            "tempfile",
            lambda: tempfile.NamedTemporaryFile().name.startswith(tempfile.gettempdir()),  # noqa: SIM115
        )
        check("shelve", shelf)
        check("dbm", db)
        check("sqlite3 memory", sql)
        check("sqlite3 file", sql_file)
        check("shutil.copy", copy)


# ------------------------------------------------------------------ (a) the zygote and the leader
class ZygoteProbe(Planner):
    """What a game's process inherits that an earlier game of its host could have moved:
    its descriptors (type, inode, size), its resource usage (max RSS, faults), its heap's
    top, the count of live objects, each fd's position; and what it leaves: 300 MiB touched
    and 200 threads' worth of stacks asked for, so that the next game sees whether any
    number moved."""

    def __init__(self, rng, knobs=None):
        import gc
        import resource
        import stat as st

        fds = {}
        for fd in range(0, 64):
            try:
                s = os.fstat(fd)
            except OSError:
                continue
            kind = "pipe" if st.S_ISFIFO(s.st_mode) else "chr" if st.S_ISCHR(s.st_mode) else "file"
            try:
                pos = os.lseek(fd, 0, os.SEEK_CUR)
            except OSError:
                pos = None
            fds[fd] = (kind, s.st_ino, s.st_size, pos)
        ru = resource.getrusage(resource.RUSAGE_SELF)
        LIBC.sbrk.restype = ctypes.c_void_p
        say(
            "ZygoteProbe",
            f"pid {os.getpid()} ppid {os.getppid()}; fds {fds}; maxrss {ru.ru_maxrss} minflt {ru.ru_minflt} "
            f"children maxrss {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}; objects {len(gc.get_objects())}; "
            f"modules {len(sys.modules)}; cpu {time.process_time():.3f}; threads {threading.active_count()}",
        )
        super().__init__(rng, knobs)
        big = bytearray(300 << 20)
        for i in range(0, len(big), 4096):
            big[i] = 1


class StopLoadNone(StopLoad):
    """StopLoad that never fills: its blocks mapped, nothing started (a control)."""

    EVERY = 10**9


class StopLoad2(Planner):
    """StopLoad without starting threads in a decision (a thread's start waits on a futex,
    which the filter answers EAGAIN, so it spins): THREADS threads started in the
    constructor poll a turn counter with ``time.sleep`` (no futex); at each answer the
    decision bumps it and waits 5 ms, so that every thread is inside its ``madvise`` fill
    when the answer leaves and the stop is sent."""

    THREADS = 8
    BLOCK = 32 << 20

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._turn = 0
        self._fills = 0
        self._started = 0

    def _loop(self, addr: int) -> None:
        seen = 0
        while True:
            time.sleep(0.001)
            if self._turn != seen:
                seen = self._turn
                LIBC.madvise(addr, self.BLOCK, MADV_DONTNEED)
                LIBC.madvise(addr, self.BLOCK, MADV_POPULATE_WRITE)
                self._fills += 1

    def decide(self, view):
        action = super().decide(view)
        if self._turn == 1:
            say(
                "StopLoad2",
                f"seat {view.seat}: {self.THREADS} fills of {self.BLOCK >> 20} MiB at each answer",
            )
        self._turn += 1
        time.sleep(0.005)
        return action


class StopLoad3(StopLoad2):
    """StopLoad2 with 8 fills of 96 MiB (768 MiB, under the 1-GiB address space)."""

    BLOCK = 96 << 20


class ExecOwnFile(Once):
    """(c) without a writable executable page: the strategy's own folder is in the view, so
    a file it ships (``fr.bin``: pass 9's code at 0, a load at 512) mapped read+exec, never
    writable, runs as code."""

    def probe(self) -> None:
        path = os.path.join(os.path.dirname(__file__), "fr.bin")
        fd = os.open(path, os.O_RDONLY)
        addr = LIBC.mmap(None, 4096, 5, MAP_PRIVATE, fd, 0)  # PROT_READ | PROT_EXEC
        os.close(fd)
        if addr in (None, MAP_FAILED):
            say(
                "ExecOwnFile",
                f"read+exec mapping of {path}: refused {os.strerror(ctypes.get_errno())}",
            )
            return
        probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(addr)
        touch = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(addr + 512)
        buf = ctypes.create_string_buffer(4096)
        line = ctypes.addressof(buf) + 128
        misses, hits = [], []
        for _ in range(2000):
            probe(line)
            misses.append(probe(line))
            touch(line)
            hits.append(probe(line))
        misses.sort()
        hits.sort()
        say(
            "ExecOwnFile",
            f"read+exec mapping of {path} (shipped with the strategy): ran it: median cycles after a flush {misses[1000]}, after a load {hits[1000]}",
        )


# ------------------------------------------------------------------ (e) the one protocol
from cardgame import actions as A  # noqa: E402


class Bad(Planner):
    """Answers ``bad(view)`` at its first keep (pass 14's ``Bad``)."""

    def decide(self, view):
        keep = view.phase in (A.Phase.SETUP_KEEP, A.Phase.KEEP_DRAWN)
        if keep and not getattr(self, "_done", False):
            self._done = True
            return self.bad(view)
        return super().decide(view)

    def bad(self, view):  # pragma: no cover - overridden
        raise NotImplementedError


BAD = {
    # past SHAPE_ITEMS (64), all of one valid id: the message may list every id
    "BadKeep100": lambda v: A.KeepDestinations(tuple([v.offer_ids[0]] * 100)),
    # 64 ids, then valid ones, then a word far past the cut
    "BadKeepLate": lambda v: A.KeepDestinations((*tuple([v.offer_ids[0]] * 70), "x")),
    # 64 ids, then a nested tuple, then a word
    "BadKeepNest": lambda v: A.KeepDestinations((*tuple([v.offer_ids[0]] * 64), (1, 2), "x")),
    # 64 ids, then a bool
    "BadKeepBool": lambda v: A.KeepDestinations((*tuple([v.offer_ids[0]] * 64), True)),
    # 64 ids, then two different bad items: which one is named
    "BadKeepTwo": lambda v: A.KeepDestinations((*tuple([v.offer_ids[0]] * 64), 1.5, "x")),
    # 200 distinct out-of-range ids
    "BadKeepRange": lambda v: A.KeepDestinations(tuple(range(1000, 1200))),
}
for _name, _make in BAD.items():
    globals()[_name] = type(_name, (Bad,), {"bad": lambda self, view, m=_make: m(view)})


# ------------------------------------------------------------------ (a) the next game's leader
class ThreadHog(Planner):
    """Holds every task its sandbox allows (threads asleep) until its game is ended, so that
    its tasks are still being torn down when the zygote forks the next game's leader (a
    failed fork there would be the machine's: the game replayed, then voided)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        n = 0
        threading.stack_size(64 * 1024)
        try:
            for _ in range(80):
                threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
                n += 1
        except RuntimeError as exc:
            say("ThreadHog", f"{n} threads, then {exc}")


class OwnLib(Once):
    """(c) a shared library shipped with the strategy (``own.so``, built from ``own.c``),
    loaded with ``ctypes.CDLL``: the view's mount of the strategy's folder lets it map as code."""

    def probe(self) -> None:
        lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "own.so"))
        lib.probe.restype = ctypes.c_uint64
        lib.probe.argtypes = [ctypes.c_void_p]
        buf = ctypes.create_string_buffer(4096)
        line = ctypes.addressof(buf) + 128
        misses = []
        for _ in range(2000):
            lib.probe(line)
            misses.append(lib.probe(line))
        misses.sort()
        say(
            "OwnLib",
            f"own.so loaded and run: median cycles of a load after its clflush {misses[1000]}; of a load of a cached line {sorted(lib.probe(ctypes.addressof(buf)) for _ in range(3))}",
        )
