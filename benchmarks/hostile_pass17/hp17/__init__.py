# ruff: noqa: E501, SIM105, SIM115  (attack code: long report lines, probes)
"""Hostile strategies of a seventeenth independent pass on ``--isolate`` (benchmarks/hostile_pass17).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import os
import stat
import sys
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
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MAP_FAILED = ctypes.c_void_p(-1).value
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_PRIVATE = 2

# pass 9's Flush+Reload: a load timed with rdtscp (cycles returned), then clflush of the line
FR_CODE = bytes.fromhex(
    "0faef00f01f94989c04989d10faee88b070faee80f01f948c1e2204809d049c1e1204d09c84c29c00fae3fc3"
)
TOUCH_CODE = bytes.fromhex("8b07c3")  # mov eax, [rdi]; ret
CODE_AT = 1 << 20  # where the code goes in the stderr file: past the 4 KiB the run shows


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def err() -> str:
    return os.strerror(ctypes.get_errno())


def memfd_code(fd: int = 2, offset: int = CODE_AT) -> int:
    """Machine code of one's own, read+exec: the game's stderr is a memory file its host
    made (``memfd_create``, read+write, dup2'd onto 1 and 2), on the kernel's internal
    tmpfs, which no ``noexec`` covers (``vm.memfd_noexec`` 0). Write the code into it with
    ``pwrite`` and map that page ``PROT_READ|PROT_EXEC``, private: never writable, never
    anonymous, so the filter lets it through."""
    page = bytearray(4096)
    page[0 : len(FR_CODE)] = FR_CODE
    page[512 : 512 + len(TOUCH_CODE)] = TOUCH_CODE
    os.pwrite(fd, bytes(page), offset)
    addr = LIBC.mmap(None, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, offset)
    if addr in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), err())
    return addr


def fr_pair(code: int):
    probe = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(code)
    touch = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(code + 512)
    return probe, touch


def fr_medians(probe, touch, line: int, rounds: int = 2000) -> tuple[int, int]:
    misses, hits = [], []
    for _ in range(rounds):
        probe(line)
        misses.append(probe(line))
        touch(line)
        hits.append(probe(line))
    misses.sort()
    hits.sort()
    return misses[rounds // 2], hits[rounds // 2]


class Once(Planner):
    """A planner that runs ``probe`` once, at its first decision."""

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self.probe(view)
            except Exception as exc:  # report what was refused
                say(type(self).__name__, f"probe raised {type(exc).__name__}: {exc}")
        return super().decide(view)

    def probe(self, view) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class MemfdExec(Once):
    """Item 1: machine code of one's own, through the stderr memory file (``memfd_code``)."""

    def probe(self, view) -> None:
        name = type(self).__name__
        for fd in (0, 1, 2):
            try:
                st = os.fstat(fd)
                flags = os.get_blocking(fd), LIBC.fcntl(fd, 3)
                say(
                    name,
                    f"fd {fd}: mode {stat.filemode(st.st_mode)} ino {st.st_ino} size {st.st_size} fl {flags[1]:o}",
                )
            except OSError as exc:
                say(name, f"fd {fd}: {exc}")
        try:
            code = memfd_code()
        except OSError as exc:
            say(name, f"read+exec mapping of its stderr file: refused {exc}")
            return
        probe, touch = fr_pair(code)
        buf = ctypes.create_string_buffer(4096)
        miss, hit = fr_medians(probe, touch, ctypes.addressof(buf) + 128)
        say(
            name,
            f"read+exec private mapping of its stderr memfd (fd 2): ran own code (rdtscp, clflush): median cycles after a flush {miss}, after a load {hit}",
        )
        # the mapping is live: the file's page cache, so a later pwrite changes the code
        os.pwrite(2, b"\xb8\x2a\x00\x00\x00\xc3", CODE_AT + 1024)  # mov eax, 42; ret
        f = ctypes.CFUNCTYPE(ctypes.c_uint32)(code + 1024)
        say(name, f"code written after the mapping ran too: returned {f()}")


class Plain(Planner):
    """An honest planner in a sandbox: a control."""


# ------------------------------------------------------------------ pass 14/15's CacheTalk, on memfd_code
class _Line:
    """A cache line of a file of the shared copy, with a timed probe and a touch (own code
    from ``memfd_code``)."""

    def __init__(self) -> None:
        self.probe, self.touch = fr_pair(memfd_code())
        fd = os.open(os.path.join(os.path.dirname(os.__file__), "_pydecimal.py"), os.O_RDONLY)
        base = LIBC.mmap(None, 196608, PROT_READ, MAP_PRIVATE, fd, 0)  # the copy's own pages
        os.close(fd)
        self.addr = base + 8192 + 64 * 9


SECONDS_NS = 7_500_000_000  # each seat's first decision: within the 10-s limit
SLOT_NS = 25_000_000  # one half-bit; the two seats' clocks are the machine's one clock
BITS = 16  # the first four colour counts of an opening hand, 4 bits each (capped at 15)


def _bits(hand) -> list[int]:
    out = []
    for count in hand[:4]:
        out += [min(count, 15) >> k & 1 for k in range(4)]
    return out


class CacheTalk(Planner):
    """Pass 15's CacheTalk, its code page now ``memfd_code``: two seatings-paired games
    played at once by two workers (``cachetalk.toml``); seat 0 sends its opening hand's
    first four counts through one line of the shared copy (Flush+Reload, Manchester slots
    of the machine's clock) at its first decision, seat 1 (whose rival holds that hand in
    the pair game) reads them."""

    NAME = "CacheTalk"

    def decide(self, view):
        if not getattr(self, "_done", False):
            self._done = True
            try:
                self._line = _Line()
                if view.seat == 0:
                    bits = _bits(view.hand)
                    say(
                        self.NAME,
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in view.hand[:4]]}",
                    )
                    self._send(bits)
                else:
                    self._receive(view)
            except Exception as exc:
                say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return super().decide(view)

    def _send(self, bits: list[int]) -> None:
        try:
            os.sched_setaffinity(0, {0})
        except OSError:
            pass
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
        try:
            os.sched_setaffinity(0, {1})
        except OSError:
            pass
        line, addr = self._line, self._line.addr
        n = 2 * BITS
        hist = [[0] * 32 for _ in range(n)]
        end = time.time_ns() + SECONDS_NS
        while (now := time.time_ns()) < end:
            hist[now // SLOT_NS % n][min(line.probe(addr) >> 4, 31)] += 1
        best = None
        for cut in range(8, 24):
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
            f"read the pair game's seat-0 (its rival's) first four counts: {counts} (smallest margin {margin:.3f})",
        )


# ------------------------------------------------------------------ item 1: memory outside every limit
LIBC.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
HOG_GIB = int(os.environ.get("HP17_GIB", "3"))


class MemfdHog(Once):
    """Item 1 (limits on memory): the stderr memory file lives on the kernel's internal
    tmpfs, which has no size, and ``fallocate`` with FALLOC_FL_KEEP_SIZE does not check the
    file-size limit (the size stays put). So HOG_GIB GiB of the machine's memory, outside
    the 1-GiB address-space limit and outside the game's RSS, held for a moment and given
    back (a hole punched) so as not to hurt the shared machine."""

    def probe(self, view) -> None:
        name = type(self).__name__
        import resource

        say(
            name,
            f"RLIMIT_AS {resource.getrlimit(resource.RLIMIT_AS)}, RLIMIT_FSIZE {resource.getrlimit(resource.RLIMIT_FSIZE)}",
        )
        want = HOG_GIB << 30
        t = time.monotonic()
        rc = LIBC.fallocate(2, FALLOC_FL_KEEP_SIZE, 1 << 24, want)
        took = time.monotonic() - t
        st = os.fstat(2)
        say(
            name,
            f"fallocate(stderr, KEEP_SIZE, 16 MiB, {HOG_GIB} GiB) -> {rc} {err() if rc else ''} in {took:.2f} s; st_size {st.st_size}, st_blocks*512 = {st.st_blocks * 512 / 2**30:.2f} GiB",
        )
        big = bytearray(600 << 20)  # and its own address space besides
        say(name, f"plus {len(big) >> 20} MiB in its own heap: both held at once")
        del big
        rc = LIBC.fallocate(2, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1 << 24, want)
        st = os.fstat(2)
        say(name, f"hole punched -> {rc}; st_blocks*512 now {st.st_blocks * 512 / 2**20:.1f} MiB")


# ------------------------------------------------------------------ honest strategies
def _check(name: str, what: str, call) -> None:
    try:
        say(name, f"{what}: ok {call()!r}"[:220])
    except BaseException as exc:
        say(name, f"{what}: FAILED {type(exc).__name__} {exc}"[:220])


def _threads_left(most: int = 80) -> int:
    import threading

    gate = threading.Event()
    started = []
    try:
        while len(started) < most:
            t = threading.Thread(target=gate.wait)
            t.start()
            started.append(t)
    except RuntimeError:
        pass
    gate.set()
    for t in started:
        t.join()
    return len(started)


class Honest17(Once):
    """Item (f): the usual standard modules an honest strategy may use."""

    def probe(self, view) -> None:
        name = "Honest17"
        import asyncio
        import mmap
        import secrets
        import signal
        import tempfile
        import uuid

        _check(name, "asyncio.run", lambda: asyncio.run(asyncio.sleep(0, result=7)))
        _check(
            name,
            "mmap.mmap(-1, 4096) (anonymous, the default MAP_SHARED)",
            lambda: len(mmap.mmap(-1, 4096)),
        )
        _check(
            name,
            "mmap.mmap(-1, 4096, flags=MAP_PRIVATE)",
            lambda: len(mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)),
        )
        _check(
            name,
            "secrets/uuid4/SystemRandom",
            lambda: (len(secrets.token_hex(8)), uuid.uuid4().version),
        )
        _check(
            name,
            "os.cpu_count, sched_getaffinity",
            lambda: (os.cpu_count(), len(os.sched_getaffinity(0))),
        )

        def alarm():
            hit = []
            signal.signal(signal.SIGALRM, lambda *a: hit.append(1))
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            time.sleep(0.05)
            return hit

        _check(name, "setitimer + SIGALRM handler", alarm)
        _check(name, "tempfile.TemporaryFile", lambda: tempfile.TemporaryFile().write(b"x"))

        def numpy_file():
            import numpy as np

            path = os.path.join(tempfile.mkdtemp(), "a.npy")
            np.save(path, np.arange(10))
            m = np.load(path, mmap_mode="r")
            return int(m.sum())

        _check(name, "np.load(mmap_mode='r')", numpy_file)

        def numpy_memmap():
            import numpy as np

            path = os.path.join(tempfile.mkdtemp(), "m.dat")
            m = np.memmap(path, dtype="int64", mode="w+", shape=(10,))
            m[:] = 1
            return int(m.sum())

        _check(name, "np.memmap(mode='w+')", numpy_memmap)

        def faulthandler_on():
            import faulthandler

            faulthandler.enable()
            return faulthandler.is_enabled()

        _check(name, "faulthandler.enable", faulthandler_on)

        def thread_pool():
            from multiprocessing.pool import ThreadPool

            with ThreadPool(4) as pool:
                return sum(pool.map(abs, range(-10, 10)))

        _check(name, "multiprocessing.pool.ThreadPool(4)", thread_pool)

        def dummy_pool():
            import multiprocessing.dummy

            with multiprocessing.dummy.Pool(2) as pool:
                return pool.map(abs, [-1, -2])

        _check(name, "multiprocessing.dummy.Pool(2)", dummy_pool)

        def selector():
            import selectors

            with selectors.DefaultSelector() as sel:
                return type(sel).__name__

        _check(name, "selectors.DefaultSelector", selector)
        _check(name, "os.pipe", os.pipe)

        def mlock():
            import resource

            return resource.getrlimit(resource.RLIMIT_MEMLOCK)

        _check(name, "RLIMIT_MEMLOCK", mlock)


class BlasStep(Planner):
    """Item (f): numpy's BLAS after the strategy has started threads until refused and
    joined them. ``KEY``: OpenBLAS's thread count (2, this machine's own, is left as
    numpy's import set it; 16 stands for a 16-core machine), with a trailing ``a`` first
    ``mallopt(M_ARENA_MAX, 2)`` (the suggested fix). A watchdog thread names the step after
    8 s and ends the process (a failed seat's stderr is not shown otherwise)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import glob
        import threading

        try:
            with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
                key = f.read().strip()
        except OSError:
            key = "2"
        arenas = key.endswith("a")
        blas = int(key.rstrip("a") or 2) if key.rstrip("a").isdigit() else 2
        step = ["start"]

        def watch():
            time.sleep(8)
            say("BlasStep", f"KEY={key}: stuck at {step[0]!r} after 8 s")
            os._exit(3)

        threading.Thread(target=watch, daemon=True).start()
        if arenas:
            LIBC.mallopt(-8, 2)  # M_ARENA_MAX
        step[0] = "import numpy"
        import numpy as np

        libs = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
        lib = ctypes.CDLL(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so"))[0])
        before = lib.scipy_openblas_get_num_threads64_()
        if blas != before:
            step[0] = f"set_num_threads({blas}) from {before}"
            lib.scipy_openblas_set_num_threads64_(ctypes.c_int(blas))
        got = lib.scipy_openblas_get_num_threads64_()
        step[0] = f"threads_left (BLAS threads {got})"
        first = _threads_left()
        step[0] = f"matmul 300 after {first} threads (BLAS threads {got})"
        a = np.ones((300, 300))
        float((a @ a).sum())
        step[0] = "threads_left 2"
        left = _threads_left()
        step[0] = f"matmul 1500 after {left} threads (BLAS threads {got})"
        a = np.ones((1500, 1500))
        float((a @ a).sum())
        step[0] = "done"
        say(
            "BlasStep",
            f"KEY={key}: every step done (BLAS threads {got}, M_ARENA_MAX 2: {arenas}); threads started until refused: {first}, then {left}",
        )


def _param(default: int) -> int:
    """A number handed in through hp17/key.txt (run.sh's KEY): the sandbox clears the
    environment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return default


class PoolBlas(Planner):
    """Item (f): an honest pattern. K worker threads (a ThreadPoolExecutor, each summing a
    small numpy array), the pool shut down, then one matrix product in the decision's
    own thread. A watchdog thread names the step after 8 s and ends the process."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import concurrent.futures
        import threading

        import numpy as np

        k = _param(8)
        step = ["start"]

        def watch():
            time.sleep(8)
            say("PoolBlas", f"K={k}: stuck at {step[0]!r} after 8 s")
            os._exit(3)

        threading.Thread(target=watch, daemon=True).start()
        step[0] = f"a pool of {k}"
        with concurrent.futures.ThreadPoolExecutor(k) as pool:
            sums = list(pool.map(lambda i: float(np.arange(1000.0).sum() + i), range(4 * k)))
        step[0] = "matmul 300 after the pool"
        a = np.ones((300, 300))
        t = time.monotonic()
        float((a @ a).sum())
        say(
            "PoolBlas",
            f"K={k}: pool ({len(sums)} sums) then matmul 300: ok in {time.monotonic() - t:.3f} s",
        )
        step[0] = "done"


# ------------------------------------------------------------------ CacheTalk under steady decisions
WINDOW_S = 0.38  # of each 0.5-s steady decision
READS = 60  # the receiver's decisions before it reads (or its final round's first)


class CacheTalkSteady(Planner):
    """CacheTalk under steady decisions, two workers (``cachetalk-steady.toml``): a guest
    runs only while its own seat decides, so the sender (seat 0 of one game) sends its
    opening hand's first four counts through the line in every one of its decisions, and
    the receiver (seat 1 of the paired game) listens in every one of its own, keeping per
    half-slot histograms across decisions: whatever part of their windows meets carries
    the bits. After READS decisions the receiver reads (a seat that fails loses its stderr)."""

    NAME = "CacheTalkSteady"

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self._line = None
        self._opening = None
        self._n = 0
        self._hist = [[0] * 32 for _ in range(2 * BITS)]

    def decide(self, view):
        start = time.monotonic()
        action = super().decide(view)
        self._n += 1
        try:
            if self._line is None:
                self._line = _Line()
                self._opening = tuple(view.hand)
            end = start + WINDOW_S
            if view.seat == 0:
                self._send(_bits(self._opening), end)
                if self._n == 1:
                    say(
                        self.NAME,
                        f"seat 0 sends its hand's first four counts {[min(c, 15) for c in self._opening[:4]]}",
                    )
            elif not getattr(self, "_said", False):
                self._listen(end)
                if self._n >= READS or view.final_round:
                    self._said = True
                    self._read(view)
        except Exception as exc:
            say(self.NAME, f"failed: {type(exc).__name__} {exc}")
        return action

    def _send(self, bits, end) -> None:
        frame = [h for b in bits for h in ((1, 0) if b else (0, 1))]
        touch, addr = self._line.touch, self._line.addr
        while time.monotonic() < end:
            if frame[time.time_ns() // SLOT_NS % len(frame)]:
                for _ in range(200):
                    touch(addr)
            else:
                time.sleep(0.002)

    def _listen(self, end) -> None:
        probe, addr, hist = self._line.probe, self._line.addr, self._hist
        n = 2 * BITS
        while time.monotonic() < end:
            hist[time.time_ns() // SLOT_NS % n][min(probe(addr) >> 4, 31)] += 1

    def _read(self, view) -> None:
        best = None
        for cut in range(8, 24):
            rate = [sum(h[:cut]) / max(sum(h), 1) for h in self._hist]
            margin = min(abs(rate[2 * k] - rate[2 * k + 1]) for k in range(BITS))
            if best is None or margin > best[0]:
                best = (margin, cut, rate)
        margin, cut, rate = best
        bits = [1 if rate[2 * k] > rate[2 * k + 1] else 0 for k in range(BITS)]
        counts = [sum(bits[4 * c + k] << k for k in range(4)) for c in range(4)]
        say(
            self.NAME,
            f"seat 1 own hand {list(self._opening)}; {sum(map(sum, self._hist))} probes in {self._n} decisions, fast below {cut * 16} cycles; "
            f"read the pair game's seat-0 (its rival's) first four counts: {counts} (smallest margin {margin:.3f})",
        )


class SayRaise(Planner):
    """Whether a guest's stderr is shown when its seat fails: a line at its first decision,
    an exception at its third."""

    def decide(self, view):
        self._n = getattr(self, "_n", 0) + 1
        if self._n == 1:
            say("SayRaise", f"seat {view.seat}: a line before the failure")
        if self._n == 3:
            raise RuntimeError("a strategy's own error")
        return super().decide(view)


class BlasCores(Planner):
    """Item (f): numpy as on a machine of K cores (``KEY``), where OpenBLAS starts K-1
    threads at import (at most 63 here: MAX_THREADS 64) and gives each a buffer at the first
    product that uses them. This machine has 2 cores, so the count is set after the import
    through OpenBLAS's own ``openblas_set_num_threads``, which starts the same threads.
    A watchdog names the step after 8 s and ends the process (a failed seat's stderr is
    not shown otherwise)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import glob
        import threading

        import numpy as np

        k = _param(16)
        step = ["start"]

        def watch():
            time.sleep(8)
            say("BlasCores", f"K={k}: stuck at {step[0]!r} after 8 s")
            os._exit(3)

        threading.Thread(target=watch, daemon=True).start()
        libs = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
        lib = ctypes.CDLL(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so"))[0])
        step[0] = f"set_num_threads({k})"
        lib.scipy_openblas_set_num_threads64_(ctypes.c_int(k))
        got = lib.scipy_openblas_get_num_threads64_()
        for n in (200, 800, 1500):
            step[0] = f"matmul {n} with {got} BLAS threads"
            a = np.ones((n, n))
            t = time.monotonic()
            float((a @ a).sum())
            say("BlasCores", f"K={k}: {step[0]}: ok in {time.monotonic() - t:.2f} s")
        step[0] = "done"


class Priority(Once):
    """Item 5: a game's scheduling: real-time classes and niceness (RLIMIT_RTPRIO and
    RLIMIT_NICE decide without a capability), SCHED_IDLE/BATCH, affinity."""

    def probe(self, view) -> None:
        import resource

        name = "Priority"
        say(
            name,
            f"RLIMIT_RTPRIO {resource.getrlimit(resource.RLIMIT_RTPRIO)}, RLIMIT_NICE {resource.getrlimit(resource.RLIMIT_NICE)}, nice {os.getpriority(os.PRIO_PROCESS, 0)}",
        )
        for what, call in (
            ("SCHED_FIFO 1", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))),
            ("SCHED_RR 1", lambda: os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))),
            ("nice -5", lambda: os.setpriority(os.PRIO_PROCESS, 0, -5)),
            ("SCHED_BATCH", lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))),
            (
                "SCHED_OTHER back",
                lambda: os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0)),
            ),
        ):
            try:
                call()
                say(name, f"{what}: ok (policy now {os.sched_getscheduler(0)})")
            except OSError as exc:
                say(name, f"{what}: {exc}")
