# ruff: noqa: E501  (attack code: long report lines)
"""Hostile strategies of a tenth independent pass on ``--isolate`` (benchmarks/hostile_pass10).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import hashlib
import os
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
SYS_FUTEX, SYS_SET_ROBUST_LIST, SYS_GETTID = 202, 273, 186
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # no FUTEX_PRIVATE_FLAG: a file page's word is keyed by its inode
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_PRIVATE, MAP_ANONYMOUS = 2, 0x20
ETIMEDOUT, EAGAIN = 110, 11
M_ARENA_MAX = -8


def few_arenas() -> None:
    """One malloc arena and small stacks: each thread's own arena reserves 64 MiB of the
    game's 1 GiB of address space (ThreadMax: 12 idle threads at once with numpy)."""
    LIBC.mallopt(M_ARENA_MAX, 1)
    threading.stack_size(1 << 18)


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _key() -> str:
    """The experiment's name, written by run.sh into the package folder: a fresh channel."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip() or "hp10"
    except OSError:
        return "hp10"


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


# ------------------------------------------ shared wakes at a thread's exit (robust list)
def _board_file() -> str:
    """A binary file of the view's copy (every sandbox maps the same tmpfs inode)."""
    import numpy._core._multiarray_umath as m

    return m.__file__


class RobustHead(ctypes.Structure):
    _fields_ = [
        ("list", ctypes.c_void_p),
        ("futex_offset", ctypes.c_long),
        ("pending", ctypes.c_void_p),
    ]


_HEADS: list[RobustHead] = []  # kept alive: the kernel reads them when each thread exits


def robust_wake(address: int) -> int:
    """A thread that names ``address`` as its robust list's pending lock and exits: the
    kernel, at its exit, finds the word's owner 0 and wakes one waiter with a SHARED wake
    (``handle_futex_death``), keyed by the file's inode: no futex call of ours at all."""
    head = RobustHead()
    head.list = ctypes.addressof(head)  # empty list
    head.futex_offset = 0
    head.pending = address
    _HEADS.append(head)
    out = []

    def run() -> None:
        out.append(
            LIBC.syscall(
                SYS_SET_ROBUST_LIST, ctypes.c_void_p(ctypes.addressof(head)), ctypes.c_size_t(24)
            )
        )

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out[0] if out else -999


# raw clone(CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|CHILD_CLEARTID, stack, 0, ctid, 0): the
# child exits at once; the kernel writes 0 to ctid (fails: read-only) and wakes it shared
_CLONE_CODE = bytes.fromhex("4989cab8380000000f0585c07509b83c00000031ff0f05c3")
CLEARTID_FLAGS = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x200000


def _raw_clone():
    page = LIBC.mmap(
        None, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0
    )
    if page in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap rwx")
    ctypes.memmove(page, _CLONE_CODE, len(_CLONE_CODE))
    fn = ctypes.CFUNCTYPE(
        ctypes.c_long,
        ctypes.c_ulong,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
    )(page)
    stack = ctypes.create_string_buffer(1 << 16)
    _HEADS.append(stack)  # type: ignore[arg-type]
    top = (ctypes.addressof(stack) + (1 << 16) - 64) & ~15
    return lambda ctid: fn(CLEARTID_FLAGS, top, None, ctid, None)


class Board:
    """A read-only private mapping of a binary file of the copy, and a key-chosen run of
    words whose value is 0 (a robust pending lock with no owner)."""

    def __init__(self, n: int = 256) -> None:
        path = _board_file()
        fd = os.open(path, os.O_RDONLY)
        size = os.fstat(fd).st_size & ~4095
        self.base = LIBC.mmap(None, size, PROT_READ, MAP_PRIVATE, fd, 0)
        os.close(fd)
        if self.base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        data = ctypes.string_at(self.base, size)
        start = int(hashlib.sha256(KEY.encode()).hexdigest(), 16) % (size // 2) & ~3
        self.words = []
        off = start
        while len(self.words) < n and off + 4 <= size:
            if data[off : off + 4] == b"\0\0\0\0":
                self.words.append(self.base + off)
                off += 64  # one word a cache line: distinct keys anyway
            else:
                off += 4
        self.path = path

    def wait(self, address: int, seconds: float) -> int:
        """One shared wait: 0 woken, else the errno (ETIMEDOUT)."""
        ts = (ctypes.c_long * 2)(int(seconds), int(seconds % 1 * 1e9))
        r = LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAIT, 0, ts, None, 0)
        return 0 if r == 0 else ctypes.get_errno()


class Inbox:
    """Waiter threads on a region's words (a flag, then bits), each re-waiting when woken:
    the set of words woken so far is what another sandbox sent."""

    def __init__(self, board: Board, region: int, n: int) -> None:
        self.board, self.woken, self.lock = board, set(), threading.Lock()
        self.words = board.words[region * 32 : region * 32 + 1 + n]
        for k, w in enumerate(self.words):
            threading.Thread(target=self._hold, args=(k, w), daemon=True).start()
        time.sleep(0.05)

    def _hold(self, k: int, w: int) -> None:
        while True:
            if self.board.wait(w, 3600) == 0:
                with self.lock:
                    self.woken.add(k)

    def read(self, n: int) -> list[int] | None:
        with self.lock:
            if 0 not in self.woken:
                return None
            return [1 if 1 + b in self.woken else 0 for b in range(n)]


def send(board: Board, region: int, bits: list[int], wake) -> None:
    """The set bits first, then the flag (each a thread's exit, in order)."""
    base = board.words[region * 32 : region * 32 + 1 + len(bits)]
    for b, bit in enumerate(bits):
        if bit:
            wake(base[1 + b])
    wake(base[0])


class RobustSelf(Once):
    """Within one game: a waiter on one mapping of the file woken by a thread's exit whose
    robust list names the same word in a second, separate mapping (the key is the file's);
    then the same through a raw clone's CLEARTID. Both timed, 20 rounds each."""

    NAME = "RobustSelf"

    def attack(self, view):
        a, b = Board(64), Board(64)
        clone = _raw_clone()
        for label, wake in (("robust list", robust_wake), ("raw clone CLEARTID", clone)):
            got, lat = 0, []
            for k in range(20):
                w = a.words[k]
                res: list[int] = []
                t = threading.Thread(target=lambda w=w, res=res: res.append(a.wait(w, 2.0)))
                t.start()
                time.sleep(0.02)
                t0 = time.perf_counter()
                r = wake(b.words[k])
                t.join()
                lat.append(time.perf_counter() - t0)
                got += res[0] == 0
            say(
                self.NAME,
                f"seat {view.seat}: {label}: waiter woken through the other mapping {got} of 20 (last call returned {r}); median {sorted(lat)[10] * 1e3:.2f} ms a wake",
            )


class RobustColluder(Planner):
    """Two sandboxes of one game (two labels): seat s listens on region s of the board;
    at each of its first decisions it sends its opening hand to every other seat's region by
    thread exits (robust list), and reads what reached its own inbox."""

    WAKE = staticmethod(robust_wake)
    NAME = "RobustColluder"

    def decide(self, view):
        step = getattr(self, "_step", 0)
        self._step = step + 1
        try:
            if step == 0:
                few_arenas()
                self._board = Board(256)
                self._inbox = Inbox(self._board, view.seat, 18)
                self._hand = [min(c, 3) for c in view.hand]
                self._read = False
                say(
                    self.NAME,
                    f"seat {view.seat} listens on region {view.seat}; its hand {self._hand}",
                )
            if step < 12:
                for other in range(view.players):
                    if other != view.seat:
                        send(self._board, other, hand_bits(self._hand), self.WAKE)
            if not self._read:
                bits = self._inbox.read(18)
                if bits is not None and getattr(self, "_flag_at", None) is None:
                    self._flag_at = step  # read at the next decision: every bit has landed
                elif bits is not None:
                    self._read = True
                    say(
                        self.NAME,
                        f"seat {view.seat} (decision {step}) reads from its inbox: {bits_hand(bits)}",
                    )
        except Exception as exc:
            say(self.NAME, f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)


class CleartidColluder(RobustColluder):
    """The same through raw clones' CLEARTID (the docs' open residual)."""

    NAME = "CleartidColluder"

    def decide(self, view):
        if not hasattr(self, "_clone"):
            try:
                self._clone = _raw_clone()
            except Exception as exc:
                say(self.NAME, f"blocked: {type(exc).__name__} {exc}")
                self._clone = lambda ctid: -1
            self.WAKE = self._clone
        return super().decide(view)


class RobustHand(Once):
    """Across sandboxes of concurrent games (another worker, another run): publish a
    game's hand to any listener on region 0, then listen on region 0 itself for 5 s."""

    NAME = "RobustHand"

    def attack(self, view):
        few_arenas()
        board = Board(64)
        hand = [min(c, 3) for c in view.hand]
        send(board, 0, hand_bits(hand), robust_wake)
        say(self.NAME, f"seat {view.seat} sends its hand {hand} to region 0, then listens 5 s")
        inbox = Inbox(board, 0, 18)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            bits = inbox.read(18)
            if bits is not None:
                say(self.NAME, f"seat {view.seat} reads {bits_hand(bits)}")
                return
            time.sleep(0.05)
        say(self.NAME, f"seat {view.seat} read nothing in 5 s")


class Honest10(Once):
    """What an honest strategy does: numpy (linalg, random), threads and pools, tempfile
    and the usual standard modules; one line a check."""

    NAME = "Honest10"

    def attack(self, view):
        import concurrent.futures
        import importlib
        import tempfile

        def check(label, fn):
            t0 = time.perf_counter()
            try:
                out = fn()
                say(self.NAME, f"ok {label}: {out} ({(time.perf_counter() - t0) * 1e3:.1f} ms)")
            except BaseException as exc:
                say(self.NAME, f"FAILS {label}: {type(exc).__name__} {exc}")

        def linalg():
            import numpy as np

            rng = np.random.default_rng(1)
            a = rng.standard_normal((200, 200))
            b = rng.standard_normal(200)
            x = np.linalg.solve(a, b)
            w = np.linalg.eigvals(a[:50, :50])
            s = np.linalg.svd(a[:80, :80], compute_uv=False)
            q, _r = np.linalg.qr(a[:60, :60])
            return f"solve residual {np.abs(a @ x - b).max():.1e}, inv det {np.linalg.det(np.linalg.inv(a[:20, :20])):.3g}, eig {len(w)}, svd max {s[0]:.3g}, qr {q.shape}, lstsq {np.linalg.lstsq(a[:, :5], b, rcond=None)[0].shape}"

        def nprandom():
            import numpy as np

            g = np.random.Generator(np.random.PCG64(7))
            return f"{g.integers(0, 100, 3).tolist()} {np.random.default_rng(3).permutation(5).tolist()} legacy {np.random.RandomState(2).randint(0, 9, 3).tolist()} choice {g.choice(10, 3, replace=False).tolist()}"

        def threads():
            out = []
            ts = [threading.Thread(target=lambda k=k: out.append(k * k)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return sorted(out)

        def pool():
            with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
                return list(ex.map(lambda k: sum(range(k * 10000)), range(6)))[-1]

        def tmp():
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, "x.bin")
                with open(p, "wb") as f:
                    f.write(os.urandom(1 << 20))
                with tempfile.NamedTemporaryFile() as g:
                    g.write(b"abc")
                    g.flush()
                    return f"{os.path.getsize(p)} bytes in {d}; named {g.name}"

        def modules():
            names = "json collections itertools functools dataclasses statistics fractions decimal heapq bisect math re hashlib pickle copy typing enum random struct array queue sqlite3 csv io zlib gzip bz2 lzma base64 datetime zoneinfo shelve dbm textwrap operator contextlib abc weakref secrets uuid multiprocessing ctypes numpy.fft numpy.polynomial".split()
            bad = []
            for n in names:
                try:
                    importlib.import_module(n)
                except BaseException as exc:
                    bad.append(f"{n}: {type(exc).__name__}")
            return f"{len(names) - len(bad)} of {len(names)} import; failing {bad}"

        def stdrandom():
            import random
            import statistics

            r = random.Random(5)
            return f"{r.random():.4f} {r.sample(range(10), 3)} mean {statistics.mean([1, 2, 3, 4])} sysrand {random.SystemRandom().randint(0, 1) in (0, 1)}"

        def sqlite():
            import sqlite3

            c = sqlite3.connect(":memory:")
            c.execute("create table t(x)")
            c.executemany("insert into t values (?)", [(k,) for k in range(100)])
            return c.execute("select sum(x) from t").fetchone()[0]

        def mp_queue():
            import queue

            q: queue.Queue[int] = queue.Queue()
            threading.Thread(target=lambda: q.put(42)).start()
            return q.get(timeout=2)

        for label, fn in (
            ("numpy linalg", linalg),
            ("numpy random", nprandom),
            ("threads", threads),
            ("ThreadPoolExecutor", pool),
            ("tempfile", tmp),
            ("modules", modules),
            ("random/statistics", stdrandom),
            ("sqlite3 :memory:", sqlite),
            ("queue between threads", mp_queue),
        ):
            check(label, fn)


class RobustCount(Once):
    """How many robust-list wake threads in a row a game can start (a debugging probe)."""

    NAME = "RobustCount"

    def attack(self, view):
        b = Board(64)
        ok, err = 0, ""
        t0 = time.perf_counter()
        for k in range(200):
            try:
                robust_wake(b.words[k % 64])
                ok += 1
            except Exception as exc:
                err = f"{type(exc).__name__} {exc} at {k}"
                break
        say(
            self.NAME,
            f"{ok} wake threads in {time.perf_counter() - t0:.2f} s; {err}; active {threading.active_count()}",
        )
        time.sleep(1)
        try:
            robust_wake(b.words[0])
            say(self.NAME, "after 1 s: one more thread starts")
        except Exception as exc:
            say(self.NAME, f"after 1 s: {type(exc).__name__} {exc}")


class ThreadMax(Once):
    """How many idle threads a game holds at once, with numpy imported: the default stack
    size (8 MiB of address space each), then 256 KiB."""

    NAME = "ThreadMax"
    NUMPY = True

    def attack(self, view):
        if self.NUMPY:
            import numpy  # noqa: F401
        say(
            self.NAME,
            f"numpy imported: {'numpy' in sys.modules}; active threads {threading.active_count()}",
        )

        for size, arenas in ((0, 0), (1 << 18, 0), (1 << 18, 1)):
            if arenas:
                LIBC.mallopt(M_ARENA_MAX, arenas)
            threading.stack_size(size)
            stop = threading.Event()
            n, err = 0, ""
            while n < 100:
                try:
                    threading.Thread(target=stop.wait, daemon=True).start()
                    n += 1
                except Exception as exc:
                    err = f"{type(exc).__name__} {exc}"
                    break
            stop.set()
            time.sleep(0.2)
            say(
                self.NAME,
                f"stack size {size or 'default'}, arenas {arenas or 'default'}: {n} threads at once, then {err or 'no refusal'}",
            )
        threading.stack_size(0)


class ThreadMaxPlain(ThreadMax):
    """ThreadMax without importing numpy itself."""

    NAME = "ThreadMaxPlain"
    NUMPY = False


class Probe10(Once):
    """Other calls on the shared copy and the machine: times and statx fields of a copy file
    after reading it, sendfile / copy_file_range / splice, mremap, MAP_LOCKED and
    MAP_POPULATE on the copy, mlock, NUMA calls (mbind, move_pages, migrate_pages),
    membarrier, sched_setaffinity, setpriority, ioprio_set."""

    NAME = "Probe10"

    def attack(self, view):
        def call(label, *args):
            r = LIBC.syscall(*args)
            e = ctypes.get_errno() if r < 0 else 0
            say(self.NAME, f"{label}: {r} {os.strerror(e) if e else ''}")
            return r

        path = _board_file()
        st = os.stat(path)
        with open(path, "rb") as f:
            f.read(1 << 20)
        st2 = os.stat(path)
        say(
            self.NAME,
            f"stat of the copy's {os.path.basename(path)}: atime {st.st_atime_ns} -> {st2.st_atime_ns}, ctime {st.st_ctime_ns} -> {st2.st_ctime_ns}, ino {st.st_ino}, nlink {st.st_nlink}, dev {st.st_dev}",
        )
        src = os.open(path, os.O_RDONLY)
        dst = os.open(
            "/tmp/game/copy.bin" if os.path.isdir("/tmp/game") else "/tmp/copy.bin",
            os.O_RDWR | os.O_CREAT,
            0o600,
        )
        for label, fn in (
            ("sendfile copy->tmp", lambda: os.sendfile(dst, src, 0, 65536)),
            ("copy_file_range copy->tmp", lambda: os.copy_file_range(src, dst, 65536, 0, 0)),
            ("splice copy->tmp", lambda: os.splice(src, dst, 4096, 0, 0)),
        ):
            try:
                say(self.NAME, f"{label}: {fn()}")
            except Exception as exc:
                say(self.NAME, f"{label}: {type(exc).__name__} {exc}")
        size = os.fstat(src).st_size & ~4095
        for label, flags in (
            ("MAP_PRIVATE|MAP_POPULATE", MAP_PRIVATE | 0x8000),
            ("MAP_PRIVATE|MAP_LOCKED", MAP_PRIVATE | 0x2000),
        ):
            a = LIBC.mmap(None, 1 << 20, PROT_READ, flags, src, 0)
            say(
                self.NAME,
                f"mmap of the copy {label}: {'refused ' + os.strerror(ctypes.get_errno()) if a in (None, ctypes.c_void_p(-1).value) else 'mapped'}",
            )
        a = LIBC.mmap(None, 1 << 20, PROT_READ, MAP_PRIVATE, src, 0)
        LIBC.mremap.restype = ctypes.c_void_p
        m = LIBC.mremap(ctypes.c_void_p(a), ctypes.c_size_t(1 << 20), ctypes.c_size_t(2 << 20), 1)
        say(
            self.NAME,
            f"mremap of the copy's mapping 1 -> 2 MiB: {'refused' if m in (None, ctypes.c_void_p(-1).value) else 'moved/grown'} (file {size} bytes)",
        )
        call("mlock 1 MiB of the copy's mapping", 149, ctypes.c_void_p(a), 1 << 20)
        nodemask = ctypes.c_ulong(1)
        call(
            "mbind MPOL_BIND node 0 with MPOL_MF_MOVE on the copy's pages",
            237,
            ctypes.c_void_p(a),
            1 << 20,
            2,
            ctypes.byref(nodemask),
            64,
            2,
        )
        call("migrate_pages of itself", 256, 0, 64, ctypes.byref(nodemask), ctypes.byref(nodemask))
        pages = (ctypes.c_void_p * 1)(a)
        status = (ctypes.c_int * 1)()
        call("move_pages (query node of a copy page)", 279, 0, 1, pages, None, status, 0)
        say(self.NAME, f"  node of that page: {status[0]}")
        call("membarrier QUERY", 324, 0, 0)
        t0 = time.perf_counter()
        call("membarrier GLOBAL (synchronize_rcu of the machine)", 324, 1, 0)
        say(self.NAME, f"  took {(time.perf_counter() - t0) * 1e3:.2f} ms")
        call("setpriority(self, 19)", 141, 0, 0, 19)
        call("ioprio_set(self, idle)", 251, 1, 0, 3 << 13)
        mask = ctypes.c_ulong(1)
        call("sched_setaffinity(self, cpu 0)", 203, 0, 8, ctypes.byref(mask))
        call("set_mempolicy MPOL_BIND node 0", 238, 2, ctypes.byref(nodemask), 64)
        call("get_mempolicy", 239, None, None, 0, None, 0)
        buf = ctypes.create_string_buffer(64)
        call("getcpu", 309, ctypes.byref(buf), None, None)
