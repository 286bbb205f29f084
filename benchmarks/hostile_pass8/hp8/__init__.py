# ruff: noqa: E501, SIM102, SIM105  (attack code: long report lines; timing loops kept explicit)
"""Hostile strategies of an eighth independent pass on ``--isolate`` (benchmarks/hostile_pass8).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import statistics
import sys
import time

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _try(what, fn):
    try:
        return f"{what}: {fn()}"
    except Exception as exc:
        return f"{what}: {type(exc).__name__} {exc}"


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


# ------------------------------------------------- negative dentries: the shared dcache
STDLIB = os.path.dirname(os.__file__)  # a folder every sandbox binds from the same disk


def _stat_us(path: str) -> float:
    t = time.perf_counter_ns()
    try:
        os.stat(path)
    except OSError:
        pass
    return (time.perf_counter_ns() - t) / 1000


def dent_threshold(tag: str) -> tuple[float, float, float]:
    """(cold median, warm median, threshold) of lookups of names no one ever looked up
    (a fresh tag) and of the same names again (now negative dentries)."""
    names = [f"{STDLIB}/hp8cal-{tag}-{i}" for i in range(40)]
    cold = [_stat_us(n) for n in names]
    warm = [_stat_us(n) for n in names]
    c, w = statistics.median(cold), statistics.median(warm)
    return c, w, (c + w) / 2


REPLICAS = 5  # names a bit: the majority of their lookups, each against a fresh name's


class DentLog:
    """A log of regions of names in a shared read-only folder: a region's flag, then its
    data bits; a name looked up once is a negative dentry of the machine's one dcache, and a
    later lookup of it (from any sandbox) is about twice as fast. Each replica's lookup is
    timed against a lookup of a name never used just before it (drift in the machine's
    speed cancels)."""

    def __init__(self, key: str, bits: int) -> None:
        self.key, self.bits = key, bits
        self.threshold = dent_threshold(os.urandom(6).hex())
        self.fresh = f"{STDLIB}/.hp8fresh-{os.urandom(6).hex()}-"
        self.k = 0
        spin = time.perf_counter() + 0.02  # the core at speed before timing
        while time.perf_counter() < spin:
            pass

    def name(self, region: int, slot: str, r: int) -> str:
        return f"{STDLIB}/.{self.key}-{region}-{slot}-{r}"

    def read(self, region: int, slot: str) -> tuple[int, float]:
        votes, ratios = 0, []
        for r in range(REPLICAS):
            self.k += 1
            a = _stat_us(self.fresh + str(self.k))
            b = _stat_us(self.name(region, slot, r))
            ratios.append(b / a)
            votes += b < 0.7 * a
        return (1 if 2 * votes > REPLICAS else 0), statistics.median(ratios)

    def set(self, region: int, slot: str) -> None:
        for r in range(REPLICAS):
            _stat_us(self.name(region, slot, r))

    def first_free(self, limit: int = 100000) -> tuple[int, list[float]]:
        """The first region whose flag was never read (reading a flag sets it)."""
        flags = []
        for i in range(limit):
            used, us = self.read(i, "f")
            flags.append(round(us, 1))
            if not used:
                return i, flags
        return limit, flags

    def read_data(self, region: int) -> tuple[list[int], list[float]]:
        got = [self.read(region, f"d{b}") for b in range(self.bits)]
        return [g[0] for g in got], [round(g[1], 1) for g in got]

    def write_data(self, region: int, bits: list[int]) -> None:
        for b, bit in enumerate(bits):
            if bit:
                self.set(region, f"d{b}")


def hand_bits(hand: list[int]) -> list[int]:
    out = []
    for count in hand:
        c = min(count, 3)
        out += [c >> 1 & 1, c & 1]
    return out


def bits_hand(bits: list[int]) -> list[int]:
    return [bits[2 * k] * 2 + bits[2 * k + 1] for k in range(len(bits) // 2)]


def _key() -> str:
    """The log's name, written by run.sh into the package folder (bound read-only in the
    sandbox, whose environment is empty): a fresh log per experiment."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "key.txt")) as f:
            return f.read().strip() or "hp8dent"
    except OSError:
        return "hp8dent"


DENT_KEY = _key()


class DentHand(Once):
    """Seatings-paired studies (and memory across games): read the previous game's opening
    hand from the dentry log, then write its own in the next fresh region."""

    NAME = "DentHand"

    def attack(self, view):
        t0 = time.perf_counter()
        log = DentLog(DENT_KEY, 18)
        i, flags = log.first_free()
        prev = None
        if i > 0:
            bits, _ = log.read_data(i - 1)
            prev = bits_hand(bits)
        hand = [min(c, 3) for c in view[7]]
        log.write_data(i, hand_bits(hand))
        say(
            "DentHand",
            f"seat {view[0]} reads region {i - 1}: previous game's hand {prev}; writes region {i}: its hand {hand} "
            f"(calibration cold/warm/threshold us {[round(x, 2) for x in log.threshold]}; last flags {flags[-3:]}; {time.perf_counter() - t0:.3f} s)",
        )


class DentColluder(Planner):
    """Two sandboxes of one game (two labels, seats in turn order): at its first decision
    each takes the first fresh region of the log and writes its opening hand there; the
    later mover reads the earlier's region then, the earlier mover at its next decision."""

    def decide(self, view):
        step = getattr(self, "_step", 0)
        self._step = step + 1
        try:
            if step == 0:
                self._log = DentLog(DENT_KEY + "-c", 18)
                i, _ = self._log.first_free()
                self._region = i
                hand = [min(c, 3) for c in view[7]]
                self._log.write_data(i, hand_bits(hand))
                say("DentColluder", f"seat {view[0]} publishes its hand {hand} in region {i}")
                if i > 0:
                    bits, _ = self._log.read_data(i - 1)
                    say(
                        "DentColluder",
                        f"seat {view[0]} reads region {i - 1} (an earlier mover's): {bits_hand(bits)}",
                    )
            elif step == 1:
                # the next region's flag is set only if a later mover took it (checking it
                # sets it: a later mover's check just wastes that region)
                if self._log.read(self._region + 1, "f")[0]:
                    bits, _ = self._log.read_data(self._region + 1)
                    say(
                        "DentColluder",
                        f"seat {view[0]} reads region {self._region + 1} (a later mover's): {bits_hand(bits)}",
                    )
        except Exception as exc:
            say("DentColluder", f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)


class DentCount(Once):
    """Memory across games: each game reads the counter the previous one left (a unary
    count of regions) and leaves it plus one."""

    NAME = "DentCount"

    def attack(self, view):
        log = DentLog(DENT_KEY + "-n", 0)
        i, flags = log.first_free()
        say(
            "DentCount",
            f"seat {view[0]}: games before me (regions used) {i}; I leave {i + 1} (flags us {flags[-3:]})",
        )


# ------------------------------------------------- page cache: every file a game can read
SKIP = ("/proc", "/dev", "/tmp", "/sys")


def shown_files() -> list[str]:
    out = []
    for folder, names, files in os.walk("/"):
        if folder == "/":
            names[:] = [n for n in names if "/" + n not in SKIP]
        for f in files:
            p = os.path.join(folder, f)
            with contextlib.suppress(OSError):
                if os.path.isfile(p) and not os.path.islink(p):
                    out.append(p)
    return sorted(set(out))


def _pread_us(fd: int, off: int) -> float:
    t = time.perf_counter_ns()
    os.pread(fd, 1, off)
    return (time.perf_counter_ns() - t) / 1000


COLD_US = 25.0  # a read from the disk; a cached page is 1-5 us


class PageScan(Once):
    """Every page of every file the game can read, one timed one-byte pread each, in a
    shuffled order (so that a read is a random read: no read-ahead hides the cold pages
    around it): how many reads are clearly cold, by file."""

    NAME = "PageScan"

    def attack(self, view):
        import random

        t0 = time.perf_counter()
        files = shown_files()
        pages = []
        for p in files:
            with contextlib.suppress(OSError):
                pages += [(p, off) for off in range(0, os.path.getsize(p), 4096)]
        random.Random(0).shuffle(pages)
        cold = clear = 0
        by_file: dict[str, int] = {}
        slow: list[float] = []
        for p, off in pages:
            try:
                fd = os.open(p, os.O_RDONLY)
            except OSError:
                continue
            try:
                us = _pread_us(fd, off)
            finally:
                os.close(fd)
            if us > COLD_US:
                cold += 1
                clear += us > 100
                by_file[p] = by_file.get(p, 0) + 1
                slow.append(us)
        top = sorted(by_file.items(), key=lambda kv: -kv[1])[:6]
        say(
            "PageScan",
            f"seat {view[0]}: {len(files)} files, {len(pages)} pages, {cold} cold reads (> {COLD_US} us; {clear} > 100 us) in {len(by_file)} files "
            f"in {time.perf_counter() - t0:.1f} s; median cold {statistics.median(slow) if slow else 0:.0f} us; top {[(os.path.basename(k), v) for k, v in top]}",
        )


LOG_FROM = 16 << 20  # past the 8 MiB a host's warm reads (WILLNEED stops at read_ahead_kb)


def log_pages(start: int = LOG_FROM, stride: int = 256 << 10) -> list[tuple[str, int]]:
    """Pages past the first 16 MiB of the large files a game can read, 256 KiB apart,
    each with cold pages before it (so a read of it is a random read: that page alone,
    no read-ahead), .so files left out (an import maps some of theirs)."""
    out = []
    for p in shown_files():
        with contextlib.suppress(OSError):
            size = os.path.getsize(p)
            if size > start + stride and ".so" not in os.path.basename(p):
                out += [(p, off) for off in range(start, size - 4096, stride)]
    return out


class CacheHand8(Once):
    """Pass 7's set-then-read log, on the cold pages left in the narrowed view."""

    NAME = "CacheHand8"

    def attack(self, view):
        pages = log_pages()
        fds: dict[str, int] = {}

        def t(i: int) -> float:
            p, off = pages[i]
            if p not in fds:
                fds[p] = os.open(p, os.O_RDONLY)
            return _pread_us(fds[p], off)

        region = 19
        regions = len(pages) // region
        i, flags = 0, []
        while i < regions:
            us = t(i * region)
            flags.append(round(us, 1))
            if us > COLD_US:
                break
            i += 1
        if i >= regions:
            say(
                "CacheHand8",
                f"seat {view[0]}: no cold region left ({regions} regions of {len(pages)} pages in files over 2 MiB)",
            )
            return
        prev = None
        if i > 0:
            times = [t((i - 1) * region + 1 + b) for b in range(18)]
            prev = bits_hand([1 if us < COLD_US else 0 for us in times])
        hand = [min(c, 3) for c in view[7]]
        for b, bit in enumerate(hand_bits(hand)):
            if bit:
                t(i * region + 1 + b)
        say(
            "CacheHand8",
            f"seat {view[0]} reads region {i - 1}: {prev}; writes region {i}: {hand} ({regions} regions, {len(pages)} pages; flags {flags[-3:]})",
        )


# ------------------------------------------------- machine-wide counters and ids
SYS_STATX, SYS_TIMERFD, SYS_SIGNALFD4 = 332, 283, 289
SYS_STATMOUNT, SYS_LISTMOUNT, SYS_CLONE3 = 457, 458, 435
STATX_MNT_ID, STATX_MNT_ID_UNIQUE = 0x1000, 0x4000


def statx_mnt(path: str, mask: int) -> int:
    buf = ctypes.create_string_buffer(256)
    r = LIBC.syscall(SYS_STATX, -100, path.encode(), 0, mask, buf)
    if r != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return int.from_bytes(buf.raw[144:152], "little")  # stx_mnt_id


def _ino_of(make) -> list[int]:
    out = []
    for _ in range(3):
        fd = make()
        out.append(os.fstat(fd).st_ino)
        os.close(fd)
    return out


def _timerfd() -> int:
    fd = LIBC.syscall(SYS_TIMERFD, 1, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "timerfd")
    return fd


def _signalfd() -> int:
    mask = ctypes.c_uint64(1 << 9)
    fd = LIBC.syscall(SYS_SIGNALFD4, -1, ctypes.byref(mask), 8, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "signalfd")
    return fd


def _ptmx() -> int:
    return os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)


def _epoll() -> int:
    import select

    e = select.epoll()
    fd = os.dup(e.fileno())
    e.close()
    return fd


def _tmpfile() -> int:
    return os.open("/tmp/hp8-ino", os.O_RDWR | os.O_CREAT, 0o600)


def _listmount() -> str:
    # struct mnt_id_req {u32 size; u32 spare; u64 mnt_id; u64 param; u64 mnt_ns_id}
    req = (ctypes.c_uint64 * 4)()
    req[0] = 32  # size (the low word), spare 0
    req[1] = (1 << 64) - 1 if False else 0xFFFFFFFFFFFFFFFF  # LSMT_ROOT
    ids = (ctypes.c_uint64 * 64)()
    n = LIBC.syscall(SYS_LISTMOUNT, req, ids, 64, 0)
    if n < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return f"{n} mounts, ids {list(ids[:n])[:12]}"


class Probe8(Once):
    """Ids and counters a game can read: inode numbers of everything it can make, mount
    ids (old and unique), listmount, clone3, /dev, /proc, rlimits."""

    NAME = "Probe8"

    def attack(self, view):
        import resource

        out = [
            _try("proc", lambda: os.listdir("/proc")),
            _try("root", lambda: sorted(os.listdir("/"))),
            _try("dev", lambda: sorted(os.listdir("/dev"))),
            _try("dev/pts", lambda: sorted(os.listdir("/dev/pts"))),
            _try("epoll inos", lambda: _ino_of(_epoll)),
            _try("timerfd inos", lambda: _ino_of(_timerfd)),
            _try("signalfd inos", lambda: _ino_of(_signalfd)),
            _try("ptmx inos", lambda: _ino_of(_ptmx)),
            _try("tmpfs inos", lambda: [_ino_of(_tmpfile), os.unlink("/tmp/hp8-ino")][0]),
            _try("fd 0-2 inos", lambda: [os.fstat(i).st_ino for i in range(3)]),
            _try(
                "mnt ids /, /tmp, /usr, stdlib",
                lambda: [statx_mnt(p, STATX_MNT_ID) for p in ("/", "/tmp", "/dev", STDLIB)],
            ),
            _try(
                "unique mnt ids",
                lambda: [
                    hex(statx_mnt(p, STATX_MNT_ID_UNIQUE)) for p in ("/", "/tmp", "/dev", STDLIB)
                ],
            ),
            _try("listmount", _listmount),
            _try(
                "clone3",
                lambda: (LIBC.syscall(SYS_CLONE3, None, 0), os.strerror(ctypes.get_errno())),
            ),
            _try("sigpending rlimit", lambda: resource.getrlimit(resource.RLIMIT_SIGPENDING)),
            _try("memlock rlimit", lambda: resource.getrlimit(resource.RLIMIT_MEMLOCK)),
            _try(
                "statvfs / /tmp stdlib",
                lambda: [(s.f_bfree, s.f_ffree) for s in map(os.statvfs, ("/", "/tmp", STDLIB))],
            ),
            _try("cpu", lambda: (os.sched_getaffinity(0), os.cpu_count())),
        ]
        say("Probe8", f"seat {view[0]}: " + "; ".join(out))


# ------------------------------------------------- the machine's count of pending signals
class Sigevent(ctypes.Structure):
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("pad", ctypes.c_byte * 48),
    ]


SIGEV_NONE = 1


def make_timers(most: int) -> list[ctypes.c_void_p]:
    """POSIX timers until refused (each holds a preallocated signal, charged to the user's
    RLIMIT_SIGPENDING at every user-namespace level up to the machine's)."""
    ev = Sigevent(None, 10, SIGEV_NONE)
    out = []
    while len(out) < most:
        tid = ctypes.c_void_p()
        if LIBC.timer_create(1, ctypes.byref(ev), ctypes.byref(tid)) != 0:
            break
        out.append(tid)
    return out


def free_timers(timers) -> None:
    for tid in timers:
        LIBC.timer_delete(tid)


class SigCount(Once):
    """How many POSIX timers a game may create: its sandbox's bound, or the machine's
    (root's RLIMIT_SIGPENDING, shared by every root process and sandbox)?"""

    NAME = "SigCount"

    def attack(self, view):
        t = time.perf_counter()
        timers = make_timers(200000)
        n = len(timers)
        err = os.strerror(ctypes.get_errno())
        dt = time.perf_counter() - t
        free_timers(timers)
        again = make_timers(200000)
        m = len(again)
        free_timers(again)
        say(
            "SigCount",
            f"seat {view[0]}: made {n} timers in {dt:.2f} s then refused ({err}); again {m}",
        )


SIG_STEP = 500  # timers a symbol step
SIG_BASE = 20000  # timers held under every symbol
SIG_TURNS = 4  # symbols sent (each read costs ~0.7 s of making and freeing timers)


class SigColluder(Planner):
    """Two sandboxes of one game: at each decision, free what it held, count the timers it
    can make until refused (the machine's free count of root's pending signals, less what
    the other colluder holds), then hold SIG_BASE + SIG_STEP x symbol timers until its next
    decision (symbol = its opening hand's count of card type k, at its k-th decision)."""

    def decide(self, view):
        step = getattr(self, "_step", 0)
        self._step = step + 1
        try:
            self._turn(view, step)
        except Exception as exc:
            say("SigColluder", f"blocked: {type(exc).__name__} {exc}")
        return super().decide(view)

    def _turn(self, view, step):
        if step == 0:
            self._hand = [min(c, 3) for c in view[7]]
            self._held, self._free, self._t = [], [], 0.0
            say("SigColluder", f"seat {view[0]} publishes {self._hand}")
        if step > SIG_TURNS:
            return
        free_timers(self._held)
        self._held = []
        t = time.perf_counter()
        probe = make_timers(10**6)
        self._free.append(len(probe))
        free_timers(probe)
        self._t += time.perf_counter() - t
        if step < SIG_TURNS:
            self._held = make_timers(SIG_BASE + SIG_STEP * self._hand[step])
        if step == SIG_TURNS:
            top = max(self._free)
            read = [round((top - f - SIG_BASE) / SIG_STEP) for f in self._free]
            say(
                "SigColluder",
                f"seat {view[0]} reads (the other's symbol at each of its turns): {read}; free counts {self._free}; {self._t:.2f} s reading",
            )


# ------------------------------------------------- honest strategies' modules
HONEST = (
    "numpy", "threading", "tempfile", "json", "re", "decimal", "fractions", "collections",
    "itertools", "random", "statistics", "math", "heapq", "dataclasses", "typing",
    "functools", "bisect", "array", "struct", "pickle", "copy", "enum", "abc", "operator",
    "string", "textwrap", "datetime", "time", "zoneinfo", "calendar", "hashlib", "hmac",
    "secrets", "base64", "binascii", "zlib", "gzip", "bz2", "lzma", "csv", "io", "logging",
    "warnings", "contextlib", "pathlib", "glob", "fnmatch", "shutil", "sqlite3", "ctypes",
    "ssl", "uuid", "unicodedata", "locale", "gettext", "argparse", "pprint", "weakref",
    "queue", "sched", "concurrent.futures", "asyncio", "multiprocessing", "subprocess",
    "signal", "platform", "sysconfig", "importlib.metadata", "importlib.resources",
    "inspect", "dis", "ast", "traceback", "unittest", "doctest", "pydoc", "timeit",
    "cProfile", "profile", "pstats", "tracemalloc", "numbers", "cmath", "graphlib",
    "difflib", "tomllib", "xml.etree.ElementTree", "html", "email", "urllib.parse",
    "http.client", "socket", "select", "selectors", "mmap", "resource", "curses",
    "readline", "dbm", "shelve", "codecs", "encodings.idna", "turtle", "tkinter", "lib2to3",
)  # fmt: skip


class Honest8(Once):
    """An honest strategy's imports and tools: which standard modules fail, and what
    numpy, threads, tempfile, zoneinfo and the rest do."""

    NAME = "Honest8"

    def attack(self, view):
        import importlib

        failed = []
        for name in HONEST:
            try:
                importlib.import_module(name)
            except BaseException as exc:
                failed.append(f"{name} ({type(exc).__name__}: {str(exc)[:80]})")
        out = [f"{len(HONEST) - len(failed)} of {len(HONEST)} modules import; failed: {failed}"]
        checks = {
            "numpy": lambda: int(__import__("numpy").linalg.inv(__import__("numpy").eye(3)).sum()),
            "numpy rng": lambda: float(__import__("numpy").random.default_rng(1).random()),
            "threads": lambda: _threads(),
            "pool": lambda: _pool(),
            "tempfile": lambda: _tempfile(),
            "decimal": lambda: str(__import__("decimal").Decimal(1) / 7),
            "fractions": lambda: str(__import__("fractions").Fraction(3, 6)),
            "statistics": lambda: __import__("statistics").mean([1, 2, 4]),
            "random": lambda: __import__("random").Random(3).random(),
            "json": lambda: __import__("json").dumps({"a": [1, 2]}),
            "re": lambda: __import__("re").findall(r"\d+", "a12b3"),
            "zoneinfo": lambda: str(__import__("zoneinfo").ZoneInfo("Europe/Paris")),
            "localtime": lambda: time.strftime("%Z", time.localtime()),
            "sqlite": lambda: (
                __import__("sqlite3").connect(":memory:").execute("select 1+1").fetchone()
            ),
            "hashlib": lambda: __import__("hashlib").sha256(b"x").hexdigest()[:8],
            "cpu_count": lambda: os.cpu_count(),
            "getpass/home": lambda: os.path.expanduser("~"),
            "locale": lambda: __import__("locale").getpreferredencoding(),
            "mp pool": lambda: _mp(),
        }
        out += [_try(k, f) for k, f in checks.items()]
        say("Honest8", f"seat {view[0]}: " + "; ".join(out))


def _threads():
    import threading

    done = []
    ts = [threading.Thread(target=lambda: done.append(1)) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(done)


def _pool():
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as ex:
        return sum(ex.map(abs, [-1, -2, -3]))


def _tempfile():
    import tempfile

    with tempfile.NamedTemporaryFile() as f:
        f.write(b"x" * 100000)
        f.flush()
        with tempfile.TemporaryDirectory() as d:
            return f"{f.name} {os.path.getsize(f.name)} {d}"


def _mp():
    import multiprocessing

    with multiprocessing.Pool(1) as p:
        return p.map(abs, [-3])


# ------------------------------------------------- mounts: statmount and listmount of other namespaces
def _req(mnt_id: int, param: int = 0, ns_id: int = 0) -> ctypes.Array:
    req = (ctypes.c_uint64 * 4)()
    req[0] = 32  # size 32 (version 1, with mnt_ns_id), mnt_ns_fd 0
    req[1], req[2], req[3] = mnt_id, param, ns_id
    return req


def statmount_ns(mnt_id: int) -> tuple[int, int]:
    """(mnt_ns_id, parent's unique id) of a mount of its own namespace."""
    buf = ctypes.create_string_buffer(4096)
    r = LIBC.syscall(SYS_STATMOUNT, _req(mnt_id, 0x40), buf, 4096, 0)  # STATMOUNT_MNT_NS_ID
    if r != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    raw = buf.raw
    return int.from_bytes(raw[112:120], "little"), int.from_bytes(raw[48:56], "little")


class MountProbe(Once):
    """Its own mount namespace's id (a machine-wide sequence) and whether listmount and
    statmount reach any other namespace (another sandbox's binds name its strategy's
    folder)."""

    NAME = "MountProbe"

    def attack(self, view):
        own_root = statx_mnt("/", STATX_MNT_ID_UNIQUE)
        ns_id, _ = statmount_ns(own_root)
        results: dict[str, int] = {}
        hits = []
        for k in range(-300, 301):
            if k == 0:
                continue
            ids = (ctypes.c_uint64 * 8)()
            n = LIBC.syscall(SYS_LISTMOUNT, _req(0xFFFFFFFFFFFFFFFF, 0, ns_id + k), ids, 8, 0)
            key = "ok" if n >= 0 else os.strerror(ctypes.get_errno())
            results[key] = results.get(key, 0) + 1
            if n >= 0:
                hits.append((k, n))
        foreign = []
        for mid in range(own_root - 400, own_root + 400):  # mounts of other namespaces by id
            buf = ctypes.create_string_buffer(512)
            if LIBC.syscall(SYS_STATMOUNT, _req(mid), buf, 512, 0) == 0:
                foreign.append(mid - own_root)
        say(
            "MountProbe",
            f"seat {view[0]}: own mnt ns id {ns_id:#x}, root mount {own_root:#x}; listmount of ns id +-300: {results}, hits {hits[:5]}; statmount by id within +-400 of its root: {len(foreign)} answered (offsets {foreign[:8]}...)",
        )


# ------------------------------------------------- the CPU: slow a rival that thinks on the clock
class Timed(Planner):
    """A rival that reports its own decisions' wall time (sum, max, count) at its last."""

    def decide(self, view):
        t = time.perf_counter()
        out = super().decide(view)
        dt = time.perf_counter() - t
        self._n = getattr(self, "_n", 0) + 1
        self._sum = getattr(self, "_sum", 0.0) + dt
        self._max = max(getattr(self, "_max", 0.0), dt)
        if self._n % 20 == 0:
            say(
                "Timed",
                f"seat {view[0]}: {self._n} decisions, {self._sum * 1000:.0f} ms in all, longest {self._max * 1000:.1f} ms",
            )
        return out


class Hog(Once):
    """Threads (its bound, 64 with the first) that spin for the whole game, while its rival
    thinks too."""

    NAME = "Hog"

    def attack(self, view):
        import threading

        def spin():
            while True:
                pass

        n = 0
        for _ in range(63):
            try:
                threading.Thread(target=spin, daemon=True).start()
                n += 1
            except RuntimeError:
                break
        say("Hog", f"seat {view[0]}: {n} spinning threads")


class Idle(Once):
    """The control: a planner with nothing to do at its first decision."""

    NAME = "Idle"

    def attack(self, view):
        pass


class SigHold(Planner):
    """Hold every pending signal root's processes may queue (timers until refused) for the
    whole game: does its rival, its host or the run notice?"""

    def decide(self, view):
        if not hasattr(self, "_held"):
            self._held = make_timers(10**6)
            say("SigHold", f"seat {view[0]}: holding {len(self._held)} timers for the game")
        return super().decide(view)


class DentFlood(Once):
    """Kernel memory outside every limit: negative dentries, one a lookup of a new name in a
    shared folder, for FLOOD_SECONDS (the game's CPU limit allows 300 s)."""

    NAME = "DentFlood"
    FLOOD_SECONDS = 2.0

    def attack(self, view):
        tag = os.urandom(4).hex()
        end = time.perf_counter() + self.FLOOD_SECONDS
        n = 0
        while time.perf_counter() < end:
            for _ in range(1000):
                try:
                    os.stat(f"{STDLIB}/.flood-{tag}-{n}")
                except OSError:
                    pass
                n += 1
        say("DentFlood", f"seat {view[0]}: {n} new names looked up in {self.FLOOD_SECONDS} s")
